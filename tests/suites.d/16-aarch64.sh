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
#   for it, which adds "ERROR: ld.so: object ... cannot be preloaded".
#
# Without the cross tools (scripts/deps.sh installs them as root) the
# suite prints one "skipped" line.
#   B=build tests/suites.d/16-aarch64.sh
. tests/lib.sh
AB=$B-aarch64
CROSS=aarch64-linux-gnu-
QEMU_SKIP=nbremote.fork_shared

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
summary
