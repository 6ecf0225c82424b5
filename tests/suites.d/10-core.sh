#!/bin/sh
# The core suite: tests/core, built by tests/core/core.mk
# ("make test-prep" or "make core-tests").  Every behavioural test runs
# against gcc- and clang-instrumented targets, linked three ways
# (-lukcov, libukcov.a, LD_PRELOAD), plus trace-pc-only targets and
# inline targets (plugins/clang, plugins/gcc).  Prints
# one line per test and, last, "N passed, N failed".
. tests/lib.sh
D=$B/tests/core

# run VARIANT [ENV...]: one test binary (tests/lib.sh run_core).
run() {
    run_core "$D" "" "$@"
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
    # Allocation failures (t_fault.c): the shim after libukcov.so.0, so
    # the runtime's dlsym(RTLD_NEXT) finds its mmap (and sigaction).
    # Its 7 tests x 4 flavors, the NetBSD remote one and the fork with
    # the signal table held register only when the shim is there:
    # count them.
    LD_PRELOAD="$preload:$(cd "$B" && pwd)/tests/core/faultshim.so" \
        "$D/core-$cc" --prefix "core-$cc/" --filter fault. >"$T/fault.out" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$T/fault.out"
    n=$(grep -c "^ok core-$cc/fault\\." "$T/fault.out")
    if [ "$n" -eq 30 ] && grep -qx '30 passed, 0 failed' "$T/fault.out"; then
        pass=$((pass + n))
    else
        bad "core-$cc/fault" "$n of 30 allocation-failure tests passed"
    fi
done

# Targets instrumented inline by each compiler's plugin (plugins/):
# every test again, PCs checked against the plugin's table, shared and
# static.
for cc in clang gcc; do
    if [ ! -e "$B/ukcov-inline-$cc.so" ]; then
        echo "skipped core-$cc-inline: the $cc plugin is not built (scripts/deps.sh installs its headers)"
        continue
    fi
    check "build/core-$cc-inline-has-pc-table" sh -c \
        "readelf -S '$D/core-$cc-inline' | grep -q ' __ukcov_pcs '"
    # The C half behind an inline point sets xmm0-15 to all ones first
    # (lib/callbacks.c): unique.keeps_registers then sees whether the
    # cold path keeps the vector registers.
    run core-$cc-inline UKCOV_SCRIBBLE_VECTORS=1
    check "build/core-$cc-inline-static-has-runtime" static_runtime \
        "$D/core-$cc-inline-static"
    run core-$cc-inline-static UKCOV_SCRIBBLE_VECTORS=1
done

# The tracing-off path of every callback is the fall-through, in the
# archives as built and with clang compiling the same file.
layout() {	# OBJ PREFIX
    tests/core/callback-layout.sh "$1" "$2" >"$T/layout.out"
    n=$(grep -c '^ok ' "$T/layout.out")
    grep '^not ok' "$T/layout.out" | while read -r line; do echo "$line"; done
    if [ "$n" -ge 12 ] && ! grep -q '^not ok' "$T/layout.out"; then
        ok "${2}off-path-fall-through ($n callbacks)"
    else
        bad "${2}off-path-fall-through" "$n callbacks laid out right; see above"
    fi
}
if [ "$(uname -m)" = x86_64 ]; then
    top=$(pwd)
    for a in libukcov.a libukcov_cb.a; do
        rm -rf "$T/x" && mkdir "$T/x" && (cd "$T/x" && ar x "$top/$B/$a")
        cb=$(ls "$T"/x/callbacks*.o 2>/dev/null | head -n 1)
        layout "${cb:-/dev/null}" "layout/$a/"
    done
    clang -std=gnu11 -O2 -fPIC -ftls-model=initial-exec -fvisibility=hidden \
        -D_GNU_SOURCE ${UKCOV_NO_ASM:+-DUKCOV_NO_ASM} -Iinclude -Ilib -c lib/callbacks.c -o "$T/cb-clang.o" &&
        layout "$T/cb-clang.o" "layout/clang/"
fi
summary
