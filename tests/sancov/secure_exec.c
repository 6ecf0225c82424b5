/*
 * tests/sancov/secure_exec.c -- never instrumented.  What "ukcov run"
 * does, reduced to what 61-sancov-env.sh checks: a child enables a
 * Linux-flavor descriptor (KCOV_TRACE_PC) and execs PROG with it
 * inherited; the parent waits and prints the buffer's record count:
 *
 *	records N
 *
 * A new image that takes the descriptor over records its trace-pc
 * PCs (N > 0); one that does not (an AT_SECURE image) leaves N at 0.
 * Usage: secure_exec PROG ARGS...  Exit status: PROG's, or 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

#define WORDS 65536UL

int main(int argc, char **argv)
{
	uint64_t *area;
	int fd, status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: secure_exec PROG ARGS...\n");
		return 2;
	}
	fd = ukcov_open(UKCOV_LINUX);
	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, WORDS) != 0) {
		perror("secure_exec: descriptor");
		return 2;
	}
	area = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	if (area == MAP_FAILED) {
		perror("secure_exec: mmap");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		if (ukcov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0) {
			perror("secure_exec: KCOV_ENABLE");
			_exit(2);
		}
		execv(argv[1], argv + 1);
		perror("secure_exec: execv");
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("secure_exec: fork/wait");
		return 2;
	}
	printf("records %llu\n",
	       (unsigned long long)__atomic_load_n(&area[0], __ATOMIC_RELAXED));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
