#!/bin/bash
# scripts/gcov-agree-jq.sh [WORKDIR] -- ukcov against gcov on jq 1.6 and
# its own test suite (`make check`: jq.test, onig.test, base64.test,
# optional.test, the man page's examples, shtest, utf8test), the second
# real program of docs/GCOV.md.  Takes about 10 minutes on two cores:
# not part of `make test` (tests/suites.d/72-gcov.sh does zlib there).
#
# jq 1.6 is Debian's upstream tarball (jq_1.6.orig.tar.gz, the git tag's
# tree, without Debian's patches), checked against its sha256; autoreconf
# makes its configure (scripts/deps.sh installs autoconf, automake,
# libtool, bison, flex and libonig-dev).  Then it is built and checked:
#
#   gcov      gcc --coverage -O0, `make check`, lcov --capture (the oracle)
#   plain     gcc -O2, uninstrumented (the time of the suite without tools)
#   gcc-O0    ukcov-cc -O0 (gcc)   `ukcov run -o all.dump -- make check`,
#   gcc-O2    ukcov-cc -O2 (gcc)    ukcov lcov, scripts/gcov-agree.py
#   clang-O0  ukcov-cc -O0 (clang)
#
# and prints, per ukcov build, the figures of issue 17's targets, the
# time of the suite (against gcov's and the plain build's) and the time
# of `ukcov report -o DIR` of the suite's dump.  Exit status 1 when a
# build or a test suite fails or a target is not met.
#
# Environment: B (ukcov's build directory, default build), JQ_TARBALL
# (a jq_1.6.orig.tar.gz already at hand), BUILDS (default "gcc-O0 gcc-O2
# clang-O0"), JOBS (make -j, default 2).  WORKDIR defaults to
# $B/gcov-jq; it is reused (the tarball) and its builds are redone.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
U=$B/ukcov
CCW=$B/ukcov-cc
W=${1:-$B/gcov-jq}
BUILDS=${BUILDS:-gcc-O0 gcc-O2 clang-O0}
JOBS=${JOBS:-2}
JQ_SHA=3ba940b97571c866923f0409678033d33b5a98758dfc174fad8397ed908bc4d9
CONF="--disable-valgrind --disable-docs --disable-maintainer-mode --with-oniguruma=yes"
export PYTHONDONTWRITEBYTECODE=1

die() { echo "gcov-agree-jq: $*" >&2; exit 1; }

for f in "$U" "$CCW"; do
	[ -x "$f" ] || die "missing $f (make tools)"
done
for c in gcc lcov autoreconf bison flex python3; do
	command -v $c >/dev/null || die "no $c (scripts/deps.sh installs it)"
done
mkdir -p "$W" && W=$(cd "$W" && pwd) || die "cannot make $W"
# jq's scripts/version asks git: without a ceiling, a WORKDIR inside a
# git tree (ukcov's own build directory) makes that tree's branch jq's
# version, and a build's text depend on where it was made.
export GIT_CEILING_DIRECTORIES=$W

# fetch_jq: jq_1.6.orig.tar.gz into $W, checked.  The source package's
# newest revision may be gone from the mirror while an older one, with
# the same orig tarball, is still there: try each version apt knows.
fetch_jq() {
	tgz=$W/jq_1.6.orig.tar.gz
	[ -n "${JQ_TARBALL:-}" ] && cp "$JQ_TARBALL" "$tgz"
	if [ ! -f "$tgz" ]; then
		for v in $(apt-cache showsrc jq 2>/dev/null | sed -n 's/^Version: //p'); do
			(cd "$W" && apt-get source --download-only "jq=$v") >"$W/fetch.log" 2>&1
			[ -f "$tgz" ] && break
		done
	fi
	[ -f "$tgz" ] || die "no jq_1.6.orig.tar.gz (deb-src entries? see $W/fetch.log)"
	echo "$JQ_SHA  $tgz" | sha256sum -c --quiet - || die "$tgz: sha256 mismatch"
}

# unpack: $W/src, jq's tree with its configure.
unpack() {
	rm -rf "$W/src" "$W/jq-jq-1.6"
	tar xzf "$W/jq_1.6.orig.tar.gz" -C "$W" && mv "$W/jq-jq-1.6" "$W/src" &&
		(cd "$W/src" && autoreconf -fi) >"$W/autoreconf.log" 2>&1 ||
		die "autoreconf failed: $(tail -3 "$W/autoreconf.log")"
}

# seconds CMD...: run CMD; its wall time in seconds goes to $W/$name.time.
seconds() {
	t0=$(date +%s%N)
	"$@"
	r=$?
	t=$(($(date +%s%N) - t0))
	printf '%d.%02d\n' $((t / 1000000000)) $((t / 10000000 % 100)) >"$W/$name.time"
	return $r
}

# build NAME CC CFLAGS [LDFLAGS]: configure and make jq in $W/NAME.
build() {
	name=$1
	rm -rf "${W:?}/$name" && cp -r "$W/src" "$W/$name" && cd "$W/$name" || return 1
	CC=$2 CFLAGS=$3 LDFLAGS=${4:-} ./configure $CONF >conf.log 2>&1 &&
		nice make -j"$JOBS" >build.log 2>&1 ||
		{ echo "$name: build failed: $(tail -3 conf.log build.log)" >&2; return 1; }
}

# check_ok NAME: jq's own suite passed (automake's summary).
check_ok() {
	grep -q '^# FAIL:  0$' "$W/$1/check.log" && grep -q '^# ERROR: 0$' "$W/$1/check.log" ||
		{ echo "$1: make check failed: $(grep -E '^(FAIL|ERROR):' "$W/$1/check.log")" >&2; return 1; }
}

fetch_jq
unpack
status=0

name=gcov
build gcov gcc "--coverage -O0 -g" --coverage &&
	seconds make check >check.log 2>&1; check_ok gcov || exit 1
lcov --capture --rc lcov_branch_coverage=0 -d "$W/gcov" -o "$W/gcov.info" >"$W/gcov/lcov.log" 2>&1 ||
	die "lcov failed: $(tail -3 "$W/gcov/lcov.log")"
name=plain
build plain gcc -O2 && seconds make check >check.log 2>&1; check_ok plain || status=1

for b in $BUILDS; do
	name=$b
	cc=${b%-*} opt=-${b##*-}
	export UKCOV_CC=$cc
	if ! build "$b" "$CCW" "$opt"; then status=1; continue; fi
	seconds "$U" run -o all.dump -- make check >check.log 2>check.err
	check_ok "$b" || status=1
	"$U" lcov all.dump >"$W/$b.info" 2>lcov.err || { echo "$b: ukcov lcov: $(cat lcov.err)" >&2; status=1; continue; }
	# CPU time too: on a shared machine the wall time is the load's.
	/usr/bin/time -f '%e s wall, %U+%S s CPU' -o "$W/$b.report.time" \
		"$U" report -o "$W/$b.report" all.dump >report.log 2>&1 || status=1
	unset UKCOV_CC
	# As tests/suites.d/72-gcov.sh: clang leaves some functions without
	# a point (unused statics, a die() whose block ends in exit), so
	# there none may contradict gcov rather than all agree.
	case $b in
	clang-O0) req=fn_contra=0,fn_line=99,line_share=94,line_agree=99.5 ;;
	*-O0) req=fn_file_ran=100,fn_line=99,line_share=94,line_agree=99.5 ;;
	*) req=line_agree=98,hot_never=0 ;;
	esac
	echo "== $b: make check $(cat "$W/$b.time") s under ukcov run" \
		"(gcov $(cat "$W/gcov.time") s, plain $(cat "$W/plain.time" 2>/dev/null) s)," \
		"ukcov report $(cat "$W/$b.report.time"); $(grep 'more process' check.err)"
	python3 "$TOP/scripts/gcov-agree.py" "$W/gcov.info" "$W/$b.info" --require "$req" ||
		status=1
done
exit $status
