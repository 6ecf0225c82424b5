#!/bin/sh
# tests/core/callback-layout.sh OBJ NAME-PREFIX -- the tracing-off path of
# every __sanitizer_cov_trace_* callback in OBJ (not the *_init ones, which
# run once) is the fall-through (the layout rule of
# docs/PERFORMANCE.md "Tracing-off layout"): at most three instructions
# (the TLS offset, the hot pointer's load, the test; or one compare of a
# global), then a conditional jump whose fall-through is "ret".  A taken
# branch on the off path cost 1.3x an empty callback on Intel Ice Lake.
# A callback that records nothing (a bare "ret") passes too.
# Prints one "ok"/"not ok" line per callback; x86-64 only (the caller
# checks).
obj=$1
prefix=$2
objdump -d --no-show-raw-insn "$obj" | awk -v prefix="$prefix" '
    /^[0-9a-f]+ <__sanitizer_cov_trace_[a-z0-9_]+>:$/ {
        name = substr($2, 2, length($2) - 3); n = 0; before = ""
        state = name ~ /_init$/ ? 0 : 1; next }
    state == 1 && /^ +[0-9a-f]+:\t/ {
        split($0, f, "\t"); split(f[2], w, " "); op = w[1]
        if (op == "ret" && n == 0) { print "ok " prefix name " (empty)"; state = 0; next }
        if (op ~ /^j/ && op != "jmp") { state = 2; next }
        before = before " " op
        if (++n > 3) { print "not ok " prefix name ": " before " before the test"; state = 0 }
        next }
    state == 2 && /^ +[0-9a-f]+:\t/ {
        split($0, f, "\t"); split(f[2], w, " ")
        if (w[1] == "ret") print "ok " prefix name
        else print "not ok " prefix name ": off path takes the branch (" w[1] " follows it)"
        state = 0 }'
