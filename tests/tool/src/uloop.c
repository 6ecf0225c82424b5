/* tests/tool/src/uloop.c -- a loop whose trace overflows any buffer
 * while its coverage is a handful of points (tests/suites.d/55-unique.sh).
 * usage: uloop N */
#include <stdio.h>
#include <stdlib.h>

static int classify(long i)
{
	if (i % 15 == 0)
		return 3;
	if (i % 5 == 0)
		return 2;
	if (i % 3 == 0)
		return 1;
	return 0;
}

static int compare(long a, long b)
{
	return a == b + 7 || (unsigned char)a == 0x5a || (short)b == 0x1234;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, c[4] = { 0 }, k = 0;

	for (long i = 0; i < n; i++) {
		c[classify(i)]++;
		k += compare(i % 64, i % 9);
	}
	if (n < 0)
		puts("never");
	printf("%ld %ld %ld %ld %ld\n", c[0], c[1], c[2], c[3], k);
	return 0;
}
