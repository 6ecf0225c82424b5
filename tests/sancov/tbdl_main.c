/*
 * tests/sancov/tbdl_main.c -- never instrumented.  Loads LIB (bb_work.c
 * built with trace-pc-guard,pc-table), runs bb_a, unloads it, loads it
 * again (at the same address, as glibc usually does), runs bb_a and bb_b and
 * exits with it loaded: under coverage_trace_bb=1 its PC table must be
 * listed once in trace-points, not once per load.  Prints "loaded
 * twice at the same address" or "... another address".
 */
#include <dlfcn.h>
#include <stdio.h>

static void *load_and_run(const char *lib, const char *fn, void **base)
{
	void *h = dlopen(lib, RTLD_NOW);
	void (*f)(void);

	if (!h)
		return NULL;
	*(void **)&f = dlsym(h, fn);
	if (!f)
		return NULL;
	*base = (void *)f;
	f();
	return h;
}

int main(int argc, char **argv)
{
	void *a, *b, *c, *h;

	if (argc != 2 || !(h = load_and_run(argv[1], "bb_a", &a)))
		return 2;
	dlclose(h);
	if (!load_and_run(argv[1], "bb_a", &b) ||
	    !load_and_run(argv[1], "bb_b", &c))
		return 2;
	printf("loaded twice at %s address\n", a == b ? "the same" : "another");
	return 0;
}
