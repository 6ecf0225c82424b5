/*
 * tests/fuzz/mthread.c -- instrumented target whose comparison runs on
 * a thread the input starts, inside a remote section under the common
 * handle it inherits: one 4-byte == at offset 0 there.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ukcov/kcov.h>

struct job {
	const uint8_t *data;
	size_t size;
};

static void *work(void *p)
{
	const struct job *j = p;
	uint32_t x;

	ukcov_remote_start(ukcov_common_handle());
	if (j->size >= 4) {
		memcpy(&x, j->data, 4);
		if (x == 0xfeedfaceU)
			abort();
	}
	ukcov_remote_stop();
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job j = { data, size };
	pthread_t th;

	if (pthread_create(&th, NULL, work, &j) == 0)
		pthread_join(th, NULL);
	return 0;
}
