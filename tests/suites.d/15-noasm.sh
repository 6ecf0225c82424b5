#!/bin/sh
# The C versions of the assembly callbacks (lib/callbacks.c).  On x86-64
# the runtime's trace_pc and trace_pc_guard are assembly; their C
# versions are what every other architecture runs, so they are tested
# here: the runtime is built again with make UKCOV_NO_ASM=1 into
# $B-noasm, and the core, unique and sancov suites run against it.  Each
# line is prefixed "noasm/"; the counts add up into one summary.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/15-noasm.sh
. tests/lib.sh
NB=$B-noasm
# Lua's sources for 55-unique: the cache the main build's run fetched.
[ -n "${BENCH_CACHE:-}" ] || [ ! -d "$B/bench-cache" ] || BENCH_CACHE=$(pwd)/$B/bench-cache
export BENCH_CACHE

if ! make --no-print-directory -j2 B="$NB" UKCOV_NO_ASM=1 lib tools core-tests \
	>"$T/build.log" 2>&1; then
	bad "noasm/build" "$(tail -5 "$T/build.log" | tr '\n' ' ')"
	summary
	exit
fi

# The build really has the C callbacks, and the main one the assembly
# (the gates exist only in the assembly): otherwise this suite would
# test the same code twice.
gates() { nm "$1/libukcov.a" 2>/dev/null | grep -c ' [dD] [a-z]*_gate_addr$'; }
if [ "$(uname -m)" = x86_64 ]; then
	if [ "$(gates "$NB")" = 0 ] && [ "$(gates "$B")" = 2 ]; then
		ok "noasm/c-callbacks-built"
	else
		bad "noasm/c-callbacks-built" "gates: $(gates "$NB") in $NB, $(gates "$B") in $B"
	fi
fi

for s in 10-core 55-unique 60-sancov; do
	B=$NB UKCOV_NO_ASM=1 "tests/suites.d/$s.sh" >"$T/$s.out" 2>&1
	rc=$?
	grep -v -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$T/$s.out" |
		sed -E 's#^(ok|not ok|FAIL) +#\1 noasm/#'
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$T/$s.out" | tail -n 1)
	if [ -z "$line" ]; then
		bad "noasm/$s" "no summary line (exit $rc)"
		continue
	fi
	set -- $(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/')
	pass=$((pass + $1))
	fail=$((fail + $2))
	[ "$rc" = 0 ] || [ "$2" != 0 ] || bad "noasm/$s" "exit status $rc after 0 failed"
done
summary
