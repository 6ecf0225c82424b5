/* Indirect calls with known targets (60-sancov, caller-callee): the one
 * call site in dispatch_many() calls each of the 20 functions of
 * many[] (more than the old runtime's 14 callees per caller), the one
 * in dispatch_two() calls one() and two(), each several times.
 * "crash": then dies of SIGSEGV. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

uintptr_t __sanitizer_get_total_unique_caller_callee_pairs(void);

typedef int (*fn)(int);

#define F(n) __attribute__((noinline)) int f##n(int x) { return x + n; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)
F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17) F(18) F(19)
__attribute__((noinline)) int one(int x) { return x * 3; }
__attribute__((noinline)) int two(int x) { return x * 5; }

static fn many[20] = { f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11,
		       f12, f13, f14, f15, f16, f17, f18, f19 };
static fn pair[2] = { one, two };

__attribute__((noinline)) int dispatch_many(fn f, int x)
{
	return f(x);
}

__attribute__((noinline)) int dispatch_two(fn f, int x)
{
	return f(x);
}

int main(int argc, char **argv)
{
	int s = 0;

	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 20; i++)
			s += dispatch_many(many[i], i);
	for (int i = 0; i < 7; i++)
		s += dispatch_two(pair[i % 2], i);
	printf("%d\n", s);
	printf("%d pairs\n",
	       (int)__sanitizer_get_total_unique_caller_callee_pairs());
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "crash") == 0)
		raise(SIGSEGV);
	return 0;
}
