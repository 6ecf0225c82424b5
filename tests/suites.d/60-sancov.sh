#!/bin/sh
# The SanitizerCoverage runtime: every -fsanitize-coverage mode
# of gcc 12 and clang 14 links with -lukcov and with libukcov.a and runs;
# guard numbering across an executable, a linked library and a dlopen'ed
# one matches compiler-rt's; a kcov descriptor on a guard build records
# the exact guard call sites; stack-depth is per thread.  The programs
# (tests/sancov) are built here, in a scratch directory, the way users
# build them.  Needs the runtime built (make B=$B lib).
. tests/lib.sh
S=tests/sancov
L=$(pwd)/$LB
U=$(pwd)/$B/ukcov
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
build modes-reference $TGCC -O1 $S/modes.c -o "$T/modes-ref" || exit 1
"$T/modes-ref" >"$T/modes.want"

link_mode() {  # cc flags
    tag="$1:$2"
    obj="$T/modes.o"
    build "modes $tag compiles" $(tcc $1) -O1 -fsanitize-coverage="$2" -c $S/modes.c -o "$obj" || return
    for how in shared static; do
        if [ $how = shared ]; then libs=$SHARED; else libs=$STATIC; fi
        if ! build "modes $tag links ($how)" $(tcc $1) "$obj" $libs -o "$T/modes-$how"; then
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
    build gnum-build $TCLANG -O1 -c $S/gbounds.c -o "$G/gb.o" &&
    build gnum-build $TCLANG -O1 -fPIC -fsanitize-coverage=trace-pc-guard -DWHO=lib \
        -c $S/gnum_code.c -o "$G/lib.o" &&
    build gnum-build $TCLANG -shared "$G/lib.o" "$G/gb.o" -o "$G/libgnum.so" &&
    build gnum-build $TCLANG -O1 -fPIC -fsanitize-coverage=trace-pc-guard -DWHO=dl \
        -c $S/gnum_code.c -o "$G/dl.o" &&
    build gnum-build $TCLANG -shared "$G/dl.o" "$G/gb.o" -o "$G/gnum_dl.so" &&
    build gnum-build $TCLANG -O1 -fsanitize-coverage=trace-pc-guard -DWHO=exe \
        -c $S/gnum_code.c -o "$G/exe.o" &&
    build gnum-build $TCLANG -O1 -c $S/gnum_main.c -o "$G/main.o"
}
gnum_link() {  # name [driver-flags] libs...
    name=$1
    shift
    build "gnum-link-$name" $TCLANG "$G/main.o" "$G/exe.o" "$G/gb.o" -L"$G" -lgnum \
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
   { [ -n "$CROSS" ] || gnum_link compiler-rt -fsanitize-coverage=trace-pc-guard; }; then
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
    # Debian has no compiler-rt for a cross target (tests/lib.sh).
    crt=compiler-rt
    [ -n "$CROSS" ] && crt=
    for v in shared static clang-driver static-clang-driver $crt; do
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
        if ${CROSS}nm "$G/gnum-$v" | grep -q ' T __sanitizer_cov_trace_pc_guard_init$' &&
           ${CROSS}nm "$G/gnum-$v" | grep -q ' R __ukcov_callbacks$'; then
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
    # the call's return address (call rel32: site + 5; bl: site + 4).
    ${CROSS}objdump -d --no-show-raw-insn "$bin" |
        awk -v c="$TCALL" '/^[0-9a-f]+ <gk_target>:/ { f = 1; next } /^$/ { f = 0 }
             f && $2 == c && /<__sanitizer_cov_trace_pc_guard>/ { sub(":", "", $1); print $1 }' \
        >"$K/sites"
    set -- $(cat "$K/sites")
    if [ $# -ne 3 ]; then
        bad "$1-sites" "expected 3 guard call sites in gk_target, found $#"
        return
    fi
    s0=$(printf %x $((0x$1 + TCALL_LEN)))
    s1=$(printf %x $((0x$2 + TCALL_LEN)))
    s2=$(printf %x $((0x$3 + TCALL_LEN)))
    printf 'w1 %s %s\nw2 %s %s\nafter 2\ncmp 5 0 7\ncmp 7 0 9\ncmp 7 0 5\n' \
        "$s0" "$s1" "$s0" "$s2" >"$K/want"
    if cmp -s "$K/want" "$K/out"; then
        ok "$name"
    else
        bad "$name" "want $(tr '\n' '|' <"$K/want") got $(tr '\n' '|' <"$K/out")"
    fi
}
if build gk-build $TCLANG -O0 -fsanitize-coverage=trace-pc-guard,trace-div,trace-gep \
        -c $S/gk_target.c -o "$K/t.o" &&
   build gk-build $TGCC -O2 $INC -c $S/gk_main.c -o "$K/m.o" &&
   build gk-build $TGCC "$K/m.o" "$K/t.o" $SHARED -o "$K/gk-shared" &&
   build gk-build $TGCC "$K/m.o" "$K/t.o" $STATIC -o "$K/gk-static"; then
    name=guard-kcov-exact-pcs-div-gep-shared gk_check guard-kcov-shared "$K/gk-shared"
    name=guard-kcov-exact-pcs-div-gep-static gk_check guard-kcov-static "$K/gk-static"
fi

# ---- 4. stack-depth: __sancov_lowest_stack per thread ---------------
D=$T/sd
mkdir -p "$D"
for o in O0 O2; do
    build "sd-build-$o" $TCLANG -$o -fsanitize-coverage=stack-depth -c $S/sd_target.c -o "$D/t.o" &&
    build "sd-build-$o" $TGCC -O2 -c $S/sd_main.c -o "$D/m.o" || continue
    for how in shared static; do
        if [ $how = shared ]; then libs=$SHARED; else libs="$STATIC"; fi
        build "sd-link-$o-$how" $TGCC "$D/m.o" "$D/t.o" $libs -lpthread -o "$D/sd" || continue
        "$D/sd" >"$D/out" 2>&1
        rc=$?
        while read -r verdict what; do
            if [ "$verdict" = ok ]; then ok "stack-depth-$o-$how-$what"; else bad "stack-depth-$o-$how-$what" "$verdict"; fi
        done <"$D/out"
        [ "$(wc -l <"$D/out")" -eq 5 ] && [ $rc -eq 0 ] || bad "stack-depth-$o-$how" "exit $rc, $(wc -l <"$D/out") lines"
    done
done

# ---- 5. coverage=1: <module>.<pid>.sancov files ----------------------
C=$T/cov
mkdir -p "$C"
chmod 755 "$T" "$C"
SANCOV=$(command -v sancov-14 || command -v sancov)

# covered BIN FILE: the functions a .sancov file covers, one per line.
covered() {
    "$U" covered-functions "$1" "$2" 2>/dev/null | awk '{ print $NF }' | sort -u | tr '\n' ' '
}
# cov_run NAME BIN DIR ARGS...: run BIN with coverage=1 into DIR, which
# must be empty of .sancov files; sets rc, out (stdout+stderr), file.
cov_run() {
    name=$1 bin=$2 dir=$3
    shift 3
    rm -f "$dir"/*.sancov
    UKCOV_OPTIONS="coverage=1 coverage_dir=$dir" "$bin" "$@" >"$C/out" 2>&1
    rc=$?
    set -- "$dir"/*.sancov
    file=$1
}
expect_file() {  # name want-functions [rc]
    if [ "$rc" -ne "${3:-0}" ]; then
        bad "$1" "exit status $rc, want ${3:-0}: $(head -c 200 "$C/out")"
    elif [ ! -f "$file" ]; then
        bad "$1" "no .sancov file: $(head -c 200 "$C/out")"
    elif [ "$(covered "$bin" "$file")" != "$2" ]; then
        bad "$1" "covers '$(covered "$bin" "$file")', want '$2'"
    else
        ok "$1"
    fi
}
# The file's name is the module's, with the process's pid; the magic is
# 0xC0BFFFFFFFFFFF64 (little-endian) and the offsets sorted and unique.
sancov_well_formed() {  # file
    [ "$(od -An -tx1 -N8 "$1" | tr -d ' ')" = 64ffffffffffbfc0 ] || return 1
    od -An -tu8 -j8 -w8 -v "$1" | awk 'NR > 1 && $1 <= prev { exit 1 } { prev = $1 }'
}

cov_variants() {
    build cov-build $TCLANG -O1 -g -fsanitize-coverage=trace-pc-guard -c $S/cov_prog.c -o "$C/g.o" &&
    build cov-build $TCLANG "$C/g.o" $STATIC -o "$C/clang-guard-static" &&
    build cov-build $TCLANG "$C/g.o" $SHARED -o "$C/clang-guard-shared" &&
    build cov-build $TCLANG -O1 -g -fsanitize-coverage=trace-pc -c $S/cov_prog.c -o "$C/p.o" &&
    build cov-build $TCLANG "$C/p.o" $SHARED -o "$C/clang-pc" &&
    build cov-build $TGCC -O1 -g -fsanitize-coverage=trace-pc $S/cov_prog.c $SHARED -o "$C/gcc-pc" &&
    build cov-build $TGCC -O1 -g -fsanitize-coverage=trace-pc $S/cov_prog.c $STATIC -o "$C/gcc-pc-static"
}
if cov_variants; then
    for v in clang-guard-static clang-guard-shared clang-pc gcc-pc gcc-pc-static; do
        bin=$C/$v
        cov_run "$v" "$bin" "$C" run
        expect_file "cov-$v-exit" "main marker_a "
        case $file in
            "$C/$v".[0-9]*.sancov) ok "cov-$v-file-name" ;;
            *) bad "cov-$v-file-name" "$file" ;;
        esac
        if sancov_well_formed "$file"; then ok "cov-$v-magic-sorted-unique"; else bad "cov-$v-magic-sorted-unique" "$(od -An -tx8 "$file" | head -3)"; fi
        grep -qx done "$C/out" && ok "cov-$v-output-untouched" || bad "cov-$v-output-untouched" "$(cat "$C/out")"
        # After the reset: marker_b, not marker_a (gcc instruments every
        # block, so main's blocks after the reset are there too).
        cov_run "$v" "$bin" "$C" reset
        case " $(covered "$bin" "$file")" in
            *" marker_a "*) bad "cov-$v-reset" "marker_a still covered" ;;
            *" marker_b "*) ok "cov-$v-reset" ;;
            *) bad "cov-$v-reset" "marker_b not covered: $(cat "$C/out")" ;;
        esac
        # fork: each process writes its own file.
        rm -f "$C"/*.sancov
        UKCOV_OPTIONS="coverage=1 coverage_dir=$C" "$bin" fork >"$C/out" 2>&1
        n=0 fa="" fb=""
        for f in "$C"/*.sancov; do
            n=$((n + 1))
            fa="$fa$(covered "$bin" "$f")|"
        done
        case $fa in
            "main marker_a |child_only main |"|"child_only main |main marker_a |") ok "cov-$v-fork-child-own-file" ;;
            *) bad "cov-$v-fork-child-own-file" "$n files: $fa" ;;
        esac
        # Fatal signals: the file is written and the process dies of
        # the same signal (exit status 128 + signal).  On aarch64 an
        # integer division by zero gives 0 (no SIGFPE: Arm ARM, SDIV)
        # and __builtin_trap is brk, SIGTRAP.
        sigs="segv:139 bus:135 abort:134 fpe:136 ill:132"
        [ "$TCALL" = bl ] && sigs="segv:139 bus:135 abort:134 ill:133"
        for sg in $sigs; do
            cov_run "$v" "$bin" "$C" "${sg%:*}"
            expect_file "cov-$v-dies-of-${sg%:*}" "crash main marker_a " "${sg#*:}"
        done
        cov_run "$v" "$bin" "$C" handler
        expect_file "cov-$v-chains-program-handler" "crash main marker_a on_segv " 139
        grep -qx handler "$C/out" && ok "cov-$v-program-handler-ran" || bad "cov-$v-program-handler-ran" "$(cat "$C/out")"
    done

    # sancov-14 reads the file of a static trace-pc-guard program and
    # finds the same functions as in compiler-rt's file of the same run.
    bin=$C/clang-guard-static
    cov_run sancov "$bin" "$C" run
    [ -n "$CROSS" ] ||
    build cov-build-crt $TCLANG -fsanitize-coverage=trace-pc-guard "$C/g.o" -o "$C/crt"
    mkdir -p "$C/crt.d"
    rm -f "$C/crt.d"/*
    (cd "$C/crt.d" && UBSAN_OPTIONS=coverage=1 ../crt run >/dev/null 2>&1)
    crtfile=$(ls "$C/crt.d"/crt.*.sancov 2>/dev/null | head -1)
    if [ -n "$CROSS" ]; then
        :   # no compiler-rt for the target: the host run compares
    elif [ -n "$SANCOV" ] && "$SANCOV" -symbolize "$bin" "$file" >"$C/ours.symcov" 2>"$C/err" &&
       [ -n "$crtfile" ] && "$SANCOV" -symbolize "$C/crt" "$crtfile" >"$C/crt.symcov" 2>>"$C/err"; then
        python3 -c 'import json,sys
def funcs(p):
    d = json.load(open(p)); cov = set(d["covered-points"]); out = set()
    for f, fns in d["point-symbol-info"].items():
        for fn, pts in fns.items():
            if cov & set(pts): out.add(fn)
    return sorted(out)
a, b = funcs(sys.argv[1]), funcs(sys.argv[2])
sys.exit(0 if a == b and a else 1)' "$C/ours.symcov" "$C/crt.symcov" &&
            ok "sancov14-symbolize-same-functions-as-compiler-rt" ||
            bad "sancov14-symbolize-same-functions-as-compiler-rt" "$(head -c 300 "$C/ours.symcov")"
    else
        bad "sancov14-symbolize-same-functions-as-compiler-rt" "$(head -c 300 "$C/err")"
    fi

    # Byte for byte: one binary, each runtime preloaded in turn.
    CRT_SO=$(clang -print-file-name=libclang_rt.ubsan_standalone-$(uname -m).so)
    [ -n "$CROSS" ] && CRT_SO=/nonexistent
    if build cov-build-bytes $TCLANG "$C/g.o" -L"$L" -Wl,-rpath,"$L" -l:libukcov.so.0 -o "$C/both" &&
       [ -f "$CRT_SO" ]; then
        mkdir -p "$C/b1" "$C/b2"
        (cd "$C/b1" && UKCOV_OPTIONS=coverage=1 ../both run >/dev/null 2>&1)
        (cd "$C/b2" && UBSAN_OPTIONS=coverage=1 LD_PRELOAD=$CRT_SO ../both run >/dev/null 2>&1)
        f1=$(ls "$C/b1"/both.*.sancov 2>/dev/null) f2=$(ls "$C/b2"/both.*.sancov 2>/dev/null)
        if [ -n "$f1" ] && [ -n "$f2" ] && cmp -s "$f1" "$f2"; then
            ok "sancov-file-byte-identical-to-compiler-rt"
        else
            bad "sancov-file-byte-identical-to-compiler-rt" "'$f1' '$f2'"
        fi
    fi

    # ukcov run traces a guard build through a kcov descriptor: the
    # same points as the process-wide file of the same run.
    bin=$C/clang-guard-shared
    cov_run ukcov-run "$bin" "$C" run
    if "$U" run --mode pc -o "$C/run.dump" -- "$bin" run >/dev/null 2>&1 &&
       "$U" print "$C/run.dump" | sort >"$C/run.pcs" &&
       "$U" print "$file" | sort >"$C/file.pcs" && [ -s "$C/run.pcs" ] &&
       cmp -s "$C/run.pcs" "$C/file.pcs"; then
        ok "ukcov-run-guard-build-same-points-as-coverage-file"
    else
        bad "ukcov-run-guard-build-same-points-as-coverage-file" "$(tr '\n' ' ' <"$C/run.pcs") vs $(tr '\n' ' ' <"$C/file.pcs")"
    fi
    # ukcov-cc with UKCOV_GUARD=1 builds with guards; the workflow of
    # ukcov(1) with libukcov alone.
    if UKCOV_CC=$TCLANG UKCOV_GUARD=1 "$L/ukcov-cc" -O1 $S/cov_prog.c -o "$C/wrapped" >"$C/out" 2>&1 &&
       ${CROSS}objdump -d "$C/wrapped" | grep -q "$TCALL\s.*<__sanitizer_cov_trace_pc_guard>" &&
       ! ${CROSS}objdump -d "$C/wrapped" | grep -q "$TCALL\s.*<__sanitizer_cov_trace_pc>"; then
        bin=$C/wrapped
        cov_run wrapped "$bin" "$C" run
        expect_file "ukcov-cc-guard-coverage-file" "main marker_a "
    else
        bad "ukcov-cc-guard-coverage-file" "$(head -c 300 "$C/out")"
    fi

    # Hostile coverage_dir.  A symlink planted at the file's name (the
    # pid is known: exec keeps it) is neither followed nor replaced.
    H=$C/hostile
    mkdir -p "$H"
    chmod 755 "$H"
    echo precious >"$H/target"
    for kind in symlink dangling regular; do
        rm -f "$H"/*.sancov*
        UKCOV_OPTIONS="coverage=1 coverage_dir=$H" KIND=$kind H=$H sh -c '
            case $KIND in
                symlink) ln -s "$H/target" "$H/clang-guard-static.$$.sancov" ;;
                dangling) ln -s "$H/nothing" "$H/clang-guard-static.$$.sancov" ;;
                regular) echo other >"$H/clang-guard-static.$$.sancov" ;;
            esac
            exec "$0" run' "$C/clang-guard-static" >"$C/out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -qx done "$C/out" &&
           grep -q "exists and is not this process's file; not overwritten" "$C/out" &&
           [ "$(cat "$H/target")" = precious ] && [ ! -e "$H/nothing" ] &&
           ! ls "$H" | grep -q tmp; then
            ok "hostile-dir-$kind-untouched"
        else
            bad "hostile-dir-$kind-untouched" "rc $rc: $(cat "$C/out") $(ls "$H")"
        fi
    done
    UKCOV_OPTIONS="coverage=1 coverage_dir=$C/missing" "$C/clang-guard-static" run >"$C/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -qx done "$C/out" &&
       grep -q "coverage_dir '$C/missing': No such file or directory; clang-guard-static.[0-9]*.sancov not written" "$C/out"; then
        ok "missing-dir-named"
    else
        bad "missing-dir-named" "rc $rc: $(cat "$C/out")"
    fi
    # A read-only directory, as a user who cannot write it (we run as
    # root, who can).
    mkdir -p "$C/ro"
    chmod 555 "$C/ro"
    if setpriv --reuid=65534 --regid=65534 --clear-groups             env UKCOV_OPTIONS="coverage=1 coverage_dir=$C/ro" "$C/clang-guard-static" run >"$C/out" 2>&1 &&
       grep -qx done "$C/out" &&
       grep -q "coverage_dir '$C/ro': Permission denied; clang-guard-static.[0-9]*.sancov not written" "$C/out" &&
       [ -z "$(ls "$C/ro")" ]; then
        ok "read-only-dir-named-non-root"
    else
        bad "read-only-dir-named-non-root" "$(cat "$C/out")"
    fi
    # A full disk: the file written earlier by __sanitizer_cov_dump()
    # stays whole, the failure is reported, the program's output and
    # status are untouched.
    F=$C/full
    mkdir -p "$F"
    if unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" && shift &&
            UKCOV_OPTIONS="coverage=1 coverage_dir=$0" "$@" >"$0/../full.out" 2>&1; echo $? >"$0/../full.rc";
            mkdir -p "$0/../kept" && cp "$0"/*.sancov "$0/../kept/"; ls "$0" >"$0/../full.ls"' \
            "$F" "$F" "$C/clang-guard-static" fill "$F"; then
        if [ "$(cat "$C/full.rc")" = 0 ] && grep -qx done "$C/full.out" &&
           grep -q "No space left on device (an earlier file is kept)" "$C/full.out" &&
           [ "$(covered "$C/clang-guard-static" "$C"/kept/*.sancov)" = "main marker_a " ] &&
           ! grep -q tmp "$C/full.ls"; then
            ok "full-disk-reported-earlier-file-kept"
        else
            bad "full-disk-reported-earlier-file-kept" "rc $(cat "$C/full.rc"): $(cat "$C/full.out") [$(cat "$C/full.ls")]"
        fi
    else
        bad "full-disk-reported-earlier-file-kept" "cannot mount a small tmpfs"
    fi
    # Malformed options: one warning naming the bad token, the defaults
    # (no file), the program untouched.  refused NAME OPTIONS TOKEN.
    refused() {
        rm -f "$C"/*.sancov
        (cd "$C" && UKCOV_OPTIONS="$2" ./clang-guard-static run >"$C/out" 2>&1)
        if [ $? -eq 0 ] && grep -qx done "$C/out" &&
           [ "$(grep -c "ukcov: UKCOV_OPTIONS: cannot use '$3'; using the defaults" "$C/out")" = 1 ] &&
           ! ls "$C" | grep -q '\.sancov$'; then
            ok "$1"
        else
            bad "$1" "$(cat "$C/out")"
        fi
    }
    refused malformed-options-one-warning-defaults "coverage=1:covrage_dir=/x" "covrage_dir=/x"
    # Numbers: 1 to 9 digits (ukcov_sancov(7)); ten are malformed.
    refused options-number-of-ten-digits-malformed "coverage=1:verbosity=0000000001" "verbosity=0000000001"
    (cd "$C" && UKCOV_OPTIONS="coverage=1:verbosity=000000001" ./clang-guard-static run >"$C/out" 2>&1)
    if [ $? -eq 0 ] && ! grep -q "cannot use" "$C/out" &&
       grep -q "^ukcov: .*clang-guard-static\.[0-9]*\.sancov: [0-9]* PCs written$" "$C/out" &&
       ls "$C" | grep -q '^clang-guard-static\.[0-9]*\.sancov$'; then
        ok "options-number-of-nine-digits"
    else
        bad "options-number-of-nine-digits" "$(cat "$C/out")"
    fi
    # Positive control of the above: well-formed options, quoted dir.
    rm -f "$C"/*.sancov
    UKCOV_OPTIONS="coverage=1,coverage_dir='$C'" "$C/clang-guard-static" run >"$C/out" 2>&1
    if ls "$C" | grep -q '^clang-guard-static\.[0-9]*\.sancov$' && [ "$(cat "$C/out")" = done ]; then
        ok "options-quoted-dir-comma"
    else
        bad "options-quoted-dir-comma" "$(cat "$C/out")"
    fi
fi

# ---- 5b. the guard callback's gate (x86-64) ---------------------------
# Only the assembly callbacks have gates: a make UKCOV_NO_ASM=1 runtime
# (tests/suites.d/15-noasm.sh) has the C versions, which have none.
asm_gates() {
    [ -z "$CROSS" ] && [ "$(uname -m)" = x86_64 ] &&
        nm "$L/libukcov.a" 2>/dev/null | grep -q ' pc_gate_addr$'
}
# With the process-wide word non-zero once the constructors have run
# (coverage=1 here), the "jne on; ret" after the off test is rewritten
# as a nop, so coverage=1 falls through (docs/DESIGN.md, "The hot
# path").  Closed when nothing is enabled, when UKCOV_GUARD_GATE=closed,
# and when another thread exists at that point; the file is the same
# byte for byte either way.
gate_run() {  # name bin want-gate [env...]
    name=$1 bin=$2 want=$3
    shift 3
    rm -rf "$C/gate.d" && mkdir "$C/gate.d"
    env "$@" "$bin" >"$C/out" 2>&1
    got=$(head -n 1 "$C/out")
    if [ "$got" = "gate $want" ]; then ok "$name"; else bad "$name" "'$got', want 'gate $want'"; fi
}
# gate_checks NAME BIN COVERED ENVVAR: closed when off; open with
# coverage=1, whose file covers COVERED; kept closed by ENVVAR=closed,
# with the same file; closed when a thread exists at start.
gate_checks() {
    local n=$1 bin=$2 cov=$3 var=$4
    gate_run "$n-closed-when-off" "$bin" "75 01 c3"
    gate_run "$n-open-with-coverage" "$bin" "0f 1f 00" \
        UKCOV_OPTIONS="coverage=1:coverage_dir=$C/gate.d"
    set -- "$C"/gate.d/*.sancov
    cp "$1" "$C/gate-open.sancov" 2>/dev/null
    if [ "$(covered "$bin" "$1")" = "$cov" ]; then
        ok "$n-open-file"
    else
        bad "$n-open-file" "covers '$(covered "$bin" "$1")'"
    fi
    gate_run "$n-kept-closed-by-env" "$bin" "75 01 c3" \
        UKCOV_OPTIONS="coverage=1:coverage_dir=$C/gate.d" "$var=closed"
    set -- "$C"/gate.d/*.sancov
    if cmp -s "$1" "$C/gate-open.sancov"; then
        ok "$n-same-file-closed"
    else
        bad "$n-same-file-closed" "the files of the open and closed runs differ"
    fi
    gate_run "$n-closed-with-a-thread" "$bin" "75 01 c3" \
        UKCOV_OPTIONS="coverage=1:coverage_dir=$C/gate.d" GATE_THREAD=1
}
if asm_gates &&
   build gate-build $TCLANG -O1 -fsanitize-coverage=trace-pc-guard -c $S/gate.c -o "$C/gate.o" &&
   build gate-build $TCLANG "$C/gate.o" $STATIC -o "$C/gate-static" &&
   build gate-build $TCLANG "$C/gate.o" $SHARED -o "$C/gate-shared"; then
    for how in static shared; do
        bin=$C/gate-$how
        gate_checks "gate-$how" "$bin" "early_thread main marker " UKCOV_GUARD_GATE
        set -- "$C"/gate.d/*.sancov
        if [ "$(covered "$bin" "$1")" = "early_thread idle main marker " ]; then
            ok "gate-$how-file-with-a-thread"
        else
            bad "gate-$how-file-with-a-thread" "covers '$(covered "$bin" "$1")'"
        fi
    done
fi

# ---- 5c. trace_pc's gate (x86-64), gcc and clang trace-pc builds -----
# The same rewrite in trace_pc, for its own word (coverage=1 here; kcov
# enabled before an exec is the other way it is on at start): open with
# coverage=1, closed when off, closed by UKCOV_PC_GATE=closed with the
# same file, and closed when a thread exists.
if asm_gates; then
    for cc in gcc clang; do
        G=$C/pcgate-$cc
        build pcgate-build $(tcc $cc) -O1 -DPC_GATE -fsanitize-coverage=trace-pc -c $S/gate.c -o "$G.o" &&
        build pcgate-build $(tcc $cc) "$G.o" $STATIC -o "$G-static" &&
        build pcgate-build $(tcc $cc) "$G.o" $SHARED -o "$G-shared" || continue
        for how in static shared; do
            # early_thread, a constructor of priority 50, runs before the
            # runtime's (101) has read UKCOV_OPTIONS in a static link, and
            # after libukcov.so.0's in a dynamic one.
            want="early_thread main marker "
            [ $how = static ] && want="main marker "
            gate_checks "pcgate-$cc-$how" "$G-$how" "$want" UKCOV_PC_GATE
        done
    done
fi

# ---- 6. the seed's features: bitset, counters, direct, unique total --
E=$T/feat
mkdir -p "$E"
# feat_case NAME CMD OUT FUNCS: $bin CMD under coverage=1 prints OUT
# (lines joined by |), and its .sancov at exit covers FUNCS.
feat_case() {
    rm -rf "$E/out.d" && mkdir "$E/out.d"
    UKCOV_OPTIONS="coverage=1:coverage_dir=$E/out.d" "$bin" "$2" >"$E/out" 2>&1
    set -- "$1" "$2" "$3" "$4" "$E/out.d"/"$(basename "$bin")".*.sancov
    if [ "$(tr '\n' '|' <"$E/out")" = "$3" ] && [ -f "$5" ] &&
       [ "$(covered "$bin" "$5")" = "$4" ]; then
        ok "$1"
    else
        bad "$1" "$(tr '\n' '|' <"$E/out") $(covered "$bin" "$5")"
    fi
}
chmod 755 "$E"
if build feat-build $TCLANG -O1 -fsanitize-coverage=trace-pc-guard -c $S/feat_target.c -o "$E/t.o" &&
   build feat-build $TGCC -O1 $INC -c $S/feat_main.c -o "$E/m.o" &&
   build feat-build $TGCC "$E/m.o" "$E/t.o" $SHARED -o "$E/feat-shared" &&
   build feat-build $TGCC "$E/m.o" "$E/t.o" $STATIC -o "$E/feat-static" &&
   build feat-build $TGCC -static "$E/m.o" "$E/t.o" $STATIC -o "$E/feat-full"; then
    # full: a -static executable, whose own module glibc names "" (the
    # runtime reads /proc/self/exe for it, as for every main program).
    for v in shared static full; do
        bin=$E/feat-$v
        rm -rf "$E/out.d" && mkdir "$E/out.d"
        UKCOV_OPTIONS="coverage=1:coverage_counters=1:coverage_bitset=1:coverage_dir=$E/out.d" \
            "$bin" api >"$E/out" 2>&1
        # four guards, a b c d; counts 5, 40, 200, 0 -> buckets 4-7,
        # 32-127, 128+; one more hit of a -> the bucket "1" is new.
        printf '%s\n' "total 0" "total 3" "counters 4" "update 3: 08 40 80 00" \
            "update 1: 09 40 80 00" "update 0: 09 40 80 00" >"$E/want"
        if cmp -s "$E/want" "$E/out"; then ok "feat-$v-unique-total-counters-api"; else bad "feat-$v-unique-total-counters-api" "$(tr '\n' '|' <"$E/out")"; fi
        set -- "$E/out.d"/feat-$v.*.bitset-sancov
        [ -f "$1" ] && [ "$(cat "$1")" = 1110 ] && ok "feat-$v-bitset-file" || bad "feat-$v-bitset-file" "$(ls "$E/out.d")"
        set -- "$E/out.d"/feat-$v.*.counters-sancov
        [ -f "$1" ] && [ "$(od -An -tx1 "$1" | tr -d ' \n')" = 08408000 ] && ok "feat-$v-counters-file-buckets" ||
            bad "feat-$v-counters-file-buckets" "$(od -An -tx1 "$1" 2>&1)"
        # The last guard (feat_d, guard 4 of 4) counts in the total and
        # is cleared by __sanitizer_cov_reset(): the file at exit has
        # feat_a alone.
        feat_case feat-$v-last-guard-total-and-reset last "total 1|reset total 0|" "feat_a "
        # A guard the program set to 0 is no point (compiler-rt's
        # TracePcGuard returns at once): feat_d counts in neither the
        # total nor the file, though the callback writes its hit to
        # the table's unused slot 0.
        feat_case feat-$v-zeroed-guard-not-counted zeroed "total 0|total 1|" "feat_a "
        # Three __sanitizer_cov_dump()s: the second replaces the first's
        # file by rename, and the third must know that file as its own.
        rm -rf "$E/out.d" && mkdir "$E/out.d"
        UKCOV_OPTIONS="coverage=1:coverage_dir=$E/out.d" "$bin" dump3 >"$E/out" 2>&1
        set -- "$E/out.d"/feat-$v.*.sancov
        if [ ! -s "$E/out" ] && [ "$(ls "$E/out.d" | wc -l)" -eq 1 ] && [ -f "$1" ] &&
           [ "$(covered "$bin" "$1")" = "feat_a feat_b feat_c " ]; then
            ok "feat-$v-third-dump-rewrites-own-file"
        else
            bad "feat-$v-third-dump-rewrites-own-file" "$(tr '\n' '|' <"$E/out") $(ls "$E/out.d") $(covered "$bin" "$1")"
        fi
        # coverage_direct: SIGKILL loses nothing; rawunpack gives the
        # .sancov (next to the binary, named by the pid).
        rm -rf "$E/raw.d" "$E"/feat-$v.*.sancov && mkdir "$E/raw.d"
        UKCOV_OPTIONS="coverage_direct=1:coverage_dir=$E/raw.d" "$bin" kill >/dev/null 2>&1
        rc=$?
        set -- "$E/raw.d"/[0-9]*[0-9].sancov.raw	# not <pid>.pc.sancov.raw
        if [ $rc -eq 137 ] && [ -f "$1" ] && [ -f "${1%raw}map" ] &&
           "$U" rawunpack "$1" >/dev/null 2>&1 &&
           [ "$(covered "$bin" "$E"/feat-$v.*.sancov)" = "feat_a feat_b " ]; then
            ok "feat-$v-direct-survives-sigkill"
        else
            bad "feat-$v-direct-survives-sigkill" "rc $rc, $(ls "$E/raw.d" "$E")"
        fi
        # A forked child gets its own raw file, the parent's has none of
        # the child's coverage.
        rm -rf "$E/raw.d" "$E"/feat-$v.*.sancov && mkdir "$E/raw.d"
        UKCOV_OPTIONS="coverage_direct=1:coverage_dir=$E/raw.d" "$bin" forkkill >"$E/out" 2>&1
        for r in "$E/raw.d"/*.sancov.raw; do "$U" rawunpack "$r" >/dev/null 2>&1; done
        got=""
        for f in "$E"/feat-$v.*.sancov; do got="$got$(covered "$bin" "$f")|"; done
        case $got in
            "feat_a |feat_c |"|"feat_c |feat_a |") ok "feat-$v-direct-fork-own-raw-file" ;;
            *) bad "feat-$v-direct-fork-own-raw-file" "$got $(cat "$E/out")" ;;
        esac
    done
fi

# ---- coverage_direct=1 on trace-pc builds (lib/sancov_pclog.c) -----
# Each new PC is appended to <pid>.pc.sancov.raw as it is first seen:
# a run killed by SIGKILL right after its work, unpacked, gives the very
# bytes of the .sancov that coverage=1 writes for the same work and a
# normal exit.  1500 generated functions (~10,000 PCs) make the log grow
# past its first 8192-word chunk, from 4 threads at once in "threads".
P=$T/pcdir
mkdir -p "$P"
chmod 755 "$P"
sh $S/gen_pcdir.sh 1500 >"$P/t.c"
# run_pcdir TAG BIN OPTIONS MODE HOW: run BIN in a fresh directory
# $P/TAG.d, which is also its coverage_dir; output in $P/TAG.out.
run_pcdir() {
    rm -rf "$P/$1.d" && mkdir "$P/$1.d"
    env -C "$P/$1.d" UKCOV_OPTIONS="$3:coverage_dir=$P/$1.d" "$2" "$4" "$5" \
        >"$P/$1.out" 2>&1
}
# sums DIR GLOB: the checksums of the files, sorted (pids differ per run).
sums() { (cd "$1" && for f in $2; do [ -f "$f" ] && cksum <"$f"; done) | sort | tr '\n' '|'; }
for cc in gcc clang; do
    bin=$P/pcdir-$cc
    # -O0: clang -O1 turns the branches into selects (one PC a function).
    build "pcdir-$cc-build" $(tcc $cc) -O0 -fsanitize-coverage=trace-pc -c "$P/t.c" -o "$P/t.o" &&
    build "pcdir-$cc-build" $TGCC -O1 $INC -c $S/pcdir_main.c -o "$P/m.o" &&
    build "pcdir-$cc-build" $TGCC "$P/m.o" "$P/t.o" $SHARED -o "$bin" || continue
    for mode in seq threads fork; do
        t=pcdir-$cc-$mode
        run_pcdir want "$bin" coverage=1 $mode exit
        run_pcdir got "$bin" coverage_direct=1 $mode kill
        rc=$?
        # Every raw file: the guard table's (empty here) has its map too.
        for r in "$P/got.d"/*.sancov.raw; do
            "$U" rawunpack "$r" >>"$P/got.out" 2>&1 || echo "rawunpack $r failed" >>"$P/got.out"
        done
        nwant=$(ls "$P/want.d" | grep -c '\.sancov$')
        want=$(sums "$P/want.d" "pcdir-$cc.*.sancov")
        got=$(sums "$P" "pcdir-$cc.*.sancov")
        # The unpacked file is <module>.<pid>.sancov, the name the tool
        # (and sancov) match binaries by.
        if [ $mode = seq ]; then
            set -- "$P"/pcdir-$cc.*.sancov
            if [ -f "$1" ] && "$U" covered-functions "$bin" "$1" >"$P/cf.out" 2>&1 &&
               grep -q ' f0$' "$P/cf.out"; then
                ok "pcdir-$cc-unpacked-name-symbolizes"
            else
                bad "pcdir-$cc-unpacked-name-symbolizes" "$1: $(head -c 300 "$P/cf.out")"
            fi
        fi
        rm -f "$P"/pcdir-$cc.*.sancov
        exp_n=1
        [ $mode = fork ] && exp_n=2
        if [ $rc -eq 137 ] && [ "$nwant" -eq $exp_n ] && [ -n "$want" ] && [ "$want" = "$got" ] &&
           ! grep -q -E 'outside|failed|warning|error' "$P/got.out"; then
            ok "$t-sigkill-loses-nothing"
        else
            bad "$t-sigkill-loses-nothing" "rc $rc n $nwant want $want got $got: $(head -c 300 "$P/got.out")"
        fi
    done
    # The log grew past one chunk and holds each PC once: words in use
    # (non-zero) = PCs of the coverage=1 file (its size - 8 / 8).
    run_pcdir want "$bin" coverage=1 threads exit
    run_pcdir got "$bin" coverage_direct=1 threads kill
    set -- "$P/want.d"/*.sancov "$P/got.d"/*.pc.sancov.raw
    npcs=$((($(wc -c <"$1") - 8) / 8))
    nz=$(od -An -v -tx8 "$2" | tr -s ' ' '\n' | grep -c -v -E '^0*$')
    if [ "$npcs" -gt 8192 ] && [ "$nz" -eq "$npcs" ]; then
        ok "pcdir-$cc-log-grows-each-pc-once"
    else
        bad "pcdir-$cc-log-grows-each-pc-once" "$npcs PCs, $nz non-zero words"
    fi
    # coverage_bitset=1 cannot cover trace-pc code: one warning, once
    # (4 threads hit their first PCs at once in "threads").
    run_pcdir got "$bin" coverage_direct=1:coverage_bitset=1 threads exit
    if [ "$(grep -c 'coverage_bitset and coverage_counters count trace-pc-guard guards' "$P/got.out")" -eq 1 ]; then
        ok "pcdir-$cc-bitset-warns-once"
    else
        bad "pcdir-$cc-bitset-warns-once" "$(head -c 300 "$P/got.out")"
    fi
    run_pcdir got "$bin" coverage_direct=1 seq exit
    if [ -z "$(cat "$P/got.out")" ]; then ok "pcdir-$cc-no-warning-without-bitset"; else bad "pcdir-$cc-no-warning-without-bitset" "$(head -c 300 "$P/got.out")"; fi
done
# A guard-only program that exits normally leaves no trace-pc log.
if [ -x "$E/feat-shared" ]; then
    run_pcdir guard "$E/feat-shared" coverage_direct=1 api exit
    if ls "$P/guard.d" | grep -q '[0-9]\.sancov\.raw$' && ! ls "$P/guard.d" | grep -q '\.pc\.sancov'; then
        ok "pcdir-guard-only-no-pc-log"
    else
        bad "pcdir-guard-only-no-pc-log" "$(ls "$P/guard.d")"
    fi
fi

# ---- what a user reads of a small run ----
# A three-PC program: its .sancov offsets come out sorted and unique
# however the pcset handed them over (the heapsort's last right child
# counts); verbosity=1 names each file written and its PC count, and
# verbosity=0 (the default) says nothing; coverage_caller_callee=1 on a
# program with no indirect-calls instrumentation writes no
# caller-callee file (compiler-rt writes none either).
V=$T/small
mkdir -p "$V"
chmod 755 "$V"
cat >"$V/three.c" <<'SRC'
__attribute__((noinline)) int f1(int x) { return x + 1; }
__attribute__((noinline)) int f2(int x) { return x + 2; }
int main(void) { return f1(f2(0)) == 12345; }
SRC
if build small-build $TCLANG -O1 -fsanitize-coverage=trace-pc-guard -c "$V/three.c" -o "$V/three.o" &&
   build small-build $TCLANG "$V/three.o" $SHARED -o "$V/three"; then
    rm -rf "$V/o" && mkdir "$V/o"
    UKCOV_OPTIONS="coverage=1:coverage_dir=$V/o:verbosity=1" "$V/three" >"$V/out" 2>"$V/err"
    rc=$?
    set -- "$V/o"/three.*.sancov
    pid=${1##*/three.}
    pid=${pid%.sancov}
    if [ $rc -eq 0 ] && [ -f "$1" ] && [ "$(wc -c <"$1")" -eq 32 ] && sancov_well_formed "$1"; then
        ok "small-three-pcs-sorted"
    else
        bad "small-three-pcs-sorted" "rc $rc $(od -An -tu8 -j8 -w8 -v "$1" | tr -s ' \n' ' ')"
    fi
    if [ "$(cat "$V/err")" = "ukcov: three.$pid.sancov: 3 PCs written" ]; then
        ok "small-verbosity-1-names-the-file"
    else
        bad "small-verbosity-1-names-the-file" "$(head -c 200 "$V/err")"
    fi
    rm -rf "$V/o" && mkdir "$V/o"
    UKCOV_OPTIONS="coverage=1:coverage_dir=$V/o:verbosity=0" "$V/three" >"$V/out" 2>"$V/err"
    if [ ! -s "$V/err" ] && ls "$V/o" | grep -q '^three\.[0-9]*\.sancov$'; then
        ok "small-verbosity-0-silent"
    else
        bad "small-verbosity-0-silent" "$(head -c 200 "$V/err")"
    fi
    rm -rf "$V/o" && mkdir "$V/o"
    UKCOV_OPTIONS="coverage_caller_callee=1:coverage_dir=$V/o" "$V/three" >"$V/out" 2>"$V/err"
    if [ -z "$(ls "$V/o")" ] && [ ! -s "$V/err" ]; then
        ok "small-no-indirect-calls-no-caller-callee-file"
    else
        bad "small-no-indirect-calls-no-caller-callee-file" "$(ls "$V/o") $(head -c 200 "$V/err")"
    fi
fi

# ---- caller-callee pairs and basic-block traces (sancov_trace.c) ----
# Checked against nm and objdump of the binaries (tests/sancov/bbcheck.py),
# not against ukcov.
X=$T/bbt
mkdir -p "$X"
chmod 755 "$X"
bbcheck() { python3 $S/bbcheck.py "$@" 2>&1; }
# clang only: gcc 12 has no -fsanitize-coverage=indirect-calls.
for f in trace-pc-guard trace-pc; do
    v=cc-$f
    # Compiled and linked apart: clang linking with -fsanitize-coverage
    # would bring its ubsan runtime and its SEGV handler.
    build "$v-build" $TCLANG -O1 -fsanitize-coverage=$f,indirect-calls -c $S/indir.c -o "$X/indir.o" &&
        build "$v-build" $TCLANG "$X/indir.o" $SHARED -o "$X/$v" || continue
    rm -rf "$X/o" && mkdir "$X/o"
    UKCOV_OPTIONS="coverage_caller_callee=1:coverage_dir=$X/o" "$X/$v" >"$X/out" 2>&1
    rc=$?
    { i=0; while [ $i -lt 20 ]; do echo "dispatch_many f$i"; i=$((i + 1)); done
      echo "dispatch_two one"; echo "dispatch_two two"; } >"$X/want"
    set -- "$X/o"/caller-callee.*.sancov
    if [ $rc -eq 0 ] && [ -f "$1" ] && bbcheck cc "$X/$v" "$1" >"$X/got" && cmp -s "$X/want" "$X/got"; then
        ok "$v-exact-pairs-20-callees-one-caller"
    else
        bad "$v-exact-pairs-20-callees-one-caller" "rc $rc $(cat "$X/out") $(head -5 "$X/got")"
    fi
    if [ "$(cat "$X/out")" = "$(printf '1221\n22 pairs')" ]; then ok "$v-unique-pairs-api"; else bad "$v-unique-pairs-api" "$(cat "$X/out")"; fi
    # ukcov trace prints the same pairs symbolized.
    "$U" trace "$1" 2>"$X/err" | awk '{ print $2, $6 }' >"$X/got"
    if cmp -s "$X/want" "$X/got" && [ ! -s "$X/err" ]; then ok "$v-ukcov-trace-pairs"; else bad "$v-ukcov-trace-pairs" "$(head -3 "$X/got") $(cat "$X/err")"; fi
    rm -rf "$X/o" && mkdir "$X/o"
    UKCOV_OPTIONS="coverage=1:coverage_dir=$X/o" "$X/$v" >"$X/out" 2>&1
    if [ "$(cat "$X/out")" = "$(printf '1221\n0 pairs')" ] && ! ls "$X/o" | grep -q caller-callee; then
        ok "$v-off-no-pairs"
    else
        bad "$v-off-no-pairs" "$(cat "$X/out") $(ls "$X/o")"
    fi
    rm -rf "$X/o" && mkdir "$X/o"
    UKCOV_OPTIONS="coverage_caller_callee=1:coverage_dir=$X/o" "$X/$v" crash >"$X/out" 2>&1
    rc=$?
    set -- "$X/o"/caller-callee.*.sancov
    if [ $rc -eq 139 ] && [ -f "$1" ] && bbcheck cc "$X/$v" "$1" >"$X/got" && cmp -s "$X/want" "$X/got"; then
        ok "$v-fatal-signal-dump"
    else
        bad "$v-fatal-signal-dump" "rc $rc $(ls "$X/o")"
    fi
done

# bbtrace VARIANT MODE [OPTIONS]: run the trace harness into $X/o.
bbtrace() {
    rm -rf "$X/o" && mkdir "$X/o"
    UKCOV_OPTIONS="coverage_trace_bb=1:coverage_dir=$X/o${3:+:$3}" "$X/$1" "$2" >"$X/out" 2>&1
    rc=$?
}
pid_of() { ls "$X/o" | sed -n "s/^$1\.\([0-9]*\)\.sancov$/\1/p"; }
for v in gcc:trace-pc clang:trace-pc clang:trace-pc-guard; do
    cc=${v%%:*} f=${v#*:} v=bb-$cc-$f
    build "$v-build" $(tcc $cc) -O1 -fsanitize-coverage=$f -c $S/bb_work.c -o "$X/w.o" &&
        build "$v-build" $(tcc $cc) -O1 $S/bb_main.c "$X/w.o" $SHARED -lpthread -o "$X/$v" || continue
    bbtrace $v threads
    printf '1 abca*100\n2 bbc*1000\n3 cab*1000\n' >"$X/want"
    if [ $rc -eq 0 ] && bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events)" >"$X/got" &&
       cmp -s "$X/want" "$X/got" && [ -z "$(grep -v '^done$' "$X/out")" ]; then
        ok "$v-threads-exact-sequences"
    else
        bad "$v-threads-exact-sequences" "rc $rc $(cat "$X/out" "$X/got" | tr '\n' '|')"
    fi
    # 400 + 3000 + 3000 events, 10 kept: the main thread's first ten.
    bbtrace $v threads coverage_trace_max_events=10
    if [ "$(bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events)")" = "1 abcaabcaab" ] &&
       grep -qx "ukcov: coverage_trace_bb: 6390 events past coverage_trace_max_events were not recorded" "$X/out"; then
        ok "$v-bound-and-cut-count"
    else
        bad "$v-bound-and-cut-count" "$(cat "$X/out")"
    fi
    # A bound that fills whole pages (512 x 8 bytes): the array ends at
    # an inaccessible page, so a write past the bound would fault.
    bbtrace $v threads coverage_trace_max_events=512
    set -- "$X/o"/trace-events.*.sancov
    if [ $rc -eq 0 ] && [ "$(wc -c <"$1")" -eq 2048 ] &&
       grep -qx "ukcov: coverage_trace_bb: 5888 events past coverage_trace_max_events were not recorded" "$X/out"; then
        ok "$v-bound-page-multiple"
    else
        bad "$v-bound-page-multiple" "rc $rc $(cat "$X/out")"
    fi
    bbtrace $v threads coverage_trace_max_events=10
    # ukcov trace: events with their thread, point and function.
    "$U" trace "$X/o"/trace-events.*.sancov 2>"$X/err" | awk '{ print $1, $2, $4 }' >"$X/got"
    printf '1 0 bb_a\n1 1 bb_b\n1 2 bb_c\n1 0 bb_a\n1 0 bb_a\n1 1 bb_b\n1 2 bb_c\n1 0 bb_a\n1 0 bb_a\n1 1 bb_b\n' >"$X/want"
    if cmp -s "$X/want" "$X/got" && [ ! -s "$X/err" ] &&
       [ "$("$U" trace "$X/o"/trace-points.*.sancov | awk '{ print $1, $3 }' | tr '\n' ' ')" = "0 bb_a 1 bb_b 2 bb_c " ]; then
        ok "$v-ukcov-trace-events-points"
    else
        bad "$v-ukcov-trace-events-points" "$(cat "$X/got" "$X/err" | tr '\n' '|')"
    fi
    bbtrace $v fork
    child=$(sed -n 's/^child //p' "$X/out")
    if [ -n "$child" ] && [ "$(bbcheck trace "$X/$v" "$X/o" "$child")" = "1 b*2" ] &&
       [ "$(bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events | grep -vx "$child")")" = "1 ac" ]; then
        ok "$v-fork-child-own-files"
    else
        bad "$v-fork-child-own-files" "$(cat "$X/out") $(ls "$X/o")"
    fi
    # A dump, then more events: the files at exit number each point
    # afresh (the first dump's numbers are not kept).
    bbtrace $v dump
    if [ $rc -eq 0 ] && [ "$(bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events)")" = "1 abca" ] &&
       [ "$("$U" trace "$X/o"/trace-points.*.sancov | awk '{ print $1, $3 }' | tr '\n' ' ')" = "0 bb_a 1 bb_b 2 bb_c " ]; then
        ok "$v-dump-then-exit-numbers-afresh"
    else
        bad "$v-dump-then-exit-numbers-afresh" "rc $rc $(ls "$X/o") $(bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events)")"
    fi
    bbtrace $v crash
    if [ $rc -eq 139 ] && [ "$(bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events)")" = "1 ab" ]; then
        ok "$v-fatal-signal-dump"
    else
        bad "$v-fatal-signal-dump" "rc $rc $(ls "$X/o")"
    fi
    bbtrace $v nothing
    if [ -z "$(ls "$X/o")" ]; then ok "$v-no-events-no-files"; else bad "$v-no-events-no-files" "$(ls "$X/o")"; fi
done
# With a PC table (clang trace-pc-guard,pc-table), trace-points lists
# every instrumented point, run or not, in the table's order (the
# seed's "all the instrumented points in the program"), and events
# index it: bb_work.c defines bb_never, bb_c, bb_a, bb_b in that order.
if build bb-pctable-build $TCLANG -O1 -fsanitize-coverage=trace-pc-guard,pc-table -c $S/bb_work.c -o "$X/wt.o" &&
   build bb-pctable-build $TCLANG -O1 $S/bb_main.c "$X/wt.o" $SHARED -lpthread -o "$X/bb-pctable-shared" &&
   build bb-pctable-build $TCLANG -O1 $S/bb_main.c "$X/wt.o" $STATIC -o "$X/bb-pctable-static"; then
    guards=0    # every __sancov_guards section: 4 bytes a guard
    for sz in $(${CROSS}objdump -h "$X/wt.o" | awk '$2 == "__sancov_guards" { print $3 }'); do
        guards=$((guards + 0x$sz / 4))
    done
    for how in shared static; do
        v=bb-pctable-$how
        bbtrace $v threads coverage_trace_max_events=10
        set -- "$X/o"/trace-points.*.sancov
        pts=$("$U" trace "$1" | awk '{ print $1, $3 }' | tr '\n' ' ')
        if [ $rc -eq 0 ] && [ "$(wc -l <"$1")" -eq "$guards" ] &&
           [ "$pts" = "0 bb_never 1 bb_c 2 bb_a 3 bb_b " ]; then
            ok "$v-points-every-table-entry"
        else
            bad "$v-points-every-table-entry" "rc $rc, $guards guards: $pts"
        fi
        "$U" trace "$X/o"/trace-events.*.sancov 2>"$X/err" | awk '{ print $2, $4 }' | tr '\n' ' ' >"$X/got"
        if [ "$(cat "$X/got")" = "2 bb_a 3 bb_b 1 bb_c 2 bb_a 2 bb_a 3 bb_b 1 bb_c 2 bb_a 2 bb_a 3 bb_b " ] &&
           [ ! -s "$X/err" ] &&
           [ "$(bbcheck trace "$X/$v" "$X/o" "$(pid_of trace-events)" table)" = "1 abcaabcaab" ]; then
            ok "$v-events-index-the-table"
        else
            bad "$v-events-index-the-table" "$(cat "$X/got" "$X/err" | tr '\n' '|')"
        fi
    done
fi

# A pc-table library unloaded and loaded again at the same address has
# one table there: trace-points lists it once.
if build bb-pctable-dl-build $TCLANG -O1 -fPIC -shared -fsanitize-coverage=trace-pc-guard,pc-table \
       $S/bb_work.c -o "$X/libbbt.so" &&
   build bb-pctable-dl-build $TGCC -O1 $S/tbdl_main.c $SHARED -ldl -o "$X/bb-pctable-dl"; then
    rm -rf "$X/o" && mkdir "$X/o"
    UKCOV_OPTIONS="coverage_trace_bb=1:coverage_dir=$X/o" "$X/bb-pctable-dl" "$X/libbbt.so" >"$X/out" 2>&1
    rc=$?
    set -- "$X/o"/trace-points.*.sancov
    lib=$(grep -c "libbbt.so 0x" "$1" 2>/dev/null)
    if [ $rc -eq 0 ] && grep -qx "loaded twice at the same address" "$X/out" && [ "$lib" -eq 4 ]; then
        ok "bb-pctable-dl-reloaded-table-once"
    elif [ $rc -eq 0 ] && grep -qx "loaded twice at another address" "$X/out"; then
        ok "bb-pctable-dl-reloaded-table-once (skipped: the loader chose another address)"
    else
        bad "bb-pctable-dl-reloaded-table-once" "rc $rc, $lib lines of the library: $(cat "$X/out")"
    fi
fi

# coverage_direct=1 and a trace-pc library dlopen'ed after the set-up:
# the log's map, written again at exit, names it, and rawunpack gives
# its .sancov (beside the library) with the library's PCs (bb_a, bb_b).
if build pcdir-dl-build $TCLANG -O1 -fPIC -shared -fsanitize-coverage=trace-pc \
       $S/bb_work.c -o "$X/libbbpc.so" &&
   build pcdir-dl-build $TGCC -O1 $S/tbdl_main.c $SHARED -ldl -o "$X/pcdir-dl"; then
    rm -rf "$X/o" "$X"/libbbpc.so.*.sancov && mkdir "$X/o"
    UKCOV_OPTIONS="coverage_direct=1:coverage_dir=$X/o" "$X/pcdir-dl" "$X/libbbpc.so" >"$X/out" 2>&1
    rc=$?
    set -- "$X/o"/*.pc.sancov.map
    if [ $rc -eq 0 ] && grep -q " $X/libbbpc.so\$" "$1" &&
       (cd "$X/o" && "$U" rawunpack "${1%map}raw" >/dev/null 2>&1) &&
       [ "$(covered "$X/libbbpc.so" "$X"/libbbpc.so.*.sancov)" = "bb_a bb_b " ]; then
        ok "pcdir-dl-library-loaded-later-in-map"
    else
        bad "pcdir-dl-library-loaded-later-in-map" "rc $rc $(cat "$1" 2>&1) $(ls "$X/o")"
    fi
fi

# ukcov trace on bad input: a clear error, exit 1, nothing printed.
printf 'x 0x10\ny 0x20\nz 0x30\n' >"$X/caller-callee.1.sancov"
printf 'a.out 0x10\na.out 12\n' >"$X/trace-points.1.sancov"
printf 'abcde' >"$X/trace-events.2.sancov"
printf 'a.out 0x10\n' >"$X/trace-points.2.sancov"
: >"$X/trace-events.4.sancov"	# no events, and no points file beside it
for c in "caller-callee.1.sancov:3 lines, not pairs of lines" \
         "trace-points.1.sancov:trace-points.1.sancov:2: not a point line" \
         "trace-events.2.sancov:5 bytes, not a whole number of 4-byte records" \
         "trace-events.9.sancov:trace-points.9.sancov: No such file or directory" \
         "trace-events.4.sancov:trace-points.4.sancov: No such file or directory"; do
    f=${c%%:*} want=${c#*:}
    "$U" trace "$X/$f" >"$X/got" 2>"$X/err"
    rc=$?
    if [ $rc -eq 1 ] && [ ! -s "$X/got" ] && grep -qF "$want" "$X/err"; then ok "ukcov-trace-bad-$f"; else bad "ukcov-trace-bad-$f" "rc $rc $(cat "$X/err")"; fi
done
# Offsets of one hex digit, a module by path only that is gone, and
# <unknown>: printed as they are, and the warning counts the module's
# points (it said "build-id -" and "its 0 PCs").
printf 'gone.out 0x5\n<unknown> 0x7\ngone.out 0x10\n' >"$X/trace-points.3.sancov"
(cd "$X" && "$U" trace trace-points.3.sancov) >"$X/got" 2>"$X/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$X/got")" = "0 gone.out+0x5
1 0x7
2 gone.out+0x10" ] && [ "$(cat "$X/err")" = "ukcov: warning: trace-points.3.sancov: no binary for module gone.out; pass it on the command line (its 2 PCs are printed without symbols)" ]; then
    ok "ukcov-trace-short-offsets-module-gone"
else
    bad "ukcov-trace-short-offsets-module-gone" "rc $rc $(cat "$X/got" "$X/err" | tr '\n' '|')"
fi
# Hostile coverage_dir: the trace files are created like the others.
v=bb-gcc-trace-pc
if [ -x "$X/$v" ]; then
    rm -rf "$X/o" && mkdir "$X/o"
    echo precious >"$X/target"
    UKCOV_OPTIONS="coverage_trace_bb=1:coverage_dir=$X/o" X=$X sh -c '
        ln -s "$X/target" "$X/o/trace-events.$$.sancov"
        exec "$0" threads' "$X/$v" >"$X/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -qx done "$X/out" && [ "$(cat "$X/target")" = precious ] &&
       grep -q "trace-events.[0-9]*.sancov: exists and is not this process's file; not overwritten" "$X/out" &&
       ls "$X/o" | grep -q '^trace-points' && ! ls "$X/o" | grep -q tmp; then
        ok "$v-hostile-symlink-untouched"
    else
        bad "$v-hostile-symlink-untouched" "rc $rc $(cat "$X/out") $(ls "$X/o")"
    fi
    UKCOV_OPTIONS="coverage_trace_bb=1:coverage_dir=$X/missing" "$X/$v" threads >"$X/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -qx done "$X/out" &&
       grep -q "coverage_dir '$X/missing': No such file or directory; trace-events.[0-9]*.sancov not written" "$X/out"; then
        ok "$v-missing-dir-named"
    else
        bad "$v-missing-dir-named" "rc $rc $(cat "$X/out")"
    fi
fi

summary
