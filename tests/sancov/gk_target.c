/*
 * tests/sancov/gk_target.c -- instrumented (clang trace-pc-guard, -O0):
 * one if/else, so that each direction runs a known subset of the
 * function's guard call sites, in address order.
 */
int gk_target(int x);

int gk_target(int x)
{
	int r;

	if (x == 1)
		r = 10;
	else
		r = 20;
	return r;
}

/* Built with trace-div,trace-gep too: one div4, one div8 and one gep
 * call, in this order, at -O0. */
int gk_divgep(int x, long long y, int i);
static int gk_arr[16];

int gk_divgep(int x, long long y, int i)
{
	int q = 1000 / x;
	long long q2 = 100000LL / y;

	return q + (int)q2 + gk_arr[i];
}
