/* bench/smoke/target.c -- a tiny instrumented program for the bench smoke
 * test: a few thousand callbacks, then a checksum on stdout. */
#include <stdio.h>

static unsigned step(unsigned x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

int main(void)
{
	unsigned sum = 0;

	for (unsigned i = 1; i < 200; i++)
		for (unsigned x = i; x != 1; x = step(x))
			sum += x;
	printf("smoke checksum=%u\n", sum);
	return 0;
}
