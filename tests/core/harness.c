/*
 * tests/core/harness.c -- the runner: one forked child per test, a
 * timeout, one line per test and the closing "N passed, N failed".
 * No ukcov symbol is referenced here, so the LD_PRELOAD variant links
 * it too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define TEST_TIMEOUT_MS 30000
#define REASON_MAX 1024

struct test {
	char *name;
	test_fn fn;
	const void *arg;
	unsigned need;
};

static struct test *tests;
static size_t ntests, cap_tests;
static int report_fd = -1;

void test_add(const char *name, test_fn fn, const void *arg, unsigned need)
{
	if (ntests == cap_tests) {
		cap_tests = cap_tests ? cap_tests * 2 : 256;
		tests = realloc(tests, cap_tests * sizeof(*tests));
		if (!tests)
			abort();
	}
	tests[ntests].name = strdup(name);
	tests[ntests].fn = fn;
	tests[ntests].arg = arg;
	tests[ntests].need = need;
	ntests++;
}

void test_addf(test_fn fn, const void *arg, unsigned need, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	test_add(name, fn, arg, need);
}

const char *errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";

	return n ? n : "E?";
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[REASON_MAX];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg), "%s:%d: ", file, line);
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg) - 1)
		n = sizeof(msg) - 2;
	msg[n++] = '\n';
	/* One write of at most PIPE_BUF bytes: never interleaved. */
	if (write(report_fd >= 0 ? report_fd : 2, msg, (size_t)n) < 0)
		_exit(3);
	_exit(1);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void run_child(const struct test *t, int wfd)
{
	setpgid(0, 0);
	report_fd = wfd;
	t->fn(t->arg);
	_exit(0);
}

/* Kill what is left of the test's process group and reap it (the
 * runner is a subreaper, so orphaned grandchildren come back to it). */
static void reap_group(pid_t pgid)
{
	kill(-pgid, SIGKILL);
	while (waitpid(-pgid, NULL, 0) > 0 || errno == EINTR)
		;
}

static void drain(int fd, char *buf, size_t *len)
{
	ssize_t n;

	while (*len < REASON_MAX - 1 &&
	       (n = read(fd, buf + *len, REASON_MAX - 1 - *len)) > 0)
		*len += (size_t)n;
	buf[*len] = 0;
}

/* Runs one test; fills reason on failure; returns 1 if it passed. */
static int run_one(const struct test *t, char *reason)
{
	int p[2], status = 0, done = 0;
	size_t len = 0;
	long deadline = now_ms() + TEST_TIMEOUT_MS;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(reason, REASON_MAX, "pipe: %s", strerror(errno));
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(reason, REASON_MAX, "fork: %s", strerror(errno));
		return 0;
	}
	if (pid == 0) {
		close(p[0]);
		run_child(t, p[1]);
	}
	setpgid(pid, pid);
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	reason[0] = 0;
	while (!done) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		poll(&pfd, 1, 20);
		drain(p[0], reason, &len);
		if (waitpid(pid, &status, WNOHANG) == pid)
			done = 1;
		else if (now_ms() > deadline)
			break;
	}
	reap_group(pid);
	drain(p[0], reason, &len);
	close(p[0]);
	if (!done) {
		waitpid(pid, &status, 0);
		snprintf(reason, REASON_MAX, "timeout after %d ms",
			 TEST_TIMEOUT_MS);
		return 0;
	}
	if (len > 0) {
		reason[strcspn(reason, "\n")] = 0;
		return 0;
	}
	if (WIFSIGNALED(status)) {
		snprintf(reason, REASON_MAX, "killed by signal %d (%s)",
			 WTERMSIG(status), sigabbrev_np(WTERMSIG(status)));
		return 0;
	}
	if (WEXITSTATUS(status) != 0) {
		snprintf(reason, REASON_MAX, "exit status %d",
			 WEXITSTATUS(status));
		return 0;
	}
	return 1;
}

/* CORE_SKIP="NAME,NAME": tests not run, each said on a "# skip" line
 * and counted in neither total.  Only for a platform's own defect,
 * named with its reason where it is set (tests/aarch64.sh). */
static int skipped(const char *name)
{
	const char *s = getenv("CORE_SKIP"), *e;

	for (; s && *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, ',');
		if (e > s && strncmp(name, s, (size_t)(e - s)) == 0 &&
		    (name[e - s] == '\0' || name[e - s] == '/'))
			return 1;
	}
	return 0;
}

int test_run_all(unsigned have, const char *prefix, const char *filter)
{
	char reason[REASON_MAX];
	int passed = 0, failed = 0;
	size_t i;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (i = 0; i < ntests; i++) {
		const struct test *t = &tests[i];

		if ((t->need & have) != t->need)
			continue;
		if (filter && !strstr(t->name, filter))
			continue;
		if (skipped(t->name)) {
			printf("# skip %s%s (CORE_SKIP)\n", prefix, t->name);
			continue;
		}
		if (run_one(t, reason)) {
			printf("ok %s%s\n", prefix, t->name);
			passed++;
		} else {
			printf("not ok %s%s: %s\n", prefix, t->name, reason);
			failed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed;
}
