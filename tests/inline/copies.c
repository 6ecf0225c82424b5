/*
 * tests/inline/copies.c -- a program for tests/suites.d/57-inline.sh: a
 * state machine whose loop head gcc -O2 copies into each case (jump
 * threading runs after the coverage pass), so one instrumented block
 * becomes several points.  Each copy must record on its own, in unique
 * mode too, as the copies of a trace-pc call do.
 */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) int run(const char *s)
{
	int state = 0, n = 0;

	for (;;) {
		sink = state;
		switch (state) {
		case 0:
			state = *s == 'a' ? 1 : 2;
			break;
		case 1:
			n += 1;
			state = *++s ? 0 : 3;
			break;
		case 2:
			n += 2;
			state = *++s ? 0 : 3;
			break;
		default:
			return n;
		}
	}
}

int main(int argc, char **argv)
{
	int s = 0;

	for (int i = 1; i < argc; i++)
		s += run(argv[i]);
	printf("%d\n", s);
	return 0;
}
