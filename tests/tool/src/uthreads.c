/* tests/tool/src/uthreads.c -- two worker threads repeating the same few
 * comparisons many times, and the main thread its own
 * (tests/suites.d/55-unique.sh, --mode cmp-unique --threads all). */
#include <pthread.h>
#include <stdio.h>

static const int tab[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
static volatile int sink;

static void *worker(void *arg)
{
	int k = *(const int *)arg, s = 0;

	for (int r = 0; r < 1000; r++)
		for (int i = 0; i < 8; i++)
			if (tab[i] == k)
				s++;
	sink += s;
	return NULL;
}

int main(void)
{
	static const int keys[2] = { 1, 9 };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)&keys[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d\n", sink > 100 ? sink : -1);
	return 0;
}
