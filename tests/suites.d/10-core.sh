#!/bin/sh
# The core suite (issue 2): tests/core, built by tests/core/core.mk
# ("make test-prep" or "make core-tests").  Every behavioural test runs
# against gcc- and clang-instrumented targets, linked three ways
# (-lukcov, libukcov.a, LD_PRELOAD), plus trace-pc-only targets.  Prints
# one line per test and, last, "N passed, N failed".
B=${B:-build}
D=$B/tests/core
pass=0
fail=0

count() {	# count PASSED FAILED: add to the totals
    pass=$((pass + $1))
    fail=$((fail + $2))
}

check() {	# check NAME COMMAND...: a one-line test of the build
    name=$1
    shift
    if "$@" >/dev/null 2>&1; then
        echo "ok build/$name"
        count 1 0
    else
        echo "not ok build/$name: $*"
        count 0 1
    fi
}

run() {		# run VARIANT [ENV...]: one test binary
    variant=$1
    shift
    if [ ! -x "$D/$variant" ]; then
        echo "not ok $variant: $D/$variant not built (make B=$B test-prep)"
        count 0 1
        return
    fi
    out=$(mktemp)
    env "$@" "$D/$variant" --prefix "$variant/" >"$out" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    rm -f "$out"
    if [ -z "$line" ]; then
        echo "not ok $variant: no summary line (crashed?)"
        count 0 1
        return
    fi
    count $(echo "$line" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/')
}

defines_no_ukcov() {	# the LD_PRELOAD programs bring nothing of ukcov
    ! nm --defined-only "$1" | grep -q -E ' (ukcov_|__ukcov|__sanitizer_cov_)'
}

static_runtime() {	# libukcov.a: no libukcov.so at run time
    nm --defined-only "$1" | grep -q ' T ukcov_ioctl$' &&
        ! ldd "$1" | grep -q libukcov
}

preload=$(cd "$B" 2>/dev/null && pwd)/libukcov.so.0
for cc in gcc clang; do
    check "preload-$cc-defines-no-ukcov" defines_no_ukcov "$D/preload-$cc"
    check "core-$cc-static-runtime-linked-in" static_runtime "$D/core-$cc-static"
    run "core-$cc"
    run "core-$cc-static"
    run "core-$cc-pc"
    run "preload-$cc" LD_PRELOAD="$preload"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
