#!/bin/sh
# scripts/format-check.py, which "make lint" runs on the lines a branch
# changes: in a scratch repository with the tree's .clang-format, a
# changed line that clang-format would write otherwise fails with its
# file and line, and the tree's tab before a trailing block comment
# (which clang-format 14 cannot keep) passes.
. tests/lib.sh
TOP=$(pwd)
command -v git >/dev/null && { command -v clang-format-14 || command -v clang-format; } >/dev/null ||
    { echo "skipped format: git or clang-format missing (scripts/deps.sh)"; summary; exit; }

R=$T/repo
mkdir -p "$R/lib" && cp .clang-format "$R/" && cd "$R" || exit 1
git init -q && git config user.email t@example.org && git config user.name t
printf 'int f(int x)\n{\n\treturn x;\n}\n' >lib/f.c
git add -A && git commit -qm base && base=$(git rev-parse HEAD)

# run NAME WANT-STATUS WANT-LINE [FILE...]: format-check.py (on the
# changed files, or FILE...) prints WANT-LINE and exits WANT-STATUS.
run() {
    n=$1 want=$2 line=$3
    shift 3
    FORMAT_BASE=$base "$TOP/scripts/format-check.py" "$@" >"$T/out" 2>&1
    st=$?
    if [ "$st" -eq "$want" ] && grep -q -x -F "$line" "$T/out"; then ok "format/$n"; else
        bad "format/$n" "status $st: $(tr '\n' ' ' <"$T/out")"; fi
}
printf 'int f(int x)\n{\n\treturn x;\t/* the tree: a tab */\n}\n' >lib/f.c
run tab-before-comment 0 "ok format lib/f.c"
printf 'int f(int x)\n{\n\tif (x) return x+1;\n\treturn x;\n}\n' >lib/f.c
run misformatted 1 "not ok format lib/f.c:3: clang-format writes: if (x) / return x + 1;"
git checkout -q lib/f.c
run unchanged 0 "ok format lib/f.c (unchanged)" lib/f.c
summary
