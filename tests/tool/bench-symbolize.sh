#!/bin/bash
# tests/tool/bench-symbolize.sh -- ukcov vs LLVM sancov-14 on the sqlite
# amalgamation (docs/PERFORMANCE.md, "Tool: symbolize and
# covered-functions").  Needs bench/.cache/src/sqlite (make -C bench fetch,
# see bench/README.md) and hyperfine.  Usage: B=build tests/tool/bench-symbolize.sh
set -eu
B=${B:-build}
U=$(pwd)/$B/ukcov
SQ=$(pwd)/bench/.cache/src/sqlite
W=${WORKDIR:-/tmp/ukcov-bench-sym}
mkdir -p "$W/cov" && cd "$W"
[ -x sqlbench_asan ] || clang -g -O2 -fsanitize-coverage=trace-pc-guard -fsanitize=address \
	-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I"$SQ" "$SQ/sqlite3.c" \
	"$OLDPWD/bench/drivers/sqlbench.c" -o sqlbench_asan
rm -f cov/*
ASAN_OPTIONS=coverage=1:coverage_dir=cov:detect_leaks=0 ./sqlbench_asan 1 >/dev/null 2>&1
C=$(ls cov/*.sancov)
sancov -print-coverage-stats sqlbench_asan "$C"
for a in symbolize covered-functions; do
	sancov -$a sqlbench_asan "$C" >s.out; "$U" $a sqlbench_asan "$C" >u.out
	cmp s.out u.out && echo "$a: identical output ($(wc -c <u.out) bytes)"
	for t in "sancov -$a" "$U $a"; do /usr/bin/time -f "$t: peak RSS %M KB" $t sqlbench_asan "$C" >/dev/null; done
done
hyperfine -w 1 -r 10 -N "sancov -symbolize sqlbench_asan $C" "$U symbolize sqlbench_asan $C" \
	"sancov -covered-functions sqlbench_asan $C" "$U covered-functions sqlbench_asan $C"
