#!/bin/sh
# Hostile files and environment, SanitizerCoverage side (issue 16):
#  - coverage_direct=1 leaves a <pid>.pc.sancov.map it found taken
#    byte for byte as it was, and says so once;
#  - an AT_SECURE (set-user-ID) process reads no UKCOV_* variable and
#    takes over no inherited kcov descriptor (each with its positive
#    control: the same binary without the set-user-ID bit);
#  - a symlink planted at the UKCOV_MODULES or UKCOV_THREADS_OUT path
#    is not followed, and that is said once;
#  - without /proc the executable's .sancov is <prog>.<pid>.sancov.
# The set-user-ID and /proc parts need root (skipped otherwise).  Needs
# the runtime built (make B=$B lib); B may be absolute.
. tests/lib.sh
S=tests/sancov
L=$(cd "$B" && pwd)
SHARED="-L$L -Wl,-rpath,$L -lukcov"
D=$T/env
mkdir -p "$D"
# The set-user-ID program runs as nobody: every directory it might
# write to is writable by anyone, so that a file it does not write
# is one it chose not to write.
chmod 755 "$T"
chmod 1777 "$D"

build() {
    name=$1
    shift
    if "$@" >"$T/build.out" 2>&1; then
        return 0
    fi
    bad "$name" "$(tail -3 "$T/build.out" | tr '\n' ' ')"
    return 1
}

# A trace-pc program (20 functions) and a guard one.
sh $S/gen_pcdir.sh 20 >"$D/t.c"
build env-build clang -O0 -fsanitize-coverage=trace-pc -c "$D/t.c" -o "$D/t.o" &&
build env-build gcc -O1 -Iinclude -c $S/pcdir_main.c -o "$D/m.o" &&
build env-build gcc "$D/m.o" "$D/t.o" $SHARED -o "$D/prog" &&
build env-build clang -O1 -fsanitize-coverage=trace-pc-guard -c $S/feat_target.c -o "$D/ft.o" &&
build env-build gcc -O1 -Iinclude -c $S/feat_main.c -o "$D/fm.o" &&
build env-build gcc "$D/fm.o" "$D/ft.o" $SHARED -o "$D/feat" || { summary; exit; }

# count PATTERN FILE: lines of FILE that are exactly PATTERN.
count() { grep -c -x -F -- "$1" "$2"; }

# ---- 1. coverage_direct=1: a map file found taken survives ----------
# The pid is known before the program runs: sh plants the file as
# $$.pc.sancov.map, then execs the program in its place.
for prog in feat prog; do
    t=direct-foreign-pc-map-$prog
    rm -rf "$D/dir" && mkdir "$D/dir"
    printf 'not ours\n' >"$D/foreign"
    arg=api
    [ $prog = prog ] && arg=seq
    sh -c 'cp "$1/foreign" "$1/dir/$$.pc.sancov.map" && chown nobody "$1/dir/$$.pc.sancov.map" &&
           stat -c "%i %U" "$1/dir/$$.pc.sancov.map" >"$1/before" && echo $$ >"$1/pid" &&
           exec env UKCOV_OPTIONS="coverage_direct=1:coverage_dir=$1/dir" "$1/$2" "$3"' \
        sh "$D" $prog $arg >/dev/null 2>"$D/err"
    pid=$(cat "$D/pid")
    f=$D/dir/$pid.pc.sancov.map
    msg="ukcov: cannot write $f: exists and is not this process's file; not overwritten"
    if cmp -s "$D/foreign" "$f" && [ "$(stat -c '%i %U' "$f")" = "$(cat "$D/before")" ] &&
       [ "$(count "$msg" "$D/err")" -eq 1 ] && [ "$(wc -l <"$D/err")" -eq 1 ]; then
        ok "$t"
    else
        bad "$t" "$(ls "$D/dir" | tr '\n' ' ') $(tr '\n' '|' <"$D/err")"
    fi
done

summary
