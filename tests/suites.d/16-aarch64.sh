#!/bin/sh
# The runtime on aarch64: libukcov and the core suite (the four OS
# interfaces, PC and CMP records, unique mode, Linux and NetBSD remote
# sections within and across processes, fork, exec, threads, signals)
# cross-built with Debian's gcc-aarch64-linux-gnu (targets by gcc and
# by clang --target=aarch64-linux-gnu) into $B-aarch64, and run under
# qemu-aarch64 (qemu-user).  Each line is prefixed "aarch64/".
#
# The exec tests start aarch64 programs, which needs the kernel to hand
# them to qemu: binfmt_misc with Debian's qemu-user-binfmt entry (this
# suite registers it as root when it is missing).
#
# qemu-user is a stress of its own: it emulates a process's own
# /proc/<pid>/stat (start time 0), has no process_vm_readv, no seccomp
# and no clone3; the runtime works without each (lib/desc.c, lib/os.c).
# Tests not run, for what qemu itself does, named here:
#   nbremote.fork_shared -- a forked child of a multi-threaded process
#   that starts a thread aborts qemu 7.2 ("cpu_exec: assertion failed:
#   (cpu == current_cpu)"), before any ukcov code runs in the thread;
#   hostile.exec_forged, hostile.exec_unsealed in the preload variants
#   -- they check the exec'd program's exact stderr, and the guest's
#   LD_PRELOAD reaches the host loader of the qemu that binfmt starts
#   for it, which adds "ERROR: ld.so: object ... cannot be preloaded";
#   hostile.lock_holder_died -- qemu-user answers set_robust_list with
#   ENOSYS (linux-user/syscall.c: the kernel would have to walk the
#   guest's list), so a process that dies holding a robust mutex leaves
#   it locked for good and the next locker waits forever; under qemu the
#   runtime cannot recover a descriptor whose lock holder died.
#
# Then the host tool on aarch64 binaries, dumps and .sancov files (the
# points against objdump's call sites), make CROSS=... install with a
# program built from the installed tree, and the shell suites 55-unique
# (but Lua) and 60-sancov with aarch64 programs (tests/lib.sh CROSS, LB).
#
# Without the cross tools (scripts/deps.sh installs them as root) the
# suite prints one "skipped" line.
#   B=build tests/suites.d/16-aarch64.sh
. tests/lib.sh
AB=$B-aarch64
CROSS=aarch64-linux-gnu-
QEMU_SKIP=nbremote.fork_shared,hostile.lock_holder_died

if ! command -v ${CROSS}gcc >/dev/null 2>&1 || ! command -v qemu-aarch64 >/dev/null 2>&1 ||
   [ ! -d /usr/aarch64-linux-gnu/lib ]; then
	echo "skipped aarch64: no ${CROSS}gcc or qemu-aarch64 (scripts/deps.sh installs them)"
	summary
	exit
fi

# binfmt_misc: the kernel runs an aarch64 ELF through qemu (exec tests).
binfmt=/proc/sys/fs/binfmt_misc
conf=/usr/lib/binfmt.d/qemu-aarch64.conf
if [ ! -e $binfmt/qemu-aarch64 ] && [ "$(id -u)" = 0 ] && [ -f $conf ]; then
	[ -e $binfmt/register ] || mount -t binfmt_misc binfmt_misc $binfmt 2>/dev/null
	[ -e $binfmt/register ] && cat $conf >$binfmt/register 2>/dev/null
fi
if [ -e $binfmt/qemu-aarch64 ] && [ "$(head -n 1 $binfmt/qemu-aarch64)" = enabled ]; then
	ok "aarch64/binfmt: the kernel runs aarch64 programs under qemu"
else
	# A container may not mount binfmt_misc: without it the exec tests
	# cannot run, and half a suite would pass for the whole.
	echo "skipped aarch64: no binfmt_misc entry for aarch64 (as root: mount binfmt_misc, register $conf)"
	summary
	exit
fi
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu

if ! make --no-print-directory -j2 B="$AB" CROSS=$CROSS lib core-tests >"$T/build.log" 2>&1; then
	bad "aarch64/build" "$(tail -5 "$T/build.log" | tr '\n' ' ')"
	summary
	exit
fi
D=$AB/tests/core
arch_ok=1
for f in "$AB/libukcov.so.0" "$D/core-gcc" "$D/core-clang"; do
	file -L "$f" | grep -q 'ARM aarch64' || arch_ok=0
done
[ $arch_ok = 1 ] && ok "aarch64/build: libukcov.so.0 and the tests are aarch64 ELF" ||
	bad "aarch64/build" "not aarch64: $(file -L "$AB/libukcov.so.0" "$D/core-gcc")"

# run VARIANT [ENV...]: one test binary under qemu (tests/lib.sh run_core),
# without the tests named above.
run() {
	variant=$1
	shift
	skip=$QEMU_SKIP
	case $variant in preload-*) skip=$skip,hostile.exec_forged,hostile.exec_unsealed ;; esac
	run_core "$D" aarch64/ "$variant" CORE_SKIP=$skip "$@"
}

preload=$(cd "$AB" && pwd)/libukcov.so.0
for cc in gcc clang; do
	run "core-$cc"
	run "core-$cc-static"
	run "core-$cc-pc"
	# The guest's LD_PRELOAD only: qemu-aarch64 is a host program.
	run "preload-$cc" QEMU_SET_ENV="LD_PRELOAD=$preload"
done

# ---- the host tool on aarch64 binaries, dumps and .sancov files ------
# A point is the bl/blr itself (return address - 4, tools/elfpoints.c
# pc_to_point); objdump's call sites are the oracle.
TOP=$(pwd)
U=$TOP/$B/ukcov
LA=$TOP/$AB
SRC=$TOP/tests/tool/src
if [ ! -x "$U" ]; then
	bad "aarch64/tool" "missing $U (make B=$B tools)"
	summary
	exit
fi
X=$T/tool
mkdir -p "$X"
# calls BIN: addresses of the bl to a PC callback (or its PLT stub).
calls() {
	${CROSS}objdump -d "$1" |
		awk '$3 == "bl" && $0 ~ /<__sanitizer_cov_trace_pc(_guard)?(@plt)?>/ {
			sub(":", "", $1); print $1 }' |
		while read -r a; do printf '0x%x\n' $((0x$a)); done
}
# blrs BIN: addresses of every blr.
blrs() {
	${CROSS}objdump -d "$1" | awk '$3 == "blr" { sub(":", "", $1); print $1 }' |
		while read -r a; do printf '0x%x\n' $((0x$a)); done
}
# same_list NAME GOT WANT: two lists, equal and not empty.
same_list() {
	if [ -s "$3" ] && cmp -s "$2" "$3"; then ok "$1"; else
		bad "$1" "$(wc -l <"$2") vs $(wc -l <"$3"): $(diff "$2" "$3" | head -4 | tr '\n' ' ')"
	fi
}
# subset NAME PART WHOLE: every line of PART (not empty) is in WHOLE.
subset() {
	sort -u "$2" >"$X/part" && sort -u "$3" >"$X/whole"
	if [ -s "$X/part" ] && [ -z "$(comm -23 "$X/part" "$X/whole")" ]; then ok "$1"; else
		bad "$1" "not points: $(comm -23 "$X/part" "$X/whole" | head -3 | tr '\n' ' ')"
	fi
}
tclang="clang --target=${CROSS%-}"
if ${CROSS}gcc -O1 -g -fsanitize-coverage=trace-pc "$SRC/main.c" "$SRC/lib.c" \
		-L"$LA" -Wl,-rpath,"$LA" -lukcov -o "$X/prog_gcc" &&
	${CROSS}gcc -O1 -fPIC -fsanitize-coverage=trace-pc -shared "$SRC/dso.c" \
		-L"$LA" -Wl,-rpath,"$LA" -lukcov -o "$X/libdso.so" &&
	${CROSS}gcc -O1 -fPIC -fno-plt -fsanitize-coverage=trace-pc -shared "$SRC/dso.c" \
		-L"$LA" -Wl,-rpath,"$LA" -lukcov -o "$X/libdso_noplt.so" &&
	$tclang -O0 -g -fsanitize-coverage=trace-pc-guard -c "$SRC/main.c" -o "$X/main.o" &&
	$tclang -O0 -g -fsanitize-coverage=trace-pc-guard -c "$SRC/lib.c" -o "$X/lib.o" &&
	${CROSS}gcc "$X/main.o" "$X/lib.o" "$LA/libukcov.a" -lpthread -o "$X/prog_guard"; then
	for f in prog_gcc libdso.so prog_guard; do
		"$U" print-coverage-pcs "$X/$f" >"$X/$f.pts" 2>&1
		calls "$X/$f" >"$X/$f.want"
		same_list "aarch64/tool: points of $f = its bl to a callback" "$X/$f.pts" "$X/$f.want"
	done
	# -fno-plt: the callback's address is loaded from the GOT once and
	# kept in a callee-saved register for every blr of the function.
	"$U" print-coverage-pcs "$X/libdso_noplt.so" >"$X/noplt.pts" 2>&1
	blrs "$X/libdso_noplt.so" >"$X/noplt.blr"
	subset "aarch64/tool: -fno-plt points are blr" "$X/noplt.pts" "$X/noplt.blr"
	n=$(grep -c '^0x' "$X/noplt.pts")
	[ "$n" -gt 0 ] && [ "$n" = "$(grep -c '^0x' "$X/libdso.so.pts")" ] &&
		ok "aarch64/tool: -fno-plt: as many points as through the PLT" ||
		bad "aarch64/tool: -fno-plt point count" "$(wc -l <"$X/noplt.pts") vs $(wc -l <"$X/libdso.so.pts")"

	# ukcov run under binfmt: the points it reports are the binary's.
	"$U" run -o "$X/run.dump" -- "$X/prog_gcc" 5 >/dev/null 2>"$X/run.err"
	"$U" print "$X/run.dump" >"$X/run.pcs"
	subset "aarch64/tool: ukcov run: every PC is a point of the binary" "$X/run.pcs" "$X/prog_gcc.pts"
	"$U" covered-functions "$X/prog_gcc" "$X/run.dump" 2>&1 | awk '{print $2}' | sort >"$X/run.fns"
	printf 'foo\nhelper\nlibfn\nmain\n' >"$X/want.fns"
	same_list "aarch64/tool: ukcov run: covered functions (libdw)" "$X/run.fns" "$X/want.fns"

	# .sancov from an aarch64 run: the runtime writes the point too.
	mkdir -p "$X/sc"
	UKCOV_OPTIONS=coverage=1:coverage_dir="$X/sc" "$X/prog_guard" 5 >/dev/null
	set -- "$X"/sc/prog_guard.*.sancov
	if [ -f "$1" ] && [ "$(od -A n -t x8 -N 8 "$1" | tr -d ' ')" = c0bfffffffffff64 ]; then
		ok "aarch64/tool: .sancov 64-bit file written"
	else
		bad "aarch64/tool: .sancov file" "$(ls "$X/sc")"
	fi
	"$U" print "$1" >"$X/sc.pcs"
	subset "aarch64/tool: every .sancov PC is a point" "$X/sc.pcs" "$X/prog_guard.pts"
	"$U" covered-functions "$X/prog_guard" "$1" 2>&1 | awk '{print $2}' | sort >"$X/sc.fns"
	same_list "aarch64/tool: .sancov: covered functions" "$X/sc.fns" "$X/want.fns"
else
	bad "aarch64/tool: fixtures build" "cross gcc/clang failed"
fi

# ---- make CROSS=... install: a tree the cross compiler builds with ----
P=$T/prefix
if make --no-print-directory -s CROSS=$CROSS B="$AB" PREFIX="$P" install >"$T/install.log" 2>&1 &&
	file -L "$P/lib/libukcov.so.0" | grep -q 'ARM aarch64' && [ ! -e "$P/bin/ukcov" ]; then
	ok "aarch64/install: the aarch64 runtime, without the host tool"
else
	bad "aarch64/install" "$(tail -3 "$T/install.log" | tr '\n' ' ')"
fi
pc() { PKG_CONFIG_LIBDIR="$P/lib/pkgconfig" pkg-config "$@" ukcov; }
${CROSS}gcc -fsanitize-coverage=trace-pc -c tests/install/target.c -o "$T/target.o"
check "aarch64/install: pkg-config, shared, runs under qemu" sh -c \
	"${CROSS}gcc $(pc --cflags) tests/install/prog.c $T/target.o $(pc --libs) -o $T/iprog && $T/iprog"
check "aarch64/install: pkg-config --static, runs under qemu" sh -c \
	"${CROSS}gcc -static $(pc --cflags) tests/install/prog.c $T/target.o $(pc --static --libs) -o $T/iprog-static && $T/iprog-static"

# ---- shell suites with aarch64 programs and the host tool ------------
# cross_suite FILE: a suite of tests/suites.d run with CROSS and LB
# (tests/lib.sh); its lines prefixed "aarch64/", its counts added.
cross_suite() {
	cs=$1
	CROSS=$CROSS LB=$AB B=$B "tests/suites.d/$cs" >"$T/$cs.out" 2>&1
	sed -n 's/^ok /ok aarch64\//p; s/^not ok /not ok aarch64\//p; s/^skipped /skipped aarch64\//p' "$T/$cs.out"
	cs_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$cs.out" | tail -n 1)
	if [ -z "$cs_line" ]; then
		bad "aarch64/$cs" "no summary line: $(tail -3 "$T/$cs.out" | tr '\n' ' ')"
		return
	fi
	set -- $cs_line
	pass=$((pass + $1))
	fail=$((fail + $3))
}
# ukcov-cc finds the runtime next to itself (tools/wrapper.c): a copy
# of the host's wrapper in $AB links the aarch64 one.
cp "$B/ukcov-cc" "$AB/ukcov-cc"
cross_suite 55-unique.sh
cross_suite 60-sancov.sh
summary
