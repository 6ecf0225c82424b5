#!/bin/sh
# The SanitizerCoverage runtime (issue 8): every -fsanitize-coverage mode
# of gcc 12 and clang 14 links with -lukcov and with libukcov.a and runs;
# guard numbering across an executable, a linked library and a dlopen'ed
# one matches compiler-rt's; a kcov descriptor on a guard build records
# the exact guard call sites; stack-depth is per thread.  The programs
# (tests/sancov) are built here, in a scratch directory, the way users
# build them.  Needs the runtime built (make B=$B lib).
. tests/lib.sh
S=tests/sancov
L=$(pwd)/$B
INC=-Iinclude
SHARED="-L$L -Wl,-rpath,$L -lukcov"
STATIC="$L/libukcov.a -lpthread"

# build NAME CMD...: run a compile/link command; failure is a test
# failure showing the compiler's last lines.
build() {
    name=$1
    shift
    if "$@" >"$T/build.out" 2>&1; then
        return 0
    fi
    bad "$name" "$(tail -3 "$T/build.out" | tr '\n' ' ')"
    return 1
}

# ---- 1. every mode links and runs -----------------------------------
# The uninstrumented program's output is what every build must print.
build modes-reference gcc -O1 $S/modes.c -o "$T/modes-ref" || exit 1
"$T/modes-ref" >"$T/modes.want"

link_mode() {  # cc flags
    tag="$1:$2"
    obj="$T/modes.o"
    build "modes $tag compiles" "$1" -O1 -fsanitize-coverage="$2" -c $S/modes.c -o "$obj" || return
    for how in shared static; do
        if [ $how = shared ]; then libs=$SHARED; else libs=$STATIC; fi
        if ! build "modes $tag links ($how)" "$1" "$obj" $libs -o "$T/modes-$how"; then
            continue
        fi
        if "$T/modes-$how" >"$T/modes.got" 2>&1 && cmp -s "$T/modes.want" "$T/modes.got"; then
            ok "modes $tag runs ($how)"
        else
            bad "modes $tag runs ($how)" "$(head -c 200 "$T/modes.got")"
        fi
    done
}

for f in trace-pc trace-cmp trace-pc,trace-cmp; do
    link_mode gcc $f
done
for f in trace-pc trace-pc-guard trace-pc,trace-cmp trace-pc-guard,trace-cmp \
         inline-8bit-counters inline-bool-flag inline-8bit-counters,pc-table \
         inline-bool-flag,pc-table trace-pc-guard,pc-table \
         trace-pc-guard,trace-div trace-pc-guard,trace-gep \
         trace-pc-guard,trace-loads,trace-stores trace-pc-guard,indirect-calls \
         trace-pc,indirect-calls stack-depth trace-pc-guard,stack-depth \
         func bb edge edge,no-prune \
         inline-8bit-counters,pc-table,trace-cmp,indirect-calls,stack-depth,trace-div,trace-gep,trace-loads,trace-stores; do
    link_mode clang $f
done

# ---- 2. guard numbering across modules (compare with compiler-rt) ---
G=$T/gnum
mkdir -p "$G"
gnum_build() {
    build gnum-build clang -O1 -c $S/gbounds.c -o "$G/gb.o" &&
    build gnum-build clang -O1 -fPIC -fsanitize-coverage=trace-pc-guard -DWHO=lib \
        -c $S/gnum_code.c -o "$G/lib.o" &&
    build gnum-build clang -shared "$G/lib.o" "$G/gb.o" -o "$G/libgnum.so" &&
    build gnum-build clang -O1 -fPIC -fsanitize-coverage=trace-pc-guard -DWHO=dl \
        -c $S/gnum_code.c -o "$G/dl.o" &&
    build gnum-build clang -shared "$G/dl.o" "$G/gb.o" -o "$G/gnum_dl.so" &&
    build gnum-build clang -O1 -fsanitize-coverage=trace-pc-guard -DWHO=exe \
        -c $S/gnum_code.c -o "$G/exe.o" &&
    build gnum-build clang -O1 -c $S/gnum_main.c -o "$G/main.o"
}
gnum_link() {  # name [driver-flags] libs...
    name=$1
    shift
    build "gnum-link-$name" clang "$G/main.o" "$G/exe.o" "$G/gb.o" -L"$G" -lgnum \
        -Wl,-rpath,"$G" "$@" -ldl -o "$G/gnum-$name"
}
guards_in() {  # module: its number of guards (section size / 4)
    sz=$(readelf -SW "$1" | awk '$2 == "__sancov_guards" { print $6 }')
    echo $((0x$sz / 4))
}
if gnum_build &&
   gnum_link shared $SHARED &&
   gnum_link static $STATIC &&
   gnum_link clang-driver -fsanitize-coverage=trace-pc-guard $SHARED &&
   gnum_link static-clang-driver -fsanitize-coverage=trace-pc-guard \
        -Wl,-u,__ukcov_callbacks $STATIC &&
   gnum_link compiler-rt -fsanitize-coverage=trace-pc-guard; then
    nl=$(guards_in "$G/libgnum.so")
    ne=$(guards_in "$G/gnum-shared")
    nd=$(guards_in "$G/gnum_dl.so")
    # Libraries' constructors run first; the array gets 4 numbers; the
    # reloaded library comes back zeroed and gets the next ones.
    a=$((nl + ne + nd))
    {
        echo "lib 1 $nl"
        echo "exe $((nl + 1)) $((nl + ne))"
        echo "dl $((nl + ne + 1)) $a"
        echo "exe-again $((nl + 1)) $((nl + ne))"
        echo "arr $((a + 1)) $((a + 2)) $((a + 3)) $((a + 4)) 0 0 0 0"
        echo "dl-reloaded $((a + 5)) $((a + 4 + nd))"
    } >"$G/want"
    for v in shared static clang-driver static-clang-driver compiler-rt; do
        "$G/gnum-$v" "$G/gnum_dl.so" >"$G/got-$v" 2>&1
        if cmp -s "$G/want" "$G/got-$v"; then
            ok "guard-numbering-$v"
        else
            bad "guard-numbering-$v" "want $(tr '\n' '|' <"$G/want") got $(tr '\n' '|' <"$G/got-$v")"
        fi
    done
    # Our callbacks, not the ubsan runtime's weak ones, when clang
    # drives the link.
    for v in clang-driver static-clang-driver; do
        if nm "$G/gnum-$v" | grep -q ' T __sanitizer_cov_trace_pc_guard_init$' &&
           nm "$G/gnum-$v" | grep -q ' R __ukcov_callbacks$'; then
            ok "clang-driver-links-ukcov-callbacks-$v"
        else
            bad "clang-driver-links-ukcov-callbacks-$v" "weak runtime callbacks linked"
        fi
    done
fi

# ---- 3. guard edges into a kcov buffer: the exact call sites ---------
K=$T/gk
mkdir -p "$K"
gk_check() {  # name binary
    bin=$2
    if ! "$bin" >"$K/out" 2>&1; then
        bad "$1-runs" "$(head -c 200 "$K/out")"
        return
    fi
    # The guard call sites in gk_target, in address order; a record is
    # the call's return address (call rel32: site + 5).
    objdump -d --no-show-raw-insn "$bin" |
        awk '/^[0-9a-f]+ <gk_target>:/ { f = 1; next } /^$/ { f = 0 }
             f && /call.*<__sanitizer_cov_trace_pc_guard>/ { sub(":", "", $1); print $1 }' \
        >"$K/sites"
    set -- $(cat "$K/sites")
    if [ $# -ne 3 ]; then
        bad "$1-sites" "expected 3 guard call sites in gk_target, found $#"
        return
    fi
    s0=$(printf %x $((0x$1 + 5)))
    s1=$(printf %x $((0x$2 + 5)))
    s2=$(printf %x $((0x$3 + 5)))
    printf 'w1 %s %s\nw2 %s %s\nafter 2\ncmp 5 0 7\ncmp 7 0 9\ncmp 7 0 5\n' \
        "$s0" "$s1" "$s0" "$s2" >"$K/want"
    if cmp -s "$K/want" "$K/out"; then
        ok "$name"
    else
        bad "$name" "want $(tr '\n' '|' <"$K/want") got $(tr '\n' '|' <"$K/out")"
    fi
}
if build gk-build clang -O0 -fsanitize-coverage=trace-pc-guard,trace-div,trace-gep \
        -c $S/gk_target.c -o "$K/t.o" &&
   build gk-build gcc -O2 $INC -c $S/gk_main.c -o "$K/m.o" &&
   build gk-build gcc "$K/m.o" "$K/t.o" $SHARED -o "$K/gk-shared" &&
   build gk-build gcc "$K/m.o" "$K/t.o" $STATIC -o "$K/gk-static"; then
    name=guard-kcov-exact-pcs-div-gep-shared gk_check guard-kcov-shared "$K/gk-shared"
    name=guard-kcov-exact-pcs-div-gep-static gk_check guard-kcov-static "$K/gk-static"
fi

# ---- 4. stack-depth: __sancov_lowest_stack per thread ---------------
D=$T/sd
mkdir -p "$D"
for o in O0 O2; do
    build "sd-build-$o" clang -$o -fsanitize-coverage=stack-depth -c $S/sd_target.c -o "$D/t.o" &&
    build "sd-build-$o" gcc -O2 -c $S/sd_main.c -o "$D/m.o" || continue
    for how in shared static; do
        if [ $how = shared ]; then libs=$SHARED; else libs="$STATIC"; fi
        build "sd-link-$o-$how" gcc "$D/m.o" "$D/t.o" $libs -lpthread -o "$D/sd" || continue
        "$D/sd" >"$D/out" 2>&1
        rc=$?
        while read -r verdict what; do
            if [ "$verdict" = ok ]; then ok "stack-depth-$o-$how-$what"; else bad "stack-depth-$o-$how-$what" "$verdict"; fi
        done <"$D/out"
        [ "$(wc -l <"$D/out")" -eq 5 ] && [ $rc -eq 0 ] || bad "stack-depth-$o-$how" "exit $rc, $(wc -l <"$D/out") lines"
    done
done

summary
