/*
 * tests/core/t_exec.c -- exec keeps tracing into the same buffer
 * (kcov-semantics.md §1.1 "exec": "There is no kcov hook on exec ...
 * tracing continues"; §1.4 the same for OpenBSD; syzkaller's kcovtrace
 * relies on it).  A child enables, then execs this binary (which links
 * libukcov) as "--exec-target"; the parent sees the new image's PCs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

struct exec_report {
	uint64_t leaf, start, stop;	/* the new image's addresses */
	int64_t disable_rc, disable_errno;
};

#define EXEC_CALLS 7

/* The exec'd image: EXEC_CALLS calls are recorded into the inherited
 * descriptor; then it disables it (it is the owner now) and two more
 * calls are not recorded. */
int exec_target_main(int argc, char **argv)
{
	struct exec_report r;
	const struct kc *k;
	int fd, out;

	if (argc != 6)
		return 2;
	k = &kcs[atoi(argv[2])][atoi(argv[3])];
	fd = atoi(argv[4]);
	out = atoi(argv[5]);
	call_n(target_leaf, EXEC_CALLS);
	errno = 0;
	r.disable_rc = kc_disable(k, fd);
	r.disable_errno = errno;
	call_n(target_leaf2, 2);
	r.leaf = (uintptr_t)target_leaf;
	r.start = (uintptr_t)__start_ukcov_targets;
	r.stop = (uintptr_t)__stop_ukcov_targets;
	return write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 3;
}

static void exec_self(const struct kc *k, int fd, int out)
{
	char a[4][16];
	char *argv[] = { "core", "--exec-target", a[0], a[1], a[2], a[3], NULL };

	snprintf(a[0], sizeof(a[0]), "%d", (int)(k->f - flavors));
	snprintf(a[1], sizeof(a[1]), "%d", k->native);
	snprintf(a[2], sizeof(a[2]), "%d", fd);
	snprintf(a[3], sizeof(a[3]), "%d", out);
	execv("/proc/self/exe", argv);
	FAIL("execv: %s", errname(errno));
}

struct exec_args {
	const struct kc *k;
	int fd, out;
};

static void *enable_and_exec(void *p)
{
	struct exec_args *e = p;

	kc_enable_ok(e->k, e->fd, 0);
	target_leaf();			/* before the exec */
	exec_self(e->k, e->fd, e->out);
	return NULL;
}

/* Fork a child that enables and execs (from its main thread or from a
 * second thread), then check the records against its report. */
static void exec_test(const struct kc *k, int from_thread)
{
	struct exec_report r;
	uint64_t *buf, i, off;
	int fd = kc_setup(k, KC_ENTRIES, &buf), p[2];
	pid_t pid;

	pipe_ok(p);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		struct exec_args e = { k, fd, p[1] };
		pthread_t th;

		if (!from_thread)
			enable_and_exec(&e);
		pthread_create(&th, NULL, enable_and_exec, &e);
		pthread_join(th, NULL);
		_exit(4);
	}
	close(p[1]);
	CHECK_EQ(read(p[0], &r, sizeof(r)), sizeof(r));
	expect_exit0(pid);
	CHECK_EQ(r.disable_rc, 0);
	CHECK_EQ(r.disable_errno, 0);
	/* One record from before the exec, EXEC_CALLS from the new image. */
	CHECK_EQ(rec_count(buf), 1 + EXEC_CALLS);
	expect_pcs_in(buf, 0, 1, (const void *)target_leaf);
	/* This image's PC of target_leaf, at the same offset in the new
	 * one (same binary). */
	kc_enable_ok(k, fd, 0);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_pcs_in(buf, 1 + EXEC_CALLS, 1, (const void *)target_leaf);
	off = buf[2 + EXEC_CALLS] - (uintptr_t)target_leaf;
	for (i = 1; i <= EXEC_CALLS; i++) {
		uint64_t pc = buf[1 + i];

		if (pc < r.start || pc >= r.stop || pc - r.leaf != off)
			FAIL("record %llu: 0x%llx is not target_leaf's PC in "
			     "the exec'd image (leaf 0x%llx, +0x%llx)",
			     (unsigned long long)i, (unsigned long long)pc,
			     (unsigned long long)r.leaf,
			     (unsigned long long)off);
	}
}

static void t_exec(const struct kc *k)
{
	exec_test(k, 0);
}

static void t_exec_from_thread(const struct kc *k)
{
	exec_test(k, 1);
}

void register_exec_tests(void)
{
	int fl;

	/* Exec keeps tracing: Linux and OpenBSD (§6 item 4); the other
	 * two kernels' sources say nothing, ukcov does the same. */
	for (fl = 0; fl < FL_COUNT; fl++) {
		reg_one("exec.keeps_tracing", t_exec, fl, core_have_native, 0);
		reg_one("exec.from_thread", t_exec_from_thread, fl,
			core_have_native, 0);
	}
}
