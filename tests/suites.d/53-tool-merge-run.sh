#!/bin/bash
# tests/suites.d/53-tool-merge-run.sh -- hostile inputs to `ukcov merge`
# and `ukcov run` (issue 16), tests that must catch a named bug (issue
# 20) and the small run/stats items of issue 17.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/53-tool-merge-run.sh
set -u
. tests/lib.sh
TOP=$(pwd)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
U=${UKCOV:-$BD/ukcov}	# UKCOV: another binary, e.g. to see a test fail
CCW=$BD/ukcov-cc
SRC=$TOP/tests/tool/src
REF=$TOP/tests/tool/merge_ref.py

for f in "$U" "$CCW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1

# same_file NAME EXPECTED ACTUAL: byte-identical files.
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		bad "$1" "$(diff "$2" "$3" | head -4 | tr '\n' ' ')"; fi
}

# ---- issue 16 item 7: merge is O(n log n) in modules -------------------
# 80k module lines (2 x 4 MB) took 70 s when each module was looked up
# by a scan of the merged table; an independent model gives the bytes.
python3 "$REF" gen 80000 big1.dump big2.dump
python3 "$REF" merge big1.dump big2.dump >big.ref
t0=$EPOCHREALTIME
timeout 60 "$U" merge -o big.dump big1.dump big2.dump
t1=$EPOCHREALTIME
ms=$(( (${t1/./} - ${t0/./}) / 1000 ))
echo "# merge of 80000 module lines: $ms ms"
[ "$ms" -lt 10000 ] && ok "merge of 80k modules in $ms ms (< 10 s)" ||
	bad "merge of 80k modules" "$ms ms"
same_file "merge of 80k modules equals the model" big.ref big.dump

summary
