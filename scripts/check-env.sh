#!/bin/sh
# scripts/check-env.sh -- every environment variable that lib/ or tools/
# reads is documented in a man page.
#
#   scripts/check-env.sh
#
# The variables: string literals passed to getenv(), ukcov__env() or a
# helper taking the name (ukcov__env_open_append, callbacks.c's
# gate_open_if), and every "UKCOV_*" literal of lib/ and tools/.  Each
# must appear as ".Ev NAME" (or in an ".It Ev" list) in man/*.[1-9].
# Prints "not ok env NAME: in no man page" per missing one, then
# "N passed, N failed"; "make lint" runs it (scripts/lint.sh).
set -u
names=$( {
    grep -rhoE '(getenv|ukcov__env|ukcov__env_open_append|gate_open_if)\([^;]*"[A-Z_][A-Z0-9_]*"' lib tools |
        grep -oE '"[A-Z_][A-Z0-9_]*"'
    grep -rhoE '"UKCOV_[A-Z0-9_]+"' lib tools
} | tr -d '"' | sort -u)
pass=0 fail=0
for v in $names; do
    if grep -qE "^\.(It )?Ev ([A-Z0-9_]+ , )*$v( |$)" man/*.[1-9]; then
        pass=$((pass + 1))
    else
        echo "not ok env $v: in no man page (document it in ENVIRONMENT)"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
