/*
 * bench/kcovrun.c -- run one workload the way a kcov user would, and time it.
 *
 *   kcovrun [-k none|ukcov|ref] [-m pc|cmp|unique|cmp-unique] [-b WORDS]
 *           [-w WORDS] [-r] [-c CPU] -- PROG ARG...
 *
 * -k ukcov  the real kcov protocol on a ukcov descriptor: ukcov_open,
 *           KCOV_INIT_TRACE(WORDS), mmap MAP_SHARED, fork; the child does
 *           KCOV_ENABLE(mode) and execs PROG, whose runtime takes the enabled
 *           inherited descriptor over before main.
 * -k ref    the same buffer protocol for the reference runtime (rt/refcov.c):
 *           a memfd named in the child's environment.
 * -k none   plain fork and exec (uninstrumented and tracing-off builds), so
 *           every configuration pays the same launcher cost.
 * -m unique, cmp-unique  (-k ukcov) KCOV_UNIQUE_ENABLE or
 *           UKCOV_IOC_UNIQUE_ENABLE_CMP with a bitmap of -b WORDS (default
 *           4096, as ukcov run); records counts the trace after the bitmap.
 * -r        act as a consumer that drains the buffer: every 100 us, when the
 *           buffer is at least half full, take the count and reset word 0
 *           (what a kcov user does between two programs).  Without -r the
 *           buffer fills and further records are dropped, as in the kernel.
 * -c CPU    pin the workload to CPU (the launcher itself moves to another).
 *
 * The launcher is not instrumented.  It prints one line to stderr:
 *   kcovrun: wall_s=... user_s=... sys_s=... records=... dropped=... resets=...
 *            lost=... status=...
 * wall_s is from fork to reaping the child; records counts what was written
 * into the buffer (including records taken by resets, approximately: see
 * wait_child); lost counts resets the child overwrote; dropped is ukcov's
 * UKCOV_IOC_DROPPED (-1 when not applicable).  Exit status is the child's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>
#include "rt/refcov.h"

enum kind { KIND_NONE, KIND_UKCOV, KIND_REF };

struct opts {
	enum kind kind;
	int mode;		/* KCOV_TRACE_PC or KCOV_TRACE_CMP */
	size_t bitmap;		/* bitmap words of a unique mode, or 0 */
	size_t words;		/* buffer size in 8-byte words */
	int reset;		/* drain the buffer while the child runs */
	int cpu;		/* pin the child here; -1: no pinning */
	char **argv;		/* the workload */
};

struct buffer {
	int fd;
	uint64_t *area;
	uint64_t taken;		/* records taken out by resets */
	uint64_t resets;	/* resets made, and found lost */
	uint64_t lost;
};

static void die(const char *what)
{
	fprintf(stderr, "kcovrun: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void usage(void)
{
	fprintf(stderr, "usage: kcovrun [-k none|ukcov|ref] [-m pc|cmp|unique|cmp-unique] "
			"[-b WORDS] [-w WORDS] [-r] [-c CPU] -- PROG [ARG...]\n");
	exit(125);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c, unique = 0;
	size_t bitmap = 4096;

	*o = (struct opts){ .kind = KIND_NONE, .mode = KCOV_TRACE_PC,
			    .words = 1 << 18, .cpu = -1 };
	while ((c = getopt(argc, argv, "+k:m:b:w:rc:")) != -1) {
		switch (c) {
		case 'k':
			o->kind = !strcmp(optarg, "ukcov") ? KIND_UKCOV :
				  !strcmp(optarg, "ref") ? KIND_REF :
				  !strcmp(optarg, "none") ? KIND_NONE : (usage(), 0);
			break;
		case 'm':
			o->mode = !strncmp(optarg, "cmp", 3) ? KCOV_TRACE_CMP
							    : KCOV_TRACE_PC;
			unique = strstr(optarg, "unique") != NULL;
			break;
		case 'b': bitmap = strtoull(optarg, NULL, 0); break;
		case 'w': o->words = strtoull(optarg, NULL, 0); break;
		case 'r': o->reset = 1; break;
		case 'c': o->cpu = atoi(optarg); break;
		default: usage();
		}
	}
	o->bitmap = unique ? bitmap : 0;
	if (optind >= argc || o->words < 2 || (unique && (bitmap == 0 ||
	    bitmap >= o->words - 1 || o->kind != KIND_UKCOV || o->reset)))
		usage();
	o->argv = argv + optind;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set))
		die("sched_setaffinity");
}

/* The buffer is set up before fork, as a kcov user does, so that the
 * parent can read (and reset) the count the child writes. */
static void buffer_setup(const struct opts *o, struct buffer *b)
{
	*b = (struct buffer){ .fd = -1 };
	if (o->kind == KIND_UKCOV) {
		b->fd = ukcov_open(UKCOV_LINUX);
		if (b->fd < 0)
			die("ukcov_open");
		if (ukcov_ioctl(b->fd, KCOV_INIT_TRACE, (unsigned long)o->words))
			die("KCOV_INIT_TRACE");
	} else if (o->kind == KIND_REF) {
		b->fd = memfd_create("refcov", 0);
		if (b->fd < 0 || ftruncate(b->fd, (off_t)(o->words * 8)))
			die("memfd");
	} else {
		return;
	}
	b->area = mmap(NULL, o->words * 8, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (b->area == MAP_FAILED)
		die("mmap");
}

static void child_exec(const struct opts *o, const struct buffer *b)
{
	char num[32];

	if (o->cpu >= 0)
		pin(o->cpu);
	if (o->kind == KIND_UKCOV && o->bitmap) {
		if (ukcov_ioctl(b->fd, o->mode == KCOV_TRACE_CMP ?
				UKCOV_IOC_UNIQUE_ENABLE_CMP : KCOV_UNIQUE_ENABLE,
				(unsigned long)o->bitmap))
			die("KCOV_UNIQUE_ENABLE");
	} else if (o->kind == KIND_UKCOV) {
		if (ukcov_ioctl(b->fd, KCOV_ENABLE, (unsigned long)o->mode))
			die("KCOV_ENABLE");
	} else if (o->kind == KIND_REF) {
		snprintf(num, sizeof num, "%d", b->fd);
		setenv(REFCOV_ENV_FD, num, 1);
		snprintf(num, sizeof num, "%zu", o->words);
		setenv(REFCOV_ENV_WORDS, num, 1);
		setenv(REFCOV_ENV_MODE, o->mode == KCOV_TRACE_CMP ? "1" : "0", 1);
	}
	execvp(o->argv[0], o->argv);
	die(o->argv[0]);
}

/* Reap the child; with -r, poll and drain the buffer until it exits. */
static void wait_child(pid_t pid, const struct opts *o, struct buffer *b,
		       int *status, struct rusage *ru)
{
	const struct timespec tick = { 0, 100000 };
	uint64_t cap = o->mode == KCOV_TRACE_CMP ? (o->words - 1) / 4 : o->words - 1;
	uint64_t last = 0;

	if (!o->reset || !b->area) {
		while (wait4(pid, status, 0, ru) < 0)
			if (errno != EINTR)
				die("wait4");
		return;
	}
	for (;;) {
		pid_t r = wait4(pid, status, WNOHANG, ru);
		uint64_t n;

		if (r == pid)
			return;
		if (r < 0 && errno != EINTR)
			die("wait4");
		n = __atomic_load_n(&b->area[0], __ATOMIC_RELAXED);
		/* The reset races with the child's non-atomic count update, as
		 * any concurrent kcov consumer's would, and the child may write
		 * its old count back.  It cannot climb back to the count taken
		 * within one tick, so a count that did was a lost reset: those
		 * records are counted again by the next one. */
		if (last && n >= last) {
			b->taken -= last;
			b->lost++;
		}
		last = 0;
		if (n >= cap / 2) {
			last = __atomic_exchange_n(&b->area[0], 0, __ATOMIC_RELAXED);
			b->taken += last;
			b->resets++;
		}
		nanosleep(&tick, NULL);
	}
}

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct buffer b;
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	long long dropped = -1;
	uint64_t n;
	pid_t pid;

	parse_opts(argc, argv, &o);
	buffer_setup(&o, &b);
	if (o.cpu >= 0 && o.reset)
		pin(o.cpu == 0 ? 1 : 0);	/* the consumer runs beside it */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child_exec(&o, &b);
	wait_child(pid, &o, &b, &status, &ru);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	n = b.area ? b.area[o.bitmap] + b.taken : 0;
	if (o.kind == KIND_UKCOV) {
		uint64_t d = 0;

		if (ukcov_ioctl(b.fd, UKCOV_IOC_DROPPED, &d) == 0)
			dropped = (long long)d;
	}
	fprintf(stderr, "kcovrun: wall_s=%.6f user_s=%.6f sys_s=%.6f records=%llu "
			"dropped=%lld resets=%llu lost=%llu status=%d\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
		seconds(ru.ru_utime), seconds(ru.ru_stime), (unsigned long long)n,
		dropped, (unsigned long long)b.resets, (unsigned long long)b.lost, status);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
