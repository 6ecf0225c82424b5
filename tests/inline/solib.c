/* tests/inline/solib.c -- a shared library linked by main.c.  Its
 * function calls setjmp(), and returns a second time from it: an inline
 * plugin gives such a function no map kept across calls (a register's
 * value from before the longjmp). */
#include <setjmp.h>

int solib_sum(int n);

static jmp_buf env;

static __attribute__((noinline)) void leave_at(int i, int n)
{
	if (i == n - 1)
		longjmp(env, 1);
}

int solib_sum(int n)
{
	volatile int s = 0;

	if (setjmp(env))
		return s;
	for (int i = 0; i < n; i++) {
		s += i & 1 ? i : -i;
		leave_at(i, n);
	}
	return s;
}
