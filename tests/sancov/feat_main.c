/*
 * tests/sancov/feat_main.c -- never instrumented.  The seed's removed
 * features on feat_target.c's four guards (a, b, c, d):
 *   api       coverage_counters=1: prints the total unique coverage, the
 *             number of counters, and the bitset updates (one byte per
 *             counter, hex); then counts a 5, b 40, c 200 times for the
 *             files written at exit
 *   kill      feat_a, feat_b, then SIGKILL (coverage_direct=1)
 *   forkkill  the child runs feat_c and SIGKILLs itself; the parent
 *             then runs feat_a and exits
 *   last      feat_d alone (the last guard): the total unique coverage,
 *             then __sanitizer_cov_reset() and the total again; then
 *             feat_a for the file written at exit
 *   dump3     feat_a, dump, feat_b, dump, feat_c, dump, then _exit:
 *             the file is the third dump's (each replaces the one this
 *             process wrote before)
 *   zeroed    feat_d's guard set to 0 by the program (compiler-rt's way
 *             of turning one point off), feat_d, the total; feat_a, the
 *             total
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/sancov.h>

void feat_a(void);
void feat_b(void);
void feat_c(void);
void feat_d(void);

static void times(void (*fn)(void), int n)
{
	for (int i = 0; i < n; i++)
		fn();
}

static void run_counts(void)
{
	times(feat_a, 5);
	times(feat_b, 40);
	times(feat_c, 200);
}

static void show_bitset(const char *tag, uintptr_t fresh, const uint8_t *bs)
{
	printf("%s %lu:", tag, (unsigned long)fresh);
	for (int i = 0; i < 4; i++)
		printf(" %02x", bs[i]);
	printf("\n");
}

static int api(void)
{
	uint8_t bs[8] = { 0 };
	uintptr_t r;

	printf("total %lu\n", (unsigned long)__sanitizer_get_total_unique_coverage());
	run_counts();
	printf("total %lu\n", (unsigned long)__sanitizer_get_total_unique_coverage());
	printf("counters %lu\n", (unsigned long)__sanitizer_get_number_of_counters());
	r = __sanitizer_update_counter_bitset_and_clear_counters(bs);
	show_bitset("update", r, bs);
	feat_a();
	r = __sanitizer_update_counter_bitset_and_clear_counters(bs);
	show_bitset("update", r, bs);
	r = __sanitizer_update_counter_bitset_and_clear_counters(bs);
	show_bitset("update", r, bs);
	run_counts();
	return 0;
}

static int last_guard(void)
{
	feat_d();
	printf("total %lu\n", (unsigned long)__sanitizer_get_total_unique_coverage());
	__sanitizer_cov_reset();
	printf("reset total %lu\n", (unsigned long)__sanitizer_get_total_unique_coverage());
	feat_a();
	return 0;
}

/* The guards of feat_target.c, the only instrumented unit, in order. */
extern uint32_t __start___sancov_guards[], __stop___sancov_guards[];

static int zeroed_guard(void)
{
	/* The linker's bounds of one section: one object to C. */
	// cppcheck-suppress comparePointers
	if (__stop___sancov_guards - __start___sancov_guards != 4)
		return 3;
	__start___sancov_guards[3] = 0;
	feat_d();
	printf("total %lu\n",
	       (unsigned long)__sanitizer_get_total_unique_coverage());
	feat_a();
	printf("total %lu\n",
	       (unsigned long)__sanitizer_get_total_unique_coverage());
	return 0;
}

static void dump3(void)
{
	feat_a();
	__sanitizer_cov_dump();
	feat_b();
	__sanitizer_cov_dump();
	feat_c();
	__sanitizer_cov_dump();
	_exit(0);	/* no dump at exit: the file stays the third's */
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "api";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(cmd, "api"))
		return api();
	if (!strcmp(cmd, "last"))
		return last_guard();
	if (!strcmp(cmd, "dump3"))
		dump3();
	if (!strcmp(cmd, "zeroed"))
		return zeroed_guard();
	if (!strcmp(cmd, "kill")) {
		feat_a();
		feat_b();
		raise(SIGKILL);
	}
	if (!strcmp(cmd, "forkkill")) {
		pid_t p = fork();
		int st;

		if (p == 0) {
			feat_c();
			raise(SIGKILL);
		}
		waitpid(p, &st, 0);
		feat_a();
		printf("child %s\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "killed" : "?");
		return 0;
	}
	return 2;
}
