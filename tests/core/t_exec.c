/*
 * tests/core/t_exec.c -- exec keeps tracing into the same buffer
 * (docs/KERNELS.md "Linux": Linux has no kcov hook on exec, tracing
 * continues; the same for OpenBSD; syzkaller's kcovtrace
 * relies on it).  A child enables, then execs this binary (which links
 * libukcov) as "--exec-target"; the parent sees the new image's PCs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

struct exec_report {
	uint64_t leaf, leaf2, start, stop;	/* the new image's addresses */
	int64_t disable_rc, disable_errno;	/* of the request it made */
};

#define EXEC_CALLS 7

/* The exec'd image: EXEC_CALLS calls of target_leaf, then (unless the
 * fd is -1) a DISABLE of the inherited descriptor -- or an ENABLE with
 * a sixth argument "enable" -- then two calls of target_leaf2; it
 * reports its addresses and the request's result. */
int exec_target_main(int argc, char **argv)
{
	struct exec_report r = { 0 };
	const struct kc *k;
	int fd, out, enable;

	if (argc != 6 && argc != 7)
		return 2;
	k = &kcs[atoi(argv[2])][atoi(argv[3])];
	fd = atoi(argv[4]);
	out = atoi(argv[5]);
	enable = argc == 7 && strcmp(argv[6], "enable") == 0;
	call_n(target_leaf, EXEC_CALLS);
	errno = 0;
	if (fd < 0)
		r.disable_rc = 1;
	else if (enable)
		r.disable_rc = kc_enable_pc(k, fd);
	else
		r.disable_rc = kc_disable(k, fd);
	r.disable_errno = errno;
	call_n(target_leaf2, 2);
	r.leaf = (uintptr_t)target_leaf;
	r.leaf2 = (uintptr_t)target_leaf2;
	r.start = (uintptr_t)__start_ukcov_targets;
	r.stop = (uintptr_t)__stop_ukcov_targets;
	return write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 3;
}

static char **target_argv(char a[4][16], const struct kc *k, int fd, int out)
{
	static char *argv[8];

	snprintf(a[0], 16, "%d", (int)(k->f - flavors));
	snprintf(a[1], 16, "%d", k->native);
	snprintf(a[2], 16, "%d", fd);
	snprintf(a[3], 16, "%d", out);
	argv[0] = "core";
	argv[1] = "--exec-target";
	memcpy(&argv[2], (char *[]){ a[0], a[1], a[2], a[3], NULL },
	       5 * sizeof(char *));
	return argv;
}

/* How the child gets to the new image. */
enum exec_how {
	EXEC_MAIN,	/* its main thread enables and execs */
	EXEC_THREAD,	/* a second thread enables and execs */
	EXEC_CLOEXEC,	/* its only fd is close-on-exec */
};

struct exec_args {
	const struct kc *k;
	int fd, out;
	enum exec_how how;
};

static void *enable_and_exec(void *p)
{
	struct exec_args *e = p;
	char a[4][16];
	int fd = e->fd, arg_fd = -1;

	if (e->how == EXEC_CLOEXEC) {
		fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 500);
		CHECK_OK(fd);
		CHECK_OK(close(e->fd));
	} else {
		arg_fd = fd;
	}
	kc_enable_ok(e->k, fd, 0);
	target_leaf();			/* before the exec */
	execv("/proc/self/exe", target_argv(a, e->k, arg_fd, e->out));
	FAIL("execv: %s", errname(errno));
}

/* A record pc is the new image's function at fn (the same binary, so
 * at the offset off from it that this image's records show). */
static void expect_new_image_pc(const struct exec_report *r, uint64_t i,
				uint64_t pc, uint64_t fn, uint64_t off)
{
	if (pc < r->start || pc >= r->stop || pc - fn != off)
		FAIL("record %llu: 0x%llx is not at +0x%llx in the exec'd "
		     "image's function at 0x%llx", (unsigned long long)i,
		     (unsigned long long)pc, (unsigned long long)off,
		     (unsigned long long)fn);
}

/* This image's PC offsets of target_leaf and target_leaf2, recorded by
 * the parent once the descriptor is READY again (which it must be). */
static void own_offsets(const struct kc *k, int fd, uint64_t *buf,
			uint64_t *off, uint64_t *off2)
{
	uint64_t n = rec_count(buf);

	kc_enable_ok(k, fd, 0);
	target_leaf();
	target_leaf2();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), n + 2);
	expect_pcs_in(buf, n, 1, (const void *)target_leaf);
	expect_pcs_in(buf, n + 1, 1, (const void *)target_leaf2);
	*off = buf[1 + n] - (uintptr_t)target_leaf;
	*off2 = buf[2 + n] - (uintptr_t)target_leaf2;
}

/* Fork a child that runs child(e), which ends in an exec of the target
 * image; read that image's report and reap the child. */
static void exec_child(void (*child)(struct exec_args *), struct exec_args *e,
		       struct exec_report *r)
{
	int p[2];
	pid_t pid;

	pipe_ok(p);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		close(p[0]);
		e->out = p[1];
		child(e);
		_exit(4);
	}
	close(p[1]);
	CHECK_EQ(read(p[0], r, sizeof(*r)), sizeof(*r));
	close(p[0]);
	expect_exit0(pid);
}

static void exec_from(struct exec_args *e)
{
	pthread_t th;

	if (e->how != EXEC_THREAD)
		enable_and_exec(e);
	pthread_create(&th, NULL, enable_and_exec, e);
	pthread_join(th, NULL);
}

static void exec_test(const struct kc *k, enum exec_how how)
{
	struct exec_report r;
	uint64_t *buf, i, off, off2, tail = how == EXEC_CLOEXEC ? 2 : 0;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct exec_args e = { k, fd, -1, how };

	exec_child(exec_from, &e, &r);
	if (how != EXEC_CLOEXEC) {
		/* The new image owns the descriptor. */
		CHECK_EQ(r.disable_rc, 0);
		CHECK_EQ(r.disable_errno, 0);
	}
	/* One record from before the exec, EXEC_CALLS from the new image
	 * (and its two target_leaf2 calls when it could not disable). */
	CHECK_EQ(rec_count(buf), 1 + EXEC_CALLS + tail);
	expect_pcs_in(buf, 0, 1, (const void *)target_leaf);
	own_offsets(k, fd, buf, &off, &off2);
	for (i = 1; i <= EXEC_CALLS; i++)
		expect_new_image_pc(&r, i, buf[1 + i], r.leaf, off);
	for (; i <= EXEC_CALLS + tail; i++)
		expect_new_image_pc(&r, i, buf[1 + i], r.leaf2, off2);
}

static void t_exec(const struct kc *k)
{
	exec_test(k, EXEC_MAIN);
}

static void t_exec_from_thread(const struct kc *k)
{
	exec_test(k, EXEC_THREAD);
}

/* The exec closes the child's close-on-exec fd, but the parent holds
 * the descriptor too: that is no last close on any kernel (and Linux
 * keeps tracing after any close), so the new image keeps recording. */
static void t_exec_cloexec(const struct kc *k)
{
	exec_test(k, EXEC_CLOEXEC);
}

/* Another thread of the child owns the descriptor when the main thread
 * execs: exec kills it, which releases the descriptor like any thread
 * exit (Linux de_thread -> do_exit -> kcov_task_exit), so the new image
 * records nothing until it enables the descriptor itself. */
static long enable_one(void *p)
{
	const struct kc_op *op = p;

	kc_enable_ok(op->k, op->fd, 0);
	target_leaf();
	return 0;
}

static void exec_with_owner_thread(struct exec_args *e)
{
	struct kc_op op = { e->k, e->fd, 0 };
	struct actor *a = actor_start();
	char a4[4][16], **argv = target_argv(a4, e->k, e->fd, e->out);

	actor_run(a, enable_one, &op);
	argv[6] = "enable";
	argv[7] = NULL;
	execv("/proc/self/exe", argv);
	FAIL("execv: %s", errname(errno));
}

static void t_exec_kills_owner(const struct kc *k)
{
	struct exec_report r;
	uint64_t *buf, off, off2;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct exec_args e = { k, fd, -1, EXEC_MAIN };

	exec_child(exec_with_owner_thread, &e, &r);
	CHECK_EQ(r.disable_rc, 0);
	CHECK_EQ(rec_count(buf), 1 + 2);
	expect_pcs_in(buf, 0, 1, (const void *)target_leaf);
	own_offsets(k, fd, buf, &off, &off2);
	expect_new_image_pc(&r, 1, buf[2], r.leaf2, off2);
	expect_new_image_pc(&r, 2, buf[3], r.leaf2, off2);
}

/* posix_spawn from a tracing thread: the new process starts disabled
 * (Linux kcov_task_init), so its image records nothing here and cannot
 * disable the parent's descriptor; the parent keeps tracing. */
static void t_spawn_from_tracer(const struct kc *k)
{
	struct exec_report r;
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), p[2];
	char a[4][16];
	pid_t pid;

	pipe_ok(p);
	kc_enable_ok(k, fd, 0);
	target_leaf();
	CHECK_EQ(posix_spawn(&pid, "/proc/self/exe", NULL, NULL,
			     target_argv(a, k, fd, p[1]), environ), 0);
	close(p[1]);
	CHECK_EQ(read(p[0], &r, sizeof(r)), sizeof(r));
	expect_exit0(pid);
	target_leaf();
	kc_disable_ok(k, fd);
	CHECK_EQ(r.disable_rc, -1);
	CHECK_EQ(r.disable_errno, k->f->e_disable);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
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
		reg_one("exec.cloexec_fd", t_exec_cloexec, fl,
			core_have_native, 0);
		reg_one("exec.spawn_from_tracer", t_spawn_from_tracer, fl,
			core_have_native, 0);
		reg_one("exec.kills_owner_thread", t_exec_kills_owner, fl,
			core_have_native, 0);
	}
}
