/*
 * tests/sancov/sd_main.c -- never instrumented.  __sancov_lowest_stack
 * is per thread, starts at UINTPTR_MAX, and after sd_deep(20) holds
 * exactly the frame address of the deepest call, sd_deep(0) (sd_deep
 * calls itself, so it is instrumented as a non-leaf function; at -O2
 * the recursion becomes a loop in one frame: the same address).  A second thread starts at UINTPTR_MAX again
 * and does not move the first thread's value.  Prints one "ok"/"bad"
 * line per check.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

extern __thread uintptr_t __sancov_lowest_stack;
uintptr_t sd_deep(int n);

static int failures;

static void check(const char *name, int ok)
{
	printf("%s %s\n", ok ? "ok" : "bad", name);
	failures += !ok;
}

static void check_thread(const char *who)
{
	char name[64];
	uintptr_t leaf;

	snprintf(name, sizeof(name), "%s-starts-at-max", who);
	check(name, __sancov_lowest_stack == UINTPTR_MAX);
	leaf = sd_deep(20);
	snprintf(name, sizeof(name), "%s-lowest-is-deepest-frame", who);
	check(name, __sancov_lowest_stack == leaf);
}

static void *thread_main(void *arg)
{
	(void)arg;
	check_thread("thread");
	return NULL;
}

int main(void)
{
	pthread_t th;
	uintptr_t mine;

	check_thread("main");
	mine = __sancov_lowest_stack;
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	check("main-unchanged-by-thread", __sancov_lowest_stack == mine);
	return failures != 0;
}
