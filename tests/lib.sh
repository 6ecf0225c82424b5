# tests/lib.sh -- what every shell test suite shares.  Source it from a
# suite in tests/suites.d: it sets B (the build directory) and T (a
# scratch directory removed at exit), counts results, and `summary`
# prints the closing line "N passed, N failed" and sets the exit status.
B=${B:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "not ok $1: $2"; fail=$((fail + 1)); }
# check NAME CMD...: passes when CMD succeeds; else shows its last lines.
check() {
    name=$1
    shift
    if "$@" >"$T/check.out" 2>&1; then
        ok "$name"
    else
        bad "$name" "$(tail -3 "$T/check.out" | tr '\n' ' ')"
    fi
}
summary() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
