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
"$CC_W" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog_gcc
UKCOV_CC=clang "$CC_W" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog_clang
"$CC_W" -fPIC -c "$SRC/dso.c" -o dso.o && gcc -shared dso.o -o libdso.so
"$CC_W" -fno-plt -fPIC -c "$SRC/dso.c" -o dso_noplt.o && gcc -shared dso_noplt.o -o libdso_noplt.so
"$CC_W" "$SRC/dsomain.c" -L. -Wl,-rpath,"$T" -ldso -o dsomain
for f in prog_asan cpp_asan inl_asan prog_gcc prog_clang libdso.so dsomain; do
	[ -f "$f" ] || { echo "fixture $f was not built"; echo "0 passed, 1 failed"; exit 1; }
done

# ---- golden: byte-identical to sancov-14 where sancov is right -----------
same "print one file" "sancov -print $S1" "$U print $S1"
same "print two files (concatenated, like sancov)" "sancov -print $S1 $S2" "$U -print $S1 $S2"
same "print-coverage-pcs guard binary" "sancov -print-coverage-pcs prog_asan" "$U print-coverage-pcs prog_asan"
for b in "prog_asan $S1" "cpp_asan $SC" "inl_asan $SI"; do
	for act in symbolize covered-functions not-covered-functions print-coverage-stats; do
		for flags in "" -demangle=0 -skip-dead-files=0 -use_default_blacklist=0 -strip_path_prefix=/tests/; do
			same "sancov -$act $flags ${b%% *}" "sancov -$act $flags $b" "$U -$act $flags $b"
		done
	done
done
same "long option spellings" "sancov -symbolize -demangle=0 -skip-dead-files=0 cpp_asan $SC" \
	"$U symbolize --no-demangle --no-skip-dead-files cpp_asan $SC"
printf 'fun:main\nsrc:*lib.c\n' >bl.txt
same "user ignorelist" "sancov -covered-functions -blacklist=bl.txt prog_asan $S1" \
	"$U covered-functions --ignorelist bl.txt prog_asan $S1"
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
	"printf 'all-edges: 17\ncov-edges: 12\nall-functions: 7\ncov-functions: 5\n'" "$U stats prog_asan $S1 $S2"
rm cov/prog_asan.1.sancov
same "union .sancov == sorted set of both prints" "sort -u <($U print $S1; $U print $S2) | sort" \
	"$U print u.sancov | sort"
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
n=$("$U" print-coverage-pcs prog_gcc | wc -l)
[ "$n" -eq "$(objdump -d prog_gcc | grep -c 'call.*<__sanitizer_cov_trace_pc')" ] && ok "gcc trace-pc: every call site is a point ($n)" || bad "gcc trace-pc points ($n)"
n=$("$U" print-coverage-pcs prog_clang | wc -l)
[ "$n" -gt 10 ] && ok "clang trace-pc points ($n)" || bad "clang trace-pc points ($n)"
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
	"$U" run -- ./prog_gcc 5 >plain.txt 2>/dev/null
	grep -q '^prog_gcc+0x[0-9a-f]* libfn .*lib.c:' plain.txt && ok "run prints symbolized points" || bad "run output" plain.txt
	"$U" run --raw -- ./dsomain 1 2 3 >raw.txt 2>/dev/null
	"$U" run -- ./dsomain 1 2 3 >dso.txt 2>/dev/null
	grep -q '^libdso.so+0x' dso.txt && ok "run covers shared libraries" || bad "run dso" dso.txt
	UKCOV_CMP=1 "$CC_W" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog_cmp
	"$U" run --mode cmp -o c.dump -- ./prog_cmp 4 200 2>/dev/null
	"$U" cmp c.dump >cmp.txt 2>&1
	grep -q '^cmp4 const 0x64 0xc8 prog_cmp+0x[0-9a-f]* bar ' cmp.txt && ok "cmp decodes size, const, operands, symbolized PC" || bad "cmp" cmp.txt
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
(cd "$T" && "$U" run --threads all --raw -- ./threads) >"$T/raw.txt" 2>/dev/null
[ "$(grep -c '^# thread [1-9][0-9]*$' "$T/raw.txt")" = 3 ] && ok "run --threads all --raw: one block per thread" || bad "run --threads all --raw" "$T/raw.txt"
expect "--threads all with the static runtime says so" 0 "ukcov: warning: the program's runtime did not follow its threads: only the main thread was traced (link it with -lukcov, not libukcov.a)
ukcov: ./threads_static exited with status 0; $( (cd "$T" && "$U" run -- ./threads_static 2>&1 >/dev/null) | sed 's/.*status 0; //')" "$U" run --threads all -o /dev/null -- ./threads_static
expect "--threads other" 2 "ukcov: error: run: --mode unique|pc|cmp|cmp-unique and --threads main|all" "$U" run --threads some -- true

# ---- rawunpack (sancov.py's coverage_direct pair) --------------------------
python3 - <<'EOF'
import struct
open("7036.sancov.raw", "wb").write(struct.pack("<5Q", 0x401005, 0, 0x401010, 0x7f0000001020, 0x401005))
open("7036.sancov.map", "w").write("64\n400000 402000 0 a.out\n7f0000000000 7f0000002000 7f0000000000 /x/libz.so\n")
EOF
if "$U" rawunpack 7036.sancov.raw 2>ru.err; then
	same "rawunpack module 1" "printf '0x401005\n0x401010\n'" "$U print a.out.7036.sancov"
	same "rawunpack module 2 (offset = pc - base)" "printf '0x1020\n'" "$U print /x/libz.so.7036.sancov 2>&1 || echo unwritable"
else
	grep -q "/x/libz.so.7036.sancov" ru.err && ok "rawunpack names the file it cannot write" || bad "rawunpack" ru.err
fi
expect "rawunpack needs the .sancov.raw name" 1 "ukcov: error: x.bin: unexpected raw file name (want NAME.sancov.raw next to NAME.sancov.map)" "$U" rawunpack x.bin

# ---- reports -------------------------------------------------------------
"$U" lcov prog_asan "$S1" "$S2" >t.info
check "genhtml renders the lcov tracefile" genhtml -q -o html t.info
grep -q '^FN:11,foo$' t.info && grep -q '^DA:21,0$' t.info && grep -q '^FNDA:0,never_called$' t.info && ok "lcov FN/DA records" || bad "lcov content" t.info
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
first=$("$U" print "$S1" | head -1)
expect "mismatched build" 1 "ukcov: error: coverage points in binary and coverage file do not match: 8 of 8 PCs of prog_asan2 (first $first) are not coverage points of prog_asan2 (another build of it?)" \
	"$U" symbolize prog_asan2 cov/prog_asan2.7.sancov
expect "uninstrumented binary" 1 "ukcov: error: /bin/true: __sanitizer_cov* functions not found: the binary is not instrumented with trace-pc or trace-pc-guard, or is stripped" "$U" print-coverage-pcs /bin/true
expect "not an ELF for print-coverage-pcs" 1 "ukcov: error: $S1: not an ELF file" sh -c "cd / && $U print-coverage-pcs $T/$S1 2>&1 | sed 's|$T/||' >&2; exit 1"
printf '{"covered-points": [1, 2], "point-symbol-info": {"f": {"g": {"1": "12"}}}}' >bad.symcov
expect "symcov location without ':'" 1 'ukcov: error: bad.symcov: line 1: expected "line:column" for point 1' "$U" covered-functions bad.symcov
printf '{"covered-points": ["a"' >trunc.symcov
expect "truncated symcov" 1 "ukcov: error: trunc.symcov: invalid JSON at line 1: expected ',' or ']'" "$U" stats trunc.symcov
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

# ---- fuzzing: every parser, bounded, plus the kept regression inputs -----
FZ=$TOP/$B/fuzz
if [ -x "$FZ/fuzz-sancov" ]; then
	for p in sancov symcov dump rawmap modules elfpoints; do mkdir -p "seed-$p"; done
	cp "$S1" "$S2" seed-sancov/; cp a1.symcov c1.symcov seed-symcov/
	cp ./*.dump seed-dump/ 2>/dev/null
	printf 'M 1 ab12 1000 1000 2000 /bin/x\n' >seed-modules/a
	printf '\x01\x05\x10\x40\x00\x00\x00\x00\x0064\n400000 402000 0 a.out\n' >seed-rawmap/a
	printf 'void __sanitizer_cov_trace_pc(void){}\nvoid _start(void){for(;;);}\n' >tiny.c
	gcc -Os -nostdlib -static -fsanitize-coverage=trace-pc tiny.c -o seed-elfpoints/tiny 2>/dev/null
	for p in sancov symcov dump rawmap modules elfpoints; do
		mkdir -p "crash-$p"
		len=4096; [ $p = elfpoints ] && len=32768
		"$FZ/fuzz-$p" -max_total_time="${FUZZ_SECONDS:-8}" -max_len=$len -timeout=10 \
			-artifact_prefix="crash-$p/" "seed-$p" >"fuzz-$p.log" 2>&1
		if [ -z "$(ls "crash-$p")" ]; then ok "fuzz $p (${FUZZ_SECONDS:-8}s, $(grep -o 'Done [0-9]* runs' "fuzz-$p.log"))"; else
			cp "crash-$p"/* "$TOP/tests/tool/fuzz-regress/$p/" 2>/dev/null
			bad "fuzz $p: crash kept in tests/tool/fuzz-regress/$p" "fuzz-$p.log"; fi
		if ls "$TOP/tests/tool/fuzz-regress/$p"/* >/dev/null 2>&1; then
			check "fuzz $p regression inputs" "$FZ/fuzz-$p" -runs=0 "$TOP/tests/tool/fuzz-regress/$p"/*
		fi
	done
else
	bad "fuzz harnesses not built (make tool-fuzz)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
