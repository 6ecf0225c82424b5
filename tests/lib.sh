# tests/lib.sh -- what every shell test suite shares.  Source it from a
# suite in tests/suites.d: it sets B (the build directory) and T (a
# scratch directory removed at exit), counts results, and `summary`
# prints the closing line "N passed, N failed" and sets the exit status.
B=${B:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "not ok $1: $2"; fail=$((fail + 1)); }
# check NAME CMD...: passes when CMD succeeds; else shows its last lines.
check() {
    name=$1
    shift
    if "$@" >"$T/check.out" 2>&1; then
        ok "$name"
    else
        bad "$name" "$(tail -3 "$T/check.out" | tr '\n' ' ')"
    fi
}
summary() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
# run_core DIR PREFIX VARIANT [ENV...]: one core test binary (tests/core)
# run with the environment ENV; its tests count one by one, its lines
# are printed with PREFIX before the variant's name.
run_core() {
    rc_dir=$1 rc_pfx=$2 rc_variant=$3
    shift 3
    if [ ! -x "$rc_dir/$rc_variant" ]; then
        bad "$rc_pfx$rc_variant" "$rc_dir/$rc_variant not built (make B=$B test-prep)"
        return
    fi
    env "$@" "$rc_dir/$rc_variant" --prefix "$rc_pfx$rc_variant/" >"$T/$rc_variant.out" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$rc_variant.out"
    rc_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$rc_variant.out" | tail -n 1)
    if [ -z "$rc_line" ]; then
        bad "$rc_pfx$rc_variant" "no summary line (crashed?)"
        return
    fi
    set -- $rc_line
    pass=$((pass + $1))
    fail=$((fail + $3))
}
# zlib_src TOP: print the directory of zlib 1.2.13's sources, the bench
# workload (bench/fetch.sh): from $BENCH_CACHE, bench/.cache or
# $B/bench-cache, else fetched into $B/bench-cache when root; prints
# nothing when none can be had.
zlib_src() {
    for zs_d in "${BENCH_CACHE:-/nonexistent}/src" "$1/bench/.cache/src" "$1/$B/bench-cache/src"; do
        if [ -f "$zs_d/zlib-1.2.13.dfsg/zlib.h" ]; then
            echo "$zs_d/zlib-1.2.13.dfsg"
            return
        fi
    done
    if [ "$(id -u)" = 0 ] &&
        sh "$1/bench/fetch.sh" "$1/$B/bench-cache" >"$T/fetch.log" 2>&1 &&
        [ -f "$1/$B/bench-cache/src/zlib-1.2.13.dfsg/zlib.h" ]; then
        echo "$1/$B/bench-cache/src/zlib-1.2.13.dfsg"
    fi
}
# Cross runs: tests/suites.d/16-aarch64.sh runs some suites again with
# CROSS=aarch64-linux-gnu- and LB=$B-aarch64.  Those suites build their
# programs with TGCC and TCLANG (tcc gcc|clang names one of them) against
# the runtime in $LB, and the kernel runs them through binfmt_misc and
# qemu-user; the tool ($B/ukcov) stays the host's.  Without CROSS, TGCC
# and TCLANG are gcc and clang and LB is $B.
CROSS=${CROSS:-}
LB=${LB:-$B}
if [ -n "$CROSS" ]; then
    TGCC=${CROSS}gcc
    # One program name for $UKCOV_CC (tools/wrapper.c runs it without a
    # shell): clang for the target.  Debian has no compiler-rt for the
    # target, which clang's driver links with -fsanitize-coverage;
    # libukcov is the coverage runtime, so leave it out.
    TCLANG=$T/${CROSS}clang
    printf '#!/bin/sh\nexec clang --target=%s -fno-sanitize-link-runtime -Wno-unused-command-line-argument "$@"\n' \
        "${CROSS%-}" >"$TCLANG"
    chmod +x "$TCLANG"
else
    TGCC=gcc TCLANG=clang
fi
tcc() { if [ "$1" = clang ]; then echo "$TCLANG"; else echo "$TGCC"; fi; }
# The call instruction of the target, as objdump prints it, and its
# length: a record (a return address) is the call site + TCALL_LEN.
if [ "${CROSS%%-*}" = aarch64 ]; then
    TCALL=bl TCALL_LEN=4
else
    TCALL=call TCALL_LEN=5
fi
# sigchld_ignored CMD...: CMD started with SIGCHLD ignored, as a parent
# that ignores it leaves it across exec.
sigchld_ignored() {
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
# until_true SECONDS CMD...: poll CMD every 0.1 s until it succeeds,
# for at most SECONDS of wall time (a poll that itself times out counts).
until_true() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.1
    done
}
