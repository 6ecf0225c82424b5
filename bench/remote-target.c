/*
 * bench/remote-target.c -- the instrumented code of bench/remote-bench.c
 * (built with -fsanitize-coverage=trace-pc): a one-block leaf and a
 * small "job" with a loop.
 */
#define TARGET __attribute__((noinline))

volatile int rb_sink;

TARGET void rb_leaf(void)
{
	rb_sink = 1;
}

TARGET int rb_job(int x)
{
	int i, s = 0;

	for (i = 0; i < 8; i++)
		s += (x + i) & 1 ? i : -i;
	rb_sink = s;
	return s;
}
