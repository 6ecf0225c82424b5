/* tests/afl/remote.c -- an input whose work a worker that already
 * exists does, in a remote section for the input thread's common
 * handle (ukcov_remote_start(3)): the map must show which branch the
 * worker took.  The worker starts in the driver's throwaway call. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <ukcov/kcov.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int job = -1, done;
static uint64_t job_handle;
static volatile int sink;

static void parse_byte(int c)
{
	if (c == 'A')
		sink = 1;
	else if (c == 'B')
		sink = 2;
	else
		sink = 3;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (job < 0)
			pthread_cond_wait(&cv, &mu);
		ukcov_remote_start(job_handle);
		parse_byte(job);
		ukcov_remote_stop();
		job = -1;
		done = 1;
		pthread_cond_broadcast(&cv);
	}
	return NULL;
}

static void start_worker(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, start_worker);
	if (n < 1)
		return 0;
	pthread_mutex_lock(&mu);
	job_handle = ukcov_common_handle();
	job = d[0];
	done = 0;
	pthread_cond_broadcast(&cv);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return 0;
}
