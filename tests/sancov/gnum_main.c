/*
 * tests/sancov/gnum_main.c -- never instrumented.  Prints the guard
 * numbers each module got: the linked library, the executable, a
 * dlopen'ed library, then what repeated, empty and overlapping init
 * calls do, then the dlopen'ed library again after dlclose.  Each line
 * is "NAME first last" (first and last guard value), after checking
 * that the guards of a section are consecutive.  60-sancov.sh compares
 * the lines with the numbering compiler-rt gives the same program.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void exe_bounds(uint32_t **s, uint32_t **e);
void lib_bounds(uint32_t **s, uint32_t **e);
int exe_work(int x);
int lib_work(int x);

static void show(const char *name, uint32_t *s, uint32_t *e)
{
	for (uint32_t *p = s; p < e; p++)
		if (*p != *s + (uint32_t)(p - s)) {
			printf("%s not consecutive at %ld\n", name, (long)(p - s));
			exit(1);
		}
	if (s == e)
		printf("%s empty\n", name);
	else
		printf("%s %u %u\n", name, *s, e[-1]);
}

static void show_dl(const char *name, const char *path)
{
	void (*bounds)(uint32_t **, uint32_t **);
	int (*work)(int);
	uint32_t *s, *e;
	void *h = dlopen(path, RTLD_NOW);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		exit(1);
	}
	*(void **)&bounds = dlsym(h, "dl_bounds");
	*(void **)&work = dlsym(h, "dl_work");
	bounds(&s, &e);
	work(5);
	show(name, s, e);
	dlclose(h);
}

int main(int argc, char **argv)
{
	static uint32_t g[8];
	uint32_t *s, *e;

	if (argc < 2)
		return 2;
	lib_bounds(&s, &e);
	show("lib", s, e);
	exe_bounds(&s, &e);
	show("exe", s, e);
	exe_work(4);
	lib_work(4);
	show_dl("dl", argv[1]);
	/* The executable's section again: compiler-rt ignores it. */
	exe_bounds(&s, &e);
	__sanitizer_cov_trace_pc_guard_init(s, e);
	show("exe-again", s, e);
	/* A fresh array, then a range overlapping it (first guard already
	 * numbered: ignored), then an empty range (ignored). */
	__sanitizer_cov_trace_pc_guard_init(g, g + 4);
	__sanitizer_cov_trace_pc_guard_init(g + 2, g + 8);
	__sanitizer_cov_trace_pc_guard_init(g + 6, g + 6);
	printf("arr");
	for (int i = 0; i < 8; i++)
		printf(" %u", g[i]);
	printf("\n");
	show_dl("dl-reloaded", argv[1]);
	return 0;
}
