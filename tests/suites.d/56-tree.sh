#!/bin/bash
# tests/suites.d/56-tree.sh -- `ukcov run` over a whole process tree
# (lib/tree.c, tools/run_tree.c): the children a shell, a fork or an
# exec starts record in the same mode, however they end, and their
# points are united into the run's dump.  Oracles: the same programs
# run one at a time without a tree (--no-follow), merged by `ukcov
# merge`; and, for zlib's own `make check`, the .sancov files the
# SanitizerCoverage runtime writes for the same test processes.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/56-tree.sh
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CCW=$TOP/$B/ukcov-cc
SRC=$TOP/tests/tool/src

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1

points() { "$U" print "$1" | sort; }
funcs() { "$U" covered-functions "$1" 2>/dev/null | sed 's/.* //' | sort -u | tr '\n' ' '; }
# tree_note FILE: "N R" of "N more processes of its tree: R records".
tree_note() { sed -n 's/.* \([0-9]*\) more process[es]* of its tree: \([0-9]*\) records.*/\1 \2/p' "$1"; }

# expect_funcs NAME DUMP "f1 f2 ...": exactly these functions covered.
expect_funcs() {
	got=$(funcs "$2")
	if [ "$got" = "$3" ]; then ok "$1"; else bad "$1" "covered '$got', want '$3'"; fi
}

for cc in gcc clang; do
	UKCOV_CC=$cc "$CCW" -O1 -g "$SRC/tree.c" -lpthread -o tree ||
		{ bad "$cc: tree.c builds" "ukcov-cc failed"; continue; }

	# A shell's children: the union of the runs made one at a time.
	"$U" run -o a.dump -- ./tree leaf 1 >/dev/null 2>&1 &&
	"$U" run -o b.dump -- ./tree leaf 2 >/dev/null 2>&1 &&
	"$U" merge -o ab.dump a.dump b.dump &&
	"$U" run -o t.dump -- sh -c './tree leaf 1; ./tree leaf 2' >/dev/null 2>t.err
	if [ -s ab.dump ] && [ "$(points t.dump)" = "$(points ab.dump)" ] &&
	   [ "$(tree_note t.err)" = "2 $(($(points a.dump | wc -l) + $(points b.dump | wc -l)))" ]; then
		ok "$cc: a shell's two children = the two runs merged"
	else
		bad "$cc: shell children" "$(tree_note t.err); $(diff <(points t.dump) <(points ab.dump) | head -3 | tr '\n' ' ')"
	fi
	grep -q "sh exited with status 0; 0 records" t.err &&
		ok "$cc: the shell itself records nothing" || bad "$cc: shell records" "$(cat t.err)"

	# --no-follow: the traced process alone (the shell: nothing).
	"$U" run --no-follow -o n.dump -- sh -c './tree leaf 1' >/dev/null 2>n.err
	if [ -z "$(points n.dump)" ] && [ -z "$(tree_note n.err)" ]; then
		ok "$cc: --no-follow traces the shell alone"
	else
		bad "$cc: --no-follow" "$(points n.dump | wc -l) points; $(cat n.err)"
	fi

	# However a child ends: _exit (no atexit), SIGKILL, exec (the same
	# pid, two images); and the child of a traced program.
	"$U" run -o f.dump -- ./tree fork-exit >/dev/null 2>f.err
	expect_funcs "$cc: a forked child that _exits is recorded" f.dump "leaf_child main "
	[ "$(tree_note f.err | cut -d' ' -f1)" = 1 ] &&
		ok "$cc: fork: one more process" || bad "$cc: fork count" "$(cat f.err)"
	"$U" run -o k.dump -- ./tree fork-kill >/dev/null 2>k.err
	expect_funcs "$cc: a SIGKILLed child's points are kept" k.dump "leaf_killed main "
	"$U" run -o e.dump -- sh -c './tree exec leaf 3' >/dev/null 2>e.err
	expect_funcs "$cc: a child that execs: both images" e.dump "leaf_3 leaf_exec main "
	[ "$(tree_note e.err | cut -d' ' -f1)" = 1 ] &&
		ok "$cc: exec keeps one process" || bad "$cc: exec count" "$(cat e.err)"

	# Threads of a tree process: --threads all follows them there too.
	"$U" run -o m.dump -- sh -c './tree thread' >/dev/null 2>&1
	"$U" run --threads all -o th.dump -- sh -c './tree thread' >/dev/null 2>th.err
	expect_funcs "$cc: a child's second thread: not without --threads all" m.dump "main "
	expect_funcs "$cc: --threads all follows a child's threads" th.dump "leaf_thread main thread_main "
	grep -q "did not follow its threads" th.err &&
		bad "$cc: no thread warning for an uninstrumented shell" "$(cat th.err)" ||
		ok "$cc: no thread warning for an uninstrumented shell"

	# CMP mode: the child's comparison record, operands exact.
	UKCOV_CC=$cc UKCOV_CMP=1 "$CCW" -O1 -g "$SRC/tree.c" -lpthread -o tree &&
	"$U" run --mode cmp -o c.dump -- sh -c './tree cmp 0x99' >/dev/null 2>c.err
	if "$U" cmp c.dump 2>/dev/null | grep -q -E '^cmp4 const 0x1234 0x99 tree\+0x[0-9a-f]+ cmp_target '; then
		ok "$cc: a child's CMP record"
	else
		bad "$cc: cmp" "$("$U" cmp c.dump 2>&1 | head -5 | tr '\n' ' ')"
	fi
done

# ---- the observer changes nothing -------------------------------------
# The core suite forks a child per test, and its tests enable their own
# descriptors, run remote sections and NetBSD remotes in children and
# other processes: under ukcov run every one of those children has a
# tree buffer, and every test must still pass (a buffer of the tree is
# not the thread's own kcov: remote.c, remote_netbsd.c).
for v in core-gcc core-clang-static; do
	bin=$TOP/$B/tests/core/$v
	[ -x "$bin" ] || { bad "$v under ukcov run" "$bin not built (make test-prep)"; continue; }
	# As many tests as it runs alone, all passing (a test that fails
	# alone, flaky on a loaded machine, is no failure of this one).
	"$bin" >alone.out 2>&1
	set -- $(tail -n 1 alone.out)
	want="$(($1 + $3)) passed, 0 failed"
	"$U" run -o /dev/null -- "$bin" >under.out 2>under.err
	got=$(tail -n 1 under.out)
	n=$(tree_note under.err | cut -d' ' -f1)
	if [ "$got" = "$want" ] && [ "${n:-0}" -gt 100 ]; then
		ok "$v passes under ukcov run ($got; $n processes)"
	else
		bad "$v under ukcov run" "'$got' vs alone '$want'; $(grep '^not ok' under.out | head -3 | tr '\n' ' ')"
	fi
done

# ---- files the tree's processes write are input, not trusted ----------
# A child that plants a truncated buffer, a bad header, a FIFO and a
# symlink in the run's directory: the run ends, says how many files it
# skipped, and keeps the good processes' points.
"$CCW" -O1 -g "$SRC/tree.c" -lpthread -o tree
cat >plant.sh <<'EOF'
d=${UKCOV_TREE#*,*,*,*,}
./tree leaf 4
printf 'M 1 - 0 0 0 /x\n' >"$d/img.1.0"
head -c 100 /dev/zero >"$d/buf.1.0.1"
printf 'M 2 - 0 0 0 /x\n' >"$d/img.2.0"
head -c 8192 /dev/urandom >"$d/buf.2.0.2"
printf 'M 3 - 0 0 0 /x\n' >"$d/img.3.0"
mkfifo "$d/buf.3.0.3"
printf 'M 4 - 0 0 0 /x\n' >"$d/img.4.0"
ln -s /etc/passwd "$d/buf.4.0.4"
ln -s /dev/zero "$d/img.5.0"
EOF
"$U" run -o p.dump -- ./tree leaf 4 >/dev/null 2>&1
timeout 20 "$U" run -o h.dump -- sh plant.sh >/dev/null 2>h.err
rc=$?
if [ $rc = 0 ] && grep -q "warning: 5 files of the tree's processes were corrupt or truncated" h.err &&
   [ "$(points h.dump)" = "$(points p.dump)" ]; then
	ok "planted files: skipped and said, the real child's points kept"
else
	bad "planted files" "rc $rc; $(cat h.err | tr '\n' ' ')"
fi

# ---- each process's default bitmap is sized for its own text -----------
# The traced program of a suite is a shell or make; a test program of
# its tree gets the default unique bitmap for its own executable (a
# direct bit per byte of its text, lib/unique.c), not the shell's:
# otherwise a program larger than make hashes every point it runs.
# Word 6 of a buffer's header is its bitmap (docs/FORMATS.md 4c).
# text_words BIN: the words of direct bits of BIN's executable text.
text_words() {
	local min= max=0 lo hi
	while read -r _ _ va _ _ msz fl; do
		case $fl in *E*) ;; *) continue ;; esac
		lo=$((va)) hi=$((va + msz))
		[ -z "$min" ] || [ $lo -lt $min ] && min=$lo
		[ $hi -gt $max ] && max=$hi
	done < <(readelf -lW "$1" | grep '^ *LOAD ')
	echo $((max / 64 - min / 64 + 1))
}
cat >bits.sh <<'EOF'
d=${UKCOV_TREE#*,*,*,*,}
./tree leaf 1
for f in "$d"/buf.*; do od -An -t u8 -j 48 -N 8 "$f"; done
EOF
own=$((4096 + $(text_words tree) + 2))
for m in "$own unique" "5000 unique --bitmap 5000" "0 pc" "4096 cmp-unique"; do
	set -- $m
	want=$1
	shift
	"$U" run --mode "$@" -o w.dump -- sh bits.sh >w.out 2>w.err
	got=$(tr -d ' ' <w.out)
	if [ "$got" = "$want" ]; then
		ok "tree bitmap, --mode $*: $got words"
	else
		bad "tree bitmap, --mode $*" "got '$got', want $want; $(tr '\n' ' ' <w.err)"
	fi
done

# One pid, twelve images (img.P.1 and img.P.10 share a prefix): each
# image's buffers are found (tools/run_tree.c looks them up in the
# sorted names).  k execs record k * (an exec image's) + a leaf's.
recs() {
	"$U" run -o x.dump -- sh -c "./tree $(printf 'exec %.0s' $(seq "$1")) leaf 1" >/dev/null 2>x.err
	tree_note x.err
	grep -q corrupt x.err && echo corrupt
}
set -- $(recs 1) $(recs 2) $(recs 11)
e=$(($4 - $2))
l=$(($2 - e))
if [ $# = 6 ] && [ "$1 $3 $5" = "1 1 1" ] && [ "$e" -gt 0 ] &&
   [ "$6" = $((11 * e + l)) ]; then
	ok "twelve images of one process: $6 records"
else
	bad "twelve images of one process" "notes '$*', want 1 process and $((11 * e + l)) records"
fi

# ---- zlib's own make check ---------------------------------------------
# Every test process of the suite (example, minigzip in pipes, the
# shared-library builds): the tree's dump covers exactly the points of
# the .sancov files that coverage=1 writes for the same processes.
zsrc=
for d in "${BENCH_CACHE:-/nonexistent}/src" "$TOP/bench/.cache/src" "$TOP/$B/bench-cache/src"; do
	[ -f "$d/zlib-1.2.13.dfsg/zlib.h" ] && { zsrc=$d/zlib-1.2.13.dfsg; break; }
done
if [ -z "$zsrc" ] && [ "$(id -u)" = 0 ] &&
	sh "$TOP/bench/fetch.sh" "$TOP/$B/bench-cache" >"$T/fetch.log" 2>&1 &&
	[ -f "$TOP/$B/bench-cache/src/zlib-1.2.13.dfsg/zlib.h" ]; then
	zsrc=$TOP/$B/bench-cache/src/zlib-1.2.13.dfsg
fi
if [ -z "$zsrc" ]; then
	echo "skipped zlib make check: no zlib sources (make bench-fetch, or set BENCH_CACHE)"
else
	cp -r "$zsrc" zlib && cd zlib || exit 1
	if CC=$CCW ./configure >conf.log 2>&1 && make -j2 >build.log 2>&1; then
		"$U" run -o all.dump -- make check >check.log 2>check.err
		rc=$?
		mkdir sd && UKCOV_OPTIONS=coverage=1:coverage_dir=$PWD/sd make check >/dev/null 2>&1
		bins="example minigzip example64 minigzip64 examplesh minigzipsh libz.so.1"
		"$U" stats all.dump >tree.stats 2>&1
		"$U" stats $bins sd/*.sancov >sancov.stats 2>&1
		n=$(tree_note check.err | cut -d' ' -f1)
		if [ $rc = 0 ] && [ "${n:-0}" -ge 7 ] && grep -q '^cov-edges: [1-9]' tree.stats &&
		   cmp -s tree.stats sancov.stats; then
			ok "zlib make check: $n test processes, the same points as coverage=1's files ($(sed -n 's/cov-edges: //p' tree.stats) edges)"
		else
			bad "zlib make check" "rc $rc, $n processes; $(paste -d' ' tree.stats sancov.stats | tr '\n' ' ')"
		fi
		"$U" covered-functions all.dump >f.tree 2>/dev/null
		"$U" covered-functions $bins sd/*.sancov >f.sancov 2>/dev/null
		[ -s f.tree ] && cmp -s f.tree f.sancov &&
			ok "zlib make check: the same $(wc -l <f.tree) covered functions" ||
			bad "zlib covered functions" "$(diff f.tree f.sancov | head -3 | tr '\n' ' ')"
	else
		bad "zlib builds with ukcov-cc" "$(tail -3 build.log conf.log | tr '\n' ' ')"
	fi
	cd "$T" || exit 1
fi
summary
