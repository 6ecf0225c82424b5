/* Fixture for "ukcov run --threads all": three worker threads, each in a
 * function of its own, and one function only the main thread runs. */
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

static void *worker_a(void *arg) { sink += 1; return arg; }
static void *worker_b(void *arg) { sink += 2; return arg; }
static void *worker_c(void *arg) { sink += 3; return arg; }

static int main_only(int n)
{
	return n > 2 ? n * 2 : n;
}

int main(void)
{
	void *(*fn[3])(void *) = { worker_a, worker_b, worker_c };
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, fn[i], NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%d %d\n", sink, main_only(3));
	return 0;
}
