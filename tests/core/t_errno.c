/*
 * tests/core/t_errno.c -- every row of the per-OS errno tables
 * (docs/KERNELS.md: the four kernels' tables and table 1), through
 * the native API and through the interposed open()/ioctl() of the
 * device paths.  After each refused request a probe shows that the
 * descriptor's state did not change ("bad input changes nothing").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

/* An actor that owns fd (enabled in PC mode) for the test's duration. */
static struct actor *owner_actor(const struct kc *k, int fd)
{
	struct actor *a = actor_start();
	struct kc_op op = { k, fd, k->f->mode_pc };

	CHECK_EQ(actor_run(a, op_enable, &op), 0);
	return a;
}

/* The actor still traces into buf, then disables: the refused request
 * left its ownership alone. */
static void owner_still_traces(struct actor *a, const struct kc *k, int fd,
			       uint64_t *buf)
{
	struct kc_op op = { k, fd, 3 };
	uint64_t n = rec_count(buf);

	actor_run(a, op_leaf, &op);
	CHECK_EQ(rec_count(buf), n + 3);
	expect_pcs_in(buf, n, 3, (const void *)target_leaf);
	CHECK_EQ(actor_run(a, op_disable, &op), 0);
	actor_stop(a);
}

/* §6 row "ENABLE before SETBUFSIZE": EINVAL / EBUSY / ENOBUFS / ENXIO. */
static void t_enable_before_setbuf(const struct kc *k)
{
	int fd = kc_open_ok(k);

	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_nobuf);
	CHECK_ERR(kc_enable_cmp(k, fd), k->f->e_enable_nobuf);
	expect_open_state(k, fd);
}

/* §6 row "ENABLE twice (same thread)": EINVAL / EBUSY / EBUSY / EBUSY. */
static void t_enable_twice(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_twice);
	CHECK_ERR(kc_enable_cmp(k, fd), k->f->e_enable_twice);
	expect_tracing(buf);		/* still PC mode */
	kc_disable_ok(k, fd);
}

/* Another thread traces the fd: Linux EINVAL (mode != INIT), FreeBSD
 * EBUSY (state != READY), NetBSD EBUSY (kd->enabled), OpenBSD ENXIO
 * (p_kd is NULL, state != READY). */
static void t_enable_busy_other_thread(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct actor *a = owner_actor(k, fd);

	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_busy);
	owner_still_traces(a, k, fd, buf);
	expect_ready_state(k, fd, buf);
}

/* §6 row "Second fd on the same thread": EBUSY / EINVAL / EBUSY / EBUSY. */
static void t_second_fd_same_thread(const struct kc *k)
{
	uint64_t *b1, *b2;
	int fd1 = kc_setup(k, KC_ENTRIES, &b1);
	int fd2 = kc_setup(k, KC_ENTRIES, &b2);

	kc_enable_ok(k, fd1, 0);
	CHECK_ERR(kc_enable_pc(k, fd2), k->f->e_second_fd);
	call_n(target_leaf, 2);
	expect_only_pcs(b1, 2, (const void *)target_leaf);
	CHECK_EQ(rec_count(b2), 0);
	kc_disable_ok(k, fd1);
	expect_ready_state(k, fd2, b2);
}

/* §6 row "DISABLE when not enabled": EINVAL / EINVAL / ENOENT / EPERM,
 * before and after SETBUFSIZE, and after a DISABLE. */
static void t_disable_not_enabled(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_open_ok(k);

	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	expect_open_state(k, fd);
	buf = kc_map(fd, KC_ENTRIES);
	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	kc_enable_ok(k, fd, 0);
	kc_disable_ok(k, fd);
	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	expect_ready_state(k, fd, buf);
}

/* §6 row "DISABLE when ... not the owner". */
static void t_disable_not_owner(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct actor *a = owner_actor(k, fd);

	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	owner_still_traces(a, k, fd, buf);
}

/* §6 row "Second SETBUFSIZE": EBUSY / EBUSY / EEXIST / EBUSY.  The
 * buffer keeps its first size: a mapping of the second size fails. */
static void t_second_setbuf(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	void *p;

	CHECK_ERR(kc_setbuf(k, fd, 2 * (uint64_t)KC_ENTRIES), k->f->e_second_setbuf);
	CHECK_ERR(kc_setbuf(k, fd, KC_ENTRIES), k->f->e_second_setbuf);
	p = mmap(NULL, (size_t)2 * KC_ENTRIES * 8, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED);
	/* Linux: size != kcov->size*8; FreeBSD: size/8 != entries;
	 * NetBSD: size+off > bufsize; OpenBSD: page offset >= nmemb*8. */
	CHECK_EQ(errno, k->f->id == UKCOV_NETBSD ? ENOMEM : EINVAL);
	expect_ready_state(k, fd, buf);
}

/* A second SETBUFSIZE with an invalid size: Linux checks the size
 * before the state (§1.1: "a second INIT_TRACE with an invalid size
 * returns EINVAL, not EBUSY"); FreeBSD and OpenBSD check the state
 * first (EBUSY); NetBSD checks the bounds before "already allocated"
 * (EINVAL, not EEXIST). */
static void t_second_setbuf_bad_size(const struct kc *k)
{
	static const int want[FL_COUNT] = { EINVAL, EBUSY, EINVAL, EBUSY };
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int e = want[k->f->id - 1];

	CHECK_ERR(kc_setbuf(k, fd, 0), e);
	CHECK_ERR(kc_setbuf(k, fd, k->f->max_entries + 1), e);
	if (k->f->min_entries > 1)
		CHECK_ERR(kc_setbuf(k, fd, 1), e);
	expect_ready_state(k, fd, buf);
}

/* SETBUFSIZE while enabled: every kernel says EBUSY for a valid size.
 * With size 0 Linux says EINVAL (size first) and NetBSD EBUSY
 * (kd->enabled before the bounds). */
static void t_setbuf_while_enabled(const struct kc *k)
{
	static const int want0[FL_COUNT] = { EINVAL, EBUSY, EBUSY, EBUSY };
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	CHECK_ERR(kc_setbuf(k, fd, KC_ENTRIES), EBUSY);
	CHECK_ERR(kc_setbuf(k, fd, 0), want0[k->f->id - 1]);
	expect_tracing(buf);
	kc_disable_ok(k, fd);
}

/* §6 row "Unknown ioctl": ENOTTY / EINVAL / EINVAL / ENOTTY, for a made-up
 * request and for the other kernels' requests, with or without a
 * buffer. */
static void unknown_requests(const struct kc *k, int fd)
{
	/* A readable argument: a BSD kernel copies in the argument of an
	 * IOC_IN request before the driver sees the request at all. */
	static const uint64_t arg[8] = { 16 };
	unsigned long a = (unsigned long)arg;
	int o;

	CHECK_ERR(kc_req(k, fd, k->f->req_unknown, a), k->f->e_unknown);
	for (o = 0; o < FL_COUNT; o++) {
		const struct flavor *of = &flavors[o];

		if (of->req_setbuf != k->f->req_setbuf)
			CHECK_ERR(kc_req(k, fd, of->req_setbuf, a),
				  k->f->e_unknown);
		if (of->req_enable != k->f->req_enable)
			CHECK_ERR(kc_req(k, fd, of->req_enable, a),
				  k->f->e_unknown);
		if (of->req_disable != k->f->req_disable)
			CHECK_ERR(kc_req(k, fd, of->req_disable, a),
				  k->f->e_unknown);
	}
}

static void t_unknown_request(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_open_ok(k);

	unknown_requests(k, fd);
	expect_open_state(k, fd);
	buf = kc_map(fd, KC_ENTRIES);
	unknown_requests(k, fd);
	kc_enable_ok(k, fd, 0);
	unknown_requests(k, fd);
	expect_tracing(buf);
	kc_disable_ok(k, fd);
}

/* §6 table 2: Linux 2..INT_MAX/8, FreeBSD 2..1<<24, NetBSD 2..256K,
 * OpenBSD 1..512K.  Each size on a fresh descriptor; a refused size
 * leaves it without a buffer. */
static void size_refused(const struct kc *k, uint64_t n)
{
	int fd = kc_open_ok(k);

	CHECK_ERR(kc_setbuf(k, fd, n), EINVAL);
	expect_open_state(k, fd);
	close(fd);
}

static void size_accepted(const struct kc *k, uint64_t n)
{
	int fd = kc_open_ok(k);

	kc_setbuf_ok(k, fd, n);
	CHECK_ERR(kc_setbuf(k, fd, k->f->min_entries), k->f->e_second_setbuf);
	close(fd);
}

static void t_size_bounds(const struct kc *k)
{
	size_refused(k, 0);
	size_refused(k, k->f->min_entries - 1);
	size_accepted(k, k->f->min_entries);
	size_accepted(k, k->f->min_entries + 1);
	size_accepted(k, k->f->max_entries);
	size_refused(k, k->f->max_entries + 1);
	size_refused(k, UINT32_MAX);
	size_refused(k, ~0ULL);
}

/* Bits above 32: Linux takes an unsigned long and NetBSD/OpenBSD a
 * 64-bit value (too big: EINVAL); FreeBSD's _IOWINT reads the argument
 * as u_int (§1.2 "read as *(u_int *)data"), so the high bits vanish. */
static void t_size_high_bits(const struct kc *k)
{
	uint64_t n = (1ULL << 32) | KC_ENTRIES, *buf;
	int fd = kc_open_ok(k);

	if (k->f->id != UKCOV_FREEBSD) {
		CHECK_ERR(kc_setbuf(k, fd, n), EINVAL);
		expect_open_state(k, fd);
	} else {
		kc_setbuf_ok(k, fd, n);
	}
	buf = kc_map(fd, KC_ENTRIES);
	expect_ready_state(k, fd, buf);
}

/* Invalid modes are EINVAL everywhere; NetBSD accepts KCOV_MODE_NONE (0),
 * OpenBSD does not.  The descriptor stays READY. */
static void t_bad_modes(const struct kc *k)
{
	static const long bad[FL_COUNT][4] = {
		{ 2, 3, -1L, 1L << 32 },	/* Linux: unsigned long arg */
		{ 2, 3, -1L, 0x7fffffffL },	/* FreeBSD: int */
		{ 3, 4, -1L, 0x101L },		/* NetBSD: NONE is valid */
		{ 0, 3, -1L, 0x101L },		/* OpenBSD: NONE is not */
	};
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), i;

	for (i = 0; i < 4; i++)
		CHECK_ERR(kc_enable(k, fd, bad[k->f->id - 1][i]), EINVAL);
	expect_ready_state(k, fd, buf);
}

/* FreeBSD's KIOENABLE is _IOWINT: the mode is the argument truncated to
 * an int, so 1<<32|1 is TRACE_CMP.  Linux compares the whole unsigned
 * long and refuses it. */
static void t_mode_high_bits(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	long r = kc_req(k, fd, k->f->req_enable, (1UL << 32) | 1);

	if (k->f->id == UKCOV_LINUX) {
		CHECK_EQ(r, -1);
		CHECK_EQ(errno, EINVAL);
		expect_ready_state(k, fd, buf);
		return;
	}
	CHECK_EQ(r, 0);
	target_leaf();			/* no PC in CMP mode */
	target_cmp4(3, 4);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 1);
	expect_cmp(buf, 0, 4, 3, 4, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
}

/* NetBSD KCOV_MODE_NONE "is a valid mode that enables but records
 * nothing" (§1.3); the descriptor is enabled (EBUSY again, DISABLE
 * works).  Positive control: PC mode on the same buffer records. */
static void t_netbsd_mode_none(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct kc_op op = { k, fd, 1 };

	CHECK_EQ(kc_enable(k, fd, 0), 0);
	call_n(target_leaf, 5);
	if (target_has_cmp)
		target_cmp4(1, 2);
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(kc_dropped(k, fd), 0);
	CHECK_ERR(kc_enable(k, fd, 0), EBUSY);
	CHECK_ERR(kc_enable_pc(k, fd), EBUSY);
	CHECK_EQ(thread_run(op_enable, &op), -1);
	CHECK_EQ(errno, EBUSY);
	kc_disable_ok(k, fd);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 5);
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 5, (const void *)target_leaf);
}

/* Linux KCOV_DISABLE: "arg != 0 ... → EINVAL" (§1.1), and the owner
 * keeps tracing. */
static void t_linux_disable_arg(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	CHECK_ERR(kc_req(k, fd, k->f->req_disable, 1), EINVAL);
	CHECK_ERR(kc_req(k, fd, k->f->req_disable, 1UL << 32), EINVAL);
	expect_tracing(buf);
	kc_disable_ok(k, fd);
}

/* A pointer no process may read: an inaccessible page, and the last
 * bytes of a readable page followed by an inaccessible one. */
static void *bad_page(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK_OK(mprotect(p + PAGE, PAGE, PROT_NONE));
	return p + PAGE;
}

/* NetBSD/OpenBSD pass pointers: the ioctl layer copies the argument in
 * before the driver runs, so a bad pointer is EFAULT whatever the state,
 * and changes nothing. */
static void t_efault(const struct kc *k)
{
	char *bad = bad_page();
	void *straddle = bad - 4;	/* 4 readable bytes of 8 */
	uint64_t *buf;
	int fd = kc_open_ok(k);

	CHECK_ERR(kc_req(k, fd, k->f->req_setbuf, 0), EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_setbuf, (unsigned long)bad), EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_setbuf, (unsigned long)straddle),
		  EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_enable, 0), EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_enable, (unsigned long)bad), EFAULT);
	expect_open_state(k, fd);
	buf = kc_map(fd, KC_ENTRIES);
	CHECK_ERR(kc_req(k, fd, k->f->req_setbuf, 0), EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_enable, 0), EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_enable, (unsigned long)bad), EFAULT);
	kc_enable_ok(k, fd, 0);
	CHECK_ERR(kc_req(k, fd, k->f->req_enable, 0), EFAULT);
	CHECK_ERR(kc_req(k, fd, k->f->req_setbuf, 0), EFAULT);
	expect_tracing(buf);
	kc_disable_ok(k, fd);
	expect_ready_state(k, fd, buf);
}

/* UKCOV_IOC_DROPPED writes through a pointer on every flavor: a bad one
 * is EFAULT and does not clear the count. */
static void t_dropped_efault(const struct kc *k)
{
	char *bad = bad_page();
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, KC_ENTRIES - 1 + 3);
	kc_disable_ok(k, fd);
	CHECK_ERR(kc_dropped_raw(k, fd, NULL), EFAULT);
	CHECK_ERR(kc_dropped_raw(k, fd, (uint64_t *)bad), EFAULT);
	CHECK_ERR(kc_dropped_raw(k, fd, (uint64_t *)(bad - 4)), EFAULT);
	CHECK_EQ(kc_dropped(k, fd), 3);
	CHECK_EQ(kc_dropped(k, fd), 0);
}

/* The same where process_vm_readv/writev are refused (qemu-user, a
 * seccomp profile): the runtime copies through a pipe instead, still
 * EFAULT and never a fault of its own (it used to memcpy from the bad
 * pointer: SIGSEGV). */
static void t_efault_no_vm(const struct kc *k)
{
	kc_deny_process_vm();
	t_efault(k);
}

static void t_dropped_efault_no_vm(const struct kc *k)
{
	kc_deny_process_vm();
	t_dropped_efault(k);
}

/* Which check comes first, per kernel (§1 tables, in order). */

/* ENABLE(bad mode) without a buffer: Linux EINVAL (mode != INIT),
 * FreeBSD EBUSY (state first), NetBSD EINVAL (mode first), OpenBSD
 * ENXIO (state before mode). */
static void t_order_bad_mode_no_buffer(const struct kc *k)
{
	static const int want[FL_COUNT] = { EINVAL, EBUSY, EINVAL, ENXIO };
	int fd = kc_open_ok(k);

	CHECK_ERR(kc_enable(k, fd, 77), want[k->f->id - 1]);
	expect_open_state(k, fd);
}

/* The owner of fd1 enables fd2 (READY) with a bad mode: Linux EBUSY
 * (current->kcov before the mode), FreeBSD EINVAL (td_kcov_info),
 * NetBSD EINVAL (mode first), OpenBSD EBUSY (p_kd first). */
static void t_order_other_fd_bad_mode(const struct kc *k)
{
	static const int want[FL_COUNT] = { EBUSY, EINVAL, EINVAL, EBUSY };
	uint64_t *b1, *b2;
	int fd1 = kc_setup(k, KC_ENTRIES, &b1);
	int fd2 = kc_setup(k, KC_ENTRIES, &b2);

	kc_enable_ok(k, fd1, 0);
	CHECK_ERR(kc_enable(k, fd2, 77), want[k->f->id - 1]);
	expect_tracing(b1);
	kc_disable_ok(k, fd1);
	expect_ready_state(k, fd2, b2);
}

/* The owner of fd1 enables fd2 that has no buffer: Linux EINVAL (mode !=
 * INIT first), FreeBSD EBUSY (state first), NetBSD EBUSY (l_kcov before
 * ENOBUFS), OpenBSD EBUSY (p_kd first). */
static void t_order_other_fd_no_buffer(const struct kc *k)
{
	static const int want[FL_COUNT] = { EINVAL, EBUSY, EBUSY, EBUSY };
	uint64_t *b1;
	int fd1 = kc_setup(k, KC_ENTRIES, &b1);
	int fd2 = kc_open_ok(k);

	kc_enable_ok(k, fd1, 0);
	CHECK_ERR(kc_enable_pc(k, fd2), want[k->f->id - 1]);
	expect_tracing(b1);
	kc_disable_ok(k, fd1);
	expect_open_state(k, fd2);
}

/* Another thread traces; this one enables with a bad mode: Linux EINVAL,
 * FreeBSD EBUSY, NetBSD EINVAL (mode first), OpenBSD ENXIO. */
static void t_order_busy_bad_mode(const struct kc *k)
{
	static const int want[FL_COUNT] = { EINVAL, EBUSY, EINVAL, ENXIO };
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct actor *a = owner_actor(k, fd);

	CHECK_ERR(kc_enable(k, fd, 77), want[k->f->id - 1]);
	owner_still_traces(a, k, fd, buf);
}

/* Remote coverage: Linux KCOV_REMOTE_ENABLE is served (t_remote.c has
 * its rules; here: with no handle it enables, and the disable returns
 * the descriptor to READY); OpenBSD KIOREMOTEATTACH refuses another
 * subsystem (EINVAL); NetBSD
 * finds no registered
 * remote (ENOENT), refuses attach/detach while enabled (EEXIST), and
 * detach when not attached is ENOENT (§1.3). */
static void t_remote_not_served(const struct kc *k)
{
	uint64_t arg[8] = { 0 }, *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	switch (k->f->id) {
	case UKCOV_LINUX:
		/* trace_mode KCOV_TRACE_PC (0), area_size KC_ENTRIES */
		arg[0] = (uint64_t)KC_ENTRIES << 32;
		CHECK_OK(kc_req(k, fd, 0x40186366UL, (unsigned long)arg));
		kc_disable_ok(k, fd);
		break;
	case UKCOV_OPENBSD:
		/* KIOREMOTEATTACH is served (t_remote.c); a subsystem
		 * other than KCOV_REMOTE_COMMON is EINVAL. */
		arg[0] = 1;
		CHECK_ERR(kc_req(k, fd, 0x80084b04UL, (unsigned long)arg),
			  EINVAL);
		break;
	case UKCOV_NETBSD:
		CHECK_ERR(kc_req(k, fd, 0x80104b0aUL, (unsigned long)arg),
			  ENOENT);
		CHECK_ERR(kc_req(k, fd, 0x80104b0aUL, 0), EFAULT);
		CHECK_ERR(kc_req(k, fd, 0x20004b0bUL, 0), ENOENT);
		kc_enable_ok(k, fd, 0);
		CHECK_ERR(kc_req(k, fd, 0x80104b0aUL, (unsigned long)arg),
			  EEXIST);
		CHECK_ERR(kc_req(k, fd, 0x20004b0bUL, 0), EEXIST);
		expect_tracing(buf);
		kc_disable_ok(k, fd);
		break;
	}
	expect_ready_state(k, fd, buf);
}

void register_errno_tests(void)
{
	reg_flavors_apis("errno.enable_before_setbuf", t_enable_before_setbuf, 0);
	reg_flavors_apis("errno.enable_twice", t_enable_twice, 0);
	reg_flavors_apis("errno.enable_busy_other_thread",
			 t_enable_busy_other_thread, 0);
	reg_flavors_apis("errno.second_fd_same_thread",
			 t_second_fd_same_thread, 0);
	reg_flavors_apis("errno.disable_not_enabled", t_disable_not_enabled, 0);
	reg_flavors_apis("errno.disable_not_owner", t_disable_not_owner, 0);
	reg_flavors_apis("errno.second_setbuf", t_second_setbuf, 0);
	reg_flavors_apis("errno.second_setbuf_bad_size",
			 t_second_setbuf_bad_size, 0);
	reg_flavors_apis("errno.setbuf_while_enabled", t_setbuf_while_enabled, 0);
	reg_flavors_apis("errno.unknown_request", t_unknown_request, 0);
	reg_flavors_apis("errno.size_bounds", t_size_bounds, 0);
	reg_flavors_apis("errno.size_high_bits", t_size_high_bits, 0);
	reg_flavors_apis("errno.bad_modes", t_bad_modes, 0);
	reg_one("errno.mode_high_bits", t_mode_high_bits, FL_LINUX, 1, 0);
	reg_one("errno.mode_high_bits", t_mode_high_bits, FL_FREEBSD, 1,
		NEED_CMP);
	reg_one("errno.mode_high_bits/dev", t_mode_high_bits, FL_FREEBSD, 0,
		NEED_CMP);
	reg_one("errno.netbsd_mode_none/native", t_netbsd_mode_none, FL_NETBSD,
		1, 0);
	reg_one("errno.netbsd_mode_none/dev", t_netbsd_mode_none, FL_NETBSD, 0,
		0);
	reg_one("errno.linux_disable_arg/native", t_linux_disable_arg,
		FL_LINUX, 1, 0);
	reg_one("errno.linux_disable_arg/dev", t_linux_disable_arg, FL_LINUX,
		0, 0);
	reg_one("errno.efault/native", t_efault, FL_NETBSD, 1, 0);
	reg_one("errno.efault/dev", t_efault, FL_NETBSD, 0, 0);
	reg_one("errno.efault/native", t_efault, FL_OPENBSD, 1, 0);
	reg_one("errno.efault/dev", t_efault, FL_OPENBSD, 0, 0);
	reg_flavors_apis("errno.dropped_efault", t_dropped_efault, 0);
	reg_one("errno.efault_no_vm/native", t_efault_no_vm, FL_NETBSD, 1, 0);
	reg_one("errno.efault_no_vm/dev", t_efault_no_vm, FL_OPENBSD, 0, 0);
	reg_flavors_apis("errno.dropped_efault_no_vm", t_dropped_efault_no_vm,
			 0);
	reg_flavors_apis("errno.order_bad_mode_no_buffer",
			 t_order_bad_mode_no_buffer, 0);
	reg_flavors_apis("errno.order_other_fd_bad_mode",
			 t_order_other_fd_bad_mode, 0);
	reg_flavors_apis("errno.order_other_fd_no_buffer",
			 t_order_other_fd_no_buffer, 0);
	reg_flavors_apis("errno.order_busy_bad_mode", t_order_busy_bad_mode, 0);
	reg_one("errno.remote_not_served/native", t_remote_not_served, FL_LINUX,
		1, 0);
	reg_one("errno.remote_not_served/native", t_remote_not_served,
		FL_NETBSD, 1, 0);
	reg_one("errno.remote_not_served/native", t_remote_not_served,
		FL_OPENBSD, 1, 0);
}
