/* tests/lines/odd.c -- a function holding a byte that is no x86-64
 * instruction (73-lines): the tool says so once and still reports the
 * lines of the other functions. */
#include <stdio.h>

__attribute__((noinline)) void odd(int k)
{
	if (k > 100)
		__asm__ volatile(".byte 0x06"); /* push %es: 32-bit only */
	printf("%d\n", k);
}

int main(int argc, char **argv)
{
	(void)argv;
	odd(argc);
	return 0;
}
