#!/bin/bash
# tests/suites.d/53-tool-merge-run.sh -- hostile inputs to `ukcov merge`
# and `ukcov run`, tests that must catch a named bug and the small
# run/stats items.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/53-tool-merge-run.sh
set -u
. tests/lib.sh
TOP=$(pwd)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
U=${UKCOV:-$BD/ukcov}	# UKCOV: another binary, e.g. to see a test fail
CCW=$BD/ukcov-cc
SRC=$TOP/tests/tool/src
REF=$TOP/tests/tool/merge_ref.py

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1

# same_file NAME EXPECTED ACTUAL: byte-identical files.
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		bad "$1" "$(diff "$2" "$3" | head -4 | tr '\n' ' ')"; fi
}

# ---- merge is O(n log n) in modules -------------------
# 80k module lines (2 x 4 MB) took 70 s when each module was looked up
# by a scan of the merged table; an independent model gives the bytes.
python3 "$REF" gen 80000 big1.dump big2.dump
python3 "$REF" merge big1.dump big2.dump >big.ref
t0=$EPOCHREALTIME
timeout 60 "$U" merge -o big.dump big1.dump big2.dump
t1=$EPOCHREALTIME
ms=$(( (${t1/./} - ${t0/./}) / 1000 ))
echo "# merge of 80000 module lines: $ms ms"
[ "$ms" -lt 10000 ] && ok "merge of 80k modules in $ms ms (< 10 s)" ||
	bad "merge of 80k modules" "$ms ms"
same_file "merge of 80k modules equals the model" big.ref big.dump

# Modules match by build-id, or by path where either has none, the first
# match in the merged table's order.  Here the union renames /z.so (id
# aaaa) to the smaller /y.so: an id-less /z.so is then a new module, and
# an id-less /y.so joins aaaa.
printf 'ukcov-dump 1\nmode pc\nmodule 0 aaaa 0 0 10 /z.so\npcs 0 1\n1\nend\n' >ra.dump
printf 'ukcov-dump 1\nmode pc\nmodule 0 aaaa 0 0 10 /y.so\nmodule 1 - 0 0 10 /z.so\nmodule 2 - 0 0 10 /y.so\npcs 0 1\n2\npcs 1 1\n3\npcs 2 1\n4\nend\n' >rb.dump
printf 'ukcov-dump 1\nmode pc\nmodule 0 - 0 0 10 /z.so\nmodule 1 aaaa 0 0 10 /y.so\npcs 0 1\n3\npcs 1 3\n1\n2\n4\nend\n' >rab.expected
"$U" merge -o rab.dump ra.dump rb.dump
same_file "merge: a module renamed by the union is matched by its new path" rab.expected rab.dump

# ---- run started with SIGCHLD ignored ------------------
# The kernel then reaps the children itself and waitpid fails: run said
# "waitpid: No child processes", lost the exit status and wrote no
# dump.  It takes the default back for itself; the program gets SIGCHLD
# ignored, as run was given it (exit status 3 says so).
printf '%s\n' '#include <signal.h>' 'int main(void)' '{' \
	'	struct sigaction sa;' '' '	sigaction(SIGCHLD, 0, &sa);' \
	'	return sa.sa_handler == SIG_IGN ? 3 : 4;' '}' >sigign.c
"$CCW" -O1 sigign.c -o sigign
sigchld_ignored "$U" run -o sigign.dump -- ./sigign 2>sigign.err
rc=$?
if [ $rc = 3 ] && grep -q '^ukcov: ./sigign exited with status 3; [1-9][0-9]* records, 0 dropped$' sigign.err &&
	[ "$("$U" print sigign.dump | wc -l)" -gt 0 ]; then
	ok "run with SIGCHLD ignored: the exit status, the dump, the program's SIGCHLD as given"
else
	bad "run with SIGCHLD ignored" "rc $rc: $(tr '\n' ' ' <sigign.err)"
fi

# ---- run with a long $TMPDIR --------------------------
# The temporary files' names were cut to 40 bytes of $TMPDIR: a longer
# one failed, or the files landed in the directory its prefix names.
# The program lists the directories while the tool's files exist (the
# module table, and the process tree's directory: lib/tree.c).
# nosuffix: the names without their mkstemp/mkdtemp suffixes.
nosuffix() { sed 's/-[A-Za-z0-9]\{6\}//g' "$@"; }
long=$T/$(printf 'd%.0s' $(seq 200))
mkdir -p "$long"
TMPDIR=$long "$U" run -o long.dump -- sh -c 'ls -A "$TMPDIR"' >long.out 2>long.err
rc=$?
[ $rc -eq 0 ] && grep -q '^mode pc$' long.dump && [ "$(nosuffix long.out)" = "ukcov-mod
ukcov-tree" ] &&
	ok "run with a 200-byte TMPDIR writes its files there" ||
	bad "run with a 200-byte TMPDIR" "rc $rc: $(cat long.out long.err | tr '\n' ' ')"
[ -z "$(ls -A "$long")" ] && ok "run removes its files from a long TMPDIR" ||
	bad "run leaves files in TMPDIR" "$(ls -A "$long")"
pre=$T/$(printf 'p%.0s' $(seq $((40 - ${#T} - 1))))
mkdir -p "$pre" "${pre}q/tmp"
[ ${#pre} -eq 40 ] || bad "prefix fixture" "${#pre} bytes"
TMPDIR=${pre}q/tmp "$U" run -o pre.dump -- sh -c 'echo "in prefix:" $(ls -A "$0"); echo "in TMPDIR:" $(ls -A "$TMPDIR")' "$pre" >pre.out 2>pre.err
rc=$?
[ $rc -eq 0 ] && [ "$(nosuffix pre.out)" = "in prefix:
in TMPDIR: ukcov-mod ukcov-tree" ] &&
	ok "run: nothing created where TMPDIR's 40-byte prefix points" ||
	bad "run with TMPDIR's prefix a directory" "rc $rc: $(cat pre.out pre.err | tr '\n' ' ')"
toolong=$long/$(printf 'e%.0s' $(seq 4000))
TMPDIR=$toolong "$U" run -o no.dump -- true >no.out 2>no.err
rc=$?
[ $rc -eq 1 ] && [ ! -e no.dump ] && [ "$(cat no.err)" = "ukcov: error: \$TMPDIR is too long (${#toolong} bytes): a temporary file in it needs more than 4095 bytes" ] &&
	ok "run: a TMPDIR too long for a path is a one-line error" ||
	bad "run with a 4 KiB TMPDIR" "rc $rc: $(cat no.err)"
# 4078 bytes: the module table's file (17 bytes more) fits a path, the
# process tree's directory (18 more) does not.  And a TMPDIR that does
# not exist: the first file's error, named.
treelong=$(python3 -c 'import sys
p = sys.argv[1]
while len(p) < 4078:
    p += "/" + "t" * min(200, 4078 - len(p) - 1)
print(p)' "$T/tl")
mkdir -p "$treelong"
TMPDIR=$treelong "$U" run -o tl.dump -- true >tl.out 2>tl.err
rc=$?
[ ${#treelong} -eq 4078 ] && [ $rc -eq 1 ] && [ ! -e tl.dump ] && [ -z "$(ls -A "$treelong")" ] &&
[ "$(cat tl.err)" = "ukcov: error: \$TMPDIR is too long (4078 bytes): the process tree's directory in it needs more than 4095 bytes" ] &&
	ok "run: a TMPDIR too long for the tree's directory is a one-line error" ||
	bad "run with a 4078-byte TMPDIR" "rc $rc (${#treelong} bytes): $(cat tl.err)"
TMPDIR=$T/missing "$U" run -o mi.dump -- true >mi.out 2>mi.err
rc=$?
[ $rc -eq 1 ] && [ ! -e mi.dump ] &&
[ "$(sed 's/-[A-Za-z0-9]\{6\}:/-XXXXXX:/' mi.err)" = "ukcov: error: $T/missing/ukcov-mod-XXXXXX: No such file or directory" ] &&
	ok "run: a TMPDIR that does not exist is a one-line error naming the file" ||
	bad "run with a missing TMPDIR" "rc $rc: $(cat mi.err)"

# --remote: the runtime keeps UKCOV_REMOTE_MODULES in 256 bytes and
# would drop a longer path silently, so the tool refuses it first.
rlong=$T/$(printf 'r%.0s' $(seq 240))
mkdir -p "$rlong"
TMPDIR=$rlong "$U" run --remote 0x100 -o rem.dump -- true >rem.out 2>rem.err
rc=$?
[ $rc -eq 1 ] && [ ! -e rem.dump ] && [ -z "$(ls -A "$rlong")" ] &&
	[ "$(cat rem.err)" = "ukcov: error: --remote: the module table's path in \$TMPDIR has $(( ${#rlong} + 17 )) bytes, more than the runtime's 255" ] &&
	ok "run --remote: a module table path over the runtime's 255 bytes is an error" ||
	bad "run --remote with a long TMPDIR" "rc $rc: $(cat rem.err)"

# ---- CMP records keep their module through a merge ---
# The two tables list the modules in other orders: each record must be
# renumbered to its module's place in the merged, sorted table.
cat >ca.dump <<'EOF'
ukcov-dump 1
mode cmp
module 0 aaaa 1000 1000 2000 /a.so
module 1 - 5000 5000 6000 /b.so
cmp 0 10 1 2 3
cmp 1 20 3 4 5
cmp - 30 5 6 7
end
EOF
cat >cb.dump <<'EOF'
ukcov-dump 1
mode cmp
module 0 - 5000 5000 6000 /b.so
module 1 cccc 9000 9000 a000 /c.so
module 2 aaaa 1000 1000 2000 /a.so
cmp 0 21 3 4 5
cmp 2 11 1 2 3
cmp 1 40 1 1 1
cmp 2 10 1 2 3
end
EOF
cat >cab.expected <<'EOF'
ukcov-dump 1
mode cmp
module 0 - 5000 5000 6000 /b.so
module 1 aaaa 1000 1000 2000 /a.so
module 2 cccc 9000 9000 a000 /c.so
cmp - 30 5 6 7
cmp 0 20 3 4 5
cmp 0 21 3 4 5
cmp 1 10 1 2 3
cmp 1 11 1 2 3
cmp 2 40 1 1 1
end
EOF
"$U" merge -o cab.dump ca.dump cb.dump
same_file "merge of CMP dumps: each record stays with its module" cab.expected cab.dump
"$U" merge -o cba.dump cb.dump ca.dump
same_file "merge of CMP dumps in the other order: the same records" cab.expected cba.dump

# ---- a source path "/../x" is "/x", as sancov's ------
# llvm/lib/Support/Path.cpp remove_dots(path, remove_dot_dot=true) drops
# ".." at the root, and sancov's symbolized files go through it.
cat >dots.c <<'EOF'
int f(int x) { if (x > 2) return x * 2; return x; }
int main(int argc, char **argv) { return f(argc) > 100; }
EOF
mkdir -p cov
if clang -g -O0 -fsanitize-coverage=trace-pc-guard -fsanitize=address "/..$T/dots.c" -o dots 2>cc.err &&
	ASAN_OPTIONS=coverage=1:coverage_dir=cov:detect_leaks=0 ./dots 5 2>/dev/null; then
	S=$(ls cov/dots.*.sancov)
	sancov -symbolize dots "$S" >dots.sancov.json 2>&1
	"$U" symbolize dots "$S" >dots.ukcov.json 2>&1
	if grep -q "\"$T/dots.c\": {" dots.sancov.json && strings -a dots | grep -qx "/\.\.$T/dots.c"; then
		same_file "symbolize: '/../x' is '/x', as live sancov" dots.sancov.json dots.ukcov.json
	else
		bad "the '/../x' fixture" "DWARF or sancov do not hold the expected paths"
	fi
else
	bad "the '/../x' fixture builds and runs" "$(head -3 cc.err | tr '\n' ' ')"
fi

# ---- --threads all sums every thread's drops ---------
# Each thread's trace holds --size - 1 = 63 records; what a thread does
# beyond that is dropped.  Counted without limits (--raw: one block per
# thread), the drops are the sum over the threads of count - 63.
"$CCW" -O0 "$SRC/tdrops.c" -lpthread -o tdrops
"$U" run --mode pc --threads all --raw -o tdrops.raw -- ./tdrops >/dev/null 2>&1
want=$(awk '/^# thread/ { if (n > 63) d += n - 63; n = 0; next }
	{ n++ } END { if (n > 63) d += n - 63; print d + 0 }' tdrops.raw)
blocks=$(grep -c '^# thread' tdrops.raw)
"$U" run --mode pc --size 64 --threads all -o tdrops.dump -- ./tdrops >/dev/null 2>tdrops.err
got=$(sed -n 's/.* records, \([0-9]*\) dropped$/\1/p' tdrops.err)
[ "$blocks" = 3 ] && [ "$want" -gt 1000 ] && [ "$got" = "$want" ] &&
	grep -qx "info dropped $want" tdrops.dump &&
	ok "run --threads all: $want dropped, the sum over 4 threads" ||
	bad "run --threads all drops" "want $want ($blocks blocks), got '$got': $(cat tdrops.err)"

# ---- the generated mutants that survived in run.c -------------
# run --raw prints each record: a non-PIE build (load bias 0), so the
# records, return addresses, are the dump's points plus 1, one each in
# the default unique mode.
printf '#include <stdlib.h>\nint f(int x)\n{\n\tif (x > 3)\n\t\treturn 1;\n\treturn 0;\n}\nint main(int c, char **v)\n{\n\treturn f(c > 1 ? atoi(v[1]) : 0);\n}\n' >rawp.c
if UKCOV_CC=gcc "$CCW" -O0 -no-pie rawp.c -o rawp; then
	"$U" run -o rawp.dump -- ./rawp 5 2>/dev/null
	"$U" run --raw -o - -- ./rawp 5 2>/dev/null | sort -u >rawp.raw
	while read -r pc; do printf '0x%x\n' $((pc - 1)); done <rawp.raw >rawp.pts
	"$U" print rawp.dump >rawp.want
	[ "$(wc -l <rawp.want)" -gt 1 ] && same_file "run --raw: every record, each the point after the call (non-PIE)" rawp.want rawp.pts ||
		bad "run --raw fixture" "$(wc -l <rawp.want) points"
else
	bad "run --raw fixture builds" "ukcov-cc failed"
fi

# run PROG found through PATH, as execvp finds it: the unique mode's
# default bitmap has a bit per byte of PROG's executable text
# (tools/run.c default_bitmap; computed here from its LOAD headers as
# 55-unique does), so PROG's file must be found through PATH too.
mkdir -p pathbin empty1 && cp rawp pathbin/rawp-in-path
lo='' hi=0
while read -r a m; do
	if [ -z "$lo" ] || [ $((a)) -lt $((lo)) ]; then lo=$a; fi
	[ $((a + m)) -gt $((hi)) ] && hi=$((a + m))
done < <(readelf -lW rawp | awk '$1 == "LOAD" && / R E | RWE / { print $3, $6 }')
words=$((4096 + (hi - lo) / 64 + 2))
PATH=$T/empty1::$T/pathbin:$PATH "$U" run -o inpath.dump -- rawp-in-path 5 2>inpath.err
grep -qx "info bitmap-words $words" inpath.dump &&
	ok "run PROG through PATH: default bitmap from its text ($words words)" ||
	bad "run PROG through PATH" "$(grep bitmap-words inpath.dump; tr '\n' ' ' <inpath.err), want $words"

# ---- run's output never mixes with the program's -------------
# Without -o the dump goes to a new ukcov.<pid>.dump (stderr says so);
# standard output is the program's alone.  -o - asks for stdout.
"$CCW" -O0 "$SRC/main.c" "$SRC/lib.c" -o prog
./tdrops >tdrops.alone
"$U" run -- ./tdrops >own.out 2>own.err
pid=$(sed -n 's/^ukcov: points saved to ukcov\.\([0-9]*\)\.dump .*/\1/p' own.err)
if cmp -s tdrops.alone own.out && [ -n "$pid" ] &&
	[ "$(tail -1 own.err)" = "ukcov: points saved to ukcov.$pid.dump (ukcov print --lines ukcov.$pid.dump lists them)" ] &&
	"$U" print --lines "ukcov.$pid.dump" | grep -q ' worker .*tdrops.c:'; then
	ok "run without -o: stdout is the program's, the dump is ukcov.$pid.dump"
else
	bad "run without -o" "$(head -3 own.out | tr '\n' ' ') / $(tr '\n' ' ' <own.err)"
fi
"$U" run --raw -- ./tdrops >rawown.out 2>rawown.err
pid=$(sed -n 's/^ukcov: records saved to ukcov\.\([0-9]*\)\.raw$/\1/p' rawown.err)
cmp -s tdrops.alone rawown.out && [ -n "$pid" ] && grep -q '^0x' "ukcov.$pid.raw" &&
	ok "run --raw without -o: the records are in ukcov.$pid.raw" ||
	bad "run --raw without -o" "$(tr '\n' ' ' <rawown.err)"
"$U" run -o - -- ./tdrops >dash.out 2>/dev/null
[ "$(head -1 dash.out)" = "$(cat tdrops.alone)" ] && [ "$(sed -n 2p dash.out)" = "ukcov-dump 1" ] &&
	[ "$(tail -1 dash.out)" = end ] && ok "run -o -: the dump follows the program's output on stdout" ||
	bad "run -o -" "$(head -3 dash.out | tr '\n' ' ')"

# A run that records nothing says why; stats calls its dump empty.
expect_run() {
	local n=$1 want=$2; shift 2
	"$@" >/dev/null 2>why.err
	if [ "$(cat why.err)" = "$want" ]; then ok "$n"; else
		bad "$n" "$(tr '\n' ' ' <why.err)"; fi
}
expect_run "run --no-follow: 0 records because the children are not followed" \
"ukcov: sh exited with status 0; 0 records, 0 dropped
ukcov: warning: 0 records: sh ran no instrumented code itself; its child processes did, but --no-follow traces only the process it starts" \
	"$U" run --no-follow -o kids.dump -- sh -c './prog 1; ./prog 2'
"$U" run -o kidsf.dump -- sh -c './prog 1; ./prog 2' >/dev/null 2>kidsf.err
grep -q 'ukcov: sh exited with status 0; 0 records of its own, 0 dropped' kidsf.err &&
	grep -q 'ukcov: 2 more processes of its tree: [1-9][0-9]* records' kidsf.err &&
	! grep -q '0 records:' kidsf.err && [ -n "$("$U" print kidsf.dump)" ] &&
	ok "run: the children a shell starts are followed by default" ||
	bad "run follows children" "$(tr '\n' ' ' <kidsf.err)"
# quiet: libukcov linked by ukcov-cc (gcc), but no point runs.
printf '__attribute__((no_sanitize_coverage)) int main(void) { return 0; }\n' >quiet.c
UKCOV_CC=gcc "$CCW" quiet.c -o quiet
expect_run "run: 0 records, and none in the tree" \
"ukcov: sh exited with status 0; 0 records of its own, 0 dropped
ukcov: 1 more process of its tree: 0 records, 0 dropped
ukcov: warning: 0 records: neither sh nor the 1 processes of its tree that load libukcov ran instrumented code" \
	"$U" run -o none.dump -- sh -c './quiet'
expect_run "run: 0 records because the program has no runtime" \
"ukcov: true exited with status 0; 0 records, 0 dropped
ukcov: warning: 0 records: true ran no instrumented code (it did not load libukcov: build it with ukcov-cc)" \
	"$U" run -o true.dump -- true
expect_run "stats: a valid, empty dump is called so" \
	"ukcov: error: kids.dump: a valid dump, but empty: its run recorded no covered point" \
	"$U" stats kids.dump
[ "$("$U" stats kids.dump 2>/dev/null; echo $?)" = 1 ] && ok "stats of an empty dump exits 1, prints nothing" ||
	bad "stats of an empty dump" "status or output"
printf 'ukcov-dump 1\nmode pc\n' >cut.dump
expect_run "stats: a truncated dump is still invalid" \
	"ukcov: error: cut.dump: truncated: no 'end' line" "$U" stats cut.dump

summary
