/* tests/static/target.c -- the only instrumented code of the static
 * test: one basic block, one trace_pc record per call (both compilers,
 * -O2). */
void static_leaf(void);

__attribute__((noinline)) void static_leaf(void)
{
	__asm__ volatile("" ::: "memory");
}
