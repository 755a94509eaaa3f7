#!/usr/bin/env bash
# The Compare page with 30 runs, offscreen, light and dark: a new run store with the 28 example runs
# shipped with Shardwise (NVIDIA H200) and two runs of the tiny model measured here on the CPU (two
# ranks, Gloo), so that the charts show two hardware sections. Writes
# docs/screenshots/compare-30{,-dark}.png (the page at 1400 x 900) and
# docs/screenshots/compare-30-charts{,-dark}.png (its charts whole, as high as their rows need) in
# English, and the page in German and Japanese: compare-30-{de,ja}{,-dark}.png (Japanese only where
# fontconfig knows a Japanese font, e.g. Debian's fonts-noto-cjk).
#   docs/screenshots/compare-30.sh [BUILD_DIR]     (default build/ci; needs shardwise, shardwise-cli
#                                                   and shardwise-runner built there)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin="${1:-build/ci}/bin"
for program in shardwise shardwise-cli shardwise-runner; do
    [[ -x "$bin/$program" ]] || { echo "compare-30.sh: $bin/$program is not built" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/runs.sqlite"

"$bin/shardwise-cli" runs import-examples --db "$db" >/dev/null
for strategy in zero1 fsdp2_reshard; do
    "$bin/shardwise-cli" run --local --ranks 2 --device cpu --model tiny --strategy "$strategy" --seq 64 \
        --warmup 1 --steps 3 --runner "$bin/shardwise-runner" --db "$db" >/dev/null
done
runs="$("$bin/shardwise-cli" runs list --db "$db" --format json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')"
[[ "$runs" -eq 30 ]] || { echo "compare-30.sh: the store holds $runs runs, not 30" >&2; exit 1; }

# Settings in a scratch home: the screenshots do not read or change the user's own.
languages=(en de)
if [[ -n "$(fc-list :lang=ja 2>/dev/null)" ]]; then
    languages+=(ja)
else
    echo "compare-30.sh: no Japanese font (fc-list :lang=ja); leaving the Japanese screenshots as they are" >&2
fi
for language in "${languages[@]}"; do
    HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" \
        QT_QPA_PLATFORM=offscreen "$bin/shardwise" --workspace "$db" --language "$language" \
        --screenshot "$work/shots-$language" >/dev/null
done
for variant in "" -dark; do
    cp "$work/shots-en/compare$variant.png" "docs/screenshots/compare-30$variant.png"
    cp "$work/shots-en/compare-charts$variant.png" "docs/screenshots/compare-30-charts$variant.png"
    for language in "${languages[@]:1}"; do
        cp "$work/shots-$language/compare$variant.png" "docs/screenshots/compare-30-$language$variant.png"
    done
done
echo "docs/screenshots/compare-30*.png: 30 runs"
