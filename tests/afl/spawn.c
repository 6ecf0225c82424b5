/* tests/afl/spawn.c -- an input whose work is done by a thread it
 * starts: the map must show which branch that thread took. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static volatile int sink;

static void *parse_first(void *arg)
{
	const uint8_t *d = arg;

	if (d[0] == 'A')
		sink = 1;
	else if (d[0] == 'B')
		sink = 2;
	else
		sink = 3;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	pthread_t t;

	if (n < 1 || pthread_create(&t, NULL, parse_first, (void *)d))
		return 0;
	pthread_join(t, NULL);
	return 0;
}
