/* tests/lines/split.c -- a function gcc -O2 splits in two: the path to
 * the cold die() goes to check.cold in .text.unlikely, below check in
 * .text, so check's DWARF ranges are listed hot part first, out of
 * address order (73-lines).  "split N" takes the cold path (exit
 * status 2) when N is 42. */
#include <stdio.h>
#include <stdlib.h>

void die(const char *s) __attribute__((cold, noreturn));
int check(int x, int y);

int check(int x, int y)
{
	for (int i = 0; i < y; i++) {
		if (x == 42 + i)
			die("bad");
		x += i;
	}
	return x + y;
}

void die(const char *s)
{
	puts(s);
	exit(2);
}

int main(int argc, char **argv)
{
	printf("%d\n", check(argc > 1 ? atoi(argv[1]) : 0, 3));
	return 0;
}
