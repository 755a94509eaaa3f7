#!/usr/bin/env bash
# The house style on what changed, never on untouched code: clang-format (.clang-format) on the C++
# lines changed since the base, and clang-tidy (.clang-tidy) on the C++ sources changed since it.
#   tests/style/check_changed.sh [BUILD_DIR]    (BUILD_DIR holds compile_commands.json for clang-tidy)
# The base: $SHARDWISE_STYLE_BASE if set, else the merge-base with origin/main, else the commit before
# HEAD (main itself, or a clone without that remote, checks its last commit); uncommitted changes count as changed.
# Lines nobody touched since the base are never checked (clang-tidy parses a changed file whole but
# reports only its changed lines). check_tree_format.sh checks the whole tree against .clang-format.
# SHARDWISE_TIDY_MAX_FILES (default 6) bounds clang-tidy's share of CI time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build_dir="${1:-}"

if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "style: not a git checkout; nothing to compare with"
    exit 0
fi
base="${SHARDWISE_STYLE_BASE:-}"
if [[ -z "$base" ]] && git rev-parse -q --verify origin/main >/dev/null; then
    base="$(git merge-base HEAD origin/main)"
    # On main itself (a fresh clone) the merge-base is HEAD: check the last commit instead.
    [[ "$(git rev-parse "$base")" != "$(git rev-parse HEAD)" ]] || base=""
fi
if [[ -z "$base" ]] && git rev-parse -q --verify HEAD~1 >/dev/null; then
    base="HEAD~1"
fi
if [[ -z "$base" ]]; then
    echo "style: a single commit and no origin/main: nothing to compare with"
    exit 0
fi

mapfile -t changed < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.hpp' | grep -v '^build/' || true)
echo "style: ${#changed[@]} C++ file(s) changed since $(git rev-parse --short "$base")"
((${#changed[@]})) || exit 0

status=0
git_clang_format="$(command -v git-clang-format || command -v git-clang-format-14 || true)"
clang_format="$(command -v clang-format || command -v clang-format-14 || true)"
if [[ -z "$git_clang_format" || -z "$clang_format" ]]; then
    echo "style: clang-format is not installed (Debian: apt-get install clang-format)" >&2
    exit 1
fi
# Only the changed lines: git-clang-format formats the diff's hunks, not whole files.
out="$("$git_clang_format" --binary "$clang_format" --diff --extensions cpp,hpp "$base" -- "${changed[@]}" 2>&1 || true)"
if grep -q '^@@' <<<"$out"; then
    echo "style: changed lines differ from .clang-format; apply with: git clang-format $base" >&2
    echo "$out" >&2
    status=1
else
    echo "style: clang-format: the changed lines follow .clang-format"
fi

clang_tidy="$(command -v clang-tidy || command -v clang-tidy-14 || true)"
if [[ -n "$build_dir" && -f "$build_dir/compile_commands.json" ]]; then
    if [[ -z "$clang_tidy" ]]; then
        echo "style: clang-tidy is not installed (Debian: apt-get install clang-tidy)" >&2
        exit 1
    fi
    max="${SHARDWISE_TIDY_MAX_FILES:-6}"
    checked=0
    for f in "${changed[@]}"; do
        [[ "$f" == *.cpp ]] || continue
        grep -q "\"file\": \"$PWD/$f\"" "$build_dir/compile_commands.json" || continue
        if ((checked >= max)); then
            echo "style: clang-tidy stopped after $max files (SHARDWISE_TIDY_MAX_FILES)"
            break
        fi
        # Diagnostics only on the lines changed since the base (-line-filter), as for clang-format.
        ranges="$(git diff -U0 "$base" -- "$f" | sed -n 's/^@@ [^+]*+\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
            awk '{n = ($2 == "" ? 1 : $2); if (n > 0) printf "%s[%d,%d]", (c++ ? "," : ""), $1, $1 + n - 1}')"
        [[ -n "$ranges" ]] || continue
        checked=$((checked + 1))
        # GCC's warning flags in the compile commands mean nothing to clang: not errors here.
        if ! tidy_out="$("$clang_tidy" -p "$build_dir" --quiet --line-filter="[{\"name\":\"$f\",\"lines\":[$ranges]}]" \
            --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error "$f" 2>/dev/null)"; then
            # clang cannot compile some GCC-built system headers (LibTorch's c10::IValue under
            # libstdc++ 12); errors only there say nothing about this file's lines, and are named.
            if grep -qE "^($PWD/)?[^/:][^:]*:[0-9]+:[0-9]+: (error|warning):|^$PWD/[^:]+:[0-9]+:[0-9]+: (error|warning):" \
                <<<"$tidy_out"; then
                printf '%s\n' "$tidy_out" >&2
                echo "style: clang-tidy finds errors on the changed lines of $f (checks in .clang-tidy)" >&2
                status=1
            else
                echo "style: clang-tidy could not parse system headers included by $f" \
                    "($(grep -cE ': error:' <<<"$tidy_out") errors, none in the repository); its lines are unchecked"
            fi
        fi
    done
    echo "style: clang-tidy checked $checked file(s)"
fi
exit $status
