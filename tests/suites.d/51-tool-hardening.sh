#!/bin/bash
# tests/suites.d/51-tool-hardening.sh -- regression tests of the tool
# defects of issue 6: source paths joined with DW_AT_comp_dir, truncated
# and huge inputs, build-id matching in print --lines, the CMP PC
# convention.  Targets are built with gcc and clang; expected values come
# from live sancov-14, llvm-symbolizer-14 and objdump.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/51-tool-hardening.sh
set -u
B=${B:-build}
TOP=$(pwd)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
U=$BD/ukcov
CC_W=$BD/ukcov-cc
T=$(mktemp -d "${TMPDIR:-/tmp}/ukcov-toolhard.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | head -20; }

# same NAME "CMD1" "CMD2": stdout and exit status of both are identical.
same() {
	local n=$1 r1 r2
	(cd "$T" && eval "$2") >"$T/a" 2>"$T/a.err"; r1=$?
	(cd "$T" && eval "$3") >"$T/b" 2>"$T/b.err"; r2=$?
	if [ $r1 -eq $r2 ] && [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then ok "$n"; else
		diff "$T/a" "$T/b" >"$T/d"; echo "rc $r1 vs $r2" >>"$T/d"
		cat "$T/a.err" "$T/b.err" >>"$T/d"; bad "$n" "$T/d"; fi
}

# expect NAME RC "STDOUT" "STDERR" CMD...: exact exit status, stdout, stderr.
expect() {
	local n=$1 rc=$2 out=$3 msg=$4 r; shift 4
	(cd "$T" && "$@") >"$T/out" 2>"$T/err"; r=$?
	if [ $r -eq "$rc" ] && [ "$(cat "$T/out")" = "$out" ] && [ "$(cat "$T/err")" = "$msg" ]; then ok "$n"; else
		{ echo "rc $r (want $rc)"; echo "stdout:"; head -5 "$T/out"; echo "want:"; echo "$out"
		  echo "stderr:"; cat "$T/err"; echo "want:"; echo "$msg"; } >"$T/d"
		bad "$n" "$T/d"; fi
}

for f in "$U" "$CC_W"; do
	[ -x "$f" ] || { echo "missing $f (make tools)"; echo "0 passed, 1 failed"; exit 1; }
done

# ---- defect 2: source paths ------------------------------------------------
# A project whose build directory is a sibling of its sources: a.c is
# compiled by a relative path, main.c by an absolute one, and the header
# is found through a relative -I, so the line tables hold relative
# directories that only DW_AT_comp_dir makes absolute.
P=$T/proj
mkdir -p "$P/src" "$P/inc" "$P/build"
cat >"$P/inc/h.h" <<'EOF'
static inline int twice(int x)
{
	if (x > 3)
		return x * 2;
	return x;
}
EOF
cat >"$P/src/a.c" <<'EOF'
#include "h.h"
int afn(int x)
{
	return twice(x) + 1;
}
int unused_fn(int x)
{
	return x - 1;
}
EOF
cat >"$P/src/main.c" <<'EOF'
#include <stdlib.h>
#include "h.h"
int afn(int);
int main(int argc, char **argv)
{
	int v = argc > 1 ? atoi(argv[1]) : 0;

	if (v > 2)
		v = afn(v);
	return twice(v) > 100;
}
EOF

# sancov-14 (clang trace-pc-guard + ASan, DWARF 5 and 4, with and
# without -fdebug-prefix-map): every symbolizing view byte for byte.
cd "$P/build" || exit 1
for dw in 5 4; do
	for pm in "" "-fdebug-prefix-map=$P=/src" "-fdebug-prefix-map=$P=."; do
		name="clang -gdwarf-$dw ${pm//$P/P}"
		rm -rf cov && mkdir cov
		if ! clang -g -gdwarf-$dw $pm -O0 -I../inc -fsanitize-coverage=trace-pc-guard \
			-fsanitize=address ../src/a.c "$P/src/main.c" -o pg 2>"$T/cc.err"; then
			bad "$name: fixture builds" "$T/cc.err"; continue; fi
		ASAN_OPTIONS=coverage=1:coverage_dir=cov:detect_leaks=0 ./pg 5 >/dev/null 2>&1
		S=$(ls cov/pg.*.sancov)
		for act in covered-functions not-covered-functions symbolize; do
			same "$name: $act == sancov-14" "cd $P/build && sancov -$act pg $S" \
				"cd $P/build && $U $act pg $S"
		done
		# lcov's SF: lines name the same files as sancov's .symcov.
		same "$name: lcov SF: == sancov's files" \
			"cd $P/build && sancov -symbolize -skip-dead-files=0 pg $S | python3 -c 'import json,sys; print(\"\n\".join(sorted(json.load(sys.stdin)[\"point-symbol-info\"])))'" \
			"cd $P/build && $U lcov --no-skip-dead-files pg $S | sed -n 's/^SF://p' | sort"
	done
done

# llvm-symbolizer (gcc and clang trace-pc through ukcov-cc, DWARF 5 and
# 4, prefix maps to an absolute and to a relative directory): print
# --lines names each covered point's file:line:column as llvm-symbolizer.
for cc in gcc clang; do
	for dw in 5 4; do
		for pm in "" "-fdebug-prefix-map=$P=/src" "-fdebug-prefix-map=$P=." "-fdebug-prefix-map=$P/build=."; do
			name="$cc -gdwarf-$dw ${pm//$P/P}"
			if ! UKCOV_CC=$cc "$CC_W" -g -gdwarf-$dw $pm -O0 -I../inc ../src/a.c "$P/src/main.c" \
				-o pt 2>"$T/cc.err" || ! "$U" run -o pt.dump -- ./pt 5 2>"$T/cc.err"; then
				bad "$name: fixture builds and runs" "$T/cc.err"; continue; fi
			"$U" print --lines pt.dump >lines.txt 2>"$T/lines.err"
			awk '{print $1}' lines.txt | sed 's/.*+//' |
				llvm-symbolizer --obj=pt --no-inlines --functions=none | grep . >llvm.txt
			awk '{print $NF}' lines.txt >ukcov.txt
			if [ -s llvm.txt ] && grep -q 'h\.h:' llvm.txt && cmp -s llvm.txt ukcov.txt; then
				ok "$name: print --lines == llvm-symbolizer ($(wc -l <llvm.txt) points)"
			else
				paste ukcov.txt llvm.txt >"$T/d"; cat "$T/lines.err" >>"$T/d"
				bad "$name: print --lines == llvm-symbolizer" "$T/d"
			fi
		done
	done
done
cd "$T" || exit 1

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
