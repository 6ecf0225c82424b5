/* tests/afl/plain.c -- an ordinary program (its own main, input from
 * the file named by argv[1] or from stdin), for the fork-per-input
 * mode and the static link of tests/suites.d/75-afl.sh. */
#include <stdio.h>
#include <stdlib.h>

static int classify(const char *s, size_t n)
{
	if (n > 2 && s[0] == 'A' && s[1] == 'B')
		return 2;
	if (n > 0 && s[0] == 'Z')
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	char buf[256];
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
	size_t n;

	if (!f)
		return 1;
	n = fread(buf, 1, sizeof(buf), f);
	printf("class %d\n", classify(buf, n));
	return 0;
}
