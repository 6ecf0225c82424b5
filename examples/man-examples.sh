#!/bin/sh
# examples/man-examples.sh OUTDIR PAGE... -- write every complete C
# program found in the EXAMPLES section of the given mdoc pages to
# OUTDIR/<page>_<section>-<n>.c and print the names, so the pages'
# examples compile and run as tests and cannot rot (as jq runs the
# examples of its manual).
#
# A program is a .Bd -literal display in EXAMPLES that defines main().
# The mdoc escapes used in code (\e \& \- \(aq \(dq) are undone.
set -e
out=$1
shift
mkdir -p "$out"
for page in "$@"; do
    base=$(basename "$page" | tr . _)
    awk -v out="$out" -v base="$base" '
        function unescape(s) {
            gsub(/\\&/, "", s)
            gsub(/\\-/, "-", s)
            gsub(/\\\(aq/, "\047", s)
            gsub(/\\\(dq/, "\"", s)
            gsub(/\\e/, "\\", s)
            return s
        }
        /^\.Sh / { inex = ($2 == "EXAMPLES") }
        inex && /^\.Bd -literal/ { inbd = 1; n_lines = 0; has_main = 0; next }
        inbd && /^\.Ed/ {
            inbd = 0
            if (has_main) {
                f = out "/" base "-" ++n ".c"
                for (i = 1; i <= n_lines; i++)
                    print lines[i] > f
                close(f)
                print f
            }
            next
        }
        inbd {
            lines[++n_lines] = unescape($0)
            if ($0 ~ /^(int )?main\(/)
                has_main = 1
        }
    ' "$page"
done
