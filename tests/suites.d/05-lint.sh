#!/bin/sh
# Static analysis as a test: scripts/lint.sh runs cppcheck and clang-tidy
# (.clang-tidy) on every C file of lib/, tools/ and the tests, and
# prints "ok TOOL FILE" or "not ok TOOL FILE:" with the findings, then
# "N passed, N failed".  "make lint" runs the same script.
exec scripts/lint.sh
