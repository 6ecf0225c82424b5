#!/bin/bash
# tests/suites.d/57-inline.sh -- inline instrumentation (plugins/,
# include/ukcov/inline.h) end to end: ukcov-cc's choice of plugin or
# calls, and the tool on inline builds.  Oracle: the same sources built
# with the calls (UKCOV_INLINE=0, trace-pc) at the same optimization
# level must give the same points per module, records, functions and
# lines, for a program, a linked shared library, a dlopen()ed one and
# a -static link.  The runtime's semantics per point (threads, fork,
# exec, signals, unique mode, remote) are the core suite's, which runs
# on inline targets too (10-core.sh, core-clang-inline).
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/57-inline.sh
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CCW=$TOP/$B/ukcov-cc
SRC=$TOP/tests/inline

if [ ! -e "$TOP/$B/ukcov-inline-clang.so" ]; then
	echo "skipped inline: the clang plugin is not built (llvm-14-dev; scripts/deps.sh installs it)"
	summary
	exit
fi
for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1

# expect NAME WANT-STATUS WANT-STDERR CMD...: exact status and stderr.
expect() {
	name=$1 want_rc=$2 want_err=$3
	shift 3
	"$@" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$(cat "$T/err")" = "$want_err" ]; then
		ok "$name"
	else
		bad "$name" "status $rc, stderr '$(cat "$T/err")'"
	fi
}

# same NAME FILE-A FILE-B: identical, non-empty files.
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		ok "$1"
	else
		bad "$1" "$(diff "$2" "$3" | head -5 | tr '\n' ' ')"
	fi
}

calls() { objdump -d "$1" | grep -c -E 'call.*<__sanitizer_cov_trace_pc(@plt)?>'; }
has_table() { readelf -SW "$1" | grep -q ' __ukcov_pcs '; }

# build DIR MODE OPT CC: main, libsolib.so and libdlib.so with CC
# through ukcov-cc, UKCOV_INLINE=MODE, -OPT.
build() {
	mkdir -p "$1" && (cd "$1" &&
		export UKCOV_CC=$4 UKCOV_INLINE=$2 &&
		"$CCW" -$3 -fPIC -shared "$SRC/solib.c" -o libsolib.so &&
		"$CCW" -$3 -fPIC -shared "$SRC/dlib.c" -o libdlib.so &&
		"$CCW" -$3 "$SRC/main.c" -L. -Wl,-rpath,'$ORIGIN' -lsolib -ldl \
			-o main) >"$T/build.log" 2>&1
}

# ---- ukcov-cc: the plugin by default, the calls on request ----------------
for cc in clang gcc; do
	for o in O0 O2; do
		build $cc-call-$o 0 $o $cc || bad "$cc -$o: calls build" "$(tail -3 "$T/build.log")"
		build $cc-inl-$o 1 $o $cc || bad "$cc -$o: inline build" "$(tail -3 "$T/build.log")"
	done
	build $cc-def-O2 "" O2 $cc || bad "$cc: default build" "$(tail -3 "$T/build.log")"
	for f in main libsolib.so libdlib.so; do
		n=$(calls "$cc-call-O2/$f")
		if [ "$n" -gt 0 ] && ! has_table "$cc-call-O2/$f"; then
			ok "$cc UKCOV_INLINE=0: $f calls the callback ($n sites), no table"
		else
			bad "$cc UKCOV_INLINE=0: $f" "$n call sites, table: $(has_table "$cc-call-O2/$f" && echo yes)"
		fi
		n=$(calls "$cc-inl-O2/$f")
		if [ "$n" -eq 0 ] && has_table "$cc-inl-O2/$f"; then
			ok "$cc UKCOV_INLINE=1: $f has no call to the callback and a __ukcov_pcs table"
		else
			bad "$cc UKCOV_INLINE=1: $f" "$n call sites, table: $(has_table "$cc-inl-O2/$f" && echo yes)"
		fi
		# The default: the plugin, for both compilers, when built.
		n=$(calls "$cc-def-O2/$f")
		if [ "$n" -eq 0 ] && has_table "$cc-def-O2/$f"; then
			ok "$cc default: $f is inline"
		else
			bad "$cc default: $f" "$n call sites, table: $(has_table "$cc-def-O2/$f" && echo yes)"
		fi
	done
done

# Started with SIGCHLD ignored (a parent's, kept across exec), the
# default is still the plugin: the wrapper's "cc -dumpmachine" probe
# was reaped by the kernel, its waitpid failed, and the build fell
# back to calls without a word.
for cc in gcc clang; do
	UKCOV_CC=$cc sigchld_ignored "$CCW" -O2 -c "$SRC/dlib.c" -o ign-$cc.o
	check "$cc default, SIGCHLD ignored: still inline" sh -c \
		"! objdump -dr ign-$cc.o | grep -q __sanitizer_cov_trace_pc && readelf -SW ign-$cc.o | grep -q __ukcov_pcs"
done

# UKCOV_INLINE=1 insists: a wrapper installed without its plugins, and
# the modes the plugin does not have, fail with one line.
mkdir -p bare/bin && cp "$CCW" bare/bin/ukcov-cc
expect "UKCOV_INLINE=1 without the plugin: one-line error" 1 \
	"ukcov-cc: UKCOV_INLINE=1: no inline plugin for clang: $T/bare/bin/../lib/ukcov-inline-clang.so: No such file or directory (build it with make, or set UKCOV_INLINE=0)" \
	env UKCOV_INLINE=1 UKCOV_CC=clang bare/bin/ukcov-cc -c "$SRC/dlib.c" -o bare.o
check "UKCOV_INLINE=1 without the plugin: nothing compiled" test ! -e bare.o
check "no plugin, no UKCOV_INLINE: calls" sh -c \
	"UKCOV_CC=clang bare/bin/ukcov-cc -c '$SRC/dlib.c' -o bare.o &&
	 objdump -dr bare.o | grep -q __sanitizer_cov_trace_pc"
# The default is the calls wherever the plugins cannot go: CMP and
# guard builds, another target than x86-64.
for v in UKCOV_CMP=1 UKCOV_GUARD=1; do
	check "no UKCOV_INLINE, $v: calls" sh -c \
		"env $v UKCOV_CC=clang '$CCW' -c '$SRC/dlib.c' -o def.o &&
		 objdump -dr def.o | grep -q __sanitizer_cov_trace_pc"
done
for t in --target=aarch64-linux-gnu -m32; do
	check "no UKCOV_INLINE, clang $t: calls" sh -c \
		"UKCOV_CC=clang UKCOV_VERBOSE=1 '$CCW' $t -S '$SRC/dlib.c' -o def.s 2>&1 |
		 grep -q -- '-fsanitize-coverage=trace-pc '"
done
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	check "no UKCOV_INLINE, a cross gcc: calls" sh -c \
		"UKCOV_CC=aarch64-linux-gnu-gcc '$CCW' -c '$SRC/dlib.c' -o def.o &&
		 aarch64-linux-gnu-objdump -dr def.o | grep -q __sanitizer_cov_trace_pc"
fi
expect "UKCOV_INLINE=1 with UKCOV_CMP=1: one-line error" 1 \
	"ukcov-cc: UKCOV_INLINE=1: inline instrumentation has no CMP mode; unset UKCOV_CMP or set UKCOV_INLINE=0" \
	env UKCOV_INLINE=1 UKCOV_CMP=1 UKCOV_CC=clang "$CCW" -c "$SRC/dlib.c" -o cmp.o
expect "UKCOV_INLINE=1 with -fsanitize=fuzzer: one-line error" 1 \
	"ukcov-cc: UKCOV_INLINE=1: a fuzzing build (-fsanitize=fuzzer, UKCOV_AFL=1) needs CMP records, which inline instrumentation does not give; set UKCOV_INLINE=0" \
	env UKCOV_INLINE=1 UKCOV_CC=clang "$CCW" -fsanitize=fuzzer -c "$SRC/dlib.c" -o fz.o
expect "UKCOV_INLINE=1 with UKCOV_GUARD=1: one-line error" 1 \
	"ukcov-cc: UKCOV_INLINE=1: inline instrumentation has no guard mode; unset UKCOV_GUARD or set UKCOV_INLINE=0" \
	env UKCOV_INLINE=1 UKCOV_GUARD=1 UKCOV_CC=clang "$CCW" -c "$SRC/dlib.c" -o guard.o
check "pkg-config --variable=clang_plugin names the built plugin" sh -c \
	"test \"\$(PKG_CONFIG_PATH=$TOP/$B/pkgconfig pkg-config --variable=clang_plugin ukcov)\" = '$TOP/$B/ukcov-inline-clang.so'"

# ---- the tool: same points, records, functions and lines as the calls -----
# summary_of DIR MODE: what `ukcov run --mode MODE` and the tool say.
summary_of() {
	(cd "$1" &&
	 "$U" run --mode "$2" -o run.dump -- ./main ./libdlib.so >out.txt 2>run.err &&
	 sed -n 's/.*; \([0-9]*\) records, \([0-9]*\) dropped$/records \1 dropped \2/p' run.err &&
	 for f in main libsolib.so libdlib.so; do
		echo "$f: $("$U" print-coverage-pcs "$f" | wc -l) points"
	 done &&
	 "$U" stats main libsolib.so libdlib.so run.dump &&
	 "$U" covered-functions main libsolib.so libdlib.so run.dump &&
	 "$U" not-covered-functions main libsolib.so libdlib.so run.dump &&
	 "$U" lcov main libsolib.so libdlib.so run.dump |
		grep -E '^(SF|FN|FNDA|DA|LF|LH):' &&
	 cat out.txt)
}
# lines_of FILE: what summary_of says of functions and covered lines,
# without counts (gcc duplicates a block holding a call where it does
# not duplicate the inline code: more points, the same lines).
lines_of() {
	grep -E '^(/|SF:|FN:|LF:)|^DA:' "$1" | sed 's/^\(DA:[0-9]*\),[1-9][0-9]*$/\1,hit/'
}
for cc in clang gcc; do
	for o in O0 O2; do
		for m in unique pc; do
			summary_of $cc-call-$o $m >$cc-call-$o-$m.txt 2>&1
			summary_of $cc-inl-$o $m >$cc-inl-$o-$m.txt 2>&1
			if [ $cc-$o = gcc-O2 ]; then
				# gcc -O2 lays the two builds' blocks out
				# differently: a line one build's block model
				# can decide and the other cannot (a switch's
				# default, a '{') is listed by one only.  What
				# must hold: the same functions, and no line
				# hit in one and not hit in the other.
				lines_of $cc-call-$o-$m.txt | grep -v '^[DL]' >a.txt
				lines_of $cc-inl-$o-$m.txt | grep -v '^[DL]' >b.txt
				same "$cc -$o, ukcov run --mode $m: functions as the calls" a.txt b.txt
				contra=$(awk -F'[:,]' '/^SF:/ { f = $2 } /^DA:/ { k = f ":" $2
					if (FILENAME == ARGV[1]) v[k] = ($3 > 0)
					else if ((k in v) && v[k] != ($3 > 0)) print k }' \
					$cc-call-$o-$m.txt $cc-inl-$o-$m.txt)
				n=$(grep -c '^DA:' $cc-inl-$o-$m.txt)
				[ -z "$contra" ] && [ "$n" -gt 0 ] &&
					ok "$cc -$o, ukcov run --mode $m: no line hit in one build and not in the other ($n lines)" ||
					bad "$cc -$o, ukcov run --mode $m: lines that contradict" "$contra"
			else
				same "$cc -$o, ukcov run --mode $m: records, points per module, stats, functions, lines as the calls" \
					$cc-call-$o-$m.txt $cc-inl-$o-$m.txt
			fi
		done
	done
done
# The three modules all recorded (not an empty comparison).
for cc in clang gcc; do
	check "$cc -O2: every module has covered points" sh -c \
		"grep -q 'dlib_twice' $cc-inl-O2-unique.txt && grep -q 'solib_sum' $cc-inl-O2-unique.txt &&
		 grep -q ' main\$' $cc-inl-O2-unique.txt && grep -q '^records [1-9]' $cc-inl-O2-unique.txt"
done

# A function that enables kcov itself: its points after the
# KCOV_ENABLE call read the thread's new map (the map is loaded again
# after every call), so they record as the calls do.
for cc in clang gcc; do
	for o in O0 O2; do
		for m in 0 1; do
			UKCOV_CC=$cc UKCOV_INLINE=$m "$CCW" -$o "$SRC/self.c" \
				-o self-$cc-$o-$m >"$T/build.log" 2>&1 ||
				bad "$cc -$o self.c UKCOV_INLINE=$m builds" "$(tail -3 "$T/build.log")"
			UKCOV_DEVICE=ukcov ./self-$cc-$o-$m >self-$cc-$o-$m.txt 2>&1
		done
		check "$cc -$o: main's own points after its KCOV_ENABLE record as the calls ($(cat self-$cc-$o-0.txt))" sh -c \
			"grep -qx '[1-9][0-9]*' self-$cc-$o-0.txt && cmp -s self-$cc-$o-0.txt self-$cc-$o-1.txt"
	done
done

# Points gcc copies (copies.c: jump threading after the coverage
# pass): the same points per line as the calls, and every copy records
# on its own in unique mode (a copy that shared its original's bit
# would never record once the original had).
per_line() { sed 's/^0x[0-9a-f]* *//; s|.*/||' | sort | uniq -c; }
for cc in clang gcc; do
	for m in 0 1; do
		x=copies-$cc-$m
		UKCOV_CC=$cc UKCOV_INLINE=$m "$CCW" -g -O2 "$SRC/copies.c" -o $x \
			>"$T/build.log" 2>&1 ||
			bad "$cc copies.c UKCOV_INLINE=$m builds" "$(tail -3 "$T/build.log")"
		"$U" print-coverage-pcs $x | addr2line -e $x | per_line >$x.pts
		"$U" run --mode unique -o $x.dump -- ./$x ab b >/dev/null 2>&1
		"$U" print --lines $x.dump | per_line >$x.recs
	done
	same "$cc -O2 copies.c: points per line as the calls" copies-$cc-0.pts copies-$cc-1.pts
	same "$cc -O2 copies.c: unique records per line as the calls" copies-$cc-0.recs copies-$cc-1.recs
done
l=$(grep -n 'sink = state;' "$SRC/copies.c" | cut -d: -f1)
check "gcc -O2 copies.c: the loop head (line $l) is several points, several recorded" sh -c \
	"grep -q '^ *[2-9] copies.c:$l\$' copies-gcc-1.pts && grep -q '^ *[2-9] copies.c:$l:' copies-gcc-1.recs"

# coverage=1 (the process-wide PC set, not a kcov descriptor): the same
# .sancov files' functions and lines.
sancov_of() {
	(cd "$1" && rm -rf cov && mkdir cov &&
	 UKCOV_OPTIONS="coverage=1 coverage_dir=cov" ./main ./libdlib.so >/dev/null &&
	 ls cov | sed 's/\.[0-9]*\.sancov$//' | sort &&
	 "$U" stats main libsolib.so libdlib.so cov/*.sancov &&
	 "$U" covered-functions main libsolib.so libdlib.so cov/*.sancov &&
	 "$U" lcov main libsolib.so libdlib.so cov/*.sancov |
		grep -E '^(SF|FN|FNDA|DA|LF|LH):')
}
# Every point goes through the entry's C half here (the process-wide
# set), called by gcc's plugin from inside an asm statement.
for d in clang-O2 gcc-O0; do
	sancov_of ${d%-*}-call-${d#*-} >call-sancov.txt 2>&1
	sancov_of ${d%-*}-inl-${d#*-} >inl-sancov.txt 2>&1
	same "$d coverage=1: the .sancov files give the stats, functions and lines of the calls" \
		call-sancov.txt inl-sancov.txt
	check "$d coverage=1: a file per module, points covered" sh -c \
		"grep -qx libdlib.so inl-sancov.txt && grep -qx libsolib.so inl-sancov.txt &&
		 grep -qx main inl-sancov.txt && grep -q '^cov-edges: [1-9]' inl-sancov.txt"
done

# -static: libukcov.a, the runtime in the executable.
for cc in clang gcc; do
	for m in 0 1; do
		x=static-$cc-$m
		(UKCOV_CC=$cc UKCOV_INLINE=$m "$CCW" -O0 -static "$SRC/main.c" \
			"$SRC/solib.c" -o $x) >"$T/build.log" 2>&1 ||
			bad "$cc -static UKCOV_INLINE=$m builds" "$(tail -3 "$T/build.log")"
		"$U" run -o $x.dump -- ./$x >/dev/null 2>$x.err
		{ sed -n 's/.*; \([0-9]*\) records.*/\1 records/p' $x.err
		  "$U" print-coverage-pcs $x | wc -l
		  "$U" covered-functions $x $x.dump; } >$x.txt 2>&1
		# coverage=1: in a -static program the inline units'
		# constructors run before the runtime's, and set it up.
		rm -rf cov-$x && mkdir cov-$x
		UKCOV_OPTIONS="coverage=1 coverage_dir=cov-$x" ./$x >/dev/null 2>>$x.txt
		{ ls cov-$x | sed "s/^$x\.[0-9]*\.sancov\$/the program's .sancov/"
		  "$U" covered-functions $x cov-$x/*.sancov; } >>$x.txt 2>&1
	done
	check "$cc -static inline build has no libukcov.so and a table" sh -c \
		"! ldd static-$cc-1 2>/dev/null | grep -q libukcov && has() { readelf -SW \$1 | grep -q ' __ukcov_pcs '; } && has static-$cc-1"
	same "$cc -static: records, points and functions as the calls, with ukcov run and coverage=1" static-$cc-0.txt static-$cc-1.txt
done

# The gcc plugin refuses a gcc it was not built for, with its message
# and gcc's, and compiles nothing.
P=$(gcc -print-file-name=plugin)
if g++ -I"$P/include" -I"$TOP/include" -fno-rtti -fPIC -shared -O0 \
	-DUKCOV_PLUGIN_TEST_BASEVER='"11.3.0"' "$TOP/plugins/gcc/ukcov_inline_gcc.cc" \
	-o old.so 2>"$T/build.log"; then
	gcc -fplugin=./old.so -c "$SRC/dlib.c" -o old.o 2>old.err
	rc=$?
	if [ $rc = 1 ] && [ ! -e old.o ] && [ "$(wc -l <old.err)" = 2 ] &&
	   grep -q "^cc1: error: ukcov inline plugin: built for gcc 11.3.0 (.*), this is gcc $(gcc -dumpfullversion) (.*): rebuild it (make) or set .UKCOV_INLINE=0.\$" old.err &&
	   grep -q '^cc1: error: failed to initialize plugin ./old.so$' old.err; then
		ok "gcc plugin built for another gcc: one message, no object"
	else
		bad "gcc plugin built for another gcc" "status $rc: $(cat old.err)"
	fi
else
	bad "gcc plugin for another gcc builds" "$(tail -3 "$T/build.log")"
fi

# ---- the table as input ------------------------------------------------------
# table_edit FILE OUT HOW: a copy of FILE with its __ukcov_pcs table
# zeroed (zero), its size minus 1 (size), or its first entry made 1,
# outside all code (entry), or the first byte of the lowest code
# section, whose point (the byte before) is outside it (start), or the
# end of the highest, whose point is that section's last byte (end);
# start and end print the entry's address.
table_edit() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
stroff = struct.unpack_from("<Q", d, shoff + shstrndx * shentsize + 0x18)[0]
for i in range(shnum):
    h = shoff + i * shentsize
    name = struct.unpack_from("<I", d, h)[0]
    if d[stroff + name:].split(b"\0")[0] == b"__ukcov_pcs":
        off, size = struct.unpack_from("<QQ", d, h + 0x18)
        if sys.argv[3] == "zero":
            d[off:off + size] = bytes(size)
        elif sys.argv[3] == "size":
            struct.pack_into("<Q", d, h + 0x20, size - 1)
        elif sys.argv[3] in ("start", "end"):
            # (addr, addr + size) of each SHT_PROGBITS SHF_EXECINSTR section
            code = [(a, a + z) for j in range(shnum)
                    for t, f, a, z in [struct.unpack_from("<4xIQQ8xQ", d, shoff + j * shentsize)]
                    if t == 1 and f & 4]
            v = min(code)[0] if sys.argv[3] == "start" else max(e for _, e in code)
            struct.pack_into("<Q", d, off, v)
            print(hex(v))
        else:
            struct.pack_into("<Q", d, off, 1)
open(sys.argv[2], "wb").write(d)
EOF
}

# A position-independent image whose entries only its RELATIVE
# relocations hold (as lld leaves them): the same points.
table_edit clang-inl-O2/libsolib.so zeroed.so zero
"$U" print-coverage-pcs clang-inl-O2/libsolib.so >pcs-file.txt 2>&1
"$U" print-coverage-pcs zeroed.so >pcs-rela.txt 2>&1
same "entries from RELATIVE relocations alone: the same points" pcs-file.txt pcs-rela.txt

UKCOV_INLINE=1 UKCOV_CC=clang "$CCW" -O2 -no-pie "$SRC/main.c" "$SRC/solib.c" -ldl -o nopie 2>"$T/build.log" ||
	bad "-no-pie inline build" "$(tail -3 "$T/build.log")"
table_edit nopie badsize size
table_edit nopie badentry entry
sz=$((0x$(readelf -SW nopie |
	sed -n 's/.* __ukcov_pcs  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')))
expect "a table whose size is no multiple of 8: one-line error" 1 \
	"ukcov: error: badsize: __ukcov_pcs: size $((sz - 1)) is not a multiple of 8" \
	"$U" print-coverage-pcs badsize
expect "an entry outside the code: one-line error" 1 \
	"ukcov: error: badentry: __ukcov_pcs entry 0 (0x1) is not in executable code" \
	"$U" print-coverage-pcs badentry
lo=$(table_edit nopie badstart start)
expect "an entry at the first byte of code (its point before it): one-line error" 1 \
	"ukcov: error: badstart: __ukcov_pcs entry 0 ($lo) is not in executable code" \
	"$U" print-coverage-pcs badstart
hi=$(table_edit nopie badend end)
"$U" print-coverage-pcs badend >badend.txt 2>badend.err
rc=$?
[ $rc -eq 0 ] && [ ! -s badend.err ] && grep -qx "$(printf '0x%x' $((hi - 1)))" badend.txt &&
	ok "an entry at the end of the code (its point the last byte) is a point" ||
	bad "an entry at the end of the code" "rc $rc, $hi: $(head -c 300 badend.err)"
expect "a table in an unlinked object: one-line error" 1 \
	"ukcov: error: cmp.o: __ukcov_pcs in an unlinked object: link it first" \
	sh -c "UKCOV_INLINE=1 UKCOV_CC=clang '$CCW' -c '$SRC/dlib.c' -o cmp.o && '$U' print-coverage-pcs cmp.o"
# Link-time optimization: main.c and solib.c in one -flto link.  gcc:
# the inline build is inline (its table is there) and covers the
# functions the calls build covers, in both sources (a point copied at
# the link numbers itself).  clang optimizes an -flto module again at
# the link, after the plugin, and its inliner would copy a point's asm
# (a label defined twice: C++ programs did not link): ukcov-cc builds
# such units with the calls, and the plugin refuses them in one line.
# covered NAME CC MODE FLAGS...: main.c and solib.c built into NAME
# with FLAGS by ukcov-cc (UKCOV_CC=CC, UKCOV_INLINE=MODE) and run under
# "ukcov run"; its covered functions, sorted, into NAME.txt.
covered() {
	cv_name=$1 cv_cc=$2 cv_mode=$3
	shift 3
	UKCOV_CC=$cv_cc UKCOV_INLINE=$cv_mode "$CCW" "$@" "$SRC/main.c" "$SRC/solib.c" \
		-ldl -o "$cv_name" >"$T/build.log" 2>&1 &&
	"$U" run -o "$cv_name.dump" -- "./$cv_name" ./clang-inl-O2/libdlib.so \
		>/dev/null 2>&1 &&
	"$U" covered-functions "$cv_name" "$cv_name.dump" | sort >"$cv_name.txt" ||
		bad "$cv_cc $* UKCOV_INLINE=$cv_mode builds and runs" "$(tail -3 "$T/build.log")"
}
inline_not_calls() { has_table "$1" && ! has_table "$2"; }
for m in 0 1; do
	covered lto-gcc-$m gcc $m -O2 -flto
done
check "gcc -O2 -flto: an inline build, with its table" inline_not_calls lto-gcc-1 lto-gcc-0
check "gcc -O2 -flto: the functions of both sources covered as the calls cover them" sh -c \
	"grep -q 'solib.c:[0-9]* solib_sum\$' lto-gcc-1.txt && grep -q 'main.c:[0-9]* main\$' lto-gcc-1.txt &&
	 cmp -s lto-gcc-0.txt lto-gcc-1.txt"
check "clang -flto: ukcov-cc builds with the calls" sh -c \
	"UKCOV_CC=clang '$CCW' -O2 -flto '$SRC/main.c' '$SRC/solib.c' -ldl -o lto-clang >'$T/build.log' 2>&1 &&
	 ! readelf -SW lto-clang | grep -q ' __ukcov_pcs ' && [ \$(objdump -d lto-clang | grep -c -E 'call.*<__sanitizer_cov_trace_pc>') -gt 0 ]"
check "clang -flto -fno-lto: inline again" sh -c \
	"UKCOV_CC=clang '$CCW' -O2 -flto -fno-lto -c '$SRC/dlib.c' -o nolto.o && readelf -SW nolto.o | grep -q ' __ukcov_pcs '"
expect "clang -flto with UKCOV_INLINE=1: one-line error" 1 \
	"ukcov-cc: UKCOV_INLINE=1: clang's inline instrumentation does not support -flto; build without it or set UKCOV_INLINE=0" \
	env UKCOV_INLINE=1 UKCOV_CC=clang "$CCW" -O2 -flto -c "$SRC/dlib.c" -o lto1.o
for f in -flto -flto=thin; do
	expect "the clang plugin refuses a $f module in one line" 1 \
		"error: ukcov inline instrumentation (clang) does not support -flto; build with UKCOV_INLINE=0 (calls)
1 error generated." \
		clang -O2 $f -fpass-plugin="$TOP/$B/ukcov-inline-clang.so" -c "$SRC/dlib.c" -o plug.o
done
# C++: functions in COMDAT groups (cxx.h's inline function and template
# instance, and the standard library's), emitted by both units and kept
# once by the linker.  Their table entries and gcc's cold code are in
# sections of the function's group: the inline build links, and has
# the points and records of the calls build.
CXXW=$TOP/$B/ukcov-c++
for cxx in clang++ g++; do
	for m in 0 1; do
		UKCOV_CXX=$cxx UKCOV_INLINE=$m "$CXXW" -O0 -g "$SRC/cxx_a.cc" "$SRC/cxx_b.cc" \
			-o cxx-$cxx-$m >"$T/build.log" 2>&1 ||
			bad "$cxx -O0 UKCOV_INLINE=$m: two units with COMDAT functions link" \
				"$(grep -m 2 -E 'error|discarded' "$T/build.log" | cut -c 1-200)"
		"$U" run -o cxx-$cxx-$m.dump -- ./cxx-$cxx-$m 3 >/dev/null 2>cxx-$cxx-$m.err
		{ sed -n 's/.*; \([0-9]*\) records, .*/records \1/p' cxx-$cxx-$m.err
		  "$U" print-coverage-pcs cxx-$cxx-$m | wc -l
		  "$U" covered-functions cxx-$cxx-$m cxx-$cxx-$m.dump; } >cxx-$cxx-$m.txt 2>&1
	done
	check "$cxx -O0: the inline build is inline" has_table cxx-$cxx-1
	same "$cxx -O0, two units with COMDAT functions: records, points, functions as the calls" \
		cxx-$cxx-0.txt cxx-$cxx-1.txt
done
# --gc-sections: the table's sections are linked to their functions
# (SHF_LINK_ORDER) and gcc's cold code is a section per function, so
# the linker keeps a function's entries exactly while it keeps the
# function (an unreferenced table was dropped whole: no points).
for cc in clang gcc; do
	for m in 0 1; do
		covered gc-$cc-$m $cc $m -O2 -ffunction-sections -Wl,--gc-sections
	done
	check "$cc --gc-sections: the inline build keeps its table" sh -c \
		"[ \$('$U' print-coverage-pcs gc-$cc-1 | wc -l) -gt 0 ]"
	check "$cc --gc-sections: an inline build" has_table gc-$cc-1
	check "$cc --gc-sections: the functions covered as the calls cover them" sh -c \
		"grep -q 'solib.c:[0-9]* solib_sum\$' gc-$cc-1.txt && cmp -s gc-$cc-0.txt gc-$cc-1.txt"
done
summary
