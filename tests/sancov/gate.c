/*
 * tests/sancov/gate.c -- the guard callback's gate, or with -DPC_GATE
 * trace_pc's (lib/callbacks.c, gate_open): prints the three bytes at the gate ("75 01 c3"
 * closed: jne on; ret, or "0f 1f 00" open: a nop), then runs marker().
 * Built with clang trace-pc-guard (-DPC_GATE: gcc or clang trace-pc)
 * and linked with libukcov.
 *   GATE_THREAD=1  a constructor that runs before the runtime's starts a
 *                  thread first: the gate must stay closed (it is only
 *                  rewritten while the process has one thread).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The gate follows the callback's first three instructions: the GOT
 * load of __ukcov_sancov (7 bytes, or the lea a static link relaxes it
 * to), the load of its word (2, or 3 for trace_pc's word at offset 4)
 * and the test (2).  -DPC_GATE: trace_pc's gate (a trace-pc build). */
#ifdef PC_GATE
void __sanitizer_cov_trace_pc(void);
#define GATED ((const unsigned char *)&__sanitizer_cov_trace_pc)
#define GATE_OFFSET 12
#else
void __sanitizer_cov_trace_pc_guard(unsigned *guard);
#define GATED ((const unsigned char *)&__sanitizer_cov_trace_pc_guard)
#define GATE_OFFSET 11
#endif

static volatile int sink;
static volatile int started;

__attribute__((noinline)) void marker(void);
__attribute__((noinline)) void marker(void) { sink += 1; }

static void *idle(void *arg)
{
	(void)arg;
	started = 1;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor(50))) static void early_thread(void)
{
	const char *v = getenv("GATE_THREAD");
	pthread_t th;

	if (v && *v == '1' && pthread_create(&th, NULL, idle, NULL) == 0) {
		pthread_detach(th);
		while (!started)	/* idle() is covered in every run */
			sched_yield();
	}
}

int main(void)
{
	const unsigned char *g = GATED + GATE_OFFSET;

	printf("gate %02x %02x %02x\n", g[0], g[1], g[2]);
	marker();
	return 0;
}
