/* tests/tool/src/tdrops.c -- three worker threads that each overflow a
 * small trace by a different amount, and a main thread that does too
 * (tests/suites.d/53-tool-merge-run.sh: the drops of --threads all are
 * the sum over the threads). */
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

static int step(int i)
{
	return i & 1 ? i * 3 : i / 2;
}

static void *worker(void *arg)
{
	int n = *(const int *)arg, s = 0;

	for (int i = 0; i < n; i++)
		s += step(i);
	sink += s;
	return NULL;
}

int main(void)
{
	static const int rounds[3] = { 50, 100, 150 };
	pthread_t t[3];

	for (int i = 0; i < 3; i++) {
		pthread_create(&t[i], NULL, worker, (void *)&rounds[i]);
		/* One at a time: each thread's trace is its own either way,
		 * but the order of the blocks stays fixed. */
		pthread_join(t[i], NULL);
	}
	printf("%d\n", sink + (int)(long)worker((void *)&rounds[0]));
	return 0;
}
