#!/bin/sh
# make install: the installed tree, pkg-config (shared and static), the
# soname and exported symbols, and that the runtime is not instrumented.
. tests/lib.sh

P=$T/prefix
if make --no-print-directory -s install B="$B" PREFIX="$P" >"$T/install.log" 2>&1; then
    ok install
else
    bad install "$(tail -3 "$T/install.log" | tr '\n' ' ')"
fi
for f in include/ukcov/kcov.h include/ukcov/sancov.h include/ukcov/linux/kcov.h \
         include/ukcov/freebsd/kcov.h include/ukcov/netbsd/kcov.h \
         include/ukcov/openbsd/kcov.h lib/libukcov.a lib/libukcov_cb.a \
         lib/libukcov.so lib/libukcov.so.0 lib/pkgconfig/ukcov.pc; do
    check "installed-$f" test -e "$P/$f"
done
for m in man/*.[1-9]; do
    [ -e "$m" ] || continue
    s=${m##*.}
    check "installed-man-${m##*/}" test -e "$P/share/man/man$s/${m##*/}"
done

# The inline plugins that make built, beside the library, named by
# pkg-config.
for pl in clang gcc; do
    [ -e "$B/ukcov-inline-$pl.so" ] || continue
    check "installed-lib/ukcov-inline-$pl.so" test -e "$P/lib/ukcov-inline-$pl.so"
    check "pkg-config-${pl}_plugin" sh -c \
        "test \"\$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --variable=${pl}_plugin ukcov)\" = '$P/lib/ukcov-inline-$pl.so'"
done

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
cc -fsanitize-coverage=trace-pc -c tests/install/target.c -o "$T/target.o"
check pkgconfig-shared sh -c "cc \$(pkg-config --cflags ukcov) tests/install/prog.c $T/target.o \$(pkg-config --libs ukcov) -o $T/prog && $T/prog"
check pkgconfig-shared-callbacks-not-via-plt sh -c "nm $T/prog | grep -q ' T __sanitizer_cov_trace_pc\$'"
check pkgconfig-static sh -c "cc -static \$(pkg-config --cflags ukcov) tests/install/prog.c $T/target.o \$(pkg-config --static --libs ukcov) -o $T/prog-static && $T/prog-static"
check soname sh -c "readelf -d $P/lib/libukcov.so.0 | grep -q 'SONAME.*\\[libukcov.so.0\\]'"
# Only the API, the callbacks, the TLS block and the interposed libc
# functions are exported: nothing internal.
check exports-no-internals sh -c "! nm -D --defined-only $P/lib/libukcov.so.0 | grep -E ' ukcov__'"
check exports-api sh -c "nm -D --defined-only $P/lib/libukcov.so.0 | grep -q ' T ukcov_ioctl\$'"
# The runtime itself must never call the coverage callbacks.
check runtime-not-instrumented sh -c "! nm -u $P/lib/libukcov.a | grep -q __sanitizer_cov"

D=$T/dest
if make --no-print-directory -s install B="$B" PREFIX=/usr/local DESTDIR="$D" >"$T/d.log" 2>&1 &&
   test -e "$D/usr/local/lib/libukcov.so.0" &&
   grep -q '^libdir=/usr/local/lib$' "$D/usr/local/lib/pkgconfig/ukcov.pc" &&
   grep -q '/usr/local/lib/libukcov_cb.a' "$D/usr/local/lib/libukcov.so"; then
    ok destdir
else
    bad destdir "$(tail -3 "$T/d.log" | tr '\n' ' ')"
fi
summary
