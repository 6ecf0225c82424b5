#!/bin/bash
# tests/suites.d/72-gcov.sh -- ukcov's coverage agrees with gcov's on a
# program and test suite nobody here wrote: zlib 1.2.13 and its own
# `make check`.  The oracle is gcov: the same sources built with
# `gcc --coverage -O0`, captured by lcov.  ukcov's builds (ukcov-cc with
# gcc at -O0 and -O2, with clang at -O0) run the same `make check` under
# `ukcov run`; scripts/gcov-agree.py compares the two tracefiles and
# asserts the targets of docs/GCOV.md (functions: file and ran, line of
# definition; lines: reported, hit), and `ukcov report` of the suite's
# dump must take under a second.
#
# First the measuring stick itself, on tracefiles written here whose
# figures are known.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/72-gcov.sh
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CCW=$TOP/$B/ukcov-cc
AGREE="python3 $TOP/scripts/gcov-agree.py"
export PYTHONDONTWRITEBYTECODE=1

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1

# ---- gcov-agree.py on known tracefiles ---------------------------------
# gcov: a.c in two records (two objects: counts add up), a static s in
# a.c and in b.c.  ukcov: the same files under another root, a decoy
# lib/a.c (matched by the longest common suffix, so src/a.c is a.c),
# f reported never run and one line before gcov's, a.c:12 not hit.
cat >g.info <<'EOF'
TN:
SF:/g/src/a.c
FN:10,f
FN:20,s
FNDA:2000,f
FNDA:0,s
DA:10,2000
DA:11,2000
DA:12,0
DA:20,0
end_of_record
SF:/g/src/b.c
FN:5,s
FNDA:1,s
DA:5,1
DA:6,1
end_of_record
SF:/g/src/a.c
FN:10,f
FNDA:1,f
DA:12,1
end_of_record
EOF
cat >u.info <<'EOF'
TN:
SF:/u/lib/a.c
FN:10,f
FNDA:1,f
DA:10,1
DA:12,1
end_of_record
SF:/u/src/a.c
FN:11,f
FN:20,s
FNDA:0,f
FNDA:0,s
DA:11,5
DA:12,0
DA:20,0
end_of_record
SF:/u/src/b.c
FN:5,s
FNDA:3,s
DA:5,1
DA:6,1
end_of_record
EOF
cat >want <<'EOF'
fn_file_ran 50.00% (2 of 4 functions agree on file and ran)
fn_contra 1 (of 3 functions both report, one says ran, the other never ran)
fn_line 66.67% (2 of 3 functions both report)
line_share 83.33% (5 of gcov's 6 lines)
line_agree 80.00% (4 of 5 lines both report)
line_extra 2 (ukcov's lines gcov does not instrument)
hot_never 1 (of 1 functions gcov counts over the hot limit; 0 absent from ukcov)
EOF
$AGREE g.info u.info >got 2>&1
rc=$?
[ $rc = 0 ] && cmp -s got want && ok "gcov-agree: known figures" ||
	bad "gcov-agree: known figures" "rc $rc; $(diff want got | tr '\n' ' ')"

$AGREE g.info u.info --show-diff 1 >got 2>&1
grep -qx '  /u/lib/a.c:10 f gcov=absent ukcov=ran(1)' got &&
grep -qx '  /g/src/a.c:10 f gcov=line 10 ukcov=line 11' got &&
grep -qx '  /g/src/a.c:12 gcov=hit(1) ukcov=not-hit' got &&
grep -qx '  /g/src/a.c:10 f gcov=ran(2001) ukcov=never-ran' got &&
grep -qx 'line_missing: 1' got &&
grep -qx '  /u/lib/a.c:10 gcov=absent ukcov=hit(1)' got &&
	ok "gcov-agree: --show-diff lists each disagreement" ||
	bad "gcov-agree: --show-diff" "$(tr '\n' '|' <got)"

# --require compares exact counts: 2 of 3 is below 66.67%, above 66.66%.
$AGREE g.info u.info --require fn_line=66.66,line_agree=80,hot_never=1 >got 2>&1
rc1=$?
$AGREE g.info u.info --require fn_line=66.67,hot_never=0 >got2 2>&1
rc2=$?
if [ $rc1 = 0 ] && ! grep -q FAIL got && [ $rc2 = 1 ] &&
   [ "$(grep FAIL got2 | tr '\n' '|')" = "FAIL fn_line 66.67% < 66.67%|FAIL hot_never 1 > 0|" ]; then
	ok "gcov-agree: --require fails exactly below its thresholds"
else
	bad "gcov-agree: --require" "rc $rc1 $rc2; $(tr '\n' '|' <got2)"
fi

# Bad input: one line saying where, exit status 2, nothing else printed.
sed 's/^DA:11,5$/DA:11,x/' u.info >bad.info
$AGREE g.info bad.info >got 2>err
rc=$?
[ $rc = 2 ] && [ ! -s got ] &&
[ "$(cat err)" = "gcov-agree: bad.info:13: not a number: 'x'" ] &&
	ok "gcov-agree: a malformed tracefile is one error line" ||
	bad "gcov-agree: malformed tracefile" "rc $rc; $(cat got err | tr '\n' '|')"

$AGREE g.info u.info --json >got 2>&1 &&
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["hot_never"] == 1 and d["counts"]["ln_both"] == 5 and abs(d["line_agree"] - 80) < 1e-9))' got &&
	ok "gcov-agree: --json" || bad "gcov-agree: --json" "$(head -c 300 got)"

# ---- zlib make check: gcov against ukcov --------------------------------
zsrc=$(zlib_src "$TOP")
if [ -z "$zsrc" ]; then
	echo "skipped zlib: no zlib sources (make bench-fetch, or set BENCH_CACHE)"
	summary
	exit
fi
command -v lcov >/dev/null || { bad "prerequisites" "no lcov (scripts/deps.sh)"; summary; exit; }

# ms CMD...: run CMD, print its wall time in milliseconds on fd 3.
ms() {
	t0=$(date +%s%N)
	"$@"
	r=$?
	echo $((($(date +%s%N) - t0) / 1000000)) >&3
	return $r
}

# The gcov build, the oracle.
cp -r "$zsrc" gcov && cd gcov || exit 1
if CC=gcc CFLAGS="--coverage -O0 -g" LDFLAGS=--coverage ./configure >conf.log 2>&1 &&
   make -j2 >build.log 2>&1 && ms make check >check.log 2>&1 3>"$T/gcov.ms" &&
   lcov --capture --rc lcov_branch_coverage=0 -d . -o "$T/gcov.info" >lcov.log 2>&1; then
	ok "gcov: zlib make check and lcov ($(grep -c '^SF:' "$T/gcov.info") records, $(cat "$T/gcov.ms") ms)"
else
	bad "gcov build of zlib" "$(tail -3 build.log check.log lcov.log 2>/dev/null | tr '\n' ' ')"
	summary
	exit
fi
cd "$T" || exit 1

# ukcov_build NAME COMPILER CFLAGS: zlib with ukcov-cc, make check under
# ukcov run, its tracefile in NAME.info, the dump in NAME/all.dump; on
# failure the logs' last lines.  A subshell: the cd stays in it.
ukcov_build() (
	cp -r "$zsrc" "$1" && cd "$1" || exit 1
	if CC=$CCW UKCOV_CC=$2 CFLAGS=$3 ./configure >conf.log 2>&1 &&
	   UKCOV_CC=$2 make -j2 >build.log 2>&1 &&
	   ms "$U" run -o all.dump -- make check >check.log 2>check.err 3>"$T/$1.ms" &&
	   "$U" lcov all.dump >"$T/$1.info" 2>lcov.err; then
		exit 0
	fi
	tail -3 build.log check.err lcov.err 2>/dev/null | tr '\n' ' '
	exit 1
)

# agree NAME TARGETS: the figures on the ok line, FAIL lines otherwise.
agree() {
	$AGREE gcov.info "$1.info" --require "$2" >"$1.agree" 2>&1
	rc=$?
	figs=$(sed -n 's/^\([a-z_]*\) \([0-9.]*%*\) .*/\1 \2/p' "$1.agree" | tr '\n' ',' | sed 's/,$//; s/,/, /g')
	if [ $rc = 0 ]; then
		ok "$1 agrees with gcov ($figs)"
	else
		bad "$1 against gcov" "$(grep FAIL "$1.agree" | sed "s/^FAIL //" | paste -sd ";" -) ($figs)"
	fi
}

# report_time NAME: ukcov report -o DIR of the suite's dump, under 1 s.
# The CPU time (user + system) is asserted: the wall time of a machine
# shared with other jobs (make -j, other suites) says more about them.
report_time() {
	/usr/bin/time -f '%e %U %S' -o "$1.rtime" \
		"$U" report -o "$1.report" "$1/all.dump" >"$1.report.log" 2>&1
	rc=$?
	read -r wall user sys <"$1.rtime"
	cpu=$(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }')
	if [ $rc = 0 ] && awk -v c="$cpu" 'BEGIN { exit !(c < 1) }'; then
		ok "$1: ukcov report of the suite in ${cpu} s CPU (${wall} s wall)"
	else
		bad "$1: ukcov report" "rc $rc, ${cpu} s CPU (limit 1 s); $(tail -2 "$1.report.log" | tr '\n' ' ')"
	fi
}

O0="fn_file_ran=100,fn_line=99,line_share=94,line_agree=99.5"
# clang emits no coverage point in a function whose one block ends in a
# noreturn call (minigzip's error()), so ukcov cannot list it: at clang
# -O0 a function may be absent, but none may contradict gcov.
O0_CLANG="fn_contra=0,fn_line=99,line_share=94,line_agree=99.5"
for b in "gcc-O0 gcc -O0" "gcc-O2 gcc -O2" "clang-O0 clang -O0"; do
	set -- $b
	command -v "$2" >/dev/null || { bad "$1" "no $2"; continue; }
	if ! err=$(ukcov_build "$1" "$2" "$3"); then
		bad "$1: zlib make check under ukcov run" "$err"
		continue
	fi
	ok "$1: zlib make check under ukcov run ($(cat "$1.ms") ms; gcov's $(cat gcov.ms) ms)"
	case $2$3 in
	clang-O0) agree "$1" "$O0_CLANG" ;;
	*-O0) agree "$1" "$O0" ;;
	*) agree "$1" "line_agree=98,hot_never=0" ;;
	esac
	report_time "$1"
done
summary
