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

# ---- issue 16 item 11: run with a long $TMPDIR --------------------------
# The temporary files' names were cut to 40 bytes of $TMPDIR: a longer
# one failed, or the files landed in the directory its prefix names.
# The program lists the directories while the tool's files exist.
long=$T/$(printf 'd%.0s' $(seq 200))
mkdir -p "$long"
TMPDIR=$long "$U" run -o long.dump -- sh -c 'ls -A "$TMPDIR"' >long.out 2>long.err
rc=$?
[ $rc -eq 0 ] && grep -q '^mode pc$' long.dump && [ "$(sed 's/-[^-]*$//' long.out)" = ukcov-mod ] &&
	ok "run with a 200-byte TMPDIR writes its files there" ||
	bad "run with a 200-byte TMPDIR" "rc $rc: $(cat long.out long.err | tr '\n' ' ')"
[ -z "$(ls -A "$long")" ] && ok "run removes its files from a long TMPDIR" ||
	bad "run leaves files in TMPDIR" "$(ls -A "$long")"
pre=$T/$(printf 'p%.0s' $(seq $((40 - ${#T} - 1))))
mkdir -p "$pre" "${pre}q/tmp"
[ ${#pre} -eq 40 ] || bad "prefix fixture" "${#pre} bytes"
TMPDIR=${pre}q/tmp "$U" run -o pre.dump -- sh -c 'echo "in prefix:" $(ls -A "$0"); echo "in TMPDIR:" $(ls -A "$TMPDIR")' "$pre" >pre.out 2>pre.err
rc=$?
[ $rc -eq 0 ] && [ "$(sed 's/-[^-]*$//' pre.out)" = "in prefix:
in TMPDIR: ukcov-mod" ] &&
	ok "run: nothing created where TMPDIR's 40-byte prefix points" ||
	bad "run with TMPDIR's prefix a directory" "rc $rc: $(cat pre.out pre.err | tr '\n' ' ')"
toolong=$long/$(printf 'e%.0s' $(seq 4000))
TMPDIR=$toolong "$U" run -o no.dump -- true >no.out 2>no.err
rc=$?
[ $rc -eq 1 ] && [ ! -e no.dump ] && [ "$(cat no.err)" = "ukcov: error: \$TMPDIR is too long (${#toolong} bytes): a temporary file in it needs more than 4095 bytes" ] &&
	ok "run: a TMPDIR too long for a path is a one-line error" ||
	bad "run with a 4 KiB TMPDIR" "rc $rc: $(cat no.err)"

summary
