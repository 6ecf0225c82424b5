/*
 * tests/core/t_close.c -- closing and duplicating descriptors
 * (docs/KERNELS.md "Across kernels" table 3): Linux and NetBSD
 * keep tracing until the thread exits, FreeBSD and OpenBSD stop at the
 * last close.  A dup'd fd is the same descriptor; only the last close of
 * all fds, in all processes, counts.
 *
 * The closing tests run on a thread of their own that exits at the end:
 * that is the only way a Linux/NetBSD owner of a closed fd stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

static void on_own_thread(const struct kc *k, long (*fn)(void *), long arg)
{
	struct kc_op op = { k, -1, arg };

	thread_run(fn, &op);
}

/* After the last close, three more calls: recorded unless the flavor
 * stops at close.  Two records before the close are the control. */
static void expect_after_close(const struct kc *k, const uint64_t *buf)
{
	call_n(target_leaf2, 3);
	if (k->f->close_stops) {
		CHECK_EQ(rec_count(buf), 2);
	} else {
		CHECK_EQ(rec_count(buf), 5);
		expect_pcs_in(buf, 2, 3, (const void *)target_leaf2);
	}
	expect_pcs_in(buf, 0, 2, (const void *)target_leaf);
}

/* The ways an fd stops referring to its descriptor. */
enum closer {
	BY_CLOSE,
	BY_DUP2_OVER,
	BY_CLOSE_RANGE,
	BY_CLOSE_RANGE_WIDE,
	BY_CLOSEFROM
};

static long close_enabled(void *p)
{
	const struct kc_op *op = p;
	uint64_t *buf;
	int fd = kc_setup(op->k, KC_ENTRIES, &buf);
	int null = open("/dev/null", O_RDWR);

	CHECK_OK(null);
	kc_enable_ok(op->k, fd, 0);
	call_n(target_leaf, 2);
	switch (op->arg) {
	case BY_CLOSE:
		CHECK_OK(close(fd));
		break;
	case BY_DUP2_OVER:
		CHECK_EQ(dup2(null, fd), fd);
		/* The number now names /dev/null: not a descriptor, so the
		 * kernel answers (through the API's ioctl when it is the
		 * device path's): ENOTTY, or qemu-user's ENOSYS. */
		CHECK_ERR(kc_req(op->k, fd, op->k->f->req_disable, 0),
			  op->k->native ? ENOTTY
					: kc_kernel_ioctl_errno(fd,
						op->k->f->req_disable));
		break;
	case BY_CLOSE_RANGE:
		CHECK_OK(close_range((unsigned)fd, (unsigned)fd, 0));
		break;
	case BY_CLOSE_RANGE_WIDE:
		/* fd to the top: /dev/null too, and numbers past the
		 * runtime's fd table, which the range is clamped to. */
		CHECK_OK(close_range((unsigned)fd, ~0U, 0));
		break;
	case BY_CLOSEFROM:
		closefrom(fd);		/* fd and /dev/null: the highest */
		break;
	}
	expect_after_close(op->k, buf);
	return 0;
}

static void t_close_while_enabled(const struct kc *k)
{
	on_own_thread(k, close_enabled, BY_CLOSE);
}

static void t_dup2_over_descriptor(const struct kc *k)
{
	on_own_thread(k, close_enabled, BY_DUP2_OVER);
}

static void t_close_range(const struct kc *k)
{
	on_own_thread(k, close_enabled, BY_CLOSE_RANGE);
}

static void t_close_range_wide(const struct kc *k)
{
	on_own_thread(k, close_enabled, BY_CLOSE_RANGE_WIDE);
}

static void t_closefrom(const struct kc *k)
{
	on_own_thread(k, close_enabled, BY_CLOSEFROM);
}

/* After closing its enabled fd the thread still holds the descriptor
 * until it exits: Linux current->kcov, FreeBSD td_kcov_info, NetBSD
 * l_kcov, OpenBSD p_kd stay set (derived from §1 close and thread-exit
 * rows), so enabling another fd is the "second fd" errno. */
static long close_then_enable_other(void *p)
{
	const struct kc_op *op = p;
	uint64_t *b1, *b2;
	int fd1 = kc_setup(op->k, KC_ENTRIES, &b1);
	int fd2 = kc_setup(op->k, KC_ENTRIES, &b2);

	kc_enable_ok(op->k, fd1, 0);
	CHECK_OK(close(fd1));
	CHECK_ERR(kc_enable_pc(op->k, fd2), op->k->f->e_second_fd);
	target_leaf();
	CHECK_EQ(rec_count(b2), 0);
	CHECK_EQ(rec_count(b1), op->k->f->close_stops ? 0 : 1);
	return fd2;
}

static void t_close_then_enable_other(const struct kc *k)
{
	struct kc_op op = { k, -1, 0 };
	int fd2 = (int)thread_run(close_then_enable_other, &op);
	uint64_t *b2 = kc_map(fd2, KC_ENTRIES);

	/* The thread has exited: this one may enable fd2. */
	expect_ready_state(k, fd2, b2);
}

/* Closing one of two fds is not the last close; closing the other is.
 * arg BY_DUP2_OVER: the first goes away under dup2 instead. */
static long close_one_of_two(void *p)
{
	const struct kc_op *op = p;
	uint64_t *buf;
	int fd = kc_setup(op->k, KC_ENTRIES, &buf);
	int fd2 = dup(fd), null = open("/dev/null", O_RDWR);

	CHECK_OK(fd2);
	CHECK_OK(null);
	kc_enable_ok(op->k, fd2, 0);
	target_leaf();
	if (op->arg == BY_DUP2_OVER)
		CHECK_EQ(dup2(null, fd), fd);
	else
		CHECK_OK(close(fd));
	target_leaf();
	CHECK_EQ(rec_count(buf), 2);
	CHECK_OK(close(fd2));
	expect_after_close(op->k, buf);
	return 0;
}

static void t_close_dup(const struct kc *k)
{
	on_own_thread(k, close_one_of_two, BY_CLOSE);
}

static void t_dup2_over_copy(const struct kc *k)
{
	on_own_thread(k, close_one_of_two, BY_DUP2_OVER);
}

/* The descriptor is shared with a child process: the owner (here, the
 * child) closing its fd is not the last close while the parent holds
 * one. */
static void t_close_not_last_in_other_process(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	pid_t pid = fork();

	CHECK_OK(pid);
	if (pid == 0) {
		kc_enable_ok(k, fd, 0);
		target_leaf();
		CHECK_OK(close(fd));
		call_n(target_leaf, 2);
		_exit(0);
	}
	expect_exit0(pid);
	expect_only_pcs(buf, 3, (const void *)target_leaf);
	expect_ready_state(k, fd, buf);
}

/* The parent closes its only fd while a child, which inherited one,
 * traces: not the last close (the child holds the descriptor too). */
static void t_parent_close_not_last(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer child;

	if (peer_fork(&child) == 0) {
		int other = kc_open_ok(k);

		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, 2);
		peer_tell(&child);
		peer_wait(&child);
		/* A request, as after a last close elsewhere. */
		CHECK_ERR(kc_disable(k, other), k->f->e_disable);
		call_n(target_leaf, 3);
		exit(0);
	}
	peer_wait(&child);
	CHECK_OK(close(fd));
	peer_tell(&child);
	expect_exit0(child.pid);
	expect_only_pcs(buf, 5, (const void *)target_leaf);
}

/* The last close happens in the other process while the owner (a
 * child whose own fd is closed) traces: FreeBSD and OpenBSD stop tracing
 * (DYING).  ukcov stops the owner at its next ukcov request, not at
 * once (docs/DESIGN.md "Deliberate differences"), so the child makes
 * one (on a fresh descriptor) before the calls that must not record;
 * Linux and NetBSD keep recording. */
static void t_last_close_in_other_process(const struct kc *k)
{
	uint64_t *buf, n;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer child;

	if (peer_fork(&child) == 0) {
		int other = kc_open_ok(k);

		kc_enable_ok(k, fd, 0);
		CHECK_OK(close(fd));
		call_n(target_leaf, 2);
		peer_tell(&child);
		peer_wait(&child);
		CHECK_ERR(kc_disable(k, other), k->f->e_disable);
		call_n(target_leaf2, 3);
		exit(0);
	}
	peer_wait(&child);
	CHECK_OK(close(fd));		/* the last fd anywhere */
	peer_tell(&child);
	expect_exit0(child.pid);
	n = rec_count(buf);
	CHECK_EQ(n, k->f->close_stops ? 2 : 5);
	expect_pcs_in(buf, 0, 2, (const void *)target_leaf);
	expect_pcs_in(buf, 2, n - 2, (const void *)target_leaf2);
}

/* dup, dup2, dup3, F_DUPFD, F_DUPFD_CLOEXEC: every copy is the same
 * descriptor (one state, one buffer). */
static void t_dup_same_descriptor(const struct kc *k)
{
	uint64_t *buf, *buf2;
	int fd = kc_open_ok(k), copies[5], i;

	copies[0] = dup(fd);
	copies[1] = dup2(fd, 200);
	copies[2] = dup3(fd, 201, O_CLOEXEC);
	copies[3] = fcntl(fd, F_DUPFD, 300);
	copies[4] = fcntl(fd, F_DUPFD_CLOEXEC, 400);
	CHECK_EQ(copies[1], 200);
	CHECK_EQ(copies[2], 201);
	CHECK(copies[3] >= 300 && copies[4] >= 400);
	kc_setbuf_ok(k, copies[0], KC_ENTRIES);
	for (i = 0; i < 5; i++)
		CHECK_ERR(kc_setbuf(k, copies[i], KC_ENTRIES),
			  k->f->e_second_setbuf);
	buf = kc_map(fd, KC_ENTRIES);
	buf2 = kc_map(copies[4], KC_ENTRIES);
	kc_enable_ok(k, copies[1], 0);
	for (i = 0; i < 5; i++)
		CHECK_ERR(kc_enable_pc(k, copies[i]), k->f->e_enable_twice);
	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_twice);
	target_leaf();
	kc_disable_ok(k, copies[3]);
	CHECK_ERR(kc_disable(k, copies[2]), k->f->e_disable);
	expect_only_pcs(buf2, 1, (const void *)target_leaf);
	CHECK_EQ(buf[1], buf2[1]);
}

/* dup2 of one descriptor over another: the victim gets its last close
 * (tracing stops on FreeBSD/OpenBSD), and the number now names the
 * other descriptor.  dup2(fd, fd) changes nothing; dup3(fd, fd) is
 * EINVAL. */
static long dup2_desc_over_desc(void *p)
{
	const struct kc_op *op = p;
	uint64_t *buf, *other;
	int fd = kc_setup(op->k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(op->k, 2 * (uint64_t)KC_ENTRIES, &other);

	kc_enable_ok(op->k, fd, 0);
	call_n(target_leaf, 2);
	CHECK_EQ(dup2(fd, fd), fd);
	CHECK_ERR(dup3(fd, fd, 0), EINVAL);
	CHECK_ERR(kc_enable_pc(op->k, fd), op->k->f->e_enable_twice);
	CHECK_EQ(dup2(fd2, fd), fd);
	expect_after_close(op->k, buf);
	/* fd is fd2's descriptor now: READY, twice the size. */
	CHECK_ERR(kc_setbuf(op->k, fd, KC_ENTRIES), op->k->f->e_second_setbuf);
	CHECK_ERR(kc_disable(op->k, fd), op->k->f->e_disable);
	CHECK(mmap(NULL, (size_t)2 * KC_ENTRIES * 8, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0) != MAP_FAILED);
	CHECK_EQ(rec_count(other), 0);
	return 0;
}

static void t_dup2_desc_over_desc(const struct kc *k)
{
	on_own_thread(k, dup2_desc_over_desc, 0);
}

/* Make close_range answer ENOSYS, as a kernel before 5.9 does.  0, or
 * -1 where there is no seccomp (qemu-user: EINVAL). */
static int deny_close_range(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return -1;
	return syscall(SYS_close_range, 50, 50, 0) == -1 && errno == ENOSYS
		       ? 0 : -1;
}

static int fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

/* The child: fds 10, 20, 40 (= the lowered soft RLIMIT_NOFILE) and 60
 * (above it) open, closefrom(10) without close_range.  Exit status: 0,
 * 1 no seccomp, 2 setup, else a bit per fd left open or wrongly
 * closed. */
static int closefrom_child(void)
{
	int null = open("/dev/null", O_RDWR), bad = 0;
	struct rlimit rl;

	if (null < 0 || null >= 10 || getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    rl.rlim_max < 64 || dup2(null, 10) != 10 ||
	    dup2(null, 20) != 20 || dup2(null, 40) != 40 ||
	    dup2(null, 60) != 60)
		return 2;
	rl.rlim_cur = 40;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 2;
	if (deny_close_range() != 0)
		return 1;
	closefrom(10);
	bad |= fd_open(20) << 2;
	bad |= fd_open(40) << 3;
	bad |= fd_open(60) << 4;
	bad |= !fd_open(null) << 5;
	bad |= fd_open(10) << 6;
	return bad;
}

/* closefrom() on a kernel without close_range (before 5.9) closes
 * every fd from lowfd up, as glibc's does (it lists /proc/self/fd):
 * also those at or above a soft RLIMIT_NOFILE lowered after they were
 * opened, which a loop to sysconf(_SC_OPEN_MAX) would leave open. */
static void t_closefrom_no_close_range(const struct kc *k)
{
	pid_t pid;
	int st;

	(void)k;
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0)
		_exit(closefrom_child());
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == 1)
		return;		/* no seccomp here: nothing to check */
	if (WEXITSTATUS(st) != 0)
		FAIL("closefrom(10) without close_range: status 0x%x (4: fd 20 "
		     "open, 8: fd 40 = the soft limit open, 16: fd 60 above it "
		     "open, 32: fd < 10 closed, 64: fd 10 open, 2: setup)",
		     WEXITSTATUS(st));
}

void register_close_tests(void)
{
	reg_flavors("close.while_enabled", t_close_while_enabled, 0);
	reg_flavors("close.then_enable_other", t_close_then_enable_other, 0);
	reg_flavors("close.dup", t_close_dup, 0);
	reg_flavors("close.not_last_in_other_process",
		    t_close_not_last_in_other_process, 0);
	reg_flavors("close.parent_close_not_last", t_parent_close_not_last, 0);
	reg_flavors("close.last_close_in_other_process",
		    t_last_close_in_other_process, 0);
	reg_flavors("close.dup_same_descriptor", t_dup_same_descriptor, 0);
	reg_flavors("close.dup2_over_descriptor", t_dup2_over_descriptor, 0);
	reg_flavors("close.dup2_over_copy", t_dup2_over_copy, 0);
	reg_flavors("close.dup2_desc_over_desc", t_dup2_desc_over_desc, 0);
	reg_flavors("close.close_range", t_close_range, 0);
	reg_flavors("close.close_range_wide", t_close_range_wide, 0);
	reg_flavors("close.closefrom", t_closefrom, 0);
	reg_one("close.closefrom_no_close_range", t_closefrom_no_close_range,
		FL_LINUX, 1, 0);
}
