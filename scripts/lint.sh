#!/bin/sh
# scripts/lint.sh -- static analysis of ukcov's C: cppcheck and clang-tidy
# (the repository's .clang-tidy; tests/.clang-tidy for the tests) on every
# file of lib/, tools/ and the tests, each with the flags it is built with.
#
#   scripts/lint.sh            every file; "make lint" runs this
#   scripts/lint.sh FILE...    only these files (paths from the top)
#
# Prints "ok TOOL FILE" or "not ok TOOL FILE: FINDINGS" per tool and
# file, then "N passed, N failed"; exits non-zero on any finding.
# tests/suites.d/05-lint.sh runs it in "make test".  The tools come from
# scripts/deps.sh (cppcheck, clang-tidy-14).  Without FILE arguments it
# also runs scripts/check-static.sh on the objects in $B (default build,
# which "make all" made): a single-file internal that is not static is
# one failure, "not ok check-static:" with the offenders; and
# scripts/layers.py (lib/layers.txt): an upward call between lib/ files
# or an internal use of an interposed libc name is one failure; and
# scripts/check-env.sh: an environment variable in no man page is one;
# and scripts/format-check.py: a line changed against main's merge-base
# that clang-format (.clang-format) would write otherwise is one; and a
# merge conflict marker in a tracked file is one.  LINT_JOBS (default:
# the number of CPUs) clang-tidy processes run at once.
#
# Run from the top of the tree.  Writes only under a mktemp -d directory.
set -u
CLANG_TIDY=${CLANG_TIDY:-$(command -v clang-tidy-14 || command -v clang-tidy || echo clang-tidy-14)}
JOBS=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
W=$(mktemp -d "${TMPDIR:-/tmp}/ukcov-lint.XXXXXX")
trap 'rm -rf "$W"' EXIT

# flags FILE: the compiler flags FILE is built with (lib/lib.mk,
# tools/tools.mk, tests/core/core.mk, tests/suites.d/50-tool.sh, ...).
flags() {
    case $1 in
    lib/*) echo "-std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib" ;;
    tools/*) echo "-std=gnu11 -D_GNU_SOURCE -Iinclude $(pkg-config --cflags libdw 2>/dev/null)" ;;
    tests/core/targets/*) echo "-std=gnu11 -Iinclude -Itests/core -DTARGET_HAS_CMP=1" ;;
    tests/core/*) echo "-std=gnu11 -Iinclude -Itests/core" ;;
    tests/tool/fuzz/*|tests/tool/x86len_check.c|tests/tool/sha1_check.c) echo "-std=gnu11 -D_GNU_SOURCE -Iinclude -Itools" ;;
    *) echo "-std=gnu11 -Iinclude" ;;
    esac
}

if [ $# -gt 0 ]; then
    files=$*
else
    files=$(ls lib/*.c tools/*.c tests/core/*.c tests/core/targets/*.c \
        tests/tool/fuzz/*.c tests/tool/x86len_check.c tests/tool/sha1_check.c tests/tool/src/*.c \
        tests/install/*.c tests/afl/*.c 2>/dev/null |
        grep -v -x tests/tool/src/nested.c)	# GNU C nested functions: gcc only
fi

pass=0 fail=0
report() {  # tool file output-file
    if [ -s "$3" ]; then
        echo "not ok $1 $2:"
        grep -E "(warning|error):" "$3" | sed "s|^$PWD/||; s/^/    /" | head -40
        fail=$((fail + 1))
    else
        echo "ok $1 $2"
        pass=$((pass + 1))
    fi
}

missing=
for tool in cppcheck "$CLANG_TIDY"; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    echo "not ok lint: not installed:$missing (run scripts/deps.sh as root)"
    echo "0 passed, 1 failed"
    exit 1
fi

# clang-tidy is the slow one: run it on JOBS files at once, each file's
# findings (warnings, errors and their notes) into its own file.
n=0
for f in $files; do
    n=$((n + 1))
    printf '%s\t%s\t%s\n' "$n" "$f" "$(flags "$f")"
done >"$W/list"
# shellcheck disable=SC2016
tr '\n' '\0' <"$W/list" | xargs -0 -P "$JOBS" -n 1 sh -c '
    n=$(echo "$1" | cut -f1) f=$(echo "$1" | cut -f2) fl=$(echo "$1" | cut -f3)
    "$0" --quiet --warnings-as-errors="*" "$f" -- $fl >"'"$W"'/tidy.$n" 2>&1 ||
        echo "error: clang-tidy exited with status $?" >>"'"$W"'/tidy.$n"
    # Keep the findings, not the "N warnings generated" chatter.
    grep -v -E "^[0-9]+ (warning|error)s? (generated|treated as errors)\.?$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing" \
        "'"$W"'/tidy.$n" >"'"$W"'/tidy.$n.f"
    if ! grep -q -E "(warning|error):" "'"$W"'/tidy.$n.f"; then : >"'"$W"'/tidy.$n.f"; fi
' "$CLANG_TIDY"

while IFS="$(printf '\t')" read -r n f fl; do
    # cppcheck takes the -D and -I flags; its own --std replaces -std.
    # shellcheck disable=SC2086
    cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
        --inline-suppr --std=c11 $(echo "$fl" | sed 's/-std=[^ ]*//') "$f" \
        >"$W/cpp.$n" 2>&1
    report cppcheck "$f" "$W/cpp.$n"
    report clang-tidy "$f" "$W/tidy.$n.f"
done <"$W/list"

# tree_check NAME TEXT CMD...: one verdict for a check of the whole
# tree; on failure, CMD's "not ok" and continuation lines, indented.
tree_check() {
    name=$1 text=$2
    shift 2
    if "$@" >"$W/$name" 2>&1; then
        echo "ok $name${text:+ $text}"
        pass=$((pass + 1))
    else
        echo "not ok $name:"
        grep -E '^(not ok |    )' "$W/$name" | sed -E 's/^not ok (static |format )?/    /'
        fail=$((fail + 1))
    fi
}

# No merge conflict left in a tracked file (one was, in a doc).
conflict_free() {
    git rev-parse --git-dir >/dev/null 2>&1 || return 0
    if git grep -nE '^(<<<<<<< |>>>>>>> |=======$)' -- . ':!scripts/lint.sh' >"$W/markers"; then
        sed 's/^/not ok conflict marker /' "$W/markers"
        return 1
    fi
}

if [ $# -eq 0 ]; then
    tree_check check-static "lib/ tools/" scripts/check-static.sh "${B:-build}"
    # The lines this branch changes follow .clang-format.
    tree_check format "(lines changed against the base)" scripts/format-check.py
    # Every environment variable lib/ and tools/ read is in a man page.
    tree_check env-documented "lib/ tools/" scripts/check-env.sh
    tree_check no-conflict-markers "" conflict_free
    # lib/ calls only downward, and only interpose.c and exec.c name
    # the libc functions libukcov exports (scripts/layers.py).
    tree_check layers "lib/" scripts/layers.py "${B:-build}"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
