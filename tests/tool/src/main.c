#include <stdio.h>
#include <stdlib.h>
int libfn(int);
static int helper(int x)
{
	if (x > 3)
		return x * 2;
	return x + 1;
}
int foo(int x)
{
	return helper(x) + 1;
}
int bar(int x)
{
	if (x > 100)
		return 1;
	return x == 7;
}
int never_called(void)
{
	return 42;
}
int main(int argc, char **argv)
{
	int r = foo(argc);
	if (argc > 2)
		r += bar(atoi(argv[2]));
	if (argc > 1)
		r += libfn(atoi(argv[1]));
	return r == 12345;
}
