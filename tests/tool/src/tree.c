/*
 * tests/tool/src/tree.c -- a process tree for `ukcov run` (56-tree):
 *
 *   tree leaf N        call leaf N (1..4)
 *   tree fork-exit     a forked child calls leaf_child and ends with _exit
 *   tree fork-kill     a forked child calls leaf_killed; the parent
 *                      SIGKILLs it
 *   tree exec ARGS...  call leaf_exec, then exec ./tree ARGS (same pid)
 *   tree thread        a second thread calls leaf_thread
 *   tree cmp V         compare V with 0x1234 (a CMP record)
 *
 * Every leaf is its own function, never inlined, so its point names it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEAF(name) __attribute__((noinline)) int name(int x) { return x * 3 + 1; }
LEAF(leaf_1)
LEAF(leaf_2)
LEAF(leaf_3)
LEAF(leaf_4)
LEAF(leaf_child)
LEAF(leaf_killed)
LEAF(leaf_exec)
LEAF(leaf_thread)

static volatile int sink;

__attribute__((noinline)) int cmp_target(unsigned v)
{
	return v == 0x1234;
}

static void *thread_main(void *arg)
{
	sink = leaf_thread((int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int fds[2];
	pid_t p;
	char c;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "leaf") && argc == 3) {
		switch (atoi(argv[2])) {
		case 1: sink = leaf_1(1); break;
		case 2: sink = leaf_2(2); break;
		case 3: sink = leaf_3(3); break;
		case 4: sink = leaf_4(4); break;
		default: return 2;
		}
		return 0;
	}
	if (!strcmp(argv[1], "fork-exit")) {
		p = fork();
		if (p == 0) {
			sink = leaf_child(5);
			_exit(0);
		}
		return waitpid(p, NULL, 0) == p ? 0 : 1;
	}
	if (!strcmp(argv[1], "fork-kill")) {
		if (pipe(fds) < 0)
			return 1;
		p = fork();
		if (p == 0) {
			sink = leaf_killed(6);
			(void)!write(fds[1], "x", 1);
			for (;;)
				pause();
		}
		if (read(fds[0], &c, 1) != 1)
			return 1;
		kill(p, SIGKILL);
		return waitpid(p, NULL, 0) == p ? 0 : 1;
	}
	if (!strcmp(argv[1], "exec") && argc > 2) {
		sink = leaf_exec(7);
		argv[1] = "./tree";
		execv(argv[1], argv + 1);
		return 127;
	}
	if (!strcmp(argv[1], "thread")) {
		pthread_t th;

		if (pthread_create(&th, NULL, thread_main, (void *)8L))
			return 1;
		return pthread_join(th, NULL) ? 1 : 0;
	}
	if (!strcmp(argv[1], "cmp") && argc == 3) {
		sink = cmp_target((unsigned)strtoul(argv[2], NULL, 0));
		return 0;
	}
	return 2;
}
