/*
 * tests/sancov/modes.c -- one program that makes a compiler emit every
 * SanitizerCoverage callback its flags ask for: compares of each width,
 * float compares (gcc), a switch, divisions, array indexing, loads and
 * stores, an indirect call and recursion.  60-sancov.sh builds it with
 * each -fsanitize-coverage mode of gcc 12 and clang 14 and links it
 * with -lukcov and with libukcov.a: it must link, run, and print the
 * same line whatever the mode.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

static int cmp_all(int8_t a, int16_t b, int32_t c, int64_t d, double f)
{
	int r = 0;

	if (a < 3) r++;
	if (b != c) r++;
	if (c > (int32_t)d) r++;
	if (d == 77) r++;
	if (f > 1.5) r++;
	return r;
}

static int sw(int v)
{
	switch (v) {
	case -1: return 10;
	case 7: return 20;
	case 300: return 30;
	default: return 40;
	}
}

static int deep(int n)
{
	char pad[64];

	pad[n % 64] = (char)n;
	sink = pad[n % 64];
	return n ? deep(n - 1) + 1 : 0;
}

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

int main(int argc, char **argv)
{
	int (*volatile fn)(int) = argc > 5 ? thrice : twice;
	int arr[16], total = 0, div = argc + 1;
	long long ldiv = argc + 2;
	int idx = argc + 3;

	(void)argv;
	for (int i = 0; i < 16; i++)
		arr[i] = i;
	total += cmp_all((int8_t)argc, 5, 6, 77, 2.5);
	total += sw(argc) + sw(7) + sw(300) + sw(-1);
	total += 100 / div + (int)(1000LL / ldiv);
	total += arr[idx];
	total += fn(4);
	total += deep(20);
	printf("total %d\n", total);
	return 0;
}
