#!/bin/bash
# tests/suites.d/51-tool-hardening.sh -- regression tests of the tool
# defects found by review: source paths joined with DW_AT_comp_dir, truncated
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

# Fixtures for the input tests: a clang trace-pc-guard binary with its
# .sancov (from the loop above: pg and cov/pg.PID.sancov), a gcc dump.
cp "$P/build/pg" pg && cp "$P/build/$S" good.sancov && cp good.sancov pg.11.sancov
UKCOV_CC=gcc "$CC_W" -g -O0 -I"$P/inc" "$P/src/a.c" "$P/src/main.c" -o pgcc &&
	"$U" run -o good.dump -- ./pgcc 5 2>/dev/null || bad "gcc dump fixture"
"$U" symbolize pg pg.11.sancov >good.symcov

# ---- defect 3: a .sancov cut inside an offset is an error ----------------
size=$(stat -c %s good.sancov)
head -c $((size - 3)) good.sancov >cut.sancov
cp cut.sancov pg.12.sancov
msg="truncated: 5 bytes at byte offset $((size - 8)) do not make a whole 64-bit offset"
expect "print: truncated .sancov names the byte offset" 1 "" "ukcov: error: cut.sancov: $msg" "$U" print cut.sancov
expect "merge: truncated .sancov is an error" 1 "" "ukcov: error: cut.sancov: $msg" "$U" merge -o m.sancov good.sancov cut.sancov
[ ! -e m.sancov ] && ok "merge: nothing written after the error" || bad "merge wrote m.sancov"
expect "symbolize: truncated .sancov is an error" 1 "" "ukcov: error: pg.12.sancov: $msg" "$U" symbolize pg pg.12.sancov
expect "diff: truncated .sancov is an error" 1 "" "ukcov: error: cut.sancov: $msg" "$U" diff -o d.sancov good.sancov cut.sancov
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<IIIII", 0xffffff32, 0xc0bfffff, 0x10, 0x20, 0x30) + b"\x40")' >cut32.sancov
expect "32-bit .sancov cut after one byte" 1 "" "ukcov: error: cut32.sancov: truncated: 1 byte at byte offset 20 do not make a whole 32-bit offset" "$U" print cut32.sancov
head -c 20 cut32.sancov >whole32.sancov
expect "positive control: the uncut 32-bit file" 0 "0x10
0x20
0x30" "" "$U" print whole32.sancov

# ---- defect 4: huge inputs are refused at once -----------------------------
# bounded NAME "STDERR" CMD...: exit 1 with exactly STDERR, in under 1 s
# of CPU time (user + system: reading the 16 GiB the files below claim
# would take far more; wall time would measure the machine's other jobs)
# and 100 MB of peak RSS.
bounded() {
	local n=$1 msg=$2 r secs cpu kb; shift 2
	(cd "$T" && timeout 20 /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$@") >"$T/out" 2>"$T/err"; r=$?
	read -r secs user sys kb < <(tail -1 "$T/time" 2>/dev/null)
	cpu=$(awk -v u="${user:-99}" -v s="${sys:-0}" 'BEGIN { printf "%.2f", u + s }')
	if [ $r -eq 1 ] && [ "$(cat "$T/err")" = "$msg" ] && [ ! -s "$T/out" ] &&
		awk -v c="$cpu" -v k="${kb:-999999}" 'BEGIN { exit !(c < 1.0 && k < 100000) }'; then
		ok "$n (${cpu}s CPU, ${secs}s wall, ${kb} KB)"
	else
		{ echo "rc $r, ${cpu}s CPU, ${secs:-?}s wall, ${kb:-?} KB"; echo "stderr:"; head -5 "$T/err"; echo "want:"; echo "$msg"; } >"$T/d"
		bad "$n" "$T/d"
	fi
}
G16=$((16 << 30))
sparse() { printf "$2" >"$1" && truncate -s $G16 "$1"; }
sparse huge.sancov '\x64\xff\xff\xff\xff\xff\xbf\xc0'
cp huge.sancov pg.13.sancov && truncate -s $G16 pg.13.sancov
big="too large: $(((G16 - 8) / 8)) 64-bit offsets"
bounded "print: 16 GiB .sancov" "ukcov: error: huge.sancov: $big, more than the 858993459 coverage points a module can hold (docs/FORMATS.md §1)" "$U" print huge.sancov
bounded "merge: 16 GiB .sancov" "ukcov: error: huge.sancov: $big, more than the 858993459 coverage points a module can hold (docs/FORMATS.md §1)" "$U" merge -o m.sancov good.sancov huge.sancov
pgsize=$(stat -c %s pg)
bounded "symbolize: 16 GiB .sancov, bounded by its binary" "ukcov: error: pg.13.sancov: $big, more than the $((pgsize / 5)) coverage points pg ($pgsize bytes) can hold (one 5-byte call each; docs/FORMATS.md §1)" "$U" symbolize pg pg.13.sancov
sparse huge.dump 'ukcov-dump 1\n'
nul="NUL byte at byte offset 13 (a text format)"
bounded "print: 16 GiB dump" "ukcov: error: huge.dump: not a ukcov dump: $nul" "$U" print huge.dump
bounded "merge: 16 GiB dump" "ukcov: error: huge.dump: not a ukcov dump: $nul" "$U" merge -o m.dump good.dump huge.dump
bounded "covered-functions: 16 GiB dump" "ukcov: error: huge.dump: not a ukcov dump: $nul" "$U" covered-functions pgcc huge.dump
sparse huge.symcov '{\n'
bounded "merge: 16 GiB .symcov" "ukcov: error: huge.symcov: not a .symcov: NUL byte at byte offset 2 (a text format)" "$U" merge good.symcov huge.symcov
bounded "symbolize: 16 GiB .symcov" "ukcov: error: huge.symcov: not a .symcov: NUL byte at byte offset 2 (a text format)" "$U" symbolize huge.symcov
printf '64\n400000 402000 0 a.out\n' >r1.sancov.map && truncate -s $G16 r1.sancov.raw
bounded "rawunpack: 16 GiB .sancov.raw, bounded by its map" "ukcov: error: r1.sancov.raw: too large: $((G16 / 8)) 64-bit PCs, more than the $((0x2000 / 5 + 65536)) coverage points the map's modules can hold (docs/FORMATS.md §5)" "$U" rawunpack r1.sancov.raw
sparse r2.sancov.map '64\n400000 402000 0 a.out\n' && : >r2.sancov.raw
bounded "rawunpack: 16 GiB .sancov.map" "ukcov: error: r2.sancov.map: not a .sancov.map: NUL byte at byte offset 25 (a text format)" "$U" rawunpack r2.sancov.raw
sparse cmp0.buf '\x05\0\0\0\0\0\0\0'
bounded "cmp: 16 GiB CMP buffer of zeros" "ukcov: error: cmp0.buf: record 0: PC 0 is not a return address (not a CMP buffer?)" "$U" cmp cmp0.buf
sparse cmp1.buf '\x00\x00\x00\x10\0\0\0\0'
bounded "cmp: count word above a kcov buffer's" "ukcov: error: cmp1.buf: too large: the count word says 268435456 records, a kcov buffer holds at most 67108863" "$U" cmp cmp1.buf
bounded "cmp: 16 GiB module table" "ukcov: error: huge.dump: not a module table: $nul" "$U" cmp --modules huge.dump cmp0.buf

# ---- defect 5: print --lines matches binaries by build-id ----------------
# good.dump records module $T/pgcc with pgcc's build-id.
bid() { readelf -n "$1" | awk '/Build ID/ {print $3}'; }
idx=$(awk -v p="$T/pgcc" '$1 == "module" && $NF == p {print $2}' good.dump)
npcs=$(awk -v i="$idx" '$1 == "pcs" && $2 == i {print $3}' good.dump)
"$U" print --lines good.dump >lines.ok 2>lines.err
[ -s lines.ok ] && [ ! -s lines.err ] && grep -q '^pgcc+0x[0-9a-f]* afn .*/a.c:[0-9]*:[0-9]*$' lines.ok &&
	ok "positive control: print --lines symbolizes with the recorded binary" || bad "print --lines control" lines.err
sed 's/ .*//' lines.ok >lines.bare
mv pgcc pgcc.away
expect "print --lines: binary missing" 0 "$(cat lines.bare)" "ukcov: warning: good.dump: no binary with build-id $(bid pgcc.away) for module $T/pgcc; pass it on the command line (its $npcs PCs are printed without symbols)" "$U" print --lines good.dump
"$U" covered-functions good.dump 2>&1 >/dev/null | sed -n 's/(its.*//p' >cf.warn
"$U" print --lines good.dump 2>&1 >/dev/null | sed 's/(its.*//' >pl.warn
same "print --lines says what covered-functions says" "cat cf.warn" "cat pl.warn"
mkdir -p elsewhere && cp pgcc.away elsewhere/renamed
expect "print --lines: binary given on the command line, matched by build-id" 0 "$(cat lines.ok)" "" "$U" print --lines good.dump elsewhere/renamed
UKCOV_CC=gcc "$CC_W" -g -O1 -I"$P/inc" "$P/src/a.c" "$P/src/main.c" -o pgcc
expect "print --lines: another build at the recorded path" 0 "$(cat lines.bare)" "ukcov: warning: good.dump: no binary with build-id $(bid pgcc.away) for module $T/pgcc ($T/pgcc is another build: build-id $(bid pgcc)); pass it on the command line (its $npcs PCs are printed without symbols)" "$U" print --lines good.dump
strip -g -o pgcc pgcc.away
"$U" covered-functions good.dump 2>nodebug.want >/dev/null
"$U" print --lines good.dump >nodebug.out 2>nodebug.err
if [ -s nodebug.want ] && cmp -s nodebug.want nodebug.err && grep -q "no DWARF debug info" nodebug.err &&
	grep -q '^pgcc+0x[0-9a-f]* afn <invalid>:0:0$' nodebug.out; then
	ok "print --lines: no debug info, said as covered-functions says it"
else
	cat nodebug.want nodebug.err nodebug.out >"$T/d"; bad "print --lines: no debug info" "$T/d"
fi
mv pgcc.away pgcc

# ---- defect 6: one PC convention in cmp (return address - 1) --------------
# A non-PIE gcc build (load bias 0), so an absolute PC and a module
# offset are the same number: the const compare of check() is the call's
# last byte, found with objdump.
cat >cmpone.c <<'EOF'
#include <stdlib.h>
int check(unsigned x)
{
	if (x == 100)
		return 1;
	return 0;
}
int main(int argc, char **argv)
{
	return check(argc > 1 ? (unsigned)atoi(argv[1]) : 0u) ? 0 : 2;
}
EOF
if UKCOV_CMP=1 UKCOV_CC=gcc "$CC_W" -O0 -no-pie cmpone.c -o cmpone 2>"$T/cc.err"; then
	call=$(objdump -d cmpone | grep -A1 'mov  *$0x64,%edi' | grep 'call.*<__sanitizer_cov_trace_const_cmp4>')
	addr=$(echo "$call" | awk '{print $1}' | tr -d :)
	len=$(echo "$call" | cut -f2 | wc -w)
	want=$(printf '%x' $((0x$addr + len - 1)))
	"$U" run --mode cmp -o cmpone.dump -- ./cmpone 100 2>/dev/null
	"$U" run --mode cmp --raw -o - -- ./cmpone 100 >cmpone.raw 2>/dev/null
	python3 -c '
import struct
recs = [[int(w, 16) for w in l.split()] for l in open("cmpone.raw") if l.startswith("0x")]
open("cmpone.buf", "wb").write(struct.pack("<Q", len(recs)) + b"".join(struct.pack("<4Q", *r) for r in recs))'
	same "cmp dump: the const compare's offset is the call's last byte (0x$want)" \
		"echo $want" "awk '\$1 == \"cmp\" && \$5 == \"64\" {print \$3}' cmpone.dump"
	same "cmp of the dump prints that offset" "echo 'cmp4 const 0x64 0x64 cmpone+0x$want check'" \
		"$U cmp cmpone.dump | grep 'const 0x64 ' | cut -d' ' -f1-6"
	same "cmp of the raw buffer (no module table) prints the same PC" "echo 'cmp4 const 0x64 0x64 0x$want'" \
		"$U cmp cmpone.buf | grep 'const 0x64 '"
else
	bad "cmp fixture builds" "$T/cc.err"
fi

# ---- defect 7: CMP records grow geometrically, not a realloc each ----------
# A preloaded counter of the tool's realloc calls (only in ukcov itself).
cat >rcount.c <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
extern void *__libc_realloc(void *, size_t);
static unsigned long calls;
void *realloc(void *p, size_t n) { calls++; return __libc_realloc(p, n); }
__attribute__((destructor)) static void report(void)
{
	if (!strcmp(program_invocation_short_name, "ukcov"))
		fprintf(stderr, "reallocs: %lu\n", calls);
}
EOF
cat >manycmp.c <<'EOF'
#include <stdlib.h>
int main(int argc, char **argv)
{
	unsigned n = (unsigned)atoi(argv[1]), hits = 0;

	for (unsigned i = 0; i < n; i++)
		if ((unsigned)argc == i)
			hits++;
	return hits > 1;
}
EOF
if gcc -shared -fPIC rcount.c -o rcount.so && UKCOV_CMP=1 UKCOV_CC=gcc "$CC_W" -O0 manycmp.c -o manycmp; then
	LD_PRELOAD=$T/rcount.so "$U" run --mode cmp -o many.dump -- ./manycmp 60000 2>many.err
	recs=$(grep -c '^cmp ' many.dump)
	rc=$(sed -n 's/^reallocs: //p' many.err)
	[ "$recs" -gt 100000 ] && [ -n "$rc" ] && [ "$rc" -lt 200 ] &&
		ok "run --mode cmp: $recs records, $rc reallocs in the tool" ||
		bad "run --mode cmp: $recs records cost ${rc:-?} reallocs (want < 200)" many.err
else
	bad "realloc counter and manycmp build"
fi

# ---- the generated mutants that survived (docs/TESTING.md) ------
# missing BIN COV...: the points of BIN minus the .sancov's, nothing read
# past the last argument.
"$U" print-coverage-pcs pg | sort >pts.all
"$U" print good.sancov | sort >pts.cov
expect "missing BIN FILE.sancov: the points the .sancov does not cover" 0 \
	"$(comm -23 pts.all pts.cov)" "" "$U" missing pg good.sancov

# A '#' line and a blank line inside a dump are skipped, and parsing goes
# on: the PCs after them are printed as without them.
"$U" print good.dump >dump.want
awk '$1 == "pcs" { print "# a comment"; print "" } { print }' good.dump >commented.dump
expect "dump: a '#' line and a blank line before pcs, every PC still read" 0 \
	"$(cat dump.want)" "" "$U" print commented.dump

# .symcov strings: a high surrogate must be followed by "\u" and a low
# one (RFC 8259 §7); "\ud800Audc00" is not a pair.
printf '{"a": "\\ud800Audc00"}' >sur.symcov
expect ".symcov: a high surrogate, then not a backslash" 1 "" \
	"ukcov: error: sur.symcov: invalid JSON at line 1: lone surrogate" "$U" symbolize sur.symcov
printf '{"a": 1, ' >key.symcov
expect ".symcov: the input ends where a key should start" 1 "" \
	"ukcov: error: key.symcov: invalid JSON at line 1: expected a string key" "$U" symbolize key.symcov

# The JSON trees are freed, a good file's and a broken one's: valgrind
# finds nothing definitely lost in a merge of both (tools/json.c; only
# the ASan fuzz build saw such leaks before).
if command -v valgrind >/dev/null; then
	(cd "$T" && valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
		--error-exitcode=99 "$U" merge good.symcov key.symcov) >"$T/vg.out" 2>"$T/vg.err"; r=$?
	if [ $r = 1 ] && ! grep -q 'definitely lost' "$T/vg.err"; then
		ok ".symcov: merge of a good and a broken file frees both trees (valgrind)"
	else
		bad ".symcov: merge under valgrind" "$T/vg.err"
	fi
else
	echo "# skipped: the .symcov leak check (no valgrind)"
fi

# A boolean option with another value: a usage error that names it.
expect "--demangle=maybe: exact message, exit status 2" 2 "" \
	"ukcov: error: option --demangle=maybe: expected 0 or 1, got 'maybe'" \
	"$U" covered-functions --demangle=maybe good.dump

# -fcf-protection with -z ibtplt: calls to __sanitizer_cov_trace_pc go
# through its stub in .plt.sec (the endbr64 PLT), which must be known as
# a PLT stub; the points are the calls' last bytes (objdump).
printf 'void __sanitizer_cov_trace_pc(void) {}\n' >rtpc.c
printf 'int g(int x)\n{\n\tif (x > 2)\n\t\treturn 1;\n\treturn 0;\n}\nint main(int c, char **v)\n{\n\t(void)v;\n\treturn g(c);\n}\n' >ibt.c
if gcc -shared -fPIC rtpc.c -o librtpc.so 2>"$T/cc.err" &&
	gcc -O0 -fsanitize-coverage=trace-pc -fcf-protection -Wl,-z,ibtplt ibt.c -L. -lrtpc \
		-o ibt 2>>"$T/cc.err" && readelf -SW ibt | grep -q ' \.plt\.sec '; then
	objdump -d ibt | grep -E 'call +[0-9a-f]+ <__sanitizer_cov_trace_pc@plt>' >ibt.calls
	while read -r a _; do printf '0x%x\n' $((0x${a%:} + 4)); done <ibt.calls >ibt.want
	expect ".plt.sec: points found through the IBT PLT ($(wc -l <ibt.want) calls)" 0 \
		"$(cat ibt.want)" "" "$U" print-coverage-pcs ibt
else
	bad "IBT PLT fixture builds (with a .plt.sec)" "$T/cc.err"
fi

# Lengths the decoder must know, from objdump: mov to a segment
# register (not to %cs, #UD: Intel SDM vol. 2, MOV), the DD x87
# register forms, fnop and every DE register form the SDM lists (gcc
# emits fmulp, fsubp and fcompp for long double; the decoder refused
# all but faddp and two others, so such functions had no blocks).
cat >seg.s <<'A'
	mov %eax, %ss
	mov %eax, %ds
	mov %eax, %es
	mov %ax, %fs
	mov %eax, %gs
	mov (%rax), %ss
	mov %ss, %eax
	ffree %st(1)
	ffree %st(7)
	fst %st(2)
	fstp %st(3)
	fucom %st(4)
	fucomp %st(5)
	fldl 8(%rsp)
	fnop
	.byte 0xde, 0xc1
	.byte 0xde, 0xc8
	.byte 0xde, 0xcf
	.byte 0xde, 0xd9
	.byte 0xde, 0xe0
	.byte 0xde, 0xe7
	.byte 0xde, 0xe8
	.byte 0xde, 0xef
	.byte 0xde, 0xf0
	.byte 0xde, 0xf8
	.byte 0xde, 0xff
A
XC=$BD/tests/x86len-check
if as seg.s -o seg.o 2>"$T/as.err"; then
	objdump -d seg.o | awk -F'\t' '/^ *[0-9a-f]+:\t/ { b = $2; sub(/ +$/, "", b); print b }' >seg.hex
	while read -r h; do echo "$h: x86len $(echo "$h" | wc -w)"; done <seg.hex >seg.want
	mapfile -t hx <seg.hex
	expect "x86len: segment moves, the DD and DE x87 register forms and fnop, objdump's lengths" 0 \
		"$(cat seg.want)" "" sh -c '"$0" --lengths "$@" | sed "s/, capstone.*//"' "$XC" "${hx[@]}"
	expect "x86len: mov to %cs (#UD) is refused" 0 "8e c8: x86len 0" "" \
		sh -c '"$0" --lengths "8e c8" | sed "s/, capstone.*//"' "$XC"
else
	bad "x86 fixture assembles" "$T/as.err"
fi

# ---- the generated survivors (docs/TESTING.md) --
# An option that needs a value, given last: a usage error, nothing read
# past argv[argc].
expect "-o as the last argument: exact message, exit status 2" 2 "" \
	"ukcov: error: option '-o' needs a value" "$U" print -o

# The SHA-1 of an empty file (mmap() refuses length 0, so sha1.c hashes
# it without): sha1sum's, uppercase, as the .symcov "binary-hash".
: >empty.bin
expect "sha1: an empty file hashes as sha1sum's" 0 \
	"$(sha1sum <empty.bin | cut -d' ' -f1 | tr a-f A-F) empty.bin" "" \
	"$BD/tests/sha1-check" empty.bin

# An empty .sancov: no magic, so not a .sancov file (sancov-14 also
# fails, exit status 1, "File too small (<8): 0"); not an I/O error.
: >empty.sancov
expect "empty .sancov: too small, exit status 1 as sancov's" 1 "" \
	"ukcov: error: empty.sancov: not a .sancov file: too small (0 bytes, the magic alone is 8)" \
	"$U" print empty.sancov

# trace: every point of a trace-points or caller-callee file is printed
# (an address outside any module as itself).
printf '<unknown> 0x1234\n<unknown> 0x10\n' >trace-points.7.sancov
cp trace-points.7.sancov caller-callee.7.sancov
expect "trace trace-points: index and point per line" 0 "0 0x1234
1 0x10" "" "$U" trace trace-points.7.sancov
expect "trace caller-callee: caller -> callee" 0 "0x1234 -> 0x10" "" \
	"$U" trace caller-callee.7.sancov

# A .symcov function whose points are not an object: an error, exit 1.
printf '{"covered-points": [], "binary-hash": "", "point-symbol-info":\n{"f.c": {"fn": 5}}}\n' >fn.symcov
expect ".symcov: a function's points not an object, exit status 1" 1 "" \
	"ukcov: error: fn.symcov: line 2: expected an object of points for function fn" \
	"$U" merge fn.symcov

# push imm32 (68 id) is 5 bytes (objdump; Intel SDM PUSH).
expect "x86len: push imm32 is 5 bytes" 0 "68 01 02 03 04: x86len 5" "" \
	sh -c '"$0" --lengths "68 01 02 03 04" | sed "s/, capstone.*//"' "$XC"

# missing: the points of BIN minus the .sancov's (the last argument is
# the last read: a second, identical pass changes nothing).
expect "missing BIN FILE.sancov FILE.sancov: the same points" 0 \
	"$(comm -23 pts.all pts.cov)" "" "$U" missing pg good.sancov good.sancov

# A source under a two-character component starting with '.' (".d"): it
# is not "..", the path stays as compiled (lcov SF:, cobertura <source>,
# the common directory without its '/').  Its uncovered regions are the
# maximal runs of uncovered lines: u1's (from its name's line, which
# takes the state of its entry block as in gcov); u2's and u3's; line 21.
mkdir -p sub/.d
cat >sub/.d/r.c <<'EOF'
int u1(int x)
{
	return x - 1;
}
int c1(int x)
{
	return x + 1;
}
int u2(int x)
{
	return x * 3;
}
int u3(int x)
{
	return x * 5;
}
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		return u1(argc) + u2(argc) + u3(argc);
	return c1(argc) == 0;
}
EOF
rm -rf rcov && mkdir rcov
if clang -g -O0 -fsanitize-coverage=trace-pc-guard -fsanitize=address "$T/sub/.d/r.c" \
	-o rbin 2>"$T/cc.err" &&
	ASAN_OPTIONS=coverage=1:coverage_dir=rcov:detect_leaks=0 ./rbin >/dev/null 2>&1; then
	cp rcov/rbin.*.sancov rbin.1.sancov
	expect "a '.d' path component is kept: lcov SF:" 0 "$T/sub/.d/r.c" "" \
		sh -c '"$0" lcov --no-skip-dead-files rbin rbin.1.sancov | sed -n "s/^SF://p"' "$U"
	expect "cobertura <source>: the sources' directory, no '/'" 0 \
		"    <source>$T/sub/.d</source>" "" \
		sh -c '"$0" cobertura rbin rbin.1.sancov | grep "<source>"' "$U"
	expect "report: the uncovered regions start at lines 1, 9, 21" 0 "L1 u1
L9 u2
L21 u3" "" sh -c '"$0" report -o rrep rbin rbin.1.sancov &&
		grep -o "id=L[0-9]* .*id=u[0-9]*" rrep/f/*r.c.html |
		sed "s/^id=\(L[0-9]*\) .*id=\(u[0-9]*\)$/\1 \2/"' "$U"
else
	bad "'.d' fixture builds and runs" "$T/cc.err"
fi

# ---- every binary built above: the sweep's decoder agrees with capstone --
if "$TOP/tests/tool/x86len-all.sh" "$TOP/$B/tests/x86len-check" "$T" >"$T/xl.out" 2>&1; then
	ok "x86len: lengths and point sets equal capstone's on this suite's binaries ($(tail -1 "$T/xl.out"))"
else bad "x86len: disagreement with capstone on this suite's binaries" "$T/xl.out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
