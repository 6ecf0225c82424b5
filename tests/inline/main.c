/*
 * tests/inline/main.c -- a program for tests/suites.d/57-inline.sh:
 * branches, a switch and a loop here, a function of a linked shared
 * library (solib.c) and one of a dlopen()ed library (dlib.c, argv[1]).
 */
#include <dlfcn.h>
#include <stdio.h>

int solib_sum(int n);

static int classify(int x)
{
	if (x < 0)
		return -1;
	if (x == 0)
		return 0;
	switch (x % 4) {
	case 0:
		return 10;
	case 1:
		return 11;
	default:
		return 12;
	}
}

int main(int argc, char **argv)
{
	int (*dlib_twice)(int);
	void *h;
	int s = 0;

	for (int i = -2; i < argc * 3; i++)
		s += classify(i);
	s += solib_sum(argc + 2);
	if (argc > 1) {
		h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		dlib_twice = (int (*)(int))dlsym(h, "dlib_twice");
		if (!dlib_twice)
			return 1;
		s += dlib_twice(s);
	}
	printf("%d\n", s);
	return 0;
}
