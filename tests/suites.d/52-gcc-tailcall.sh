#!/bin/sh
# tests/suites.d/52-gcc-tailcall.sh -- gcc < 14 at -O2 emits a coverage
# call that ends a function as a tail call (jmp), so the callback records
# the caller's return address, which is no coverage point (GCC PR 90746;
# syzkaller issue 4447).  ukcov-cc builds without sibling calls, and the
# tool names the cause when a binary has such tail calls.
. tests/lib.sh
U=$(pwd)/$B/ukcov
CCW=$(pwd)/$B/ukcov-cc
cat >"$T/t.c" <<'SRC'
int g;
__attribute__((noinline)) void f(int x) { if (x) g = 1; }
int main(int argc, char **argv) { (void)argv; f(argc > 1); f(0); return 0; }
SRC
tailjmps() { objdump -d "$1" | grep -cE 'e9 .*jmp +[0-9a-f]+ <__sanitizer_cov_trace_pc>'; }

# The plain gcc -O2 build has the tail call (the case the hint is for).
gcc -O2 -g -fsanitize-coverage=trace-pc "$T/t.c" -L"$B" -Wl,-rpath,"$(pwd)/$B" \
    -lukcov -o "$T/plain"
n=$(tailjmps "$T/plain")
[ "$n" -ge 1 ] && ok "gcc-O2-emits-tail-call" || bad "gcc-O2-emits-tail-call" "found $n"

(cd "$T" && "$U" run -o plain.dump -- ./plain x) >/dev/null 2>&1
(cd "$T" && "$U" covered-functions plain.dump) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && ok "mismatch-exit-1" || bad "mismatch-exit-1" "rc $rc"
want="ukcov: $T/plain has $n tail calls (jmp) to the coverage callback: gcc < 14 at -O2 records the caller's return address there (GCC PR 90746); rebuild with -fno-optimize-sibling-calls (ukcov-cc adds it)"
grep -qxF "$want" "$T/err" && ok "mismatch-names-tail-calls" ||
    bad "mismatch-names-tail-calls" "$(cat "$T/err")"

# ukcov-cc, gcc and clang: no tail call, and every PC is a point.
for cc in gcc clang; do
    UKCOV_CC=$cc "$CCW" -O2 -o "$T/w_$cc" "$T/t.c"
    n=$(tailjmps "$T/w_$cc")
    [ "$n" -eq 0 ] && ok "ukcov-cc-$cc-no-tail-call" ||
        bad "ukcov-cc-$cc-no-tail-call" "found $n"
    (cd "$T" && "$U" run -o w.dump -- ./w_$cc x) >/dev/null 2>&1
    if (cd "$T" && "$U" covered-functions w.dump) >"$T/out" 2>"$T/err"; then
        printf '%s\n' "$T/t.c:2 f" "$T/t.c:3 main" | cmp -s - "$T/out" &&
            ok "ukcov-cc-$cc-covered-functions" ||
            bad "ukcov-cc-$cc-covered-functions" "$(cat "$T/out")"
    else
        bad "ukcov-cc-$cc-covered-functions" "$(cat "$T/err")"
    fi
done
summary
