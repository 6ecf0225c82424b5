#!/bin/bash
# tests/suites.d/73-lines.sh -- line and function coverage from basic
# blocks and DWARF (tools/blocks.c, tools/lines.c): tests/lines/, built
# with gcc and clang at -O0 and -O2, trace-pc and (clang) trace-pc-guard,
# run as `lines 3` under `ukcov run`, read back from `ukcov lcov`, the
# report's pages and `ukcov stats`.
#
# The -O0 lines are exact, and agree with gcov's on every line both
# report (gcc --coverage -O0 of the same program: gcov also counts the
# line of a function's name, ukcov also the lines of braces with code).
# At -O2 the compilers merge and drop lines: the lines asserted there
# are those whose code survives in both compilers.
#
# Run from the top of the tree after `make lib tools`:
#   B=build tests/suites.d/73-lines.sh
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CCW=$TOP/$B/ukcov-cc
NUM=$TOP/tests/report/numbers.py

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make lib tools)"; summary; exit; }
done
cd "$T" || exit 1
cp "$TOP"/tests/lines/lines.c "$TOP"/tests/lines/cold.c "$TOP"/tests/lines/inl.h .

# same NAME WANT GOT
same() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi; }
# record NAME FILE: FILE's lcov record of build NAME on one line, without
# TN: and end_of_record.
record() {
	awk -v f="$T/$2" '/^SF:/ {on = ($0 == "SF:" f); next}
		on && /^end_of_record/ {on = 0}
		on {printf "%s%s", sep, $0; sep = " "}' "$1.info"
}
# da NAME FILE: only the DA records.
da() { record "$1" "$2" | tr ' ' '\n' | grep '^DA:' | tr '\n' ' ' | sed 's/ $//'; }
fns() { record "$1" "$2" | tr ' ' '\n' | grep '^FN' | tr '\n' ' ' | sed 's/ $//'; }

BUILDS="gcc-O0:gcc:-O0:0 gcc-O2:gcc:-O2:0 clang-O0:clang:-O0:0 clang-O2:clang:-O2:0 guard-O0:clang:-O0:1 guard-O2:clang:-O2:1"
for b in $BUILDS; do
	IFS=: read -r name cc opt guard <<<"$b"
	if UKCOV_CC=$cc UKCOV_GUARD=$guard "$CCW" "$opt" lines.c cold.c -o "$name" >"$name.log" 2>&1 &&
	   "$U" run -o "$name.dump" -- "./$name" 3 >>"$name.log" 2>&1 &&
	   "$U" lcov "$name" "$name.dump" >"$name.info" 2>>"$name.log"; then
		ok "$name: built, run, lcov"
	else
		bad "$name: build and run" "$(tail -3 "$name.log" | tr '\n' ' ')"
	fi
done

# ---- every file of the program, 0% for the one that never ran ---------
for b in $BUILDS; do
	name=${b%%:*}
	same "$name: files" "SF:$T/cold.c SF:$T/inl.h SF:$T/lines.c" "$(grep '^SF:' "$name.info" | tr '\n' ' ' | sed 's/ $//')"
	same "$name: cold.c, never run, is 0%" "LH:0" "$(record "$name" cold.c | grep -o 'LH:[0-9]*')"
done

# ---- the points of cold.c count though nothing in it ran ---------------
# `missing BIN` lists every point.  sancov's skip-dead-files drops the
# points of files where nothing ran: only its own spelling does that now.
all=$("$U" missing gcc-O0 | wc -l)
same "gcc-O0: stats counts every point, cold.c's included" "all-edges: $all" \
	"$("$U" stats gcc-O0 gcc-O0.dump | grep '^all-edges')"
sc=$("$U" -print-coverage-stats gcc-O0 gcc-O0.dump | sed -n 's/^all-edges: //p')
[ -n "$sc" ] && [ "$sc" -lt "$all" ] &&
	ok "gcc-O0: -print-coverage-stats skips cold.c's points, as sancov ($sc of $all)" ||
	bad "gcc-O0: -print-coverage-stats skips dead files" "$sc of $all"

# ---- functions: where they are defined, inlined copies included --------
# twice() is a static inline function of inl.h (line 5); at -O2 it only
# exists inlined into main, and it ran.
for b in $BUILDS; do
	name=${b%%:*}
	same "$name: functions of lines.c" \
		"FN:9,both FN:37,early FN:18,main FNDA:1,both FNDA:1,early FNDA:1,main FNF:3 FNH:3" "$(fns "$name" lines.c)"
	same "$name: twice() under inl.h at line 5, ran" "FN:5,twice FNDA:1,twice FNF:1 FNH:1" "$(fns "$name" inl.h)"
	same "$name: cold_file() never ran" "FN:3,cold_file FNDA:0,cold_file FNF:1 FNH:0" "$(fns "$name" cold.c)"
done

# ---- lines at -O0: exact ----------------------------------------------
# lines.c 26 (s ^= i) has no coverage call of its own: its block ran.
# 23 (assert) and 13 (a && b, a false) ran, in part.  41 (return 0)
# never ran: gcc -O0 sets its value and falls into the return block,
# whose coverage call carries line 41 on (the previous statement's line):
# that call marks no line.
G_LINES="DA:9,1 DA:10,1 DA:11,1 DA:13,1 DA:14,0 DA:15,1 DA:16,1 DA:18,1 DA:19,1 DA:20,1 DA:21,1 DA:23,1 DA:24,1 DA:25,1 DA:26,1 DA:28,1 DA:29,1 DA:30,0 DA:31,1 DA:32,1 DA:37,1 DA:38,1 DA:39,1 DA:40,1 DA:41,0 DA:42,1"
C_LINES="DA:9,1 DA:10,1 DA:11,1 DA:13,1 DA:14,0 DA:15,1 DA:18,1 DA:19,1 DA:20,1 DA:21,1 DA:23,1 DA:24,1 DA:25,1 DA:26,1 DA:28,1 DA:29,1 DA:30,0 DA:31,1 DA:37,1 DA:38,1 DA:39,1 DA:40,1 DA:41,0 DA:42,1"
same "gcc-O0: lines of lines.c" "$G_LINES" "$(da gcc-O0 lines.c)"
same "gcc-O0: lines of inl.h" "DA:5,1 DA:6,1 DA:7,1 DA:9,1 DA:10,0 DA:11,1 DA:12,1" "$(da gcc-O0 inl.h)"
same "gcc-O0: lines of cold.c" "DA:3,0 DA:4,0 DA:5,0 DA:7,0 DA:8,0 DA:9,0 DA:10,0" "$(da gcc-O0 cold.c)"
for name in clang-O0 guard-O0; do
	same "$name: lines of lines.c" "$C_LINES" "$(da $name lines.c)"
	same "$name: lines of inl.h" "DA:5,1 DA:6,1 DA:7,1 DA:9,1 DA:10,0 DA:11,1" "$(da $name inl.h)"
	same "$name: lines of cold.c" "DA:3,0 DA:4,0 DA:5,0 DA:7,0 DA:8,0 DA:9,0" "$(da $name cold.c)"
done

# A switch through a jump table (gcc -O0): case 2 ran, entered at its
# coverage call right after case 1's "r += 2" (line 13), which did not.
cp "$TOP"/tests/lines/switch.c .
if "$CCW" -O0 switch.c -o switch >sw.log 2>&1 && "$U" run -o switch.dump -- ./switch x >>sw.log 2>&1 &&
   "$U" lcov switch switch.dump >switch.info 2>>sw.log; then
	same "switch (gcc -O0): lines of the cases" \
		"DA:4,1 DA:5,1 DA:6,1 DA:8,1 DA:10,0 DA:13,0 DA:16,1 DA:17,1 DA:19,0 DA:20,0 DA:22,0 DA:23,0 DA:25,1 DA:26,1 DA:28,1 DA:29,1 DA:31,1 DA:32,1" \
		"$(da switch switch.c)"
else
	bad "switch: build and run" "$(tail -3 sw.log | tr '\n' ' ')"
fi

# A library without debug info among the inputs has no lines to give,
# and takes none away: lines.c keeps its 26 lines from blocks.
if "$CCW" -O0 -fPIC -shared cold.c -o libcold.so >nd.log 2>&1 && strip --strip-debug libcold.so &&
   "$CCW" -O0 lines.c -L. -lcold -Wl,-rpath,"$T" -o nodebug >>nd.log 2>&1 &&
   "$U" run -o nodebug.dump -- ./nodebug 3 a b c d >>nd.log 2>&1 &&
   "$U" lcov nodebug.dump >nodebug.info 2>>nd.log; then
	same "a stripped library keeps the others' lines from blocks" "SF:$T/inl.h LF:7 SF:$T/lines.c LF:26" \
		"$(grep '^SF:\|^LF:' nodebug.info | tr '\n' ' ' | sed 's/ $//')"
else
	bad "stripped library: build and run" "$(tail -3 nd.log | tr '\n' ' ')"
fi

# ---- lines at -O2 -------------------------------------------------------
for name in gcc-O2 clang-O2 guard-O2; do
	got=" $(da $name lines.c) "
	n=0
	for want in DA:9,1 DA:13,1 DA:15,1 DA:23,1 DA:28,1 DA:30,0 DA:31,1 DA:39,1 DA:42,1; do
		case $got in *" $want "*) n=$((n + 1)) ;; esac
	done
	same "$name: lines.c: assert, a && b, both branches, the cold call" 9 "$n"
	same "$name: inl.h: the test ran, abort() did not" "DA:9,1 DA:10,0" "$(da $name inl.h | grep -o 'DA:9,[01] DA:10,[01]')"
done

# ---- partly covered lines, in the pages ---------------------------------
# a && b with a false: the test of a ran, that of b did not; assert():
# the test ran, the failure did not.
for name in gcc-O0 clang-O0 guard-O0; do
	"$U" report -o "r-$name" "$name" "$name.dump" 2>/dev/null
	page=$(ls "r-$name"/f/*-lines.c.html)
	cls=$(grep -o '<span class=[cpu]><a id=L\(13\|23\|26\|30\) ' "$page" | sed 's/<span class=\(.\)><a id=L\([0-9]*\) /\2:\1/' | tr '\n' ' ')
	same "$name: partly covered: 13 (a && b), 23 (assert); 26 covered; 30 not" "13:p 23:p 26:c 30:u " "$cls"
done

# ---- the index adds up, and says what `ukcov stats` says ----------------
for name in gcc-O0 clang-O2; do
	[ -d "r-$name" ] || "$U" report -o "r-$name" "$name" "$name.dump" 2>/dev/null
	read -r _ lh la _ fh fa _ <<<"$("$NUM" dom "r-$name/index.html")"
	st=$("$U" stats "$name" "$name.dump" 2>/dev/null |
		awk '{v[$1]=$2} END {print v["cov-lines:"], v["all-lines:"], v["cov-source-functions:"], v["all-source-functions:"]}')
	same "$name: index totals == ukcov stats" "$lh $la $fh $fa" "$st"
	# Sums of the directory rows and of the file rows ("hit / all").
	sums=$(python3 - "r-$name/index.html" <<'EOF'
import re, sys
html = open(sys.argv[1]).read()
out = []
for part in html.split("<h2>")[1:]:
    rows = re.findall(r"<tr><td>.*?</tr>", part)
    t = [0, 0, 0, 0]
    for r in rows:
        c = re.findall(r">(\d+) / (\d+)<", r)
        t = [t[0] + int(c[0][0]), t[1] + int(c[0][1]), t[2] + int(c[1][0]), t[3] + int(c[1][1])]
    out.append(" ".join(map(str, t)))
print("|".join(out))
EOF
)
	same "$name: directory rows and file rows add up to the totals" "$lh $la $fh $fa|$lh $la $fh $fa" "$sums"
	same "$name: lcov's totals are the report's" "$lh $la" \
		"$(awk -F: '/^LH:/{h+=$2} /^LF:/{a+=$2} END {print h, a}' "$name.info")"
done

# ---- VEX code (-mavx2): lines from the blocks all the same ---------------
# The table decoder leaves VEX encodings to capstone; the blocks gave up
# on any function with one, so a -march=native build had no lines at
# all in lcov.  Needs a CPU with AVX2 to run the program.
cp "$TOP"/tests/lines/vex.c .
if grep -qw avx2 /proc/cpuinfo; then
	for cc in gcc clang; do
		for f in "" -mavx2; do
			n=vex-$cc${f:+-avx2}
			{ UKCOV_CC=$cc "$CCW" -O2 $f vex.c -o $n &&
			  "$U" run -o $n.dump -- ./$n 4 &&
			  "$U" lcov $n $n.dump >$n.info; } >$n.log 2>&1 ||
				bad "$n: build and run" "$(tail -3 $n.log | tr '\n' ' ')"
		done
		vx=$(objdump -d vex-$cc-avx2 | awk '/<mix>:/,/^$/' | grep -c $'\tv[a-z0-9]*sd ')
		plain=$(da vex-$cc vex.c)
		if [ "$vx" -gt 0 ] && [ -n "$plain" ] && [ "$plain" = "$(da vex-$cc-avx2 vex.c)" ]; then
			ok "$cc -O2 -mavx2 ($vx VEX instructions in mix): the lines of the build without it"
		else
			bad "$cc -O2 -mavx2: lines" "VEX $vx; want '$plain', got '$(da vex-$cc-avx2 vex.c)'"
		fi
	done
else
	ok "-mavx2 lines (skipped: this CPU has no AVX2)"
fi

# A function with a byte neither decoder reads: one warning, and main's
# lines still there (13, 14, 16, 17 of 13-17: line 15 has no code).
cp "$TOP"/tests/lines/odd.c .
if UKCOV_CC=gcc "$CCW" -O0 odd.c -o odd >odd.log 2>&1 &&
   "$U" run -o odd.dump -- ./odd >>odd.log 2>&1 &&
   "$U" lcov odd odd.dump >odd.info 2>odd.err; then
	same "an undecodable function: said once" \
		"ukcov: warning: odd: 1 function with bytes that are no x86-64 instruction: its lines are not reported" \
		"$(cat odd.err)"
	same "an undecodable function: the other functions' lines" \
		"DA:13,1 DA:14,1 DA:16,1 DA:17,1" "$(da odd odd.c | tr ' ' '\n' | grep -E '^DA:1[3-7],' | tr '\n' ' ' | sed 's/ $//')"
else
	bad "odd.c: build and run" "$(tail -3 odd.log | tr '\n' ' ')"
fi

# ---- a function split into hot and cold parts (gcc -O2) ---------------
# check's path to the cold die() is check.cold in .text.unlikely, below
# check: its DWARF ranges come hot part first, out of address order.
# The cold part's line counts when it ran, and only then; the hot
# lines after it do not.
cp "$TOP"/tests/lines/split.c .
for inl in 0 1; do
	n=split-$inl
	if ! UKCOV_INLINE=$inl UKCOV_CC=gcc "$CCW" -O2 split.c -o $n >$n.log 2>&1; then
		bad "$n: build" "$(tail -3 $n.log | tr '\n' ' ')"
		continue
	fi
	nm $n | grep -q ' check\.cold$' || bad "$n: fixture" "gcc made no check.cold"
	for a in 1:0 42:2; do
		"$U" run -o $n-${a%:*}.dump -- ./$n ${a%:*} >/dev/null 2>>$n.log
		same "$n ${a%:*}: exit status" "${a#*:}" "$?"
		"$U" lcov $n $n-${a%:*}.dump >$n-${a%:*}.info 2>>$n.log || bad "$n ${a%:*}: lcov" "$(tail -2 $n.log)"
	done
	got=$(for a in 1 42; do record $n-$a split.c | tr ' ' '\n' | grep -E '^DA:(1[4-9]|20),' | tr '\n' ' '; echo; done)
	same "$n: the lines of a hot and cold function (UKCOV_INLINE=$inl)" \
		"DA:14,1 DA:15,1 DA:16,0 DA:17,1 DA:19,1 DA:20,1 
DA:14,1 DA:15,1 DA:16,1 DA:17,0 DA:19,0 DA:20,0 " "$got"
done

# ---- the sancov-compatible commands keep sancov's model -----------------
# covered-functions lists each function at the line of its first point,
# inlined frames under their own names and files (sancov
# -covered-functions), not at its definition.
same "covered-functions: sancov's model" "$T/inl.h:7 main
$T/inl.h:7 twice
$T/lines.c:13 both
$T/lines.c:20 main
$T/lines.c:39 early" "$("$U" covered-functions gcc-O2 gcc-O2.dump 2>/dev/null | sort)"
summary
