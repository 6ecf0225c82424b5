#!/bin/sh
# The README's demo: the coverage of one call, saved with ukcov_dump()
# and symbolized by the tool, to the functions and lines of demo/parse.c.
. tests/lib.sh
expect() { # name file pattern: the file has a line matching the pattern
    if grep -Eq "$3" "$2"; then ok "$1"; else bad "$1" "no line /$3/ in: $(head -5 "$2" | tr '\n' '|')"; fi
}

if make --no-print-directory -s B="$B" demo-run >"$T/out" 2>"$T/err"; then
    ok demo-runs
else
    bad demo-runs "$(tail -3 "$T/err" | tr '\n' ' ')"
fi
expect demo-result "$T/out" '^parse_settings\("level=3; retries=5; color=7"\) = 0 \(level 3, retries 5, unknown 1\)$'
expect demo-count "$T/out" '^[1-9][0-9]* PCs recorded$'
# Source files are named as llvm-symbolizer names them: joined with the
# compilation directory, the top of the tree (make builds from there).
SRC="$(pwd | sed 's/[][\.*^$]/\\&/g')/demo/parse\.c"
expect demo-lines-parse_pair "$T/out" "^demo\\+0x[0-9a-f]+ parse_pair $SRC:[0-9]+:[0-9]+\$"
expect demo-lines-parse_settings "$T/out" "^demo\\+0x[0-9a-f]+ parse_settings $SRC:4[6-9]:[0-9]+\$"
expect demo-covered-function "$T/out" "^$SRC:[0-9]+ parse_pair\$"
# Only the traced call is in the dump: nothing from main() or printf.
if grep -E '^demo\+0x[0-9a-f]+ ' "$T/out" | grep -Ev " (parse_pair|parse_settings|skip_spaces|is_key_char) $SRC:" >"$T/stray"; then
    bad demo-only-the-call "$(head -3 "$T/stray" | tr '\n' '|')"
else
    ok demo-only-the-call
fi
# The dump's PCs equal the buffer's: every point is one of parse.o's.
n=$(grep -Ec '^demo\+0x' "$T/out")
pts=$("$B/ukcov" print-coverage-pcs "$B/demo/demo" | wc -l)
if [ "$n" -gt 0 ] && [ "$n" -le "$pts" ]; then ok demo-points-within-binary; else bad demo-points-within-binary "$n of $pts"; fi
summary
