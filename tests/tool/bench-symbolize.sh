#!/bin/bash
# tests/tool/bench-symbolize.sh -- ukcov vs LLVM sancov-14 on the sqlite
# amalgamation (docs/PERFORMANCE.md, "Tool: symbolize and
# covered-functions").  Needs the sqlite sources (make -C bench fetch, see
# bench/README.md; SQLITE_SRC overrides the path), clang, sancov, bc and
# GNU time; valgrind for the instruction counts.
#
#   B=build tests/tool/bench-symbolize.sh
#
# Checks that the outputs are byte-identical and that the point sets of
# the length decoder and of capstone agree on the binary, then runs RUNS
# (default 9) alternating pairs of each command under /usr/bin/time and
# prints the medians of wall and CPU (user+sys, all threads) time, their
# ratios and the peak RSS; then valgrind instruction counts (callgrind,
# all threads), which the load of a shared machine does not move.
# NO_CALLGRIND=1 skips those.  WORKDIR (default: a mktemp -d) keeps the
# binary between runs.
set -eu
B=${B:-build}
TOP=$(pwd)
U=$TOP/$B/ukcov
SQ=${SQLITE_SRC:-$TOP/bench/.cache/src/sqlite}
RUNS=${RUNS:-9}
W=${WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/ukcov-bench-sym.XXXXXX")}
mkdir -p "$W/cov" && cd "$W"
[ -x sqlbench_asan ] || clang -g -O2 -fsanitize-coverage=trace-pc-guard -fsanitize=address \
	-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I"$SQ" "$SQ/sqlite3.c" \
	"$TOP/bench/drivers/sqlbench.c" -o sqlbench_asan
rm -f cov/*
ASAN_OPTIONS=coverage=1:coverage_dir=cov:detect_leaks=0 ./sqlbench_asan 1 >/dev/null 2>&1
C=$(ls cov/*.sancov)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) (family $(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
sancov -print-coverage-stats sqlbench_asan "$C"
[ -x "$TOP/$B/tests/x86len-check" ] && "$TOP/$B/tests/x86len-check" sqlbench_asan | tail -2
for a in symbolize covered-functions; do
	sancov -$a sqlbench_asan "$C" >s.out; "$U" $a sqlbench_asan "$C" >u.out
	cmp s.out u.out && echo "$a: identical output ($(wc -c <u.out) bytes)"
done

# median FILE: the median of the numbers in FILE, one a line.
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# timed TAG CMD...: one run; appends wall, CPU and peak RSS to TAG.*.
timed() {
	local tag=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o t.$$ "$@" >/dev/null
	read -r e u s m <t.$$
	echo "$e" >>"$tag.wall"; echo "$u + $s" | bc >>"$tag.cpu"; echo "$m" >>"$tag.rss"
}
for a in symbolize covered-functions; do
	rm -f s.* u.*
	for _ in $(seq "$RUNS"); do
		timed s sancov -$a sqlbench_asan "$C"
		timed u "$U" $a sqlbench_asan "$C"
	done
	sw=$(median s.wall) uw=$(median u.wall) sc=$(median s.cpu) uc=$(median u.cpu)
	printf '%s, median of %d alternating runs: wall %.3f s vs %.3f s (%.2fx), CPU %.3f s vs %.3f s (%.2fx), peak RSS %d KB vs %d KB (max)\n' \
		"$a" "$RUNS" "$sw" "$uw" "$(echo "$sw / $uw" | bc -l)" "$sc" "$uc" "$(echo "$sc / $uc" | bc -l)" \
		"$(sort -n s.rss | tail -1)" "$(sort -n u.rss | tail -1)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "${NO_CALLGRIND:-}" ] && command -v valgrind >/dev/null; then
	# instructions TOOL CMD...: callgrind's instruction count, all threads.
	instructions() {
		valgrind --tool=callgrind --callgrind-out-file=cg.out "$@" >/dev/null 2>cg.err
		awk '/^summary:/ {s += $2} END {printf "%.0f\n", s}' cg.out*; rm -f cg.out*
	}
	si=$(instructions sancov -symbolize sqlbench_asan "$C")
	ui=$(instructions "$U" symbolize sqlbench_asan "$C")
	printf 'symbolize, instructions (callgrind): sancov %d, ukcov %d (%.2fx)\n' "$si" "$ui" "$(echo "$si / $ui" | bc -l)"
fi
