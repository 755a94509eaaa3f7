#!/usr/bin/env bash
# Every tracked C++ and CUDA source follows .clang-format as a whole (the tree is formatted: a file that
# drifts fails here, whichever commit changed it). check_changed.sh adds clang-tidy on changed lines.
#   tests/style/check_tree_format.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

clang_format="$(command -v clang-format-14 || command -v clang-format || true)"
if [[ -z "$clang_format" ]]; then
    echo "style: clang-format is not installed (Debian: apt-get install clang-format)" >&2
    exit 1
fi
if git rev-parse --git-dir >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.cu')
else
    mapfile -t files < <(find app bench core runner tests -name '*.cpp' -o -name '*.hpp' -o -name '*.cu')
fi
((${#files[@]})) || { echo "style: no C++ sources found" >&2; exit 1; }

# One clang-format process for the whole tree: each drifting line is reported as "<file>:<line>:...".
mapfile -t drifted < <(printf '%s\0' "${files[@]}" | xargs -0 "$clang_format" --dry-run 2>&1 |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: \(error\|warning\): code should be clang-formatted.*/\1/p' | sort -u)
if ((${#drifted[@]})); then
    echo "style: ${#drifted[@]} of ${#files[@]} source(s) differ from .clang-format; apply with:" >&2
    echo "  $clang_format -i ${drifted[*]}" >&2
    exit 1
fi
echo "style: all ${#files[@]} C++ and CUDA sources follow .clang-format ($("$clang_format" --version | head -1))"
