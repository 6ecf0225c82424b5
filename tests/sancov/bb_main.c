/* Harness (not instrumented) for the basic-block trace tests
 * (60-sancov).  Calls the instrumented bb_a/bb_b/bb_c of bb_work.c in
 * known per-thread sequences:
 *   threads: thread 1 (main) "abca" x 100; then thread 2 "bbc" x 1000
 *            and thread 3 "cab" x 1000, concurrently; thread 3 makes its
 *            first call after thread 2's first (so the numbers are 2
 *            and 3 in that order).
 *   fork:    parent "a", fork; child "bb" then exit(0); parent waits,
 *            then "c".
 *   crash:   "ab", then SIGSEGV.
 *   dump:    "ab", __sanitizer_cov_dump(), "ca": the files at exit
 *            hold all four events.
 * Prints "done" (not in crash). */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void bb_a(void);
void bb_b(void);
void bb_c(void);
void __sanitizer_cov_dump(void);

static sem_t first_done;

static void run(const char *pat, int reps, int post_after_first)
{
	for (int r = 0; r < reps; r++)
		for (const char *p = pat; *p; p++) {
			if (*p == 'a')
				bb_a();
			else if (*p == 'b')
				bb_b();
			else
				bb_c();
			if (post_after_first && r == 0 && p == pat)
				sem_post(&first_done);
		}
}

static void *t2(void *arg)
{
	(void)arg;
	run("bbc", 1000, 1);
	return NULL;
}

static void *t3(void *arg)
{
	(void)arg;
	run("cab", 1000, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";

	if (strcmp(mode, "threads") == 0) {
		pthread_t a, b;

		sem_init(&first_done, 0, 0);
		run("abca", 100, 0);
		pthread_create(&a, NULL, t2, NULL);
		sem_wait(&first_done);
		pthread_create(&b, NULL, t3, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else if (strcmp(mode, "fork") == 0) {
		pid_t pid;
		int st;

		run("a", 1, 0);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			run("bb", 1, 0);
			exit(0);	/* the files are written at exit */
		}
		waitpid(pid, &st, 0);
		printf("child %d\n", (int)pid);
		run("c", 1, 0);
	} else if (strcmp(mode, "dump") == 0) {
		run("ab", 1, 0);
		__sanitizer_cov_dump();
		run("ca", 1, 0);
	} else if (strcmp(mode, "crash") == 0) {
		run("ab", 1, 0);
		raise(SIGSEGV);
	}
	printf("done\n");
	return 0;
}
