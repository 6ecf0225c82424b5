#!/bin/sh
# scripts/check-static.sh -- single-file internals must be static.
#
#   scripts/check-static.sh [BUILD_DIR]     (default: build)
#
# A global symbol that one object of lib/ (or tools/) defines and no
# other object of the same program references is an internal of one
# translation unit: it must be `static` (docs/STYLE of the project;
# issue 6, "Drift").  Exceptions are what leaves the program on purpose:
# for lib/, the symbols lib/libukcov.map exports; for tools/, main and
# the functions the fuzz harnesses (tests/tool/fuzz/*.c) and the test
# programs built from tool objects (tests/tool/*.c) call.
#
# Reads the objects "make all" built (nm); prints "not ok static OBJ SYM"
# per offender, then "N passed, N failed"; exits non-zero on any.
# "make lint" runs it after scripts/lint.sh.
set -u
B=${1:-build}
W=$(mktemp -d "${TMPDIR:-/tmp}/ukcov-static.XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0 fail=0

# check NAME ALLOWED-FILE OBJ...: one program's objects.
check() {
    name=$1 allowed=$2
    shift 2
    for o in "$@"; do
        if [ ! -f "$o" ]; then
            echo "not ok static $name: $o missing (run make all first)"
            fail=$((fail + 1))
            return
        fi
    done
    # "OBJ SYM" for every defined global, and for every reference.
    nm -A -g --defined-only "$@" | awk '{ sub(/:.*/, "", $1); print $1, $NF }' \
        | sort -u >"$W/def"
    nm -A -u "$@" | awk '{ sub(/:.*/, "", $1); print $1, $NF }' \
        | sort -u >"$W/ref"
    # Offenders: defined in one object, referenced by none other.
    awk -v allowed="$allowed" '
        BEGIN { while ((getline s < allowed) > 0) ok[s] = 1 }
        FILENAME == ARGV[1] { refs[$2] = refs[$2] " " $1 " "; next }
        {
            if ($2 in ok) next
            r = refs[$2]
            gsub(" " $1 " ", "", r)
            if (r !~ /[^ ]/) print $1, $2
        }' "$W/ref" "$W/def" >"$W/bad.$name"
    n=$(wc -l <"$W/def")
    nbad=$(wc -l <"$W/bad.$name")
    while read -r o s; do
        echo "not ok static $o $s: used only in this object; make it static"
    done <"$W/bad.$name"
    pass=$((pass + n - nbad))
    fail=$((fail + nbad))
}

# lib/: the shared runtime's objects (lib/lib.mk SO_OBJS + callbacks.o),
# and what goes into the executable: afl_mark.o's string (named by
# ukcov-cc's -u) and the driver's main (libukcov_fuzzer.a).
{ sed -n '/global:/,/local:/p' lib/libukcov.map | sed 's|/\*.*\*/||' \
    | tr ' ;\t' '\n\n\n' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$'
  printf '%s\n' __ukcov_afl_mark main; } >"$W/lib.allowed"
check lib "$W/lib.allowed" $(ls "$B"/lib/*.o | grep -v -E '/(follow|callbacks-only)\.o$')

# tools/: ukcov's objects; main, and what the fuzz harnesses and the
# tool's test programs call.
{ echo main; cat tests/tool/fuzz/*.c tests/tool/*.c 2>/dev/null | tr -c 'A-Za-z0-9_' '\n'; } \
    | grep -E '^[A-Za-z_]' | sort -u >"$W/tools.allowed"
check tools "$W/tools.allowed" "$B"/tools/*.o

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
