#!/bin/sh
# The kcov example programs of the seed documents (examples/*.c), built
# by gcc and by clang against libukcov (examples/examples.mk), run the
# way users run them: their output must be real coverage of the
# instrumented target_read() (examples/target.c).  Then the programs in
# the man pages' EXAMPLES sections must run, and the pages must be
# lint-clean.  Needs "make test-prep" (or "make examples") first.
. tests/lib.sh
EX=$B/examples
# The remote examples register handles: in a registry of this run's own,
# not the user's (other runs may go on at the same time).
UKCOV_REGISTRY=$T/registry
export UKCOV_REGISTRY

# Run a built example, which must exit 0, with the dynamic loader's
# auxv dump in front of its output ($T/out), so that the PIE load bias
# can be computed.  UKCOV_FLAVOR picks the flavor of /dev/kcov.
run_example() {  # test-name flavor binary
    if ! [ -x "$3" ]; then
        bad "$1" "$3 not built (make examples B=$B)"
        return 1
    fi
    env UKCOV_DEVICE=ukcov ${2:+UKCOV_FLAVOR=$2} LD_SHOW_AUXV=1 "$3" \
        >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        bad "$1-runs" "exit status $rc: $(head -c 300 "$T/err")"
        return 1
    fi
    ok "$1-runs"
}

# target_read()'s run-time address range in the run just made:
# sets lo and hi (decimal).  bias = AT_ENTRY - the ELF entry point.
target_range() {  # binary
    at_entry=$(sed -n 's/^AT_ENTRY: *//p' "$T/out")
    e_entry=$(readelf -h "$1" | sed -n 's/.*Entry point address: *//p')
    sym=$(nm -S "$1" | awk '$4 == "target_read" { print "0x" $1, "0x" $2 }')
    [ -n "$at_entry" ] && [ -n "$e_entry" ] && [ -n "$sym" ] || return 1
    set -- $sym
    lo=$((at_entry - e_entry + $1))
    hi=$((lo + $2))
}

# Every address in the file lies in (lo, hi]: a PC is the return
# address of a callback call inside target_read().
all_in_target() {  # file-of-hex-addresses
    [ -s "$1" ] || return 1
    while read -r a; do
        [ $((a)) -gt "$lo" ] && [ $((a)) -le "$hi" ] || return 1
    done <"$1"
}

check_pc_example() {  # cc name flavor
    bin=$EX/$1/$2
    run_example "$2-$1" "$3" "$bin" || return
    grep -E '^0x[0-9a-f]+$' "$T/out" >"$T/pcs"
    n=$(wc -l <"$T/pcs")
    eval "count_$2=$n"
    if [ "$n" -gt 0 ]; then ok "$2-$1-prints-pcs ($n)"; else bad "$2-$1-prints-pcs" "no PC printed"; fi
    if target_range "$bin" && all_in_target "$T/pcs"; then
        ok "$2-$1-pcs-in-target_read"
    else
        bad "$2-$1-pcs-in-target_read" "$(tr '\n' ' ' <"$T/pcs") not all in ($lo, $hi]"
    fi
}

# The records the comparison example must print for target_read(-1,
# NULL, 0): its switch (fd) against cases 0, 3 and 7, one const 4-byte
# record per case {case, fd}, the fd -1 as the 32-bit 0xffffffff.
check_cmp_example() {  # cc
    bin=$EX/$1/linux_cmp
    run_example "linux_cmp-$1" "" "$bin" || return
    grep '^ip: ' "$T/out" >"$T/recs"
    sed 's/^ip: [^ ]* //' "$T/recs" >"$T/got"
    cat >"$T/want" <<'WANT'
type: 0x5, arg1: 0x0, arg2: 0xffffffff, size: 4, const
type: 0x5, arg1: 0x3, arg2: 0xffffffff, size: 4, const
type: 0x5, arg1: 0x7, arg2: 0xffffffff, size: 4, const
WANT
    if cmp -s "$T/want" "$T/got"; then
        ok "linux_cmp-$1-switch-records"
    else
        bad "linux_cmp-$1-switch-records" "got: $(tr '\n' '|' <"$T/got")"
    fi
    sed 's/^ip: \(0x[0-9a-f]*\) .*/\1/' "$T/recs" >"$T/ips"
    if target_range "$bin" && all_in_target "$T/ips"; then
        ok "linux_cmp-$1-ips-in-target_read"
    else
        bad "linux_cmp-$1-ips-in-target_read" "$(tr '\n' ' ' <"$T/ips") not all in ($lo, $hi]"
    fi
}

for cc in ${EX_CCS:-gcc clang}; do
    count_linux_pc= count_freebsd_pc= count_netbsd_pc= count_openbsd_pc=
    check_pc_example "$cc" linux_pc ""
    check_pc_example "$cc" freebsd_pc freebsd
    check_pc_example "$cc" netbsd_pc netbsd
    check_pc_example "$cc" openbsd_pc openbsd
    check_cmp_example "$cc"
    # Remote coverage: kcov.rst's program collects USB bus 1's hub
    # thread (examples/usb_bus.c); the pool and the event loop check
    # their collectors' PCs themselves, PC by PC.
    check_pc_example "$cc" linux_remote ""
    for ex in remote_pool remote_evloop; do
        run_example "$ex-$cc" "" "$EX/$cc/$ex" || continue
        if grep -q "^$ex: ok" "$T/out"; then
            ok "$ex-$cc-collects-its-own"
        else
            bad "$ex-$cc-collects-its-own" "$(head -c 300 "$T/out")"
        fi
    done
    # The same call traced through four interfaces gives the same PCs;
    # FreeBSD's example prints one fewer (its loop ends at i < buf[0]).
    n=$count_linux_pc
    if [ -n "$n" ] && [ "$count_netbsd_pc" = "$n" ] && [ "$count_openbsd_pc" = "$n" ] &&
       [ "$count_freebsd_pc" = $((n - 1)) ]; then
        ok "pc-counts-agree-$cc ($n)"
    else
        bad "pc-counts-agree-$cc" "linux $count_linux_pc netbsd $count_netbsd_pc openbsd $count_openbsd_pc freebsd $count_freebsd_pc"
    fi
done

# Without ukcov serving the path, the Linux example finds no kcov here.
if ! [ -e /sys/kernel/debug/kcov ] && [ -x "$EX/gcc/linux_pc" ]; then
    if UKCOV_DEVICE=kernel "$EX/gcc/linux_pc" >/dev/null 2>"$T/err"; then
        bad linux_pc-UKCOV_DEVICE=kernel "succeeded without a kernel kcov"
    else
        ok linux_pc-UKCOV_DEVICE=kernel-fails
    fi
fi

# The man pages' EXAMPLES: each program, as extracted now, was built by
# each compiler from the same text, and runs with exit status 0.
for page in man/*.3 man/*.4; do
    [ -e "$page" ] || continue
    progs=$(examples/man-examples.sh "$T/man" "$page")
    if [ -z "$progs" ]; then
        bad "man-examples-${page##*/}" "no program in EXAMPLES"
        continue
    fi
    for src in $progs; do
        name=${src##*/}
        name=${name%.c}
        if ! cmp -s "$src" "$EX/man/$name.c"; then
            bad "man-example-$name" "not built from the current page (make examples B=$B)"
            continue
        fi
        for cc in ${EX_CCS:-gcc clang}; do
            # In the scratch directory: an example may write files.
            exe=$EX/man/$name.$cc
            case $exe in /*) ;; *) exe=$PWD/$exe ;; esac
            (cd "$T" && UKCOV_DEVICE=ukcov "$exe") \
                >"$T/out" 2>"$T/err"
            rc=$?
            if [ "$rc" -eq 0 ]; then
                ok "man-example-$name-$cc"
            else
                bad "man-example-$name-$cc" "exit status $rc: $(head -c 300 "$T/err")"
            fi
        done
    done
done

# mandoc -Tlint -Wall, style messages included, must say nothing.  The
# sub-make gets none of the calling make's MAKEFLAGS: under "make -j"
# it would otherwise warn that the jobserver is unavailable, into the
# output checked here.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
       make --no-print-directory -s man-lint B="$B" >"$T/lint" 2>&1 && ! [ -s "$T/lint" ]; then
    ok man-lint
else
    bad man-lint "$(head -c 600 "$T/lint")"
fi

summary
