/* tests/static/target.c -- the only instrumented code of the static
 * test: functions of one basic block, one trace_pc record per call
 * (both compilers, -O2).  The thread leaves tell the threads of
 * "prog threads" apart. */
void static_leaf(void);
void thread_leaf_a(void);
void thread_leaf_b(void);

__attribute__((noinline)) void static_leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void thread_leaf_a(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void thread_leaf_b(void)
{
	__asm__ volatile("" ::: "memory");
}
