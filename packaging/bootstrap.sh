#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for Shardwise and runs it or its tests.
#   packaging/bootstrap.sh run    install what is missing, build (release), start the app
#   packaging/bootstrap.sh test   install what is missing, build (ci: warnings are errors), run every test
#   packaging/bootstrap.sh list run|test   print the Debian packages that mode installs, one a line
# Run as root (or with sudo) the first time so missing Debian packages can be installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-run}"
shift || true
list_only=false
if [[ "$mode" == list ]]; then
    list_only=true
    mode="${1:-run}"
    shift || true
fi
if [[ "$mode" != run && "$mode" != test ]]; then
    echo "usage: $0 run|test [extra arguments] | $0 list run|test" >&2
    exit 2
fi

# What building and running Shardwise needs, as Debian 12 package names: the toolchain (ccache: the
# presets' compiler launcher), the libraries the app, the CLI and the CPU runner link, Qt's
# translations, and python3 with torch for the PyTorch backend. Nothing only a test starts or checks.
packages=(
    build-essential cmake ninja-build ccache pkg-config
    nlohmann-json3-dev libsqlite3-dev libssh2-1-dev openssh-client libyaml-cpp-dev libtomlplusplus-dev
    libtorch-dev libgloo-dev
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools
    qt6-l10n-tools qt6-translations-l10n libgl-dev libxkbcommon-dev libqt6opengl6-dev
    python3 python3-torch
)
# What only the tests start or check: real sshd instances on loopback, the sqlite3 shell, the
# sanitizer preset's compiler, the package and desktop-file checks, YAML parsing of exported configs,
# clang-format, clang-tidy and git for the style check of changed lines (tests/style/check_changed.sh),
# groff to render the generated man page and zsh to run the generated completion (test_cli_completion).
if [[ "$mode" == test ]]; then
    packages+=(
        openssh-server sqlite3 git
        clang libclang-rt-14-dev clang-format clang-tidy
        desktop-file-utils appstream dpkg-dev librsvg2-bin
        python3-yaml groff-base zsh
    )
fi
if $list_only; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    echo "shardwise: installing missing Debian packages: ${missing[*]}" >&2
    if [[ $(id -u) -ne 0 ]]; then
        echo "shardwise: run as root (or via sudo) to install them" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs="$(nproc)"
case "$mode" in
run)
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$jobs"
    if [[ -x build/release/bin/shardwise ]] && [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}${QT_QPA_PLATFORM:-}" ]]; then
        exec build/release/bin/shardwise "$@"
    fi
    # Without a display (or before the GUI is built): the planner on the default example.
    exec build/release/bin/shardwise-cli plan --model qwen2.5-3b --gpu h200 --gpus-per-node 1 --nodes 1 \
        --interconnect nvlink --seq 2048 --micro-batch 1 "$@"
    ;;
test)
    # Here everything the tests start is installed: a test that skips for want of it (sshd, the
    # runner, lupdate, python3 with torch) fails instead; only a missing GPU is a skip.
    cmake --preset ci -DSHARDWISE_REQUIRE_ALL=ON
    cmake --build --preset ci -j "$jobs"
    ctest --preset ci --parallel "$jobs" "$@"
    ;;
*)
    echo "usage: $0 run|test [extra arguments]" >&2
    exit 2
    ;;
esac
