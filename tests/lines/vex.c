/* tests/lines/vex.c -- floating-point code that gcc and clang encode
 * with VEX under -mavx2 (73-lines): its lines from basic blocks must be
 * those of the build without it. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double mix(double a, double b, int k)
{
	double r = a * b + 1.0;

	if (k > 2)
		r = r / (a + 3.0);
	for (int i = 0; i < k; i++)
		r = r * 0.5 + b;
	if (r > 1e9)
		puts("huge");
	return r;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 3;

	printf("%f\n", mix(1.5, 2.5, k));
	return 0;
}
