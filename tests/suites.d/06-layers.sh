#!/bin/sh
# The runtime's layers (docs/DESIGN.md, "Layers"): scripts/layers.py
# passes on the objects "make lib" built, and fails, with the line a
# developer needs, on each thing it exists to catch, planted into a
# copy of those objects: a call up into a higher layer, an internal
# open() of the interposed libc name, a new file in no layer, a table
# entry whose object is gone.
. tests/lib.sh
CC=${CC:-cc}

if scripts/layers.py "$B" >"$T/real.out" 2>&1; then
    ok "layers/build-passes"
else
    bad "layers/build-passes" "$(grep '^not ok' "$T/real.out" | head -3 | tr '\n' ' ')"
fi

# plant NAME OBJ C-SOURCE: a copy of $B/lib with C-SOURCE linked into
# OBJ (ld -r keeps OBJ's own symbols), in $T/NAME.
plant() {
    mkdir -p "$T/$1/lib"
    cp "$B"/lib/*.o "$T/$1/lib/"
    printf '%s\n' "$3" >"$T/$1/plant.c"
    "$CC" -c -o "$T/$1/plant.o" "$T/$1/plant.c" &&
        ld -r -o "$T/$1/lib/$2" "$B/lib/$2" "$T/$1/plant.o"
}

# expect NAME LINE: the checker fails on $T/NAME and prints LINE.
expect() {
    if scripts/layers.py "$T/$1" >"$T/$1.out" 2>&1; then
        bad "layers/$1" "passed on a planted fault"
    elif grep -q -x -F "$2" "$T/$1.out"; then
        ok "layers/$1"
    else
        bad "layers/$1" "expected '$2', got: $(grep '^not ok' "$T/$1.out" | tr '\n' ' ')"
    fi
}

plant upward real.o 'void ukcov__sancov_init(void);
void ukcov__planted(void) { ukcov__sancov_init(); }'
expect upward "not ok layers lib/real.c (libc) calls up into lib/sancov.c (sancov): ukcov__sancov_init"

plant libc-open thread.o '#include <fcntl.h>
int ukcov__planted(void) { return open("/", O_RDONLY); }'
expect libc-open "not ok libc-names lib/thread.c calls the interposed open: use ukcov__real_*"

mkdir -p "$T/newfile/lib" && cp "$B"/lib/*.o "$T/newfile/lib/" &&
    cp "$B/lib/real.o" "$T/newfile/lib/afl_forkserver.o"
expect newfile "not ok layers lib/afl_forkserver.c: in no layer: add lib/afl_forkserver.c to the layer table (lib/layers.txt)"

mkdir -p "$T/gone/lib" && cp "$B"/lib/*.o "$T/gone/lib/" && rm "$T/gone/lib/dump.o"
expect gone "not ok layers lib/layers.txt: dump is in the table but $T/gone/lib/dump.o is missing"

summary
