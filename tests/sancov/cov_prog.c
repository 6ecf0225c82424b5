/*
 * tests/sancov/cov_prog.c -- the program of the coverage-file tests
 * (UKCOV_OPTIONS=coverage=1), built with clang trace-pc-guard, clang
 * trace-pc and gcc trace-pc.  argv[1] picks what it does; each path
 * runs its own marker function(s), so a test can tell from the
 * .sancov file which code ran:
 *   run              marker_a, prints "done", exits 0
 *   reset            marker_a, __sanitizer_cov_reset(), marker_b
 *   fork             the child runs child_only and exits 0; the parent
 *                    waits and runs marker_a
 *   segv|bus|abort|fpe|ill   marker_a, then dies of that signal
 *   handler          installs a SIGSEGV handler that prints "handler"
 *                    and restores SIG_DFL, then faults: dies of SIGSEGV
 *   fill DIR         marker_a, __sanitizer_cov_dump(), fills DIR's file
 *                    system, runs marker_b, prints "done"
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void __sanitizer_cov_dump(void);
void __sanitizer_cov_reset(void);

static volatile int sink;

__attribute__((noinline)) void marker_a(void);
__attribute__((noinline)) void marker_b(void);
__attribute__((noinline)) void child_only(void);

__attribute__((noinline)) void marker_a(void) { sink += 1; }
__attribute__((noinline)) void marker_b(void) { sink += 2; }
__attribute__((noinline)) void child_only(void) { sink += 3; }

static void on_segv(int sig)
{
	static const char msg[] = "handler\n";

	(void)!write(1, msg, sizeof(msg) - 1);
	signal(sig, SIG_DFL);
}

static void fill(const char *dir)
{
	char path[4096], block[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	memset(block, 'x', sizeof(block));
	while (fd >= 0 && write(fd, block, sizeof(block)) > 0)
		;
	if (fd >= 0)
		close(fd);
}

static int crash(const char *how)
{
	volatile int zero = 0;
	int *volatile null = NULL;

	if (!strcmp(how, "segv"))
		return *null;
	if (!strcmp(how, "fpe"))
		return 10 / zero;
	if (!strcmp(how, "ill"))
		__builtin_trap();
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "bus"))
		raise(SIGBUS);
	return -1;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(cmd, "reset")) {
		marker_a();
		__sanitizer_cov_reset();
		marker_b();
	} else if (!strcmp(cmd, "fork")) {
		pid_t p = fork();
		int st;

		if (p == 0) {
			child_only();
			exit(0);
		}
		waitpid(p, &st, 0);
		marker_a();
	} else if (!strcmp(cmd, "handler")) {
		marker_a();
		signal(SIGSEGV, on_segv);
		crash("segv");
	} else if (!strcmp(cmd, "fill") && argc > 2) {
		marker_a();
		__sanitizer_cov_dump();
		fill(argv[2]);
		marker_b();
	} else if (strcmp(cmd, "run") != 0) {
		marker_a();
		return crash(cmd);
	} else {
		marker_a();
	}
	printf("done\n");
	return 0;
}
