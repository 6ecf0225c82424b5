/* tests/tool/src/uguard_target.c -- instrumented (clang trace-pc-guard,
 * -O0) for tests/suites.d/55-unique.sh: a few guarded blocks. */
int ug_a(int x);
int ug_b(void);

int ug_a(int x)
{
	int r;

	if (x)
		r = 1;
	else
		r = 2;
	return r;
}

int ug_b(void)
{
	return 7;
}
