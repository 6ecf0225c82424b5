#!/bin/sh
# The benchmark's own pieces still build and run (the benchmark itself is
# "make bench", never part of make test): the micro-benchmark against each
# runtime, and the kcovrun launcher turning tracing on through the kcov
# protocol for the reference runtime and for libukcov (exec takeover).
. tests/lib.sh

U=$B/bench/ub
if make --no-print-directory -s -f bench/workloads.mk B="$B" ubench tools >"$T/build.log" 2>&1; then
    ok build
else
    bad build "$(tail -3 "$T/build.log" | tr '\n' ' ')"
fi
for rt in nop ref uk uks ukplt; do
    for mode in off cache full swoff cmp gdoff guard; do
        check "ubench-$rt-$mode" sh -c "$U/ub_$rt $mode 2000 1 | grep -q 'ns/call'"
    done
done

# The remote-coverage benchmark builds and runs (one round).
if make --no-print-directory -s B="$B" "$B/bench/remote/remote-bench" >"$T/rb.log" 2>&1 &&
   UKCOV_REGISTRY=$T/registry "$B/bench/remote/remote-bench" 1 >"$T/rb.out" 2>&1 &&
   grep -q '^merge per record:' "$T/rb.out" && grep -q '^cross-process empty section:' "$T/rb.out"; then
    ok remote-bench
else
    bad remote-bench "$(tail -3 "$T/rb.log" "$T/rb.out" | tr '\n' ' ')"
fi

# A small instrumented program, traced through kcovrun: records must arrive.
cc -O2 -fsanitize-coverage=trace-pc,trace-cmp -c bench/smoke/target.c -o "$T/target.o"
cc "$T/target.o" "$B/bench/rt/refcov.o" -o "$T/t_ref"
cc "$T/target.o" "$B/libukcov.a" -lpthread -o "$T/t_uk"
# I5's measure (bench/run.py text_bytes): the .text and .text.* bytes of
# an object, as binutils' size counts them.
want=$(size -A "$T/target.o" | awk '$1 == ".text" || $1 ~ /^\.text\./ { s += $2 } END { print s }')
got=$(python3 -B -c 'import sys; sys.path.insert(0, "bench"); import run; print(run.text_bytes(sys.argv[1]))' "$T/target.o")
if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$want" = "$got" ]; then
    ok bench-text-bytes
else
    bad bench-text-bytes "size -A: $want, run.py: $got"
fi
records() { sed -n 's/.*records=\([0-9]*\).*/\1/p' "$T/check.out"; }
traced() {	# name kcovrun-args... -- prog
    name=$1; shift
    if "$B/bench/kcovrun" "$@" >"$T/stdout" 2>"$T/check.out" && grep -q checksum "$T/stdout" &&
       [ "$(records)" -gt 100 ]; then
        ok "$name"
    else
        bad "$name" "$(tr '\n' ' ' <"$T/check.out")"
    fi
}
traced kcovrun-ref-pc -k ref -w 65536 -- "$T/t_ref"
traced kcovrun-ref-cmp -k ref -m cmp -w 65536 -- "$T/t_ref"
traced kcovrun-ukcov-pc -k ukcov -w 65536 -- "$T/t_uk"
traced kcovrun-ukcov-cmp -k ukcov -m cmp -w 65536 -- "$T/t_uk"
traced kcovrun-ukcov-drained -k ukcov -w 4096 -r -- "$T/t_uk"
check kcovrun-ukcov-drops sh -c "$B/bench/kcovrun -k ukcov -w 512 -- $T/t_uk 2>&1 >/dev/null | grep -q 'dropped=[1-9]'"

summary
