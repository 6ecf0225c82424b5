/* A function whose coverage points straddle a power of 16: SKIP bytes
 * in its middle (50-tool computes them from where a first build put
 * wide()) move its second half past the next power of 16, so its ids
 * there have one hex digit more than before: address order and string
 * order of the ids then differ. */
#include <stdio.h>
#include <stdlib.h>

#ifndef SKIP
#define SKIP "0"
#endif

__attribute__((noinline)) static int wide(int x)
{
	int r = 0;

	if (x > 1)
		r += puts("one");
	__asm__ volatile(".skip " SKIP ", 0x90");
	if (x > 2)
		r += puts("two");
	return r;
}

int main(int argc, char **argv)
{
	return wide(argc > 1 ? atoi(argv[1]) : 3) < 0;
}
