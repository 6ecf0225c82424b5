#include <stdlib.h>
#include "inl.h"
__attribute__((noinline)) int work(int v)
{
	int s = 0;
	for (int i = 0; i < v; i++)
		s += inl_clamp(i * 7 - 3);
	return s;
}
int dead_fn(int x) { return inl_clamp(x) + 1; }
int main(int argc, char **argv)
{
	return work(argc > 1 ? atoi(argv[1]) : 3) == -1;
}
