/*
 * examples/fuzz_pool.c -- a fuzz target inside a busy process: the
 * first input starts a pool of 8 worker threads and a timer thread
 * that keep doing work of their own (housekeeping jobs with branches
 * that depend on time), while each input is parsed on the calling
 * thread.  AFL++'s one global map sees the pool's edges at random
 * and calls the target unstable; libukcov records only the thread that
 * runs the input (docs/DESIGN.md, "AFL++").
 *
 *   ukcov-cc -O2 -fsanitize=fuzzer fuzz_pool.c -o pool
 *   mkdir in && echo hello > in/a
 *   afl-fuzz -i in -o out -- ./pool              # stability: 100%
 *
 *   afl-clang-fast -O2 -fsanitize=fuzzer fuzz_pool.c -o pool-afl
 *   afl-fuzz -i in -o out-afl -- ./pool-afl      # stability: lower
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORKERS 8

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static unsigned long jobs;	/* queued housekeeping jobs */
static volatile unsigned long sink;

/* Housekeeping: which branches run depends on the clock. */
static void housekeeping(unsigned long job)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	switch ((job ^ (unsigned long)ts.tv_nsec) % 5) {
	case 0: sink += job; break;
	case 1: sink ^= job << 3; break;
	case 2: if (ts.tv_nsec & 1) sink--; else sink++; break;
	case 3: for (unsigned long i = 0; i < (job & 7); i++) sink += i; break;
	default: sink = ts.tv_nsec; break;
	}
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		unsigned long job;

		pthread_mutex_lock(&lock);
		while (jobs == 0)
			pthread_cond_wait(&more, &lock);
		job = jobs--;
		pthread_mutex_unlock(&lock);
		housekeeping(job);
	}
	return NULL;
}

/* Every 200 us a few jobs, as a server's timers queue them. */
static void *timer(void *arg)
{
	struct timespec tick = { 0, 200000 };

	(void)arg;
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&lock);
		jobs += 4 + (unsigned long)(sink & 3);
		pthread_cond_broadcast(&more);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void start_pool(void)
{
	pthread_t t;

	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t, NULL, worker, NULL);
	pthread_create(&t, NULL, timer, NULL);
}

/* The input's own work: a little command language. */
static int parse(const uint8_t *d, size_t n)
{
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		switch (d[i]) {
		case '(': depth++; break;
		case ')': if (--depth < 0) return -1; break;
		case '#': return depth;
		case 'x': if (i + 1 < n && d[i + 1] == 'y') depth += 2; break;
		default: break;
		}
	}
	return depth;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, start_pool);
	if (parse(d, n) > 3 && n > 8 && !memcmp(d, "((((", 4))
		sink++;
	return 0;
}
