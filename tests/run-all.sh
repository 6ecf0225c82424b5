#!/bin/sh
# Run every test suite in tests/suites.d (in name order) and print one
# closing line "N passed, N failed" that sums them.
#
# A suite is an executable script run from the top of the tree with the
# build directory in $B.  It prints what it likes, and as its last line
# "N passed, N failed" for its own tests.  A suite fails on either
# sign: a failed count, or a non-zero exit status.  One that exits
# non-zero without a summary line, or after one that says "0 failed",
# counts one failed test more.
#
# The failures are printed again, with their suites, just before the
# closing line: a log cut to its tail (CI keeps only the last lines)
# must still say which tests failed.
B=${B:-build}
export B
total_pass=0
total_fail=0
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
for suite in tests/suites.d/*.sh; do
    [ -x "$suite" ] || continue
    name=$(basename "$suite" .sh)
    echo "=== suite $name"
    out=$(mktemp)
    # The suite's own exit status, not tee's: the pipeline's status is
    # its last command's.
    { "$suite" 2>&1; echo $? >"$out.rc"; } | tee "$out"
    rc=$(cat "$out.rc")
    line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    grep -E '^(not ok|FAIL) ' "$out" | sed "s|^|$name: |" >>"$failures"
    rm -f "$out" "$out.rc"
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
        f=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
    else
        echo "suite $name printed no summary line" | tee -a "$failures"
        p=0 f=1
    fi
    if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
        echo "suite $name exited with status $rc after its summary line" |
            tee -a "$failures"
        f=1
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
done
if [ -s "$failures" ]; then
    echo "=== failures"
    cut -c 1-400 "$failures" | head -n 50
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
