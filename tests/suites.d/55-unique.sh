#!/bin/bash
# tests/suites.d/55-unique.sh -- `ukcov run`'s unique coverage:
# the default mode records each point once, and what it reports equals
# the deduplicated full trace (taken with a buffer large enough for the
# whole trace), for gcc and clang builds, PC and CMP, main thread and
# --threads all; the dump says how it was collected; bad options; and a
# real program, Lua 5.4.4 built with ukcov-cc through its own Makefile.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/55-unique.sh
# With CROSS and LB set (tests/lib.sh), all but Lua for that target.
# Lua's sources come from $BENCH_CACHE/src, bench/.cache/src or
# $B/bench-cache/src (what bench/fetch.sh fetched); as root (CI) the
# suite runs bench/fetch.sh into $B/bench-cache, which adds deb-src
# entries and checks fetch.sh's sha256; otherwise `apt-get source
# lua5.4` is tried.  Without them the Lua checks print one "skipped" line.
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CCW=$TOP/$LB/ukcov-cc
SRC=$TOP/tests/tool/src
BIG=$((1 << 23))	# words: holds every trace below in full

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1

# points FILE.dump: the covered points, one per line, sorted.
points() { "$U" print "$1" | sort; }
# records STDERR-FILE: N of "N records, M dropped".
records() { sed -n 's/.*; \([0-9]*\) records, .*/\1/p' "$1"; }
dropped() { sed -n 's/.* records, \([0-9]*\) dropped$/\1/p' "$1"; }

# same_points NAME A.dump B.dump
same_points() {
	points "$2" >"$T/a.pts"
	points "$3" >"$T/b.pts"
	if [ -s "$T/a.pts" ] && cmp -s "$T/a.pts" "$T/b.pts"; then ok "$1"; else
		bad "$1" "$(wc -l <"$T/a.pts") vs $(wc -l <"$T/b.pts") points: $(diff "$T/a.pts" "$T/b.pts" | head -3 | tr '\n' ' ')"
	fi
}

# no_dups NAME FILE: no line twice among those not starting with '#'.
no_dups() {
	n=$(grep -v '^#' "$2" | wc -l)
	u=$(grep -v '^#' "$2" | sort -u | wc -l)
	if [ "$n" -gt 0 ] && [ "$n" = "$u" ]; then ok "$1"; else bad "$1" "$n lines, $u distinct"; fi
}

for cc in gcc clang; do
	UKCOV_CC=$(tcc $cc) "$CCW" -O1 "$SRC/uloop.c" -o uloop_$cc &&
	UKCOV_CC=$(tcc $cc) UKCOV_CMP=1 "$CCW" -O1 "$SRC/uloop.c" -o uloopc_$cc &&
	UKCOV_CC=$(tcc $cc) "$CCW" -O0 "$SRC/threads.c" -lpthread -o threads_$cc ||
		{ bad "$cc: fixtures build" "ukcov-cc failed"; continue; }

	# The default is unique: no duplicate, nothing dropped, although
	# the plain trace of the same run overflows the same buffer.
	"$U" run --raw -o - -- ./uloop_$cc 700000 >u.raw 2>u.err
	grep '^0x' u.raw >u.pcs
	no_dups "$cc: run records each point once by default" u.pcs
	[ "$(dropped u.err)" = 0 ] && [ "$(records u.err)" = "$(wc -l <u.pcs)" ] &&
		ok "$cc: unique run: 0 dropped, every record printed" ||
		bad "$cc: unique run counts" "$(cat u.err)"
	"$U" run --mode pc -o p1.dump -- ./uloop_$cc 700000 >/dev/null 2>p1.err
	[ "$(dropped p1.err)" -gt 0 ] && grep -q "warning: coverage is incomplete: the trace overflowed" p1.err &&
		ok "$cc: the same run overflows a plain trace, and says so" ||
		bad "$cc: plain trace overflow" "$(cat p1.err)"

	# Unique coverage = the deduplicated full trace.
	"$U" run -o u.dump -- ./uloop_$cc 400000 >/dev/null 2>&1
	"$U" run --mode pc --size $BIG -o p.dump -- ./uloop_$cc 400000 >/dev/null 2>p.err
	[ "$(dropped p.err)" = 0 ] || bad "$cc: full trace fits" "$(cat p.err)"
	same_points "$cc: unique points = full trace's points" u.dump p.dump
	"$U" run --size 64 -o s.dump -- ./uloop_$cc 400000 >/dev/null 2>s.err
	same_points "$cc: a 64-word buffer still holds every point" s.dump p.dump

	# CMP: each distinct {type, arg1, arg2, pc} once.
	# (Dumps, so that records compare as module offsets across ASLR.)
	"$U" run --mode cmp-unique -o cu.dump -- ./uloopc_$cc 5000 >/dev/null 2>cu.err
	"$U" run --mode cmp --size $BIG -o cp.dump -- ./uloopc_$cc 5000 >/dev/null 2>cp.err
	"$U" cmp cu.dump >cu.raw
	"$U" cmp cp.dump >cp.raw
	no_dups "$cc: cmp-unique records each comparison once" cu.raw
	if [ "$(dropped cp.err)" = 0 ] && [ "$(sort cu.raw)" = "$(sort -u cp.raw)" ]; then
		ok "$cc: cmp-unique = the deduplicated CMP trace"
	else
		bad "$cc: cmp-unique = the deduplicated CMP trace" "$(wc -l <cu.raw) vs $(sort -u cp.raw | wc -l)"
	fi

	# --threads all: every thread unique in its own bitmap.
	"$U" run --threads all --raw -o - -- ./threads_$cc >t.raw 2>t.err
	ok_threads=1
	awk '/^# thread/{b++; next} {print b" "$0}' t.raw | sort | uniq -d | grep -q . && ok_threads=0
	[ "$(grep -c '^# thread' t.raw)" = 3 ] || ok_threads=0
	[ $ok_threads = 1 ] && ok "$cc: --threads all: each thread's points once" ||
		bad "$cc: --threads all unique" "$(head -5 t.raw | tr '\n' ' ')"
	# ... and in cmp-unique mode: each thread's records once, and
	# together the deduplicated CMP traces of every thread.
	if UKCOV_CC=$(tcc $cc) UKCOV_CMP=1 "$CCW" -O1 "$SRC/uthreads.c" -lpthread -o uthreads_$cc; then
		"$U" run --mode cmp-unique --threads all --raw -o - -- ./uthreads_$cc >tc.raw 2>tc.err
		ok_tc=1
		awk '/^# thread/{b++; next} /^0x/{print b" "$0}' tc.raw | sort | uniq -d | grep -q . && ok_tc=0
		[ "$(grep -c '^# thread' tc.raw)" = 2 ] && [ "$(dropped tc.err)" = 0 ] || ok_tc=0
		"$U" run --mode cmp-unique --threads all -o tcu.dump -- ./uthreads_$cc >/dev/null 2>&1
		"$U" run --mode cmp --size $BIG --threads all -o tcp.dump -- ./uthreads_$cc >/dev/null 2>&1
		[ "$("$U" cmp tcu.dump | sort -u)" = "$("$U" cmp tcp.dump | sort -u)" ] || ok_tc=0
		[ $ok_tc = 1 ] && ok "$cc: cmp-unique --threads all: once per thread, = the CMP traces" ||
			bad "$cc: cmp-unique --threads all" "$(cat tc.err | tr '\n' ' ')"
		# A worker's buffer of 4001 entries holds (4001 - 1) / 4 CMP
		# records; its 8000 comparisons fill it, the rest are drops.
		"$U" run --mode cmp --size 4001 --threads all --raw -o - -- ./uthreads_$cc >tf.raw 2>tf.err
		n_tf=$(awk '/^# thread/{b++; next} /^0x/{n[b]++} END{print n[1]+0, n[2]+0}' tf.raw)
		[ "$n_tf" = "1000 1000" ] && [ "$(dropped tf.err)" -gt 0 ] &&
			ok "$cc: cmp --threads all: a full worker's buffer keeps (size - 1) / 4 records" ||
			bad "$cc: cmp --threads all, full buffers" "$n_tf $(cat tf.err | tr '\n' ' ')"
	else
		bad "$cc: uthreads builds" "ukcov-cc failed"
	fi
	"$U" run --threads all -o ta.dump -- ./threads_$cc >/dev/null 2>&1
	"$U" run --threads all --mode pc --size $BIG -o tp.dump -- ./threads_$cc >/dev/null 2>&1
	same_points "$cc: --threads all: unique points = full traces' points" ta.dump tp.dump
done

# ---- trace-pc-guard builds: bit g is guard g, as proposed --------------
if $TCLANG -O0 -fsanitize-coverage=trace-pc-guard -c "$SRC/uguard_target.c" -o ugt.o &&
	$TGCC -O2 -I"$TOP/include" -c "$SRC/uguard_main.c" -o ugm.o &&
	$TGCC ugm.o ugt.o -L"$TOP/$LB" -Wl,-rpath,"$TOP/$LB" -lukcov -o ug-shared &&
	$TGCC ugm.o ugt.o "$TOP/$LB/libukcov.a" -lpthread -o ug-static; then
	for v in shared static; do
		out=$(./ug-$v 2>&1)
		[ "$out" = "ok 3 4" ] && ok "guards ($v runtime): each guard once, bit g = guard g, reset" ||
			bad "guards ($v runtime)" "$out"
	done
else
	bad "guard fixture builds" "clang/gcc failed"
fi

# ---- the dump says how it was collected; older dumps still read ---------
# default_bitmap PROG: what ukcov run gives a unique run of PROG
# (tools/run.c): 4096 words, and a bit per byte of its executable
# segments, from the first's start to the last's end (lib/unique.c,
# "Direct bits").
default_bitmap() {
	local lo='' hi=0 a m
	while read -r a m; do
		if [ -z "$lo" ] || [ $((a)) -lt $((lo)) ]; then lo=$a; fi
		[ $((a + m)) -gt $((hi)) ] && hi=$((a + m))
	done < <(readelf -lW "$1" | awk '$1 == "LOAD" && / R E | RWE / { print $3, $6 }')
	echo $((4096 + (hi - lo) / 64 + 2))
}
if [ -f u.dump ]; then
	grep -qx 'info collection unique' u.dump &&
		grep -qx "info bitmap-words $(default_bitmap ./uloop_clang)" u.dump &&
		grep -qx 'info collection trace' p.dump && ! grep -q 'bitmap-words' p.dump &&
		ok "dump: info collection unique|trace, bitmap-words" ||
		bad "dump records the mode" "$(grep ^info u.dump p.dump | tr '\n' ' ')"
	grep -v '^info collection\|^info bitmap-words' u.dump >old.dump
	[ "$("$U" print old.dump)" = "$("$U" print u.dump)" ] &&
		ok "dump: one without the collection lines reads the same" ||
		bad "old dump" "print differs"
fi

# ---- options -------------------------------------------------------------
# expect_err NAME RC MESSAGE CMD...
expect_err() {
	n=$1 rc=$2 msg=$3
	shift 3
	"$@" >/dev/null 2>err.txt
	r=$?
	if [ $r = "$rc" ] && [ "$(cat err.txt)" = "$msg" ]; then ok "$n"; else
		bad "$n" "rc $r: $(cat err.txt)"; fi
}
expect_err "--mode other" 2 "ukcov: error: run: --mode unique|pc|cmp|cmp-unique and --threads main|all" \
	"$U" run --mode trace -- true
expect_err "--bitmap with a plain mode" 2 "ukcov: error: run: --bitmap goes with --mode unique or cmp-unique" \
	"$U" run --mode pc --bitmap 8 -- true
expect_err "--bitmap too large for --size" 2 "ukcov: error: --bitmap 4095: must leave at least 2 of the 4096 words for the trace" \
	"$U" run --size 4096 --bitmap 4095 -- true
if [ -x uloop_gcc ]; then
	"$U" run --bitmap 1 --raw -o - -- ./uloop_gcc 1000 >b1.raw 2>b1.err
	grep -q "warning: coverage is incomplete: a larger --bitmap (now 1 words) or --size would keep every point" b1.err ||
		[ "$(dropped b1.err)" = 0 ]
	no_dups "--bitmap 1: still no duplicate, drops reported" b1.raw
fi

# A cross run (16-aarch64.sh) stops here: Lua is the host run's check of
# a real program; built and run three times under qemu it would add
# minutes to make test.
if [ -n "$CROSS" ]; then
	summary
	exit
fi

# ---- Lua 5.4.4, built by its own Makefile ------------------------------
lua_src=
for d in "${BENCH_CACHE:-/nonexistent}/src" "$TOP/bench/.cache/src" "$TOP/$B/bench-cache/src"; do
	[ -f "$d/lua-5.4.4/src/lua.c" ] && { lua_src=$d/lua-5.4.4; break; }
done
# A fresh CI machine has no cache: fetch it as make bench does.
if [ -z "$lua_src" ] && [ "$(id -u)" = 0 ] &&
	sh "$TOP/bench/fetch.sh" "$TOP/$B/bench-cache" >"$T/fetch.log" 2>&1 &&
	[ -f "$TOP/$B/bench-cache/src/lua-5.4.4/src/lua.c" ]; then
	lua_src=$TOP/$B/bench-cache/src/lua-5.4.4
fi
# Not in a cache: what bench/fetch.sh would fetch, Debian's lua5.4 source
# (needs deb-src entries), checked against the sha256 it records.
if [ -z "$lua_src" ] && command -v apt-get >/dev/null &&
	(cd "$T" && apt-get source --download-only -qq lua5.4 >apt.log 2>&1) &&
	lua_sha=$(sed -n 's/^LUA_SHA=//p' "$TOP/bench/fetch.sh") &&
	echo "$lua_sha  $T/lua5.4_5.4.4.orig.tar.gz" | sha256sum -c --quiet - >/dev/null 2>&1 &&
	mkdir -p "$T/src" && tar -C "$T/src" -xzf "$T/lua5.4_5.4.4.orig.tar.gz"; then
	lua_src=$T/src/lua-5.4.4
fi
if [ -z "$lua_src" ]; then
	echo "skipped lua: no Lua 5.4.4 sources (no bench cache, apt-get source lua5.4 failed: run make bench-fetch, or set BENCH_CACHE)"
else
	# Lua seeds its string hashes with the time and ASLR'd addresses,
	# and table.sort re-randomizes a bad pivot with the clock, so two
	# runs may differ; fixed values make them comparable.
	printf '#define luai_makeseed(L) 0u\n#define l_randomizePivot() 0u\n' >seed.h
	NOASLR="setarch $(uname -m) -R"
	$NOASLR true 2>/dev/null || NOASLR=""
	for cc in gcc clang; do
		rm -rf lua_$cc && cp -r "$lua_src" lua_$cc
		if ! UKCOV_CC=$cc make -C lua_$cc/src -j2 linux CC="$CCW" \
			MYCFLAGS="-include $T/seed.h" >lua_$cc.log 2>&1; then
			bad "lua/$cc: builds with ukcov-cc" "$(tail -3 lua_$cc.log | tr '\n' ' ')"
			continue
		fi
		L=./lua_$cc/src/lua
		# ASLR off for the two runs compared: Lua's API string cache is
		# keyed by C string addresses, and which entries the GC clears
		# (luaS_clearcache) varies with them.
		$NOASLR "$U" run -o lu.dump -- $L "$SRC/unique.lua" >/dev/null 2>lu.err
		$NOASLR "$U" run --mode pc --size $BIG -o lp.dump -- $L "$SRC/unique.lua" >/dev/null 2>lp.err
		"$U" run --mode pc -o ld.dump -- $L "$SRC/unique.lua" >/dev/null 2>ld.err
		[ "$(dropped lu.err)" = 0 ] && [ "$(dropped lp.err)" = 0 ] &&
			[ "$(dropped ld.err)" -gt 0 ] &&
			ok "lua/$cc: unique drops 0 where the default plain trace drops $(dropped ld.err) of $(records lp.err)" ||
			bad "lua/$cc: drops" "$(cat lu.err lp.err ld.err | tr '\n' ' ')"
		same_points "lua/$cc: unique points ($(records lu.err)) = full trace's points" lu.dump lp.dump
	done
fi
summary
