#!/bin/sh
# The core suite (issue 2): tests/core, built by tests/core/core.mk
# ("make test-prep" or "make core-tests").  Every behavioural test runs
# against gcc- and clang-instrumented targets, linked three ways
# (-lukcov, libukcov.a, LD_PRELOAD), plus trace-pc-only targets.  Prints
# one line per test and, last, "N passed, N failed".
. tests/lib.sh
D=$B/tests/core

# run VARIANT [ENV...]: one test binary; its tests count one by one.
run() {
    variant=$1
    shift
    if [ ! -x "$D/$variant" ]; then
        bad "$variant" "$D/$variant not built (make B=$B test-prep)"
        return
    fi
    env "$@" "$D/$variant" --prefix "$variant/" >"$T/$variant.out" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$variant.out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$variant.out" | tail -n 1)
    if [ -z "$line" ]; then
        bad "$variant" "no summary line (crashed?)"
        return
    fi
    set -- $line
    pass=$((pass + $1))
    fail=$((fail + $3))
}

# The LD_PRELOAD programs bring nothing of ukcov themselves.
defines_no_ukcov() {
    ! nm --defined-only "$1" | grep -q -E ' (ukcov_|__ukcov|__sanitizer_cov_)'
}

# The static variants carry the runtime and load no libukcov.so.
static_runtime() {
    nm --defined-only "$1" | grep -q ' T ukcov_ioctl$' &&
        ! ldd "$1" | grep -q libukcov
}

preload=$(cd "$B" 2>/dev/null && pwd)/libukcov.so.0
for cc in gcc clang; do
    check "build/preload-$cc-defines-no-ukcov" defines_no_ukcov "$D/preload-$cc"
    check "build/core-$cc-static-has-runtime" static_runtime "$D/core-$cc-static"
    run "core-$cc"
    run "core-$cc-static"
    run "core-$cc-pc"
    run "preload-$cc" LD_PRELOAD="$preload"
done
summary
