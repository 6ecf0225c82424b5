/* tests/tool/src/nested.c -- a GNU C nested function (gcc only): the
 * symbolizer's index of functions misses it, and the tool finds it from
 * the DWARF scopes of its address (50-tool). */
#include <stdio.h>

int apply(int (*f)(int), int v);

int apply(int (*f)(int), int v)
{
	return f(v);
}

static int outer(int k)
{
	int inner(int x)
	{
		return x * k + 1;
	}
	return apply(inner, 3);
}

int main(void)
{
	printf("%d\n", outer(2));
	return 0;
}
