/* tests/lines/lines.c -- 73-lines.sh runs it as `lines 3`. */
#include <assert.h>
#include <stdlib.h>
#include "inl.h"

int cold_file(int n);
int early(int x);

__attribute__((noinline)) int both(int a, int b)
{
	int r = 0;

	if (a && b)
		r = 1;
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	int s = 0;

	assert(n >= 0);
	for (int i = 0; i < n; i++) {
		s += twice(i);
		s ^= i;
	}
	s += both(argc > 5, n);
	if (argc > 5)
		s += cold_file(n);
	return s + early(n) == 12345;
}

/* gcc -O0 sets the return value of "return 0;" and falls through into
 * the shared return block, whose coverage call is still on that line:
 * the call must not mark it. */
__attribute__((noinline)) int early(int x)
{
	if (x > 0)
		return x;
	return 0;
}
