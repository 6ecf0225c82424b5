#!/bin/bash
# tests/suites.d/75-afl.sh -- libukcov under AFL++ (lib/afl*.c): the
# fork server against Debian's afl-fuzz/afl-showmap 4.04c and against
# tests/afl/peer.c (both handshakes, shared-memory test cases, the
# CmpLog map byte by byte), `ukcov-cc -fsanitize=fuzzer` with gcc and
# clang, a bad environment, afl-fuzz -c 0 solving m4/m8/m16, and the
# stability of a thread-pool target beside the same target built by
# afl-clang-fast.  Every fuzzer run is bounded (-V, timeout).
#
# Run from the top of the tree after `make lib tools`:  B=build tests/suites.d/75-afl.sh
set -u
. tests/lib.sh
TOP=$(pwd)
UCC=$TOP/$B/ukcov-cc
SRC=$TOP/tests/afl
# At exit: this shell's jobs, then any process still running one of the
# programs built here (a persistent child of AFL++'s own runtime stays
# stopped when afl-fuzz exits), each by its PID.
cleanup() {
	kill $(jobs -p) 2>/dev/null
	for p in /proc/[0-9]*; do
		case $(readlink "$p/exe" 2>/dev/null) in
		"$T"/*) kill -9 "${p#/proc/}" 2>/dev/null ;;
		esac
	done
	rm -rf "$T"
}
trap cleanup EXIT

[ -x "$UCC" ] || { bad "prerequisites" "missing $UCC (make tools)"; summary; exit; }
if ! command -v afl-fuzz >/dev/null || ! command -v afl-showmap >/dev/null; then
	echo "skipped 75-afl: no afl-fuzz (scripts/deps.sh installs afl++)"
	exit 0
fi
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_QUIET=1 \
	AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
unset __AFL_SHM_ID __AFL_CMPLOG_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT \
	UKCOV_AFL_PROTOCOL

# same NAME GOT WANT
same() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi; }
# has NAME FILE LINE: FILE holds exactly this line.
has() { if grep -qxF -- "$3" "$2"; then ok "$1"; else bad "$1" "no '$3' in: $(head -c 300 "$2" | tr '\n' '|')"; fi; }

cd "$T" || exit 1
# ---- builds ----
check "build peer (uninstrumented)" gcc -O2 -Wall -Werror -o peer "$SRC/peer.c"
for t in m4 m8 m16 cmp; do
	check "build $t (gcc, -fsanitize=fuzzer)" "$UCC" -O2 -fsanitize=fuzzer "$SRC/$t.c" -o u_$t
done
check "build cmp (clang, -fsanitize=fuzzer)" env UKCOV_CC=clang "$UCC" -O2 \
	-fsanitize=fuzzer "$SRC/cmp.c" -o c_cmp
check "build m4 (clang, trace-pc-guard)" env UKCOV_CC=clang UKCOV_GUARD=1 "$UCC" \
	-O2 -fsanitize=fuzzer "$SRC/m4.c" -o g_m4
check "build spawn (gcc, -fsanitize=fuzzer)" "$UCC" -O2 -fsanitize=fuzzer \
	"$SRC/spawn.c" -o u_spawn -lpthread
check "build segv (gcc, -fsanitize=fuzzer)" "$UCC" -O1 -fsanitize=fuzzer \
	"$SRC/segv.c" -o u_segv
check "build remote (gcc, -fsanitize=fuzzer)" "$UCC" -O2 -fsanitize=fuzzer \
	"$SRC/remote.c" -o u_remote -lpthread
check "build plain (gcc)" "$UCC" -O2 "$SRC/plain.c" -o plain
check "build plain (gcc, -static)" "$UCC" -O2 -static "$SRC/plain.c" -o plain_static
check "build pool (gcc, -fsanitize=fuzzer)" "$UCC" -O2 -fsanitize=fuzzer \
	"$TOP/examples/fuzz_pool.c" -o u_pool -lpthread
if nm c_cmp | grep -q 'LLVMFuzzerRunDriver\|fuzzer::'; then
	bad "clang -fsanitize=fuzzer links no libFuzzer" "libFuzzer symbols in c_cmp"
else
	ok "clang -fsanitize=fuzzer links no libFuzzer"
fi

printf 'AAAABBBBCCCCDDDDEEEE' >in20
printf 'abcd' >ok4
printf '\x44\x33\x22\x11' >crash4
printf 'ABC' >ab

# ---- the driver outside AFL++ ----
./u_m4 ok4 >out 2>err; same "driver: a file runs once" "$?:$(cat err)" "0:Running: ok4
Executed ok4"
# rc CMD...: CMD's exit status, without the shell's "Aborted" line.
rc() { { "$@" >out 2>err; echo $?; } 2>/dev/null; }
same "driver: a crashing file reproduces" "$(rc ./u_m4 crash4):$(cat err)" "134:Running: crash4"
same "driver: stdin runs once" "$(rc sh -c './u_m4 <crash4')" 134
same "driver: a missing file" "$(rc ./u_m4 nosuch):$(cat err)" "1:Running: nosuch
nosuch: No such file or directory"

# ---- the 4.04c hello and the version-1 handshake (peer) ----
./peer -1 -- ./u_m4 ok4 >v1 2>&1
has "v1: hello" v1 "hello 0x41464c01"
has "v1: options map size + shared-memory test cases" v1 "options 0x00000003"
msize=$(sed -n 's/^mapsize //p' v1)
case $msize in 256|512|1024|2048|4096|8192|16384|32768|65536) ok "v1: map size $msize" ;;
	*) bad "v1: map size" "'$msize'" ;; esac
has "v1: input ran" v1 "status 0"
./peer -- ./u_m4 ok4 >old 2>&1
has "4.04c: hello (enabled, map size, cmplog, shm)" old \
	"hello $(printf '0x%08x' $((0xc3000001 | ((${msize:-2} - 1) << 1))))"
./peer -1 -- ./plain ab >v1p 2>&1
has "v1: a plain program asks no shm" v1p "options 0x00000001"
./peer -r 2 -- ./plain ab >twice 2>&1
same "fork mode: same map for the same input" "$(grep -c '^map ' twice) \
$(grep '^map ' twice | sort -u | wc -l)" "2 1"
edges=$(sed -n 's/^edges //p' twice | head -1)
[ "${edges:-0}" -ge 3 ] && ok "fork mode: $edges map bytes" || bad "fork mode: edges" "${edges:-none}"
./peer -1 -r 2 -- ./plain_static ab >static 2>&1
has "static libukcov.a: v1 hello" static "hello 0x41464c01"
same "static: the input ran twice, one map" "$(grep -c '^status 0$' static) \
$(grep '^map ' static | sort -u | wc -l) $(sed -n 's/^edges //p' static | head -1 | awk '{print ($1 >= 3)}')" "2 1 1"

# ---- shared-memory test cases and persistent mode ----
./peer -s crash4 -- ./u_m4 >shm 2>&1
has "shm test case: the crash input aborts" shm "status 6"
./peer -1 -s ok4 -- ./u_m4 >shm1 2>&1
has "shm test case (v1): an ordinary input" shm1 "status 0"
__AFL_PERSISTENT=1 ./peer -r 3 -s ok4 -- ./u_m4 >pers 2>&1
same "persistent: each input stops the same child" \
	"$(grep -c '^status 4991$' pers) $(grep '^pid ' pers | sort -u | wc -l)" "3 1"
pid=$(sed -n 's/^pid //p' pers | head -1)
if timeout 10 tail --pid="${pid:-1}" -f /dev/null; then
	ok "persistent: a stopped child dies with its server"
else
	bad "persistent: a stopped child dies with its server" "$pid still there"
fi

# ---- a thread the input starts records into the input's map ----
printf A >inA; printf B >inB
for i in inA inA inB; do ./peer -s $i -- ./u_spawn 2>&1 | grep '^map '; done >spawn
same "input's thread: its branch is in the map (A, A, B)" \
	"$(sed -n 1p spawn) $(sed -n 3p spawn | grep -vxF "$(sed -n 1p spawn)" | wc -l)" \
	"$(sed -n 2p spawn) 1"
__AFL_PERSISTENT=1 ./peer -r 3 -s inA -- ./u_spawn 2>&1 | grep '^map ' >spawnp
same "input's thread, persistent: the same map each input" \
	"$(sort -u spawnp)" "$(sed -n 1p spawn)"

# ---- a pool's worker, in a remote section for the input's handle ----
for i in inA inA inB; do ./peer -s $i -- ./u_remote 2>&1 | grep '^map '; done >remote
same "remote section: the worker's branch is in the map (A, A, B)" \
	"$(sed -n 1p remote) $(sed -n 3p remote | grep -vxF "$(sed -n 1p remote)" | wc -l)" \
	"$(sed -n 2p remote) 1"
__AFL_PERSISTENT=1 ./peer -r 3 -s inA -- ./u_remote 2>&1 | grep '^map ' >remotep
same "remote section, persistent: the same map each input" \
	"$(sort -u remotep)" "$(sed -n 1p remote)"
# The collector is a thread more, which each persistent SIGSTOP has to
# stop too: only a program that imports the section API gets one.
same "collector: only where sections run (threads: m4, remote)" \
	"$(__AFL_PERSISTENT=1 ./peer -t -s inA -- ./u_m4 | sed -n 's/^threads //p') \
$(__AFL_PERSISTENT=1 ./peer -t -s inA -- ./u_remote | sed -n 's/^threads //p')" "1 3"

# ---- a crash's edges reach the map ----
printf S >inS
./peer -s inS -- ./u_segv >segv 2>&1
same "SIGSEGV: the child dies of it, its edges are in the map" \
	"$(sed -n 's/^status //p' segv) $(sed -n 's/^edges //p' segv | awk '{print ($1 >= 3)}')" "11 1"

# ---- CmpLog ----
for b in u_cmp c_cmp; do
	./peer -c -- ./$b in20 >cmp_$b 2>&1
	has "cmplog $b: x == 0x11223344" cmp_$b "ins 3 11223344 41414141"
	has "cmplog $b: memcmp of 16 bytes" cmp_$b \
		"rtn 16 42424242434343434444444445454545 9abcdef08192a3b4c5d6e7f889facbed"
	# strings: with their NUL, the length byte | 0x80
	has "cmplog $b: strcmp" cmp_$b "rtn 137 414141414242424200 66757a7a696e670000"
done
./peer -r 2 -s ok4 -- ./g_m4 >guard 2>&1
./peer -c -s ok4 -- ./g_m4 >guardc 2>&1
same "trace-pc-guard build: one map twice, its CmpLog entry" \
	"$(grep '^map ' guard | sort -u | wc -l) $(sed -n 's/^edges //p' guard | sort -u) \
$(grep -c '^ins 3 11223344 64636261$' guardc)" "1 3 1"
./peer -- ./u_cmp in20 >nocmp 2>&1
has "no CmpLog map: the program still runs" nocmp "status 0"

# ---- a bad environment: one line, and the program runs ----
__AFL_SHM_ID=bogus ./plain ab >out 2>err
same "bogus __AFL_SHM_ID" "$?:$(cat out):$(cat err)" \
	"0:class 2:ukcov: afl: __AFL_SHM_ID=bogus is no shared memory id; running without it"
./peer -n -m 64 -- ./plain ab >small 2>err
same "map too small" "$(grep status small):$(cat err)" \
	"status 0:ukcov: afl: __AFL_SHM_ID: 64 bytes, fewer than the $(sed -n 's/^mapsize //p' v1p) needed; running without it"
./peer -n -- ./plain ab 199>fd199 >/dev/null 2>&1
same "no server: an open fd 199 gets no hello" "$(wc -c <fd199)" 0

# ---- afl-showmap (4.04c's own client) ----
afl-showmap -q -o sm1 -- ./plain ab >/dev/null 2>&1
afl-showmap -q -o sm2 -- ./plain ab >/dev/null 2>&1
if [ -s sm1 ] && cmp -s sm1 sm2; then ok "afl-showmap: $(wc -l <sm1) tuples, same twice"
else bad "afl-showmap: same tuples twice" "$(wc -l <sm1 2>/dev/null) / $(wc -l <sm2 2>/dev/null)"; fi
afl-showmap -q -o sm3 -- ./plain Z >/dev/null 2>&1 <<<"Z"
cmp -s sm1 sm3 && bad "afl-showmap: another input, other tuples" "same map" ||
	ok "afl-showmap: another input, other tuples"

# ---- afl-fuzz -c 0: the CmpLog stage solves m4, m8, m16 ----
mkdir -p seeds && printf 'AAAAAAAAAAAAAAAAAAAA' >seeds/a
for t in m4 m8 m16; do
	AFL_BENCH_UNTIL_CRASH=1 timeout 120 afl-fuzz -s 1 -t 2000 -i seeds \
		-o o_$t -c 0 -V 60 -- ./u_$t >log_$t 2>&1
	c=$(ls o_$t/default/crashes 2>/dev/null | grep -o 'execs:[0-9]*' | head -1)
	if [ -n "$c" ]; then ok "afl-fuzz -c 0 solves $t (${c#execs:} execs)"
	else bad "afl-fuzz -c 0 solves $t" "$(grep -a 'ABORT\|Location' log_$t | head -2 | tr '\n' ' ') \
$(grep -E 'execs_done|unique_hangs|saved_hangs|run_time' o_$t/default/fuzzer_stats 2>/dev/null | tr -s ' ' | tr '\n' ' ')"; fi
done

check "build examples/fuzz_target.c" "$UCC" -O2 -fsanitize=fuzzer \
	"$TOP/examples/fuzz_target.c" -o u_ft
mkdir -p ftin && printf 'hello, world....................' >ftin/a
AFL_BENCH_UNTIL_CRASH=1 timeout 120 afl-fuzz -s 1 -t 2000 -i ftin -o o_ft -c 0 -V 60 \
	-- ./u_ft >log_ft 2>&1
c=$(ls o_ft/default/crashes 2>/dev/null | grep -m1 '^id:')
if [ -n "$c" ] && [ "$(rc ./u_ft "o_ft/default/crashes/$c")" = 134 ]; then
	ok "examples/fuzz_target.c: afl-fuzz -c 0 finds the crash, the driver reproduces it"
else
	bad "examples/fuzz_target.c: crash found and reproduced" "${c:-no crash}"
fi

# ---- stability of a thread-pool target ----
mkdir -p pin && printf 'hello (x)' >pin/a
stab() { sed -n 's/^stability *: \([0-9.]*\)%/\1/p' "$1/default/fuzzer_stats" 2>/dev/null; }
timeout 60 afl-fuzz -i pin -o o_pool -V 10 -- ./u_pool >log_pool 2>&1
su=$(stab o_pool)
sa=n/a
if command -v afl-clang-fast >/dev/null &&
   afl-clang-fast -O2 -fsanitize=fuzzer "$TOP/examples/fuzz_pool.c" -o a_pool \
	-lpthread >/dev/null 2>&1; then
	timeout 60 afl-fuzz -i pin -o o_apool -V 10 -- ./a_pool >log_apool 2>&1
	sa=$(stab o_apool)
fi
if [ -n "$su" ] && awk -v s="$su" 'BEGIN { exit !(s >= 99) }'; then
	ok "thread pool: stability ${su}% (afl-clang-fast: ${sa}%)"
else
	bad "thread pool: stability >= 99%" "ukcov ${su:-none}%, afl-clang-fast ${sa}%"
fi

summary
