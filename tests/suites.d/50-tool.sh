#!/bin/bash
# tests/suites.d/50-tool.sh -- the ukcov tool: golden comparisons against a
# live LLVM sancov-14, ukcov-only features (trace-pc, gcc, shared
# libraries, dumps, run, reports), exact error messages, and bounded
# fuzzing of every parser plus its regression inputs.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build-tool tests/suites.d/50-tool.sh
# FUZZ_SECONDS (default 8) bounds each fuzzer.
set -u
B=${B:-build}
TOP=$(pwd)
U=$TOP/$B/ukcov
CC_W=$TOP/$B/ukcov-cc
SRC=$TOP/tests/tool/src
T=$(mktemp -d "${TMPDIR:-/tmp}/ukcov-tool.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | head -20; }

# check NAME CMD...: passes if CMD succeeds.
check() { local n=$1; shift; if "$@" >"$T/out" 2>&1; then ok "$n"; else bad "$n" "$T/out"; fi; }

# same NAME "CMD1" "CMD2": stdout and exit status of both are identical.
same() {
	local n=$1 r1 r2
	(cd "$T" && eval "$2") >"$T/a" 2>"$T/a.err"; r1=$?
	(cd "$T" && eval "$3") >"$T/b" 2>"$T/b.err"; r2=$?
	if [ $r1 -eq $r2 ] && cmp -s "$T/a" "$T/b"; then ok "$n"; else
		diff "$T/a" "$T/b" >"$T/d"; echo "rc $r1 vs $r2" >>"$T/d"
		cat "$T/b.err" >>"$T/d"; bad "$n" "$T/d"; fi
}

# expect NAME RC "STDERR" CMD...: exact exit status and stderr.
expect() {
	local n=$1 rc=$2 msg=$3 r; shift 3
	(cd "$T" && "$@") >"$T/out" 2>"$T/err"; r=$?
	if [ $r -eq "$rc" ] && [ "$(cat "$T/err")" = "$msg" ]; then ok "$n"; else
		{ echo "rc $r (want $rc)"; echo "stderr:"; cat "$T/err"; echo "want:"; echo "$msg"; } >"$T/d"
		bad "$n" "$T/d"; fi
}

# call_points FILE CALLEE: the coverage points of FILE's calls to CALLEE
# as objdump sees them (the address of the instruction after each call,
# minus 1: docs/FORMATS.md "PC conventions"), sorted, one 0x%x a line.
# An oracle independent of the tool.
call_points() {
	objdump -d --no-show-raw-insn "$1" | awk -v callee="<$2>" '
		/^ *[0-9a-f]+:\t/ {
			a = $1; sub(":", "", a)
			if (pending) print a
			pending = ($2 ~ /^call/ && $NF == callee)
		}' | while read -r a; do printf '0x%x\n' $((0x$a - 1)); done | sort -u
}
# hex_norm: 0x%x of each line's number, sorted, unique.
hex_norm() { while read -r a; do printf '0x%x\n' $((a)); done | sort -u; }

for f in "$U" "$CC_W"; do
	[ -x "$f" ] || { echo "missing $f (make tools)"; echo "0 passed, 1 failed"; exit 1; }
done

# ---- fixtures ------------------------------------------------------------
cd "$T" || exit 1
asan() { clang -g "$1" -fsanitize-coverage=trace-pc-guard -fsanitize=address "${@:3}" -o "$2"; }
asan -O0 prog_asan "$SRC/main.c" "$SRC/lib.c"
clang++ -g -O0 -fsanitize-coverage=trace-pc-guard -fsanitize=address "$SRC/cpp.cc" -o cpp_asan
asan -O2 inl_asan "$SRC/inl.c"
mkdir -p cov
run_cov() { ASAN_OPTIONS=coverage=1:coverage_dir=cov:detect_leaks=0 "$@" >/dev/null 2>&1; }
run_cov ./prog_asan 5; S1=$(ls cov/prog_asan.*.sancov)
run_cov ./prog_asan 4 200; S2=$(ls cov/prog_asan.*.sancov | grep -v "$S1")
run_cov ./cpp_asan a; SC=$(ls cov/cpp_asan.*.sancov)
run_cov ./inl_asan 20; SI=$(ls cov/inl_asan.*.sancov)
# These are trace-pc builds (calls): their points are call sites, direct,
# through the PLT or a GOT slot (inline builds: 57-inline.sh).
UKCOV_INLINE=0 "$CC_W" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog_gcc
UKCOV_INLINE=0 UKCOV_CC=clang "$CC_W" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog_clang
UKCOV_INLINE=0 "$CC_W" -fPIC -c "$SRC/dso.c" -o dso.o && gcc -shared dso.o -o libdso.so
UKCOV_INLINE=0 "$CC_W" -fno-plt -fPIC -c "$SRC/dso.c" -o dso_noplt.o && gcc -shared dso_noplt.o -o libdso_noplt.so
UKCOV_INLINE=0 "$CC_W" "$SRC/dsomain.c" -L. -Wl,-rpath,"$T" -ldso -o dsomain
for f in prog_asan cpp_asan inl_asan prog_gcc prog_clang libdso.so dsomain; do
	[ -f "$f" ] || { echo "fixture $f was not built"; echo "0 passed, 1 failed"; exit 1; }
done

# ---- golden: byte-identical to sancov-14 where sancov is right -----------
same "print one file" "sancov -print $S1" "$U print $S1"
same "print two files (concatenated, like sancov)" "sancov -print $S1 $S2" "$U -print $S1 $S2"
# Hand-made .sancov files, offsets out of order and repeated (ASan
# writes them sorted and unique, so the files above cannot tell): print
# sorts and de-duplicates each file, like sancov.
python3 - <<'EOF'
import struct
offs = [0x4010, 0x1234, 0x4010, 0x20, 0xffff0000, 0x1234, 0x21]
open("hand64.1.sancov", "wb").write(struct.pack("<Q%dQ" % len(offs), 0xC0BFFFFFFFFFFF64, *offs))
open("hand32.1.sancov", "wb").write(struct.pack("<Q%dI" % len(offs), 0xC0BFFFFFFFFFFF32, *offs))
open("hand64b.1.sancov", "wb").write(struct.pack("<Q3Q", 0xC0BFFFFFFFFFFF64, 0x21, 0x5, 0x21))
EOF
same "print sorts and de-duplicates (64-bit, like sancov)" "sancov -print hand64.1.sancov" "$U print hand64.1.sancov"
same "print sorts and de-duplicates (32-bit, like sancov)" "sancov -print hand32.1.sancov" "$U print hand32.1.sancov"
same "print of two unsorted files (like sancov)" "sancov -print hand64.1.sancov hand64b.1.sancov" "$U print hand64.1.sancov hand64b.1.sancov"
same "print of the unsorted file: exact" "printf '0x20\n0x21\n0x1234\n0x4010\n0xffff0000\n'" "$U print hand64.1.sancov"
same "print-coverage-pcs guard binary" "sancov -print-coverage-pcs prog_asan" "$U print-coverage-pcs prog_asan"
for b in "prog_asan $S1" "cpp_asan $SC" "inl_asan $SI"; do
	for act in symbolize covered-functions not-covered-functions print-coverage-stats; do
		for flags in "" -demangle=0 -skip-dead-files=0 -use_default_blacklist=0 -strip_path_prefix=/tests/; do
			same "sancov -$act $flags ${b%% *}" "sancov -$act $flags $b" "$U -$act $flags $b"
		done
	done
done
# A function whose points cross a power of 16 (tests/tool/src/wide.c):
# one binary's points keep address order within a function, as
# sancov's, which is not the order of their ids as strings ("f003d" >
# "100019").  A first build says where wide() is; the second pads it
# past the next power of 16.
asan -O0 wide_asan "$SRC/wide.c"
wa=$(nm wide_asan | awk '$3 == "wide" { print $1 }')
wp=16; while [ $wp -le $((0x${wa:-0} + 4096)) ]; do wp=$((wp * 16)); done
asan -O0 wide_asan "$SRC/wide.c" -DSKIP="\"$((wp - 0x${wa:-0}))\""
run_cov ./wide_asan 3; SW=$(ls cov/wide_asan.*.sancov)
wide=$("$U" symbolize wide_asan "$SW" | sed -n '/"wide": {/,/}/p' | grep -o '"[0-9a-f]*":' | awk '{ print length($0) }' | sort -u | wc -l)
[ "$wide" = 2 ] && ok "fixture: wide()'s ids have two lengths" ||
	bad "fixture: wide()'s ids do not cross a power of 16 ($wide length(s))"
same "symbolize: a function's points across a power of 16 (address order)" \
	"sancov -symbolize wide_asan $SW" "$U symbolize wide_asan $SW"
same "long option spellings" "sancov -symbolize -demangle=0 -skip-dead-files=0 cpp_asan $SC" \
	"$U symbolize --no-demangle --no-skip-dead-files cpp_asan $SC"
printf 'fun:main\nsrc:*lib.c\n' >bl.txt
same "user ignorelist" "sancov -covered-functions -blacklist=bl.txt prog_asan $S1" \
	"$U covered-functions --ignorelist bl.txt prog_asan $S1"
# The same list with CRLF line ends and trailing blanks (a list edited
# on Windows): the same functions.
printf 'fun:main  \r\nsrc:*lib.c \r\n' >blcr.txt
same "user ignorelist with CRLF and trailing blanks" "sancov -covered-functions -blacklist=bl.txt prog_asan $S1" \
	"timeout 10 $U covered-functions --ignorelist blcr.txt prog_asan $S1"
# Sections: only [sancov]'s entries apply (LLVM SpecialCaseList).
printf '[other]\nfun:main\n[sancov]\nsrc:*lib.c\n' >blsec.txt
same "user ignorelist with sections" "sancov -covered-functions -blacklist=blsec.txt prog_asan $S1" \
	"$U covered-functions --ignorelist blsec.txt prog_asan $S1"
[ "$(cat "$T/a")" != "$(cd "$T" && sancov -covered-functions prog_asan "$S1")" ] &&
	[ "$(grep -c main "$T/a")" -ge 1 ] && ok "fixture: the [sancov] section drops lib.c, the other keeps main" ||
	bad "fixture: sections" "$T/a"
sancov -symbolize prog_asan "$S1" >s1.symcov 2>/dev/null
same "re-serialize a .symcov" "sancov -merge s1.symcov 2>/dev/null" "$U merge s1.symcov"
same "functions of a .symcov" "sancov -not-covered-functions s1.symcov 2>/dev/null" "$U not-covered-functions s1.symcov"

# ---- deliberate differences from sancov (docs/FORMATS.md §6) -------------
# merge is a true union: two runs = symbolizing their merged .sancov.
"$U" merge -o u.sancov "$S1" "$S2"
cp u.sancov cov/prog_asan.1.sancov
same "symbolize 2 runs == symbolize their union" "$U symbolize prog_asan $S1 $S2" \
	"$U symbolize prog_asan cov/prog_asan.1.sancov"
same "stats of 2 runs count each point once (sancov: all-edges doubled)" \
	"printf 'all-edges: 17\ncov-edges: 12\nall-functions: 7\ncov-functions: 5\n'" "$U -print-coverage-stats prog_asan $S1 $S2"
# ukcov's own spelling adds the report's totals (main.c 26 lines, lib.c
# 7; lib_unused and never_called never ran).
same "stats: the report's line and function totals follow" \
	"printf 'all-edges: 17\ncov-edges: 12\nall-functions: 7\ncov-functions: 5\nall-lines: 33\ncov-lines: 27\nall-source-functions: 7\ncov-source-functions: 5\nno-points-functions: 0\n'" \
	"$U stats prog_asan $S1 $S2"
rm cov/prog_asan.1.sancov
same "union .sancov == sorted set of both prints" "sort -u <($U print $S1; $U print $S2) | sort" \
	"$U print u.sancov | sort"
# The merged file itself, byte for byte: the magic, then the sorted set
# of both inputs' offsets (the print above would hide an unsorted one).
python3 - "$S1" "$S2" hand64.1.sancov hand64b.1.sancov <<'EOF'
import struct, sys
def offsets(path):
    b = open(path, "rb").read()
    w = 8 if struct.unpack("<Q", b[:8])[0] == 0xC0BFFFFFFFFFFF64 else 4
    return struct.unpack("<%d%s" % ((len(b) - 8) // w, "Q" if w == 8 else "I"), b[8:])
def write(path, pcs):
    open(path, "wb").write(struct.pack("<Q%dQ" % len(pcs), 0xC0BFFFFFFFFFFF64, *sorted(pcs)))
write("u.expected", set(offsets(sys.argv[1])) | set(offsets(sys.argv[2])))
write("hand.expected", set(offsets(sys.argv[3])) | set(offsets(sys.argv[4])))
EOF
check "merge writes the sorted union, byte for byte" cmp u.expected u.sancov
cp hand64b.1.sancov hand64.2.sancov	# merge takes one module's files
"$U" merge -o hand.sancov hand64.1.sancov hand64.2.sancov
check "merge of unsorted, repeated offsets writes their sorted set" cmp hand.expected hand.sancov
mkdir -p rp/rp && cp "$SRC/main.c" rp/rp/x.c
# strip_path_prefix applied once: sancov strips twice in function lists.
"$U" symbolize prog_asan "$S1" >a1.symcov
"$U" merge -o m1.symcov a1.symcov a1.symcov
same "merge is idempotent" "cat a1.symcov" "cat m1.symcov"
"$U" symbolize cpp_asan "$SC" >c1.symcov
"$U" merge -o ab.symcov a1.symcov c1.symcov
"$U" merge -o ba.symcov c1.symcov a1.symcov
"$U" merge -o abc.symcov ab.symcov a1.symcov
same "merge of two binaries is order-independent" "cat ab.symcov" "cat ba.symcov"
same "merge is associative (merged output is a valid input)" "cat ab.symcov" "cat abc.symcov"
grep -q '"binary-hash": ""' ab.symcov && grep -q '"[0-9A-F]\{16\}:[0-9a-f]*"' ab.symcov && ok "ids of different binaries are qualified by hash" || bad "qualified ids"

# ---- beyond sancov: trace-pc, gcc, shared libraries, PLT, GOT --------------
# The points are exactly the trace-pc call sites objdump finds.
for b in prog_gcc prog_clang; do
	call_points $b __sanitizer_cov_trace_pc >$b.sites
	[ -s $b.sites ] || bad "$b: objdump finds no trace-pc call"
	same "$b trace-pc: the points are the call sites ($(wc -l <$b.sites))" \
		"cat $b.sites" "$U print-coverage-pcs $b | hex_norm"
done
expect "sancov fails on a trace-pc DSO" 1 "ERROR: __sanitizer_cov* functions not found" sancov -print-coverage-pcs libdso.so
same "DSO points through the PLT" "objdump -d libdso.so | grep -c 'call.*<__sanitizer_cov_trace_pc@plt>'" \
	"$U print-coverage-pcs libdso.so | wc -l"
same "DSO points through the GOT (-fno-plt)" "$U print-coverage-pcs libdso.so | wc -l" "$U print-coverage-pcs libdso_noplt.so | wc -l"
first=$("$U" print-coverage-pcs prog_gcc | head -1)
call=$(objdump -d prog_gcc | grep -m1 'call.*<__sanitizer_cov_trace_pc' | awk '{print $1}' | tr -d :)
[ "$((first))" -eq "$((0x$call + 4))" ] && ok "point = next instruction - 1" || bad "point convention $first vs $call"

# ---- run, dumps, build-id matching ------------------------------------------
if "$U" run -o g.dump -- ./prog_gcc 5 2>run.err; then
	grep -q "exited with status 0" run.err && ok "run reports the exit status" || bad "run status" run.err
	"$U" covered-functions g.dump >cf.txt 2>&1
	grep -q ' libfn$' cf.txt && grep -q ' helper$' cf.txt && ! grep -q ' bar$' cf.txt && ok "dump symbolized through its module table" || bad "dump symbolize" cf.txt
	mkdir -p other && cp prog_gcc other/renamed
	mv prog_gcc prog_gcc.away
	same "dump matched by build-id, not by name" "cat cf.txt" "$U covered-functions g.dump other/renamed"
	expect "dump without its binary" 1 "ukcov: warning: g.dump: no binary with build-id $(readelf -n prog_gcc.away | awk '/Build ID/{print $3}') for module $T/prog_gcc; pass it on the command line (its $(awk '/^pcs 0/{print $3}' g.dump) PCs are skipped)
ukcov: error: no valid coverage files given (need a binary with its .sancov files or dumps, or .symcov files)" "$U" covered-functions g.dump
	mv prog_gcc.away prog_gcc
	"$U" run -o h.dump -- ./prog_gcc 4 200 2>/dev/null
	"$U" merge -o gh.dump g.dump h.dump; "$U" merge -o hg.dump h.dump g.dump; "$U" merge -o ghg.dump gh.dump g.dump
	same "dump merge order-independent" "cat gh.dump" "cat hg.dump"
	same "dump merge associative" "sed /^info/d gh.dump" "sed /^info/d ghg.dump"
	"$U" run -o plain.dump -- ./prog_gcc 5 2>/dev/null && "$U" print --lines plain.dump >plain.txt
	grep -q '^prog_gcc+0x[0-9a-f]* libfn .*lib.c:' plain.txt && ok "run's dump prints symbolized points" || bad "run output" plain.txt
	"$U" run --raw -o - -- ./dsomain 1 2 3 >raw.txt 2>/dev/null
	"$U" run -o dso.dump -- ./dsomain 1 2 3 2>/dev/null && "$U" print --lines dso.dump >dso.txt
	grep -q '^libdso.so+0x' dso.txt && ok "run covers shared libraries" || bad "run dso" dso.txt
	UKCOV_CMP=1 "$CC_W" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog_cmp
	"$U" run --mode cmp -o c.dump -- ./prog_cmp 4 200 2>/dev/null
	"$U" cmp c.dump >cmp.txt 2>&1
	grep -q '^cmp4 const 0x64 0xc8 prog_cmp+0x[0-9a-f]* bar ' cmp.txt && ok "cmp decodes size, const, operands, symbolized PC" || bad "cmp" cmp.txt
	# "4 5" runs every comparison of main.c and lib.c once: the CMP
	# records' PCs are exactly the const_cmp4 call sites (call address
	# + call length - 1, as for PCs), in the PIE (a load bias) and in a
	# -no-pie build (whose buffer can be decoded from another run).
	UKCOV_CMP=1 "$CC_W" -O0 -no-pie "$SRC/main.c" "$SRC/lib.c" -o prog_cmpnp
	for b in prog_cmp prog_cmpnp; do
		call_points $b __sanitizer_cov_trace_const_cmp4 >$b.sites
		"$U" run --mode cmp -o $b.dump -- ./$b 4 5 2>/dev/null
		"$U" cmp $b.dump >$b.cmp 2>&1
		sed -n "s/^cmp4 const [^ ]* [^ ]* $b+\(0x[0-9a-f]*\) .*/\1/p" $b.cmp | hex_norm >$b.offs
		[ "$(wc -l <$b.sites)" -ge 6 ] || bad "$b: objdump finds $(wc -l <$b.sites) const_cmp4 calls"
		same "cmp: $b's record PCs are the const_cmp4 call sites ($(wc -l <$b.sites))" "cat $b.sites" "cat $b.offs"
	done
	# The same records as a raw kcov CMP buffer (count word, then
	# {type, arg1, arg2, ip}) with a UKCOV_MODULES snapshot: ukcov cmp
	# decodes it exactly as it decodes the dump.
	"$U" run --mode cmp --raw -o - -- ./prog_cmpnp 4 5 >cmpnp.raw.txt 2>/dev/null
	UKCOV_MODULES=$T/cmpnp.modules ./prog_cmpnp 4 5
	python3 - <<'EOF'
import struct
recs = [[int(x, 16) for x in l.split()] for l in open("cmpnp.raw.txt") if l.startswith("0x")]
with open("cmpnp.buf", "wb") as f:
    f.write(struct.pack("<Q", len(recs)))
    for r in recs:
        f.write(struct.pack("<4Q", *r))
EOF
	[ "$(grep -c . cmpnp.raw.txt)" -ge 6 ] || bad "ukcov run --raw --mode cmp: $(grep -c . cmpnp.raw.txt) records"
	same "cmp: a raw buffer decodes as its dump does" "$U cmp prog_cmpnp.dump" "$U cmp --modules cmpnp.modules cmpnp.buf"
else
	bad "ukcov run (runtime takeover)" run.err
fi
# --threads all: every thread's records, not only the main thread's.
(cd "$T" && "$CC_W" -O0 "$SRC/threads.c" -lpthread -o threads &&
	cc -g -O0 -fsanitize-coverage=trace-pc "$SRC/threads.c" "$TOP/$B/libukcov.a" -lpthread -o threads_static) >"$T/out" 2>&1 || bad "threads fixture builds" "$T/out"
(cd "$T" && "$U" run --threads all -o all.dump -- ./threads && "$U" covered-functions all.dump threads) >"$T/all.txt" 2>"$T/all.err"
grep -q ' worker_a$' "$T/all.txt" && grep -q ' worker_b$' "$T/all.txt" && grep -q ' worker_c$' "$T/all.txt" && grep -q ' main_only$' "$T/all.txt" && ok "run --threads all covers every thread" || bad "run --threads all" "$T/all.err"
(cd "$T" && "$U" run -o main.dump -- ./threads && "$U" covered-functions main.dump threads) >"$T/main.txt" 2>/dev/null
grep -q ' main_only$' "$T/main.txt" && ! grep -q ' worker_' "$T/main.txt" && ok "run --threads main covers only the main thread" || bad "run --threads main" "$T/main.txt"
(cd "$T" && "$U" run --threads all --raw -o - -- ./threads) >"$T/raw.txt" 2>/dev/null
[ "$(grep -c '^# thread [1-9][0-9]*$' "$T/raw.txt")" = 3 ] && ok "run --threads all --raw: one block per thread" || bad "run --threads all --raw" "$T/raw.txt"
# How many records the main thread makes, counted by the simplest
# runtime there is: a trace-pc callback that counts the main thread's
# calls and their distinct return addresses, and prints both at exit.
cat >"$T/count_rt.c" <<'EOF'
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
static unsigned long calls, ndistinct;
static void *distinct[4096];
void __sanitizer_cov_trace_pc(void)
{
	void *pc = __builtin_return_address(0);
	unsigned long i;

	if (gettid() != getpid())
		return;
	calls++;
	for (i = 0; i < ndistinct && distinct[i] != pc; i++)
		;
	if (i == ndistinct && ndistinct < 4096)
		distinct[ndistinct++] = pc;
}
__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "%lu %lu\n", calls, ndistinct);
}
EOF
main_calls=? main_pcs=?
if (cd "$T" && cc -g -O0 -fsanitize-coverage=trace-pc -c "$SRC/threads.c" -o threads_count.o &&
	cc threads_count.o count_rt.c -lpthread -o threads_count) &&
	counts=$("$T/threads_count" 2>&1 >/dev/null); then
	main_calls=${counts% *} main_pcs=${counts#* }
else
	bad "threads_count (the counting runtime) builds and counts"
fi
expect "--threads all with libukcov.a linked without the wrap says so (unique: $main_pcs)" 0 "ukcov: warning: the program's runtime did not follow its threads: only the main thread was traced (a program linked with libukcov.a sees pthread_create only through the linker's wrap: link it with \$(pkg-config --static --libs ukcov) or -Wl,--wrap=pthread_create)
ukcov: ./threads_static exited with status 0; $main_pcs records, 0 dropped" "$U" run --threads all -o /dev/null -- ./threads_static
expect "--threads all with libukcov.a linked without the wrap says so (pc: $main_calls)" 0 "ukcov: warning: the program's runtime did not follow its threads: only the main thread was traced (a program linked with libukcov.a sees pthread_create only through the linker's wrap: link it with \$(pkg-config --static --libs ukcov) or -Wl,--wrap=pthread_create)
ukcov: ./threads_static exited with status 0; $main_calls records, 0 dropped" "$U" run --mode pc --threads all -o /dev/null -- ./threads_static
# --remote: the sections of other threads and processes.  A
# registry of this run's own; the server is bounded (one request, 30 s).
export UKCOV_REGISTRY="$T/registry"
(cd "$T" && "$CC_W" -O1 "$SRC/remote.c" -lpthread -o remote) >"$T/out" 2>&1 || bad "remote fixture builds" "$T/out"
(cd "$T" && "$U" run --remote 0x0200000000000007 --common -o r.dump -- ./remote && "$U" covered-functions r.dump remote) >"$T/r.txt" 2>"$T/r.err"
grep -q ' rw_common$' "$T/r.txt" && grep -q ' rw_global$' "$T/r.txt" && grep -q ' rw_child$' "$T/r.txt" && ! grep -q ' main_only$' "$T/r.txt" &&
	ok "run --remote --common: the sections of the client, its thread and its fork child, nothing else" || bad "run --remote --common" "$T/r.err"
(cd "$T" && "$U" run --remote 0x0200000000000007 -o r2.dump -- ./remote && "$U" covered-functions r2.dump remote) >"$T/r2.txt" 2>/dev/null
grep -q ' rw_global$' "$T/r2.txt" && ! grep -q ' rw_common$' "$T/r2.txt" && ok "run --remote without --common: no common handle" || bad "run --remote" "$T/r2.txt"
grep -q '^info collection remote$' "$T/r.dump" && ok "run --remote: the dump says remote" || bad "run --remote dump" "$T/r.dump"
"$U" print --lines "$T/r.dump" >"$T/rl.txt" 2>&1
grep -q '^remote+0x[0-9a-f]* rw_global .*remote.c:' "$T/rl.txt" && ok "print --lines reads a remote dump" || bad "print --lines remote" "$T/rl.txt"
# wait_port FILE: the server wrote its port (bounded: 10 s).
wait_port() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
(cd "$T" && exec ./remote --serve port1) & srv=$!
if wait_port "$T/port1" && (cd "$T" && "$U" run --remote 0x0200000000000007 --common -o s.dump -- ./remote --ask port1 && "$U" covered-functions s.dump remote) >"$T/s.txt" 2>"$T/s.err" &&
   wait $srv && grep -q ' rw_server$' "$T/s.txt" && [ "$(grep -c '^module .*/remote$' "$T/s.dump")" -ge 2 ]; then
	ok "run --remote: a server on 127.0.0.1 feeds the client's collection, symbolized with the server's module table"
else
	kill $srv 2>/dev/null; bad "run --remote server" "$T/s.err"
fi
(cd "$T" && exec ./remote --serve port2) & srv=$!
if wait_port "$T/port2" && (cd "$T" && ./remote --collect port2) >"$T/c.txt" 2>&1 && wait $srv &&
   grep -q '^collected [1-9][0-9]* PCs of the server' "$T/c.txt"; then
	ok "a client collects the server's coverage of its request directly"
else
	kill $srv 2>/dev/null; bad "direct remote collection" "$T/c.txt"
fi
# ukcov_dump() of a collector carries the module tables of the processes
# that fed it: a server and a collector built from
# different code (other build-ids), and a fork child of the collector
# whose table is the collector's own (described once).
L_SRV=$(grep -n '^NOINLINE void rw_server' "$SRC/remote.c" | cut -d: -f1)
L_CHILD=$(grep -n '^NOINLINE void rw_child' "$SRC/remote.c" | cut -d: -f1)
for cc in gcc clang; do
	(cd "$T" && UKCOV_CC=$cc "$CC_W" -O1 "$SRC/remote.c" -lpthread -o srv_$cc &&
	 UKCOV_CC=$cc "$CC_W" -O1 -DCOLLECTOR "$SRC/remote.c" -lpthread -o col_$cc) >"$T/out" 2>&1 ||
		bad "$cc: feeder dump fixtures build" "$T/out"
	(cd "$T" && exec ./srv_$cc --serve portd_$cc) & srv=$!
	if wait_port "$T/portd_$cc" && (cd "$T" && ./col_$cc --collect portd_$cc fd_$cc.dump) >"$T/c.txt" 2>&1 &&
	   wait $srv; then
		"$U" print --lines "$T/fd_$cc.dump" >"$T/fl.txt" 2>&1
		"$U" covered-functions "$T/fd_$cc.dump" "$T/srv_$cc" >"$T/fs.txt" 2>&1
		"$U" report "$T/fd_$cc.dump" >"$T/fr.html" 2>&1
		# Every PC symbolized exactly: the server's in rw_server, the
		# fork child's in rw_child, nothing unknown.
		if grep -q "^srv_$cc+0x[0-9a-f]* rw_server $SRC/remote.c:$L_SRV\(:[0-9]*\)\?\$" "$T/fl.txt" &&
		   grep -q "^col_$cc+0x[0-9a-f]* rw_child $SRC/remote.c:$L_CHILD\(:[0-9]*\)\?\$" "$T/fl.txt" &&
		   ! grep -v -e "^srv_$cc+0x[0-9a-f]* rw_server $SRC/remote.c:$L_SRV\(:[0-9]*\)\?\$" \
			     -e "^col_$cc+0x[0-9a-f]* rw_child $SRC/remote.c:$L_CHILD\(:[0-9]*\)\?\$" "$T/fl.txt" >/dev/null &&
		   [ "$(cat "$T/fs.txt")" = "$SRC/remote.c:$L_CHILD rw_child
$SRC/remote.c:$L_SRV rw_server" ]; then
			ok "$cc: ukcov_dump() of a collector symbolizes the server's rw_server (line $L_SRV) and its fork child's rw_child"
		else
			bad "$cc: ukcov_dump() with the feeders' modules" "$T/fl.txt"
		fi
		[ "$(grep -c "^module [0-9]* [0-9a-f]* [0-9a-f]* [0-9a-f]* [0-9a-f]* $T/srv_$cc\$" "$T/fd_$cc.dump")" = 1 ] &&
		[ "$(grep -c "^module [0-9]* [0-9a-f]* [0-9a-f]* [0-9a-f]* [0-9a-f]* $T/col_$cc\$" "$T/fd_$cc.dump")" = 1 ] &&
			ok "$cc: ukcov_dump(): the server's module once, the collector's once (its fork child's table deduplicated)" ||
			bad "$cc: feeder modules deduplicated" "$T/fd_$cc.dump"
		# The report adds up both executables' points of remote.c.
		grep -q "<td>rw_server</td><td class=n>$L_SRV</td><td class=n>[1-9][0-9]*/" "$T/fr.html" &&
		grep -q "<td>rw_common</td><td class=n>[0-9]*</td><td class=n>0/" "$T/fr.html" &&
			ok "$cc: report of the collector's dump covers the server's rw_server" ||
			bad "$cc: report of the feeders' dump" "$T/fr.html"
	else
		kill $srv 2>/dev/null; bad "$cc: collector with ukcov_dump()" "$T/c.txt"
	fi
done
# A nested function's PCs symbolize as llvm-symbolizer does them
# (function, file, line and column), one PC at a time as the oracle.
if (cd "$T" && UKCOV_CC=gcc "$CC_W" -O0 -g "$SRC/nested.c" -o nested &&
    "$U" run -o nested.dump -- ./nested) >"$T/out" 2>&1; then
	"$U" print --lines "$T/nested.dump" >"$T/nl.txt" 2>&1
	while read -r at rest; do
		echo "$at $(llvm-symbolizer-14 --obj="$T/nested" "0x${at#nested+0x}" | head -2 | paste -sd' ')"
	done <"$T/nl.txt" >"$T/nw.txt"
	if grep -q ' inner[^ ]* .*nested.c:[0-9]' "$T/nl.txt" && cmp -s "$T/nl.txt" "$T/nw.txt"; then
		ok "a nested function's PCs symbolize as llvm-symbolizer's"
	else
		diff "$T/nl.txt" "$T/nw.txt" >"$T/d" 2>&1; bad "nested function symbolized" "$T/d"
	fi
else
	bad "nested.c builds and runs" "$T/out"
fi
expect "--remote bad list" 2 "ukcov: error: run: --remote 1,x: not a list of handles" "$U" run --remote 1,x -- true
expect "--common without --remote" 2 "ukcov: error: run: --common goes with --remote HANDLE[,HANDLE...]" "$U" run --common -- true
expect "--remote with a bad handle" 1 "ukcov: error: KCOV_REMOTE_ENABLE: Invalid argument" "$U" run --remote 0x100 -- true
unset UKCOV_REGISTRY
expect "--threads other" 2 "ukcov: error: run: --mode unique|pc|cmp|cmp-unique and --threads main|all" "$U" run --threads some -- true

# ---- rawunpack (sancov.py's coverage_direct pair) --------------------------
# The modules live under the scratch directory, so both files are
# written; a module whose file cannot be written is a case of its own.
mkdir -p rawmods
python3 - "$T/rawmods" <<'EOF'
import struct, sys
d = sys.argv[1]
open("7036.sancov.raw", "wb").write(struct.pack("<5Q", 0x401005, 0, 0x401010, 0x7f0000001020, 0x401005))
open("7036.sancov.map", "w").write("64\n400000 402000 0 %s/a.out\n7f0000000000 7f0000002000 7f0000000000 %s/libz.so\n" % (d, d))
open("7037.sancov.raw", "wb").write(struct.pack("<2Q", 0x401005, 0x401010))
open("7037.sancov.map", "w").write("64\n400000 402000 0 /nonexistent/dir/a.out\n")
EOF
expect "rawunpack writes one .sancov per module" 0 "ukcov: reading map 7036.sancov.map, unpacking 7036.sancov.raw
ukcov: writing 2 PCs to $T/rawmods/a.out.7036.sancov
ukcov: writing 1 PCs to $T/rawmods/libz.so.7036.sancov" "$U" rawunpack 7036.sancov.raw
same "rawunpack module 1 (base 0: offset = pc)" "printf '0x401005\n0x401010\n'" "$U print rawmods/a.out.7036.sancov"
same "rawunpack module 2 (offset = pc - base)" "printf '0x1020\n'" "$U print rawmods/libz.so.7036.sancov"
same "rawunpack output reads in sancov" "sancov -print rawmods/libz.so.7036.sancov" "$U print rawmods/libz.so.7036.sancov"
expect "rawunpack names the file it cannot write" 1 "ukcov: reading map 7037.sancov.map, unpacking 7037.sancov.raw
ukcov: error: /nonexistent/dir/a.out.7037.sancov: No such file or directory" "$U" rawunpack 7037.sancov.raw
expect "rawunpack needs the .sancov.raw name" 1 "ukcov: error: x.bin: unexpected raw file name (want NAME.sancov.raw next to NAME.sancov.map)" "$U" rawunpack x.bin

# ---- reports -------------------------------------------------------------
"$U" lcov prog_asan "$S1" "$S2" >t.info
check "genhtml renders the lcov tracefile" genhtml -q -o html t.info
grep -q '^FN:10,foo$' t.info && grep -q '^DA:21,0$' t.info && grep -q '^FNDA:0,never_called$' t.info && ok "lcov FN/DA records" || bad "lcov content" t.info
SOURCE_DATE_EPOCH=0 "$U" cobertura prog_asan "$S1" >cob.xml
check "cobertura is well-formed XML" python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse('cob.xml')"
grep -q 'timestamp="0"' cob.xml && grep -q 'lines-valid=' cob.xml && ok "cobertura coverage-04 attributes" || bad "cobertura attrs" cob.xml
check "html report" "$U" report -o r.html prog_asan "$S1"
grep -q 'class="notcovered">.*never_called' r.html && ok "html marks uncovered functions" || bad "html content"
expect "report: missing source" 1 "ukcov: error: /nonexistent/lib.c: cannot read the source of lib.c for the report: No such file or directory (use --source-root DIR, --strip-path-prefix, or --allow-missing-sources)" \
	"$U" report --strip-path-prefix="$SRC/" --source-root /nonexistent -o r2.html prog_asan "$S1"

# ---- bad input: the file and the problem, non-zero exit ------------------
printf 'hello world' >junk.txt
printf 'abc' >short.1.sancov
expect "binary where a .sancov is expected" 1 "ukcov: error: prog_asan: not a .sancov file: wrong magic 0x00010102464c457f" "$U" print prog_asan
expect "too small .sancov" 1 "ukcov: error: short.1.sancov: not a .sancov file: too small (3 bytes, the magic alone is 8)" "$U" print short.1.sancov
expect "missing file" 1 "ukcov: error: nope.sancov: No such file or directory" "$U" print nope.sancov
expect "unrecognized input" 1 "ukcov: error: junk.txt: not a binary, .sancov, .symcov or ukcov dump (unrecognized content)" "$U" symbolize prog_asan junk.txt
cp "$S1" cov/other.9.sancov
expect "coverage without its binary" 1 "ukcov: error: cov/other.9.sancov: object file for coverage not found: no binary named 'other' among the inputs (.sancov files are matched by the name before .PID.sancov)" "$U" symbolize prog_asan cov/other.9.sancov
cp prog_gcc prog_asan2 && cp "$S1" cov/prog_asan2.7.sancov
first=$(sancov -print "$S1" 2>/dev/null | head -1)
expect "mismatched build" 1 "ukcov: error: coverage points in binary and coverage file do not match: 8 of 8 PCs of prog_asan2 (first $first) are not coverage points of prog_asan2 (another build of it?)" \
	"$U" symbolize prog_asan2 cov/prog_asan2.7.sancov
expect "uninstrumented binary" 1 "ukcov: error: /bin/true: __sanitizer_cov* functions not found: the binary is not instrumented with trace-pc or trace-pc-guard, or is stripped" "$U" print-coverage-pcs /bin/true
expect "not an ELF for print-coverage-pcs" 1 "ukcov: error: $S1: not an ELF file" "$U" print-coverage-pcs "$S1"
printf '{"covered-points": [1, 2], "point-symbol-info": {"f": {"g": {"1": "12"}}}}' >bad.symcov
expect "symcov location without ':'" 1 'ukcov: error: bad.symcov: line 1: expected "line:column" for point 1' "$U" covered-functions bad.symcov
printf '{"covered-points": ["a"' >trunc.symcov
expect "truncated symcov" 1 "ukcov: error: trunc.symcov: invalid JSON at line 1: expected ',' or ']'" "$U" stats trunc.symcov
printf '{"covered-points": ["a\\' >esc.symcov
expect "symcov ending in an escape" 1 "ukcov: error: esc.symcov: invalid JSON at line 1: unterminated string" "$U" stats esc.symcov
# true, false and null where a key is ignored; \u0800, the first code
# point of three UTF-8 bytes (e0 a0 80), in a function's name.
printf '{"covered-points": ["a"], "binary-hash": "", "point-symbol-info": {"f.c": {"fn\\u0800x": {"a": "3:1"}}}, "x": [true, false, null]}' >lit.symcov
expect "symcov with true, false and null" 0 "ukcov: warning: lit.symcov: ignoring unknown key: x" "$U" covered-functions lit.symcov
[ "$(od -An -tx1 "$T/out" | tr -d ' \n')" = "662e633a3320666ee0a08078""0a" ] &&
	ok "symcov \\u0800 as three UTF-8 bytes" || bad "symcov \\u0800 as three UTF-8 bytes" "$(od -An -tx1 "$T/out")"
printf 'ukcov-dump 1\nmode pc\nmodule 0 - 0 0 10 /x\npcs 0 3\n1\n2\n' >trunc.dump
expect "truncated dump" 1 "ukcov: error: trunc.dump: truncated: module 0 announces 3 PCs, the file ends after 2" "$U" print trunc.dump
expect "unknown command" 2 "ukcov: error: no command given (see ukcov --help)" "$U" frobnicate
expect "unknown option" 2 "ukcov: error: unknown option '--frob' (see ukcov --help)" "$U" print --frob x
expect "two commands" 2 "ukcov: error: only one command at a time: 'print' and 'symbolize'" "$U" print -symbolize x
head -c 100 "$S1" >cmpbuf; printf '\xff\xff\x00\x00\x00\x00\x00\x00' | dd of=cmpbuf conv=notrunc 2>/dev/null
expect "cmp: count word beyond the buffer" 1 "ukcov: error: cmpbuf: truncated: the count word says 65535 records, the file holds 2" "$U" cmp cmpbuf
check "--help is short and grouped" sh -c "$U --help | grep -q '^Symbolized' && [ \$($U --help | wc -l) -lt 40 ]"

# ---- man page --------------------------------------------------------------
if command -v mandoc >/dev/null; then
	check "ukcov(1) passes mandoc -Tlint" sh -c "mandoc -Tlint -W warning $TOP/man/ukcov.1"
fi

# ---- the sweep's length decoder (tools/x86len.c) against capstone ---------
# elfpoints.c sweeps .text with a table decoder and asks capstone only for
# what the decoder does not model.  capstone is the oracle: every length
# the decoder gives must be capstone's, exhaustively over prefixes x
# opcodes x ModRM and on every binary below (gcc and clang, PIE, non-PIE,
# static, -O0/-O2, trace-pc and trace-pc-guard, plus the suite's fixtures
# and libc), and the coverage points must be the capstone-only sweep's.
XC=$TOP/$B/tests/x86len-check
if [ -x "$XC" ]; then
	check "x86len: exhaustive prefixes x opcode maps x ModRM agree with capstone" "$XC" --exhaustive
	printf '%s\n' 'void __sanitizer_cov_trace_pc(void) {}' \
		'void __sanitizer_cov_trace_pc_guard(unsigned *g) { (void)g; }' \
		'void __sanitizer_cov_trace_pc_guard_init(unsigned *a, unsigned *b) { (void)a; (void)b; }' >xl_cb.c
	gcc -O2 -fPIE -c xl_cb.c -o xl_cb.o
	xl=()
	for cc in gcc clang; do for kind in trace-pc trace-pc-guard; do
		[ $cc = gcc ] && [ $kind = trace-pc-guard ] && continue
		for link in "-fPIE -pie" "-fno-pie -no-pie" "-static"; do for o in -O0 -O2; do
			out=xl_${cc}_${kind}_$(echo "$link" | tr -d ' -')$o
			$cc -g $o $link -fsanitize-coverage=$kind "$SRC/main.c" "$SRC/lib.c" xl_cb.o -o "$out" && xl+=("$out")
		done; done
	done; done
	xl+=(prog_asan cpp_asan inl_asan prog_gcc prog_clang libdso.so libdso_noplt.so dsomain)
	if [ ${#xl[@]} -eq 26 ] && "$XC" "${xl[@]}" >xl.out 2>&1 &&
	   [ "$(grep -c ': [1-9][0-9]* points, identical$' xl.out)" -eq 26 ]; then
		ok "x86len: lengths and point sets equal capstone's on 26 binaries ($(tail -1 xl.out))"
	else bad "x86len: lengths or point sets differ from capstone's (${#xl[@]} of 26 built)" xl.out; fi
	# The decoder must do the work, not hand it all to capstone.
	pct=$(sed -n 's/.*(\([0-9]*\)\.[0-9]%).*/\1/p' xl.out)
	[ "${pct:-0}" -ge 95 ] && ok "x86len decodes ${pct}% of the instructions itself" ||
		bad "x86len decodes only ${pct:-0}% of the instructions (want >= 95)" xl.out
	libc=$(ldd "$U" | awk '$1 ~ /^libc\.so/ {print $3}')
	"$XC" "$libc" >xl-libc.out 2>&1
	grep -q ', 0 disagreements with capstone$' xl-libc.out &&
		ok "x86len: every length equals capstone's across $libc (SSE/AVX/AVX-512)" ||
		bad "x86len: lengths differ from capstone's in $libc" xl-libc.out
else
	bad "x86len-check not built (make $B/tests/x86len-check)"
fi

# ---- fuzzing: every parser, bounded, plus the kept regression inputs -----
FZ=$TOP/$B/fuzz
if [ -x "$FZ/fuzz-sancov" ]; then
	for p in sancov symcov dump rawmap modules elfpoints x86len ctlblock registry; do mkdir -p "seed-$p"; done
	cp "$S1" "$S2" seed-sancov/; cp a1.symcov c1.symcov seed-symcov/
	cp ./*.dump seed-dump/ 2>/dev/null
	printf 'M 1 ab12 1000 1000 2000 /bin/x\n' >seed-modules/a
	# ctlblock: flags 3 (our magic, bytes from entries), then a block
	# of zeroes (an OPEN descriptor).
	{ printf '\003'; head -c 1024 /dev/zero; } >seed-ctlblock/a
	printf '\x01\x05\x10\x40\x00\x00\x00\x00\x0064\n400000 402000 0 a.out\n' >seed-rawmap/a
	printf 'void __sanitizer_cov_trace_pc(void){}\nvoid _start(void){for(;;);}\n' >tiny.c
	gcc -Os -nostdlib -static -fsanitize-coverage=trace-pc tiny.c -o seed-elfpoints/tiny 2>/dev/null
	# x86len: 16-byte windows of real code (every 4099th byte of .text).
	python3 - prog_gcc xl_clang_trace-pc-guard_fPIEpie-O2 seed-x86len <<'PY' 2>/dev/null
import subprocess, sys
for f in sys.argv[1:-1]:
    for l in subprocess.check_output(["readelf", "-SW", f], text=True).splitlines():
        if " .text " in l:
            w = l.split("]")[1].split(); off, size = int(w[3], 16), int(w[4], 16)
    data = open(f, "rb").read()[off:off + size]
    for i in range(0, len(data) - 16, 4099):
        open("%s/%s-%d" % (sys.argv[-1], f, i), "wb").write(data[i:i + 16])
PY
	# registry: a handle, flags, then a header and the slots (tiled to
	# 1024, or bit 0 of flags: exactly these bytes, truncated).
	python3 - seed-registry <<'PY'
import struct, sys
h = 0xdead
hdr = struct.pack('<QIIQQQ3Q', 0x7267657276636b75, 2, 1024, 1, 1, 0, 0, 0, 0)
live = struct.pack('<QiiQQQ', h, 7, 3, 5, 9, 1)
dead = struct.pack('<QiiQQQ', 2**64 - 1, 0, 0, 0, 0, 0)
open(sys.argv[1] + '/tiled', 'wb').write(struct.pack('<Q', h) + b'\0' + hdr + dead + live)
open(sys.argv[1] + '/exact', 'wb').write(struct.pack('<Q', h) + b'\1' + hdr + live * 3)
PY
	# A crash is kept under the build directory, never in the source
	# tree; copy it into tests/tool/fuzz-regress/ by hand with its fix.
	for p in sancov symcov dump rawmap modules elfpoints x86len ctlblock registry; do
		crash=$TOP/$B/fuzz-crashes/$p
		rm -rf "crash-$p"; mkdir -p "crash-$p"
		len=4096; [ $p = elfpoints ] && len=32768; [ $p = x86len ] && len=20
		"$FZ/fuzz-$p" -max_total_time="${FUZZ_SECONDS:-8}" -max_len=$len -timeout=10 \
			-artifact_prefix="crash-$p/" "seed-$p" >"fuzz-$p.log" 2>&1
		if [ -z "$(ls "crash-$p")" ]; then ok "fuzz $p (${FUZZ_SECONDS:-8}s, $(grep -o 'Done [0-9]* runs' "fuzz-$p.log"))"; else
			mkdir -p "$crash" && cp "crash-$p"/* "fuzz-$p.log" "$crash/"
			bad "fuzz $p: crash input kept in $crash: $(ls "crash-$p" | tr '\n' ' ')" "fuzz-$p.log"; fi
		if ls "$TOP/tests/tool/fuzz-regress/$p"/* >/dev/null 2>&1; then
			check "fuzz $p regression inputs" "$FZ/fuzz-$p" -runs=0 "$TOP/tests/tool/fuzz-regress/$p"/*
		fi
	done
else
	bad "fuzz harnesses not built (make tool-fuzz)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
