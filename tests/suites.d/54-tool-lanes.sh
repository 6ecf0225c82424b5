#!/bin/sh
# tests/suites.d/54-tool-lanes.sh -- the printer lane (print --lines,
# cmp, trace: tools/printer.c) takes the symbolizing lanes' options
# --no-demangle and --strip-path-prefix (ukcov(1)); before, it always
# demangled and printed DWARF's paths whole.
#
# Run from the top of the tree with $B set (make test does it):
#   B=build tests/suites.d/54-tool-lanes.sh
. tests/lib.sh
TOP=$(pwd)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
U=${UKCOV:-$BD/ukcov}	# UKCOV: another binary, e.g. to see a test fail
CXXW=$BD/ukcov-c++

for f in "$U" "$CXXW"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
cd "$T" || exit 1
cat >cxx.cc <<'SRC'
namespace ns {
int visit(int x)
{
	if (x > 3)
		return x * 2;
	return x + 1;
}
}
int main(int argc, char **argv)
{
	(void)argv;
	return ns::visit(argc) == 7;
}
SRC
"$CXXW" -O0 -g cxx.cc -o cxx && UKCOV_CMP=1 "$CXXW" -O0 -g cxx.cc -o cxxc ||
	{ bad "build" "ukcov-c++ failed"; summary; exit; }
"$U" run -o pc.dump -- ./cxx 1 2 3 4 5 6 2>/dev/null
"$U" run --mode cmp -o cmp.dump -- ./cxxc 1 2 3 4 2>/dev/null

# lane NAME CMD...: CMD's output with --no-demangle --strip-path-prefix
# "$T/" is its default output with ns::visit(int) mangled and "$T/"
# dropped, and the default output names ns::visit(int) (the positive
# control: a C++ point was printed and demangled).
lane() {
	name=$1
	shift
	"$U" "$@" >"$name.default" 2>"$name.err"
	"$U" "$@" --no-demangle --strip-path-prefix "$T/" >"$name.opts" 2>>"$name.err"
	sed -e 's/ ns::visit(int) / _ZN2ns5visitEi /' -e "s# $T/# #" \
		"$name.default" >"$name.want"
	if ! grep -q " ns::visit(int) $T/cxx.cc:" "$name.default"; then
		bad "$name: default demangles" "$(head -2 "$name.default" | tr '\n' ' ') $(cat "$name.err")"
	elif cmp -s "$name.want" "$name.opts"; then
		ok "$name: --no-demangle and --strip-path-prefix"
	else
		bad "$name: --no-demangle and --strip-path-prefix" \
			"$(diff "$name.want" "$name.opts" | head -3 | tr '\n' ' ')"
	fi
}
lane "print --lines" print --lines pc.dump
lane "cmp" cmp cmp.dump

summary
