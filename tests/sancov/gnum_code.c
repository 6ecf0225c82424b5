/*
 * tests/sancov/gnum_code.c -- instrumented code (trace-pc-guard), built
 * three times: into the executable (-DWHO=exe), a linked shared library
 * (-DWHO=lib) and a dlopen'ed one (-DWHO=dl).  WHO_bounds() returns the
 * module's guard section.
 */
#include <stdint.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

void gb_bounds(uint32_t **s, uint32_t **e);
void CAT(WHO, _bounds)(uint32_t **s, uint32_t **e);
int CAT(WHO, _work)(int x);

int CAT(WHO, _work)(int x)
{
	int r = 0;

	for (int i = 0; i < x; i++)
		r += (i & 1) ? i : -i;
	return r > 3 ? r : 3;
}

void CAT(WHO, _bounds)(uint32_t **s, uint32_t **e)
{
	gb_bounds(s, e);
}
