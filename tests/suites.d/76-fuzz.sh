#!/bin/bash
# tests/suites.d/76-fuzz.sh -- `ukcov fuzz` (tools/fuzz*.c) and its
# executor in the runtime (lib/fuzz_exec.c) on the libFuzzer-style
# targets of tests/fuzz, built with gcc and clang through ukcov-cc
# (trace-pc + trace-cmp) and linked with the uninstrumented driver.
#
# The issue's targets, over 10 seeds: m4, m8 and m16 crash within a
# median of 64 executions (max 128), m4x3 within a median of 256; with
# comparison hints off (-use_cmp=0, the control) m4 and m16 are not
# solved in 10^5 executions while coverage still grows.  m16, mstr and
# mcase call the real memcmp, strcmp and strncasecmp: they are built
# with ukcov-cc -fsanitize=fuzzer (the routine wrappers of
# lib/afl_rtn.c and the runtime's driver) and solved from the
# routines' operands; m16w is m16 as two traced 8-byte compares, m2x2
# two 2-byte ones (the 2-byte hints).  Crash files reproduce
# through the driver's stand-alone mode; crashes are deduplicated by
# stack; a hang is a timeout-; bad options exit 2.  A comparison on a
# thread the input starts, inside a remote section under the common
# handle, counts for the input (tests/fuzz/mthread.c).
#
# Run from the top of the tree after `make lib tools`:
#   B=build tests/suites.d/76-fuzz.sh
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CCW=$TOP/$B/ukcov-cc
SRC=$TOP/tests/fuzz

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make lib tools)"; summary; exit; }
done
cd "$T" || exit 1

# build CC NAME: $NAME-$CC, the target instrumented, the driver not.
build() {
	UKCOV_CC=$1 UKCOV_CMP=1 "$CCW" -O2 -fno-builtin-memcmp -c "$SRC/$2.c" -o "$2-$1.o" &&
	$1 -O2 -c "$SRC/driver.c" -o "driver-$1.o" &&
	UKCOV_CC=$1 "$CCW" "$2-$1.o" "driver-$1.o" -lpthread -o "$2-$1"
}
# buildf CC NAME: $NAME-$CC as a libFuzzer user builds it.
buildf() {
	UKCOV_CC=$1 "$CCW" -O2 -fsanitize=fuzzer "$SRC/$2.c" -o "$2-$1"
}
# execs LOG: the executions the crash took, from "crash after N executions".
execs() { sed -n 's/^==ukcov fuzz== crash after \([0-9]*\) executions$/\1/p' "$1"; }

# solve CC TARGET MEDIAN MAX: 10 seeds, every one crashes within MAX
# executions and their median is at most MEDIAN.
solve() {
	local cc=$1 t=$2 med=$3 max=$4 s n list="" sorted m
	for s in 1 2 3 4 5 6 7 8 9 10; do
		"$U" fuzz -seed=$s -runs=100000 -artifact_prefix="$T/a-" -- "./$t-$cc" \
			>/dev/null 2>"$t.log"
		n=$(execs "$t.log")
		list="$list ${n:-unsolved}"
	done
	case $list in *unsolved*)
		bad "$cc: $t solved by every seed" "executions:$list"; return ;;
	esac
	sorted=$(echo $list | tr ' ' '\n' | sort -n)
	m=$(echo "$sorted" | sed -n 5,6p | awk '{ s += $1 } END { print s / 2 }')
	if awk -v m="$m" -v x="$(echo "$sorted" | tail -1)" -v a="$med" -v b="$max" \
		'BEGIN { exit !(m <= a && x <= b) }'; then
		ok "$cc: $t solved, median $m <= $med, max $(echo "$sorted" | tail -1) <= $max executions"
	else
		bad "$cc: $t within median $med / max $max" "executions:$list"
	fi
}

for cc in gcc clang; do
	for t in m4 m8 m16w m2x2 m4x3 mbe mthread munstable mfork mclose crash2 hang mrtnbad; do
		build $cc $t || bad "$cc: $t builds" "ukcov-cc failed"
	done
	for t in m16 mstr mcase; do
		buildf $cc $t || bad "$cc: $t builds with -fsanitize=fuzzer" "ukcov-cc failed"
	done
	solve $cc m4 64 128
	solve $cc m8 64 128
	solve $cc m16w 64 128
	# Two 2-byte comparisons: the 2-byte hints.
	solve $cc m2x2 64 128
	# The compare routines' operands (lib/afl_rtn.c), spliced.
	solve $cc m16 64 128
	solve $cc mstr 64 128
	solve $cc mcase 64 128
	solve $cc m4x3 256 512
	# Big endian, then a sign-extended byte: both hint rules.
	solve $cc mbe 64 128
	# The comparison on a thread the input starts, in a remote section
	# under the inherited common handle.
	solve $cc mthread 64 128
done

# libukcov.a: ukcov-cc -static links the executor and the thread-start
# wrap that passes the common handle on.
if UKCOV_CC=gcc "$CCW" -static mthread-gcc.o driver-gcc.o -lpthread -o mthread-static; then
	solve static mthread 64 128
else
	bad "static: mthread links" "ukcov-cc -static failed"
fi

# The control: without hints, m4 is not solved in 10^5 executions,
# although the fuzzer runs and finds the size check's branch.
"$U" fuzz -seed=1 -runs=100000 -use_cmp=0 -artifact_prefix="$T/ctl-" -- ./m4-gcc \
	>/dev/null 2>ctl.log
rc=$?
# The run ends by closing the executor's commands: it leaves quietly.
if [ $rc -eq 0 ] && grep -q '^Done 100000 runs' ctl.log && grep -q 'NEW cov: 3 ' ctl.log &&
	! grep -q '^ukcov fuzz executor:' ctl.log && ! ls ctl-* >/dev/null 2>&1; then
	ok "control: -use_cmp=0 does not solve m4 in 100000 executions (exit 0)"
else
	bad "control: -use_cmp=0" "rc $rc: $(tail -2 ctl.log | tr '\n' ' ')"
fi

# The control for the routines: without hints the real memcmp of m16
# is not solved in 10^5 executions either.
"$U" fuzz -seed=1 -runs=100000 -use_cmp=0 -artifact_prefix="$T/ctl16-" -- ./m16-gcc \
	>/dev/null 2>ctl16.log
rc=$?
if [ $rc -eq 0 ] && grep -q '^Done 100000 runs' ctl16.log && ! ls ctl16-* >/dev/null 2>&1; then
	ok "control: -use_cmp=0 does not solve m16's memcmp in 100000 executions (exit 0)"
else
	bad "control: -use_cmp=0 on m16" "rc $rc: $(tail -2 ctl16.log | tr '\n' ' ')"
fi

# Routine records are the harness's bytes: a length past a record's 32
# bytes is dropped and a count past the block clamped
# (tests/fuzz/mrtnbad.c would crash if the record were taken).
"$U" fuzz -seed=1 -runs=3000 -artifact_prefix="$T/rb-" -- ./mrtnbad-gcc >/dev/null 2>rb.log
rc=$?
if [ $rc -eq 0 ] && grep -q '^Done 3000 runs' rb.log && ! ls rb-* >/dev/null 2>&1; then
	ok "hostile routine records: dropped and clamped, 3000 runs, exit 0"
else
	bad "hostile routine records" "rc $rc: $(tail -2 rb.log | tr '\n' ' ')"
fi

# A comparison whose operand changes from one call to the next is not
# a stable hint: both CMP runs must record it (seeds 1-5; the NEW line
# shows the size check was passed).
uns=""
for s in 1 2 3 4 5; do
	"$U" fuzz -seed=$s -runs=3000 -artifact_prefix="$T/uns-" -- ./munstable-gcc >/dev/null 2>uns.log
	rc=$?
	{ [ $rc -eq 0 ] && grep -q 'NEW cov' uns.log; } || uns="$uns seed $s: rc $rc;"
done
if [ -z "$uns" ] && ! ls uns-* >/dev/null 2>&1; then
	ok "an unstable comparison gives no hint (5 seeds x 3000 executions, no crash)"
else
	bad "unstable comparison" "$uns $(ls uns-* 2>/dev/null)"
fi

# A crash: exit 1, the artifact's name is the SHA-1 of its bytes, the
# input is the comparison's constant, and the printed command
# reproduces it (the driver's stand-alone mode dies of SIGABRT).
mkdir corp art
"$U" fuzz -seed=3 -runs=100000 -artifact_prefix=art/ corp -- ./m4-clang >/dev/null 2>crash.log
rc=$?
f=$(ls art/crash-* 2>/dev/null | head -1)
if [ $rc -eq 1 ] && [ -n "$f" ] && [ "art/crash-$(sha1sum <"$f" | cut -c1-40)" = "$f" ] &&
	[ "$(head -c4 "$f" | od -An -tx1 | tr -d ' ')" = 0df0ad8b ]; then
	ok "crash: exit 1, $f named by its SHA-1, starts with the constant"
else
	bad "crash artifact" "rc $rc, file '$f': $(tail -3 crash.log | tr '\n' ' ')"
fi
cmd=$(sed -n 's/^Reproduce with: //p' crash.log)
if [ "$cmd" = "./m4-clang $f" ]; then ok "crash: the reproducing command is printed"; else
	bad "crash: reproducing command" "got '$cmd'"; fi
# dash reports no "Aborted" line for the child, bash would.
rc=$(sh -c '"$@" >/dev/null 2>&1; echo $?' _ $cmd)
./m4-clang /dev/null >/dev/null 2>&1
rc0=$?
if [ $rc -eq 134 ] && [ $rc0 -eq 0 ]; then ok "crash: the file reproduces (SIGABRT; an empty input does not)"; else
	bad "crash reproduces" "rc $rc with the file, $rc0 without"; fi
bad_names=0
for c in corp/*; do
	[ "corp/$(sha1sum <"$c" | cut -c1-40)" = "$c" ] || bad_names=1
done
n=$(ls corp | wc -l)
if [ "$n" -ge 2 ] && [ $bad_names -eq 0 ]; then ok "corpus: $n new inputs in the first directory, named by SHA-1"; else
	bad "corpus directory" "$n files, names ok: $((1 - bad_names))"; fi

# The corpus's first input gets its hints job too: one 4-byte seed
# reaches m4's comparison, and the hint solves it at once (random
# mutation does not, in 2000 executions).
mkdir one && printf AAAA >one/seed
"$U" fuzz -seed=1 -runs=2000 -artifact_prefix=one- one -- ./m4-gcc >/dev/null 2>one.log
n=$(execs one.log)
if [ -n "$n" ] && [ "$n" -le 8 ]; then ok "a lone seed is hinted: m4 solved after $n executions"; else
	bad "a lone seed is hinted" "${n:-not solved}: $(tail -2 one.log | tr '\n' ' ')"; fi

# Deduplication: five crashing inputs at three sites (abort, NULL
# write, stack overflow) give three files; the others are reported as
# duplicates.  The overflow's stack was recorded (on the handler's own
# stack): its fault has a "stack:" line.
mkdir c2 && printf A >c2/1 && printf Ax >c2/2 && printf B >c2/3 && printf By >c2/4 &&
	printf C >c2/5
"$U" fuzz -seed=1 -runs=50 -use_cmp=0 -ignore_crashes=1 -artifact_prefix=d- c2 -- ./crash2-gcc \
	>/dev/null 2>dedup.log
rc=$?
n=$(ls d-crash-* 2>/dev/null | wc -l)
dups=$(grep -c 'DEDUP crash' dedup.log)
segv_stacks=$(grep -A1 'deadly signal 11' dedup.log | grep -c '^==ukcov fuzz== stack: pc 0x')
if [ $rc -eq 1 ] && [ "$n" -eq 3 ] && [ "$dups" -ge 2 ] && [ "$segv_stacks" -eq 2 ] &&
	grep -q 'deadly signal 6' dedup.log; then
	ok "dedup: 3 crash files for 3 stacks ($dups duplicates), overflow's stack recorded, exit 1"
else
	bad "dedup" "rc $rc, $n files, $dups duplicates, $segv_stacks SIGSEGV stacks"
fi

# Crashed executors never unregister their remote collection: 1100
# crashes (more than the machine registry's 1024 slots) must leave the
# next executor its collection, so mthread is still solved.
mkdir many && for i in $(seq 1100); do printf "A$i" >many/$i; done
"$U" fuzz -runs=1100 -use_cmp=0 -ignore_crashes=1 -artifact_prefix=many- many -- ./crash2-gcc \
	>/dev/null 2>many.log
"$U" fuzz -seed=1 -runs=1000 -artifact_prefix=after- -- ./mthread-gcc >/dev/null 2>after.log
n=$(grep -c 'DEDUP crash' many.log)
if [ "$n" -eq 1099 ] && ls after-crash-* >/dev/null 2>&1 && ! grep -q 'no remote collection' after.log; then
	ok "1100 crashed executors: the next one still collects its threads"
else
	bad "remote collection after 1100 crashes" "$n duplicates; $(grep -m1 'no remote' after.log)"
fi

# A harness that forks and lets the child return: the child must not
# go on serving (it would read the parent's commands).  Bounded by
# timeout(1) in case it does; the log goes to a file, as a stray child
# would hold a pipe open.
mkdir fk && printf F >fk/1
timeout 60 "$U" fuzz -seed=1 -runs=300 -timeout=5 -artifact_prefix=fk- fk -- ./mfork-gcc >/dev/null 2>fork.log
rc=$?
if [ $rc -eq 0 ] && grep -q '^Done 300 runs' fork.log && ! ls fk-* >/dev/null 2>&1; then
	ok "a harness's forked child does not serve: 300 runs, exit 0"
else
	bad "forked child" "rc $rc: $(tail -2 fork.log | tr '\n' ' ')"
fi

# A hang: a timeout- file after -timeout seconds, exit 1.
mkdir h && printf H >h/1
"$U" fuzz -timeout=1 -runs=10 -artifact_prefix=t- h -- ./hang-gcc >/dev/null 2>hang.log
rc=$?
if [ $rc -eq 1 ] && [ -f "t-timeout-$(printf H | sha1sum | cut -c1-40)" ] &&
	grep -q '^==ukcov fuzz== ERROR: timeout after 1 seconds$' hang.log; then
	ok "timeout: t-timeout-<sha1>, exit 1"
else
	bad "timeout" "rc $rc: $(tail -2 hang.log | tr '\n' ' ')"
fi

# A progress line at least every 2 s, and exit 0 at -max_total_time.
"$U" fuzz -max_total_time=5 -use_cmp=0 -- ./m4-gcc >/dev/null 2>pulse.log
rc=$?
n=$(grep -c 'pulse cov: ' pulse.log)
if [ $rc -eq 0 ] && [ "$n" -ge 2 ]; then ok "-max_total_time=5: $n progress lines, exit 0"; else
	bad "-max_total_time" "rc $rc, $n pulse lines"; fi

# -jobs=2: two fuzzers with seeds S and S+1, each its own log and
# crash; the worst status (1) is the tool's.
mkdir jobs && (cd jobs && "$U" fuzz -jobs=2 -seed=5 -runs=100000 -- ../m4-gcc >/dev/null 2>../jobs.log)
rc=$?
if [ $rc -eq 1 ] && grep -qx 'INFO: seed: 5' jobs/fuzz-0.log && grep -qx 'INFO: seed: 6' jobs/fuzz-1.log &&
	grep -q 'crash after' jobs/fuzz-0.log && grep -q 'crash after' jobs/fuzz-1.log &&
	[ "$(ls jobs/crash-* | wc -l)" -ge 1 ]; then
	ok "-jobs=2: fuzz-0.log and fuzz-1.log, seeds 5 and 6, both crash, exit 1"
else
	bad "-jobs=2" "rc $rc: $(cat jobs.log jobs/fuzz-*.log 2>&1 | tail -4 | tr '\n' ' ')"
fi

# A dictionary word is used: the target's constant as the only word,
# without hints.
printf '# the constant\nkw="\\x0d\\xf0\\xad\\x8b"\n' >m4.dict
"$U" fuzz -seed=1 -runs=100000 -use_cmp=0 -dict=m4.dict -artifact_prefix=dict- -- ./m4-gcc \
	>/dev/null 2>dict.log
if [ $? -eq 1 ] && ls dict-crash-* >/dev/null 2>&1; then ok "-dict: m4 solved from the dictionary without hints"; else
	bad "-dict" "$(tail -2 dict.log | tr '\n' ' ')"; fi

# Bad options: one line, exit 2, nothing run.
usage() {
	local name=$1 want=$2 r
	shift 2
	"$U" fuzz "$@" >out 2>err
	r=$?
	if [ $r -eq 2 ] && [ "$(cat err)" = "$want" ]; then ok "usage: $name"; else
		bad "usage: $name" "rc $r, '$(cat err)'"; fi
}
usage "unknown flag" "ukcov fuzz: unknown flag '-bogus=1' (see ukcov fuzz -help=1)" -bogus=1 -- ./m4-gcc
usage "not a number" "ukcov fuzz: -runs wants an integer, not '1x' (see ukcov fuzz -help=1)" -runs=1x -- ./m4-gcc
usage "out of range" "ukcov fuzz: -max_len=0 is out of range (see ukcov fuzz -help=1)" -max_len=0 -- ./m4-gcc
usage "-jobs=0" "ukcov fuzz: -jobs=0 is out of range (see ukcov fuzz -help=1)" -jobs=0 -- ./m4-gcc
usage "no harness" "ukcov fuzz: no harness: put it after '--' (see ukcov fuzz -help=1)" -runs=1
printf 'kw="unterminated\n' >bad.dict
usage "bad dictionary" "ukcov fuzz: -dict: bad.dict:1: not name=\"value\"" -dict=bad.dict -- ./m4-gcc

# A harness that returns with errno EINTR (tests/fuzz/meintr.c): every
# input's status word is written once, 300 runs end normally, exit 0.
build gcc meintr || bad "gcc: meintr builds" "ukcov-cc failed"
timeout 60 "$U" fuzz -seed=1 -runs=300 -- ./meintr-gcc >/dev/null 2>eintr.log
rc=$?
if [ $rc -eq 0 ] && grep -q '^Done 300 runs' eintr.log; then
	ok "a harness that leaves errno EINTR: 300 runs, exit 0"
else
	bad "harness leaving errno EINTR" "rc $rc: $(tail -2 eintr.log | tr '\n' ' ')"
fi

# Started with SIGCHLD ignored, the executor's death is still seen as
# what it was: it was taken for an exit with status 0.
sigchld_ignored "$U" fuzz -seed=1 -runs=2000 -artifact_prefix=ign- -- ./m4-gcc >/dev/null 2>ign.log
rc=$?
if [ $rc -eq 1 ] && grep -q 'deadly signal 6' ign.log && ! grep -q 'exited with 0' ign.log; then
	ok "SIGCHLD ignored: a crash is still a deadly signal 6"
else
	bad "SIGCHLD ignored" "rc $rc: $(grep ERROR ign.log | head -2 | tr '\n' ' ')"
fi

# A harness that closes the executor's pipes and blocks: a timeout-
# after -timeout, not a fuzzer waiting forever (timeout(1) bounds it).
mkdir cx && printf X >cx/1
timeout 60 "$U" fuzz -seed=1 -runs=10 -timeout=1 -artifact_prefix=cx- cx -- ./mclose-gcc >/dev/null 2>close.log
rc=$?
if [ $rc -eq 1 ] && [ -f "cx-timeout-$(printf X | sha1sum | cut -c1-40)" ]; then
	ok "pipes closed by a harness that lives on: timeout-, exit 1"
else
	bad "closed pipes" "rc $rc: $(tail -2 close.log | tr '\n' ' ')"
fi

# A program that does not serve: one error line, exit 1.
"$U" fuzz -runs=1 -- /bin/true >/dev/null 2>noserve.log
rc=$?
if [ $rc -eq 1 ] && grep -q 'did not start the executor' noserve.log; then ok "a harness that does not serve: exit 1"; else
	bad "non-serving harness" "rc $rc: $(cat noserve.log)"; fi

# Hostile environment: the executor refuses a malformed $UKCOV_FUZZ
# with one line and the driver falls back to its stand-alone mode.
UKCOV_FUZZ=0,1,999999 ./m4-gcc /dev/null >/dev/null 2>env.log
rc=$?
if [ $rc -eq 0 ] && [ "$(head -1 env.log)" = "ukcov fuzz executor: \$UKCOV_FUZZ: command/status fds are not pipes" ]; then
	ok "executor: a bad \$UKCOV_FUZZ is refused, the driver runs its files"
else
	bad "executor: bad \$UKCOV_FUZZ" "rc $rc: $(cat env.log)"
fi
# Channels not made by ukcov fuzz (tests/fuzz/hostile.py): an unsealed
# block, header fields past the file, an input longer than the block,
# an unknown command; each refused with its line, no crash.
while read -r line; do
	case $line in
	"ok "*) ok "executor: ${line#ok }" ;;
	*) bad "executor" "$line" ;;
	esac
done < <(python3 "$SRC/hostile.py" ./m4-gcc 2>&1)
summary
