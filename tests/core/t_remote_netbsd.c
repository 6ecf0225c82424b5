/*
 * tests/core/t_remote_netbsd.c -- NetBSD remotes (docs/KERNELS.md
 * "NetBSD"; NetBSD sys/kern/subr_kcov.c kcov_remote_register, _enter,
 * _leave, kcov_remote_attach, _detach, kcov_setbufsize, kcov_enable,
 * kcov_disable, kcov_fops_mmap, kcov_fops_close, kcov_lwp_free):
 * KCOV_IOC_REMOTE_ATTACH/DETACH and the application-side
 * ukcov_remote_register/enter/leave.
 *
 * One buffer per remote, of KCOV_BUF_MAX_ENTRIES (256K) entries, that
 * every attached descriptor maps; a section records straight into it.
 * Sections run on actors or fresh threads and call target code only;
 * every "nothing recorded" check has a positive control in the same
 * test.  Each test registers remotes of its own (tests run in forked
 * children, and the registry is the suite's private one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ukcov/netbsd/kcov.h>

#include "kc.h"
#include "tests.h"

#define NB_ENTRIES ((uint64_t)UKCOV_NETBSD_REMOTE_ENTRIES)
#define NB_BYTES   (NB_ENTRIES * 8)

static long nb_attach(const struct kc *k, int fd, uint64_t s, uint64_t id)
{
	struct kcov_ioc_remote_attach a = { s, id };

	return kc_req(k, fd, KCOV_IOC_REMOTE_ATTACH, (unsigned long)&a);
}

static long nb_detach(const struct kc *k, int fd)
{
	return kc_req(k, fd, KCOV_IOC_REMOTE_DETACH, 0);
}

static long nb_enable(const struct kc *k, int fd, int mode)
{
	return kc_req(k, fd, KCOV_IOC_ENABLE, (unsigned long)&mode);
}

static uint64_t *nb_map(int fd)
{
	void *p = mmap(NULL, NB_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);

	if (p == MAP_FAILED)
		FAIL("mmap of the remote buffer: %s", errname(errno));
	return p;
}

/* A descriptor attached to (s, id) and its mapping of the remote. */
static int nb_attached(const struct kc *k, uint64_t s, uint64_t id,
		       uint64_t **buf)
{
	int fd = kc_open_ok(k);

	CHECK_OK(nb_attach(k, fd, s, id));
	*buf = nb_map(fd);
	return fd;
}

/* A new remote (s, id), a descriptor attached to it and mapped, the
 * remote enabled in PC mode. */
static int nb_on(const struct kc *k, uint64_t s, uint64_t id, uint64_t **buf)
{
	int fd;

	CHECK_OK(ukcov_remote_register(s, id));
	fd = nb_attached(k, s, id, buf);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	return fd;
}

/* msg (from capture_stderr_end) holds exactly one report, for why. */
static void expect_one_report(const char *msg, const char *call,
			      const char *why)
{
	const char *p = strstr(msg, call);

	if (!p || !strstr(p, why) || strstr(p + 1, "ukcov:"))
		FAIL("want one report of %s: %s, got: %s", call, why, msg);
}

/* ---- sections, run on other threads ---- */

struct nb_op {
	uint64_t s, id;
	unsigned n;		/* target_leaf2 calls inside */
};

static long op_section(void *p)
{
	const struct nb_op *o = p;

	if (ukcov_remote_enter(o->s, o->id) != 0)
		return -errno;
	call_n(target_leaf2, o->n);
	if (ukcov_remote_leave(o->s, o->id) != 0)
		return -1000 - errno;
	return 0;
}

static long section_on_thread(uint64_t s, uint64_t id, unsigned n)
{
	struct nb_op o = { s, id, n };

	return thread_run(op_section, &o);
}

static long op_enter(void *p)
{
	const struct nb_op *o = p;

	return ukcov_remote_enter(o->s, o->id) == 0 ? 0 : -errno;
}

static long op_leave(void *p)
{
	const struct nb_op *o = p;

	return ukcov_remote_leave(o->s, o->id) == 0 ? 0 : -errno;
}

static long op_leaf2(void *p)
{
	call_n(target_leaf2, (unsigned)(uintptr_t)p);
	return 0;
}

/* Enter and return without leaving: the thread then exits inside. */
static long op_enter_leaf2(void *p)
{
	const struct nb_op *o = p;

	if (ukcov_remote_enter(o->s, o->id) != 0)
		return -errno;
	call_n(target_leaf2, o->n);
	return 0;
}

/* ---- the ioctls ---- */

/* kcov_remote_attach: EFAULT, ENOENT for an unregistered remote,
 * EEXIST while the descriptor itself is enabled (checked before the
 * lookup); kcov_remote_detach: EEXIST while enabled, ENOENT unless
 * attached. */
static void t_attach_errnos(const struct kc *k)
{
	uint64_t *own;
	int fd = kc_setup(k, KC_ENTRIES, &own);
	int fd2 = kc_open_ok(k);

	CHECK_ERR(nb_attach(k, fd2, KCOV_REMOTE_VHCI,
			    KCOV_REMOTE_VHCI_ID(1, 2)), ENOENT);
	CHECK_ERR(kc_req(k, fd2, KCOV_IOC_REMOTE_ATTACH, 0), EFAULT);
	CHECK_ERR(nb_detach(k, fd2), ENOENT);
	CHECK_OK(ukcov_remote_register(KCOV_REMOTE_VHCI,
				       KCOV_REMOTE_VHCI_ID(1, 2)));
	CHECK_OK(ukcov_remote_register(7, 1));
	/* The key is (subsystem, id): another subsystem or id. */
	CHECK_ERR(nb_attach(k, fd2, 8, 1), ENOENT);
	CHECK_ERR(nb_attach(k, fd2, 7, 2), ENOENT);
	CHECK_OK(nb_attach(k, fd2, KCOV_REMOTE_VHCI,
			   KCOV_REMOTE_VHCI_ID(1, 2)));
	kc_enable_ok(k, fd, 0);
	CHECK_ERR(nb_attach(k, fd, 7, 1), EEXIST);
	CHECK_ERR(nb_attach(k, fd, 9, 9), EEXIST);	/* before the lookup */
	CHECK_ERR(nb_detach(k, fd), EEXIST);
	expect_tracing(own);				/* unchanged */
	kc_disable_ok(k, fd);
	expect_ready_state(k, fd, own);
}

/* READY with a buffer of its own, a descriptor may attach; attaching
 * again replaces the remote (the first one's records stop reaching
 * it); detaching gives the descriptor its own buffer and rules back. */
static void t_attach_replace(const struct kc *k)
{
	uint64_t *own, *b7, *b8;
	int fd = kc_setup(k, KC_ENTRIES, &own);
	int fd7 = nb_on(k, 7, 1, &b7), fd8 = nb_on(k, 8, 1, &b8);

	CHECK_OK(nb_attach(k, fd, 7, 1));
	CHECK_ERR(nb_enable(k, fd, KCOV_MODE_TRACE_PC), EBUSY);	/* 7's */
	CHECK_OK(nb_attach(k, fd, 8, 1));	/* replaces; 7 stays on */
	CHECK_ERR(nb_enable(k, fd, KCOV_MODE_TRACE_PC), EBUSY);	/* 8's */
	CHECK_OK(nb_detach(k, fd));		/* disables 8 */
	CHECK_ERR(kc_disable(k, fd8), ENOENT);
	kc_disable_ok(k, fd7);			/* 7 was left on */
	CHECK_ERR(nb_detach(k, fd), ENOENT);
	CHECK_EQ(rec_count(b7), 0);
	expect_ready_state(k, fd, own);
}

/* kcov_remote_register panics on a duplicate; here EEXIST, reported
 * once on stderr, and the remote keeps its buffer. */
static void t_register_duplicate(const struct kc *k)
{
	char msg[1024];
	uint64_t *buf;
	int fd;

	CHECK_OK(ukcov_remote_register(KCOV_REMOTE_VHCI, 5));
	fd = nb_attached(k, KCOV_REMOTE_VHCI, 5, &buf);
	buf[1] = 0x1234;
	capture_stderr_begin();
	CHECK_ERR(ukcov_remote_register(KCOV_REMOTE_VHCI, 5), EEXIST);
	CHECK_ERR(ukcov_remote_register(KCOV_REMOTE_VHCI, 5), EEXIST);
	capture_stderr_end(msg, sizeof(msg));
	expect_one_report(msg, "ukcov_remote_register(0x0, 0x5) refused at ",
			  "already registered (NetBSD panics)\n");
	CHECK_EQ(buf[1], 0x1234);
	CHECK_OK(ukcov_remote_register(KCOV_REMOTE_VHCI, 6));
	close(fd);
}

/* Attached: SETBUFSIZE succeeds and does nothing, whatever the size
 * ("buffer allocated remotely"); detached, the size is checked again. */
static void t_setbufsize_attached(const struct kc *k)
{
	uint64_t n = 0;
	int fd = kc_open_ok(k);

	CHECK_OK(ukcov_remote_register(3, 3));
	CHECK_OK(nb_attach(k, fd, 3, 3));
	CHECK_OK(kc_req(k, fd, KCOV_IOC_SETBUFSIZE, (unsigned long)&n));
	n = 1ULL << 40;
	CHECK_OK(kc_req(k, fd, KCOV_IOC_SETBUFSIZE, (unsigned long)&n));
	CHECK_ERR(kc_req(k, fd, KCOV_IOC_SETBUFSIZE, 0), EFAULT);
	CHECK_OK(nb_detach(k, fd));
	n = 0;
	CHECK_ERR(kc_req(k, fd, KCOV_IOC_SETBUFSIZE, (unsigned long)&n),
		  EINVAL);
	/* Still OPEN: no buffer came of the attached calls. */
	expect_open_state(k, fd);
}

/* The remote's buffer: 256K entries whatever the descriptor had; the
 * enabling thread is not traced; a section records exactly its PCs. */
static void t_section_records(const struct kc *k)
{
	uint64_t *buf;
	int fd;

	CHECK_OK(ukcov_remote_register(KCOV_REMOTE_VHCI,
				       KCOV_REMOTE_VHCI_ID(0, 1)));
	fd = nb_attached(k, KCOV_REMOTE_VHCI, KCOV_REMOTE_VHCI_ID(0, 1), &buf);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	call_n(target_leaf, 4);			/* this thread: not traced */
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(section_on_thread(KCOV_REMOTE_VHCI,
				   KCOV_REMOTE_VHCI_ID(0, 1), 3), 0);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
	/* Records append until the reader resets word 0. */
	CHECK_EQ(section_on_thread(KCOV_REMOTE_VHCI,
				   KCOV_REMOTE_VHCI_ID(0, 1), 2), 0);
	expect_only_pcs(buf, 5, (const void *)target_leaf2);
	rec_reset(buf);
	CHECK_EQ(section_on_thread(KCOV_REMOTE_VHCI,
				   KCOV_REMOTE_VHCI_ID(0, 1), 1), 0);
	expect_only_pcs(buf, 1, (const void *)target_leaf2);
	kc_disable_ok(k, fd);
}

/* Full: bufnent = 256K - 1 PCs, then records drop (UKCOV_IOC_DROPPED
 * of any attached descriptor counts them, from the remote's enable). */
static void t_section_full(const struct kc *k)
{
	uint64_t *buf;
	int fd, fd2;

	fd = nb_on(k, 4, 4, &buf);
	CHECK_EQ(section_on_thread(4, 4, (unsigned)NB_ENTRIES + 5), 0);
	CHECK_EQ(rec_count(buf), NB_ENTRIES - 1);
	expect_pcs_in(buf, NB_ENTRIES - 2, 1, (const void *)target_leaf2);
	/* Dropped silently in NetBSD; counted here, as for any buffer:
	 * the remote's count, through any attached descriptor. */
	fd2 = kc_open_ok(k);
	CHECK_OK(nb_attach(k, fd2, 4, 4));
	CHECK_EQ(kc_dropped(k, fd2), 6);
	CHECK_EQ(kc_dropped(k, fd), 0);		/* reported once */
	CHECK_EQ(section_on_thread(4, 4, 2), 0);
	CHECK_EQ(kc_dropped(k, fd), 2);
	kc_disable_ok(k, fd);
	CHECK_EQ(section_on_thread(4, 4, 2), 0);	/* off: not traced */
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	CHECK_EQ(section_on_thread(4, 4, 3), 0);
	CHECK_EQ(kc_dropped(k, fd), 3);		/* since the enable */
	rec_reset(buf);
	CHECK_EQ(section_on_thread(4, 4, 3), 0);
	CHECK_EQ(kc_dropped(k, fd), 0);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
}

static long op_cmp_section(void *p)
{
	(void)p;
	if (ukcov_remote_enter(4, 5) != 0)
		return -errno;
	target_cmp4(1, 2);
	target_ccmp4(7);
	return ukcov_remote_leave(4, 5) == 0 ? 0 : -errno;
}

/* TRACE_CMP: 4-word records straight into the remote's buffer;
 * KCOV_MODE_NONE enables and records nothing. */
static void t_section_modes(const struct kc *k)
{
	uint64_t *buf;
	int fd, bad = 3;

	CHECK_OK(ukcov_remote_register(4, 5));
	fd = nb_attached(k, 4, 5, &buf);
	CHECK_ERR(kc_req(k, fd, KCOV_IOC_ENABLE, (unsigned long)&bad), EINVAL);
	CHECK_ERR(kc_req(k, fd, KCOV_IOC_ENABLE, 0), EFAULT);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_NONE));
	CHECK_ERR(nb_enable(k, fd, KCOV_MODE_TRACE_PC), EBUSY);
	CHECK_EQ(section_on_thread(4, 5, 3), 0);
	CHECK_EQ(rec_count(buf), 0);
	kc_disable_ok(k, fd);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_CMP));
	CHECK_EQ(thread_run(op_cmp_section, NULL), 0);
	CHECK_EQ(rec_count(buf), 2);
	expect_cmp(buf, 0, KCOV_CMP_SIZE(2), 1, 2, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	expect_cmp(buf, 1, KCOV_CMP_SIZE(2) | KCOV_CMP_CONST, TARGET_C4, 7,
		   (const void *)target_ccmp4,
		   (const void *)__sanitizer_cov_trace_const_cmp4);
	kc_disable_ok(k, fd);
	/* Positive control for NONE: PC mode records the same section. */
	rec_reset(buf);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	CHECK_EQ(section_on_thread(4, 5, 3), 0);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
}

/* Two descriptors attached to one remote map the same buffer and share
 * its enabled state: either enables (the other gets EBUSY), either
 * disables (the other gets ENOENT), from any thread. */
static void t_two_descriptors(const struct kc *k)
{
	struct actor *a = actor_start();
	uint64_t *b1, *b2;
	int fd1, fd2;

	CHECK_OK(ukcov_remote_register(KCOV_REMOTE_VHCI, 77));
	fd1 = nb_attached(k, KCOV_REMOTE_VHCI, 77, &b1);
	fd2 = nb_attached(k, KCOV_REMOTE_VHCI, 77, &b2);
	CHECK(b1 != b2);
	b1[NB_ENTRIES - 1] = 0xabcdef;
	CHECK_EQ(b2[NB_ENTRIES - 1], 0xabcdef);
	b1[NB_ENTRIES - 1] = 0;
	CHECK_OK(nb_enable(k, fd1, KCOV_MODE_TRACE_PC));
	CHECK_ERR(nb_enable(k, fd2, KCOV_MODE_TRACE_PC), EBUSY);
	CHECK_EQ(section_on_thread(KCOV_REMOTE_VHCI, 77, 2), 0);
	expect_only_pcs(b2, 2, (const void *)target_leaf2);
	expect_only_pcs(b1, 2, (const void *)target_leaf2);
	/* Not the owner's business: another thread disables via fd2. */
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, fd2, 0 }));
	CHECK_ERR(kc_disable(k, fd1), ENOENT);
	CHECK_EQ(section_on_thread(KCOV_REMOTE_VHCI, 77, 2), 0);
	CHECK_EQ(rec_count(b1), 2);
	/* Enabled through fd2 by the actor: both see the records. */
	CHECK_OK(actor_run(a, op_enable, &(struct kc_op){ k, fd2, 1 }));
	CHECK_EQ(section_on_thread(KCOV_REMOTE_VHCI, 77, 1), 0);
	expect_only_pcs(b1, 3, (const void *)target_leaf2);
	actor_stop(a);
}

/* kcov_fops_mmap with kdbuf = the remote: PROT_EXEC EACCES; size or
 * offset above 256K entries EINVAL; size + offset above the remote's
 * 2 MiB ENOMEM; partial and offset mappings of the same pages. */
static void t_mmap_attached(const struct kc *k)
{
	uint64_t *buf, *page2;
	int fd = kc_open_ok(k);		/* OPEN: no buffer of its own */

	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	CHECK_EQ(errno, ENOMEM);
	CHECK_OK(ukcov_remote_register(5, 5));
	CHECK_OK(nb_attach(k, fd, 5, 5));
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) ==
	      MAP_FAILED);
	CHECK_EQ(errno, EACCES);
	CHECK(mmap(NULL, NB_BYTES + PAGE, PROT_READ, MAP_SHARED, fd, 0) ==
	      MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
		   (off_t)(NB_BYTES + PAGE)) == MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	CHECK(mmap(NULL, NB_BYTES, PROT_READ, MAP_SHARED, fd, PAGE) ==
	      MAP_FAILED);
	CHECK_EQ(errno, ENOMEM);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (off_t)NB_BYTES) ==
	      MAP_FAILED);
	CHECK_EQ(errno, ENOMEM);
	buf = nb_map(fd);
	page2 = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, PAGE);
	CHECK(page2 != MAP_FAILED);
	buf[PAGE / 8 + 3] = 0x5eed;
	CHECK_EQ(page2[3], 0x5eed);
	/* Detached: the descriptor has no buffer again. */
	CHECK_OK(nb_detach(k, fd));
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	CHECK_EQ(errno, ENOMEM);
	/* The mapping taken while attached stays valid. */
	CHECK_EQ(buf[PAGE / 8 + 3], 0x5eed);
}


long nb_refusals_op(void *p);

/* Exported (-rdynamic) so that the report names it.  Every refusal
 * leaves the open section recording. */
__attribute__((noinline)) long nb_refusals_op(void *p)
{
	long rc = 0;

	(void)p;
	if (ukcov_remote_enter(6, 99) == 0 || errno != ENOENT)
		rc |= 1;			/* unregistered */
	if (ukcov_remote_leave(6, 1) == 0 || errno != EINVAL)
		rc |= 2;			/* leave without enter */
	if (ukcov_remote_enter(6, 1) != 0)
		return -errno;
	target_leaf2();
	if (ukcov_remote_enter(6, 1) == 0 || errno != EBUSY)
		rc |= 4;			/* nested, same remote */
	if (ukcov_remote_enter(6, 2) == 0 || errno != EBUSY)
		rc |= 8;			/* nested, another */
	if (ukcov_remote_leave(6, 2) == 0 || errno != EINVAL)
		rc |= 16;			/* not the one entered */
	target_leaf2();
	if (ukcov_remote_leave(6, 1) != 0)
		rc |= 32;
	if (ukcov_remote_leave(6, 1) == 0 || errno != EINVAL)
		rc |= 64;			/* twice */
	target_leaf();				/* after: not recorded */
	return rc;
}

/* Refusals: ENOENT, EINVAL, EBUSY, each reported once with where. */
static void t_enter_errnos(const struct kc *k)
{
	uint64_t *buf;
	char msg[2048];
	int fd;
	long rc;

	CHECK_OK(ukcov_remote_register(6, 1));
	CHECK_OK(ukcov_remote_register(6, 2));
	fd = nb_attached(k, 6, 1, &buf);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	capture_stderr_begin();
	rc = thread_run(nb_refusals_op, NULL);
	capture_stderr_end(msg, sizeof(msg));
	CHECK_EQ(rc, 0);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	CHECK(strstr(msg, "ukcov_remote_enter(0x6, 0x63) refused at "
			  "nb_refusals_op+0x") != NULL);
	CHECK(strstr(msg, "not registered") != NULL);
	CHECK(strstr(msg, "did not enter this remote") != NULL);
	CHECK(strstr(msg, "sections do not nest") != NULL);
	/* Once per reason: two nested enters, one line. */
	CHECK(strstr(strstr(msg, "do not nest") + 1, "do not nest") == NULL);
}

/* A thread that traces a descriptor of its own (l_kcov != NULL) cannot
 * enter; inside a remote it cannot enable one (EBUSY). */
static void t_enter_tracing_thread(const struct kc *k)
{
	struct actor *a = actor_start();
	struct nb_op o = { 6, 3, 0 };
	char msg[1024];
	uint64_t *buf, *own;
	int ofd = kc_setup(k, KC_ENTRIES, &own);

	(void)nb_on(k, 6, 3, &buf);
	CHECK_OK(actor_run(a, op_enable, &(struct kc_op){ k, ofd, 1 }));
	capture_stderr_begin();
	CHECK_EQ(actor_run(a, op_enter, &o), -EBUSY);
	capture_stderr_end(msg, sizeof(msg));
	expect_one_report(msg, "ukcov_remote_enter(0x6, 0x3) refused at ",
			  "this thread traces");
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)2));
	expect_only_pcs(own, 2, (const void *)target_leaf2);
	CHECK_EQ(rec_count(buf), 0);
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, ofd, 0 }));
	/* Positive control: the same actor, not tracing, enters. */
	CHECK_EQ(actor_run(a, op_enter, &o), 0);
	CHECK_EQ(actor_run(a, op_enable, &(struct kc_op){ k, ofd, 1 }), -1);
	CHECK_EQ(errno, EBUSY);
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)3));
	CHECK_EQ(actor_run(a, op_leave, &o), 0);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
	CHECK_EQ(rec_count(own), 2);
	actor_stop(a);
}

/* Inside a NetBSD remote the thread has kcov (l_kcov) for every
 * flavour: Linux, FreeBSD and OpenBSD descriptors refuse its enable
 * with their kernel's "this thread already has kcov" errno (EBUSY,
 * EINVAL, EBUSY), the remote keeps recording, and after the leave the
 * enables succeed. */
static void t_enter_blocks_other_flavors(const struct kc *k)
{
	static const int fls[] = { FL_LINUX, FL_FREEBSD, FL_OPENBSD };
	struct actor *a = actor_start();
	struct nb_op o = { 6, 7, 0 };
	const struct kc *ok[3];
	uint64_t *buf, *obuf[3];
	int ofd[3];

	(void)nb_on(k, 6, 7, &buf);
	for (int i = 0; i < 3; i++) {
		ok[i] = &kcs[fls[i]][core_have_native];
		ofd[i] = kc_setup(ok[i], KC_ENTRIES, &obuf[i]);
	}
	CHECK_EQ(actor_run(a, op_enter, &o), 0);
	for (int i = 0; i < 3; i++)
		CHECK_ERR(actor_run(a, op_enable, &(struct kc_op){
				ok[i], ofd[i], ok[i]->f->mode_pc }),
			  ok[i]->f->e_second_fd);
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)2));
	CHECK_EQ(actor_run(a, op_leave, &o), 0);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(rec_count(obuf[i]), 0);
		CHECK_OK(actor_run(a, op_enable, &(struct kc_op){
				ok[i], ofd[i], ok[i]->f->mode_pc }));
		CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)1));
		CHECK_OK(actor_run(a, op_disable,
				   &(struct kc_op){ ok[i], ofd[i], 0 }));
		expect_only_pcs(obuf[i], 1, (const void *)target_leaf2);
		close(ofd[i]);
	}
	actor_stop(a);
}

/* One thread inside a remote at a time (NetBSD asserts refcount == 1);
 * the second is refused until the first leaves. */
static void t_enter_concurrent(const struct kc *k)
{
	struct actor *a = actor_start();
	struct nb_op o = { 6, 4, 0 };
	char msg[1024];
	uint64_t *buf;

	(void)nb_on(k, 6, 4, &buf);
	CHECK_EQ(actor_run(a, op_enter, &o), 0);
	capture_stderr_begin();
	CHECK_EQ(section_on_thread(6, 4, 5), -EBUSY);
	capture_stderr_end(msg, sizeof(msg));
	expect_one_report(msg, "ukcov_remote_enter(0x6, 0x4) refused at ",
			  "another thread is inside this remote");
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)1));
	CHECK_EQ(actor_run(a, op_leave, &o), 0);
	expect_only_pcs(buf, 1, (const void *)target_leaf2);
	CHECK_EQ(section_on_thread(6, 4, 5), 0);
	expect_only_pcs(buf, 6, (const void *)target_leaf2);
	actor_stop(a);
}

/* kcov_remote_enter sets l_kcov only if the remote is enabled then: a
 * section entered before the enable records nothing, the next one does.
 * A disable stops an open section at once (the hooks test enabled);
 * enabling again does not restart it. */
static void t_enable_disable_mid_section(const struct kc *k)
{
	struct actor *a = actor_start();
	struct nb_op o = { 6, 5, 0 };
	uint64_t *buf;
	int fd;

	CHECK_OK(ukcov_remote_register(6, 5));
	fd = nb_attached(k, 6, 5, &buf);
	CHECK_EQ(actor_run(a, op_enter, &o), 0);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)4));
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(actor_run(a, op_leave, &o), 0);
	CHECK_EQ(actor_run(a, op_enter, &o), 0);	/* enabled now */
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)2));
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	kc_disable_ok(k, fd);
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)3));
	CHECK_EQ(rec_count(buf), 2);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	CHECK_OK(actor_run(a, op_leaf2, (void *)(uintptr_t)3));
	CHECK_EQ(rec_count(buf), 2);
	CHECK_EQ(actor_run(a, op_leave, &o), 0);
	CHECK_EQ(section_on_thread(6, 5, 1), 0);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
	actor_stop(a);
}

/* DETACH and the last close of an attached descriptor disable the
 * remote (kcov_remote_detach, kcov_fops_close), whoever enabled it. */
static void t_detach_close_disable(const struct kc *k)
{
	uint64_t *b1, *b2;
	int fd1, fd2;

	CHECK_OK(ukcov_remote_register(6, 6));
	fd1 = nb_attached(k, 6, 6, &b1);
	fd2 = nb_attached(k, 6, 6, &b2);
	CHECK_OK(nb_enable(k, fd1, KCOV_MODE_TRACE_PC));
	CHECK_EQ(section_on_thread(6, 6, 1), 0);
	expect_only_pcs(b2, 1, (const void *)target_leaf2);
	CHECK_OK(nb_detach(k, fd2));		/* fd1 enabled it */
	CHECK_ERR(kc_disable(k, fd1), ENOENT);
	CHECK_EQ(section_on_thread(6, 6, 2), 0);
	CHECK_EQ(rec_count(b1), 1);
	CHECK_OK(nb_enable(k, fd1, KCOV_MODE_TRACE_PC));
	CHECK_EQ(section_on_thread(6, 6, 2), 0);
	CHECK_EQ(rec_count(b1), 3);
	CHECK_OK(nb_attach(k, fd2, 6, 6));
	CHECK_OK(close(fd1));			/* the last close of fd1 */
	CHECK_ERR(kc_disable(k, fd2), ENOENT);
	CHECK_EQ(section_on_thread(6, 6, 2), 0);
	CHECK_EQ(rec_count(b2), 3);
	CHECK_OK(nb_enable(k, fd2, KCOV_MODE_TRACE_PC));
	CHECK_EQ(section_on_thread(6, 6, 1), 0);
	expect_only_pcs(b2, 4, (const void *)target_leaf2);
}

/* kcov_lwp_free: a thread that exits inside a section it records in
 * turns the remote off; one that entered while it was off changes
 * nothing.  Either way the remote can be entered again. */
static void t_thread_exit_in_section(const struct kc *k)
{
	struct nb_op o = { 6, 7, 2 };
	uint64_t *buf;
	int fd;

	fd = nb_on(k, 6, 7, &buf);
	CHECK_EQ(thread_run(op_enter_leaf2, &o), 0);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	CHECK_ERR(kc_disable(k, fd), ENOENT);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	CHECK_EQ(section_on_thread(6, 7, 1), 0);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
	/* Entered while off: the exit leaves the remote as it is. */
	kc_disable_ok(k, fd);
	CHECK_EQ(thread_run(op_enter_leaf2, &o), 0);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	CHECK_EQ(thread_run(op_enter_leaf2, &o), 0);	/* not busy */
	CHECK_EQ(rec_count(buf), 5);
	CHECK_ERR(kc_disable(k, fd), ENOENT);		/* that one recorded */
}

/* ---- signal handlers ---- */

static volatile long handler_rc;

static void nb_handler(int sig)
{
	(void)sig;
	target_leaf();
	handler_rc = ukcov_remote_enter(6, 8) == 0 ? 0 : errno;
	handler_rc |= (ukcov_remote_leave(6, 8) == 0 ? 0 : errno) << 8;
}

static long op_signal_section(void *p)
{
	(void)p;
	if (ukcov_remote_enter(6, 8) != 0)
		return -errno;
	target_leaf2();
	raise(SIGUSR1);
	target_leaf2();
	return ukcov_remote_leave(6, 8) == 0 ? 0 : -errno;
}

/* A handler is an interrupt: it is not traced, it cannot enter or
 * leave; the interrupted section records again after it. */
static void t_signal_in_section(const struct kc *k)
{
	char msg[1024];
	struct sigaction sa;
	uint64_t *buf;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nb_handler;
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	(void)nb_on(k, 6, 8, &buf);
	capture_stderr_begin();
	CHECK_EQ(thread_run(op_signal_section, NULL), 0);
	capture_stderr_end(msg, sizeof(msg));
	CHECK_EQ(handler_rc, EBUSY | (EINVAL << 8));
	CHECK(strstr(msg, "inside a signal handler") != NULL);
	CHECK(strstr(msg, "did not enter this remote") != NULL);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
}

/* ---- other processes ---- */

/* A fork child shares the remotes registered before the fork (the same
 * pages): its sections land in the parent's descriptor's buffer, and
 * one thread in the whole family is inside a remote at a time. */
static void t_fork_shared(const struct kc *k)
{
	struct actor *a = actor_start();
	struct nb_op o = { 6, 9, 0 };
	char msg[1024];
	struct peer p;
	uint64_t *buf;

	(void)nb_on(k, 6, 9, &buf);
	CHECK_EQ(actor_run(a, op_enter, &o), 0);
	capture_stderr_begin();		/* the child's report */
	if (peer_fork(&p) == 0) {
		/* The parent's actor is inside. */
		if (section_on_thread(6, 9, 1) != -EBUSY)
			_exit(1);
		peer_tell(&p);
		peer_wait(&p);
		_exit(section_on_thread(6, 9, 3) == 0 ? 0 : 2);
	}
	peer_wait(&p);
	CHECK_EQ(actor_run(a, op_leave, &o), 0);
	CHECK_EQ(rec_count(buf), 0);
	peer_tell(&p);
	expect_exit0(p.pid);
	capture_stderr_end(msg, sizeof(msg));
	expect_one_report(msg, "ukcov_remote_enter(0x6, 0x9) refused at ",
			  "another thread is inside this remote");
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
	actor_stop(a);
}

/* A process that dies inside a section leaves the holder word naming
 * a thread that no longer exists: the next enter takes it over.  The
 * fork child's thread is a new thread (its own tid), even the one
 * that forked after entering and leaving here. */
static void t_fork_child_dies_inside(const struct kc *k)
{
	uint64_t *buf;
	pid_t pid;

	(void)nb_on(k, 6, 14, &buf);
	CHECK_OK(ukcov_remote_enter(6, 14));
	target_leaf();
	CHECK_OK(ukcov_remote_leave(6, 14));
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		if (ukcov_remote_enter(6, 14) != 0)
			_exit(1);
		target_leaf2();
		_exit(0);		/* inside */
	}
	expect_exit0(pid);
	expect_pcs_in(buf, 1, 1, (const void *)target_leaf2);
	CHECK_OK(ukcov_remote_enter(6, 14));
	target_leaf();
	CHECK_OK(ukcov_remote_leave(6, 14));
	CHECK_EQ(rec_count(buf), 3);
	expect_pcs_in(buf, 2, 1, (const void *)target_leaf);
}

/* A remote registered by an unrelated process of the same user is
 * found through the registry: attach, map, enable here, sections
 * there.  When that process ends, the remote is gone (ENOENT). */
/* lib/remote_netbsd.c nb_key, probe 0: the registry key of (s, id).
 * Copied to find a collision; should the library's change, the search
 * below finds none of the library's collisions and the test fails. */
static uint64_t nb_key0(uint64_t s, uint64_t id)
{
	uint64_t h = (s * 0x9e3779b97f4a7c15ULL) ^ id;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (h & ~(0xffffffULL << 32)) | (0x4e4252ULL << 32);
}

struct key_id { uint64_t key, id; };

static int key_id_cmp(const void *a, const void *b)
{
	const struct key_id *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Two ids of subsystem s whose keys collide (a birthday search over
 * 2^22 ids of a 40-bit hash: about 8 collisions expected). */
static int colliding_ids(uint64_t s, uint64_t *a, uint64_t *b)
{
	const size_t n = (size_t)1 << 22;
	struct key_id *v = malloc(n * sizeof(*v));
	int found = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct key_id){ nb_key0(s, i + 1), i + 1 };
	qsort(v, n, sizeof(*v), key_id_cmp);
	for (size_t i = 1; i < n && !found; i++)
		if (v[i].key == v[i - 1].key) {
			*a = v[i - 1].id;
			*b = v[i].id;
			found = 1;
		}
	free(v);
	return found;
}

/* Two remotes whose registry keys collide are two remotes, as on
 * NetBSD (whose list compares subsystem and id): both register, each
 * is found from another process by its own (subsystem, id), and each
 * section records into its own buffer; registering either again is
 * EEXIST.  The key alone once made the second registration EEXIST. */
static void t_xproc_key_collision(const struct kc *k)
{
	char msg[1024];
	struct peer p;
	uint64_t a, b, *ba, *bb;
	int fa = kc_open_ok(k), fb = kc_open_ok(k);

	if (!colliding_ids(6, &a, &b))
		FAIL("no two ids of subsystem 6 with the same registry key");
	CHECK_EQ(nb_key0(6, a), nb_key0(6, b));
	if (peer_fork(&p) == 0) {
		if (ukcov_remote_register(6, a) != 0 ||
		    ukcov_remote_register(6, b) != 0)
			_exit(1);
		peer_tell(&p);
		peer_wait(&p);
		if (section_on_thread(6, b, 3) != 0 ||
		    section_on_thread(6, a, 1) != 0)
			_exit(2);
		peer_tell(&p);
		peer_wait(&p);
		_exit(0);
	}
	peer_wait(&p);
	capture_stderr_begin();
	CHECK_ERR(ukcov_remote_register(6, a), EEXIST);
	CHECK_ERR(ukcov_remote_register(6, b), EEXIST);
	capture_stderr_end(msg, sizeof(msg));
	CHECK(strstr(msg, "already registered") != NULL);
	CHECK_OK(nb_attach(k, fa, 6, a));
	CHECK_OK(nb_attach(k, fb, 6, b));
	ba = nb_map(fa);
	bb = nb_map(fb);
	CHECK_OK(nb_enable(k, fa, KCOV_MODE_TRACE_PC));
	CHECK_OK(nb_enable(k, fb, KCOV_MODE_TRACE_PC));
	peer_tell(&p);
	peer_wait(&p);
	expect_only_pcs(bb, 3, (const void *)target_leaf2);
	expect_only_pcs(ba, 1, (const void *)target_leaf2);
	peer_tell(&p);
	expect_exit0(p.pid);
}

static void t_xproc_registry(const struct kc *k)
{
	char msg[1024];
	struct peer p;
	uint64_t *buf;
	int fd = kc_open_ok(k), fd2 = kc_open_ok(k);

	CHECK_ERR(nb_attach(k, fd, 6, 10), ENOENT);
	if (peer_fork(&p) == 0) {
		if (ukcov_remote_register(6, 10) != 0)
			_exit(1);
		peer_tell(&p);
		peer_wait(&p);
		if (section_on_thread(6, 10, 3) != 0)
			_exit(2);
		peer_tell(&p);
		peer_wait(&p);
		_exit(0);
	}
	peer_wait(&p);
	/* Registered in the child after the fork: not ours, and taken. */
	capture_stderr_begin();
	CHECK_ERR(ukcov_remote_register(6, 10), EEXIST);
	capture_stderr_end(msg, sizeof(msg));
	expect_one_report(msg, "ukcov_remote_register(0x6, 0xa) refused at ",
			  "already registered");
	CHECK_OK(nb_attach(k, fd, 6, 10));
	buf = nb_map(fd);
	CHECK_OK(nb_enable(k, fd, KCOV_MODE_TRACE_PC));
	peer_tell(&p);
	peer_wait(&p);
	expect_only_pcs(buf, 3, (const void *)target_leaf2);
	peer_tell(&p);
	expect_exit0(p.pid);
	CHECK_ERR(nb_attach(k, fd2, 6, 10), ENOENT);
	/* Its buffer stays mapped and readable here. */
	CHECK_EQ(rec_count(buf), 3);
}

/* The image another process of this user runs in t_xproc_other_user:
 * attach to the remote (6, 12) through /dev/kcov, enter it and call
 * target_leaf once; open the remote's memfd (path) directly.  Exit
 * status 0 if all of that works. */
static int same_user_process(const char *path)
{
	struct kcov_ioc_remote_attach a = { 6, 12 };
	int fd;

	setenv("UKCOV_DEVICE", "ukcov", 1);
	setenv("UKCOV_FLAVOR", "netbsd", 1);
	fd = open("/dev/kcov", O_RDWR);
	if (fd < 0 || open(path, O_RDWR) < 0)
		return 3;
	if (ioctl(fd, KCOV_IOC_REMOTE_ATTACH, &a) != 0)
		return 4;
	if (ukcov_remote_enter(6, 12) != 0)
		return 5;
	target_leaf();
	return ukcov_remote_leave(6, 12) == 0 ? 0 : 6;
}

/* The new image of t_exec_reregister (the remote its old image
 * registered is free again: exit status 0, or the errno), or of
 * t_xproc_other_user. */
int nbremote_exec_target_main(int argc, char **argv)
{
	if (argc == 3)
		return same_user_process(argv[2]);
	return ukcov_remote_register(6, 11) == 0 ? 0 : errno;
}

/* /proc/<pid>/fd/<n> of this process's remote buffer, by its memfd
 * name. */
static void remote_memfd_path(char *path, size_t size)
{
	char link[64], target[128];
	ssize_t n;
	int fd;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strstr(target, "memfd:ukcov-netbsd-remote")) {
			snprintf(path, size, "/proc/%d/fd/%d", (int)getpid(),
				 fd);
			return;
		}
	}
	FAIL("no memfd of the remote in /proc/self/fd");
}

/* Run this binary again as --nb-exec-target PATH: a process of this
 * user that shares nothing with us but the registry. */
static void run_same_user_process(const char *path)
{
	pid_t pid = fork();

	CHECK_OK(pid);
	if (pid == 0) {
		execl("/proc/self/exe", "core", "--nb-exec-target", path,
		      (char *)NULL);
		_exit(11);
	}
	expect_exit0(pid);
}

/* As nobody, after a remote this child did not inherit was registered:
 * neither the remote's pages (path, a remote it did inherit) nor the
 * new one (6, 13), which it finds only through the registry, are
 * reachable. */
static int other_user_child(const struct kc *k, const struct peer *p,
			    const char *path)
{
	int null = open("/dev/null", O_WRONLY), fd;

	/* Its runtime reports the registry it may not open. */
	if (null < 0 || dup2(null, 2) < 0)
		return 9;
	if (setgid(65534) != 0 || setuid(65534) != 0)
		return 10;
	peer_tell(p);
	peer_wait(p);		/* (6, 13) is registered now */
	fd = kc_open(k);
	if (fd < 0)
		return 11;
	if (open(path, O_RDWR) >= 0 || errno != EACCES)
		return 12;
	if (nb_attach(k, fd, 6, 13) == 0 || errno != ENOENT)
		return 13;
	if (ukcov_remote_enter(6, 13) == 0 || errno != ENOENT)
		return 14;
	target_leaf();
	return 0;
}

/* Same user only, from the OS: another process of this user attaches
 * to the remote through the registry and feeds it; one of another user
 * (nobody; only root can become it here) can neither open a remote's
 * pages through /proc nor find a remote in the registry. */
static void t_xproc_other_user(const struct kc *k)
{
	char path[64];
	uint64_t *buf, *b13;
	struct peer p;

	(void)nb_on(k, 6, 12, &buf);
	remote_memfd_path(path, sizeof(path));
	run_same_user_process(path);
	CHECK_EQ(rec_count(buf), 1);
	/* The record is the other image's target_leaf: the same PC, but
	 * for the (page-aligned) load address, as one made here. */
	CHECK_OK(ukcov_remote_enter(6, 12) == 0 ? 0 : -1);
	target_leaf();
	CHECK_OK(ukcov_remote_leave(6, 12) == 0 ? 0 : -1);
	expect_pcs_in(buf, 1, 1, (const void *)target_leaf);
	CHECK_EQ(buf[1] & (PAGE - 1), buf[2] & (PAGE - 1));
	if (geteuid() != 0)
		return;
	if (peer_fork(&p) == 0)
		_exit(other_user_child(k, &p, path));
	peer_wait(&p);
	(void)nb_on(k, 6, 13, &b13);
	peer_tell(&p);
	expect_exit0(p.pid);
	CHECK_EQ(rec_count(b13), 0);
	/* Positive control: a section here records into (6, 13). */
	CHECK_EQ(section_on_thread(6, 13, 1), 0);
	expect_only_pcs(b13, 1, (const void *)target_leaf2);
}

/* exec ends the image that holds a remote: the new image (same pid)
 * registers it again, where a stale registration would say EEXIST. */
static void t_exec_reregister(const struct kc *k)
{
	pid_t pid;

	(void)k;
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		if (ukcov_remote_register(6, 11) != 0)
			_exit(100);
		execl("/proc/self/exe", "core", "--nb-exec-target", (char *)NULL);
		_exit(101);
	}
	expect_exit0(pid);
}

void register_nbremote_tests(void)
{
	static const struct {
		const char *name;
		void (*fn)(const struct kc *);
		unsigned need;
	} tests[] = {
		{ "nbremote.attach_errnos", t_attach_errnos, 0 },
		{ "nbremote.attach_replace", t_attach_replace, 0 },
		{ "nbremote.register_duplicate", t_register_duplicate, 0 },
		{ "nbremote.setbufsize_attached", t_setbufsize_attached, 0 },
		{ "nbremote.section_records", t_section_records, 0 },
		{ "nbremote.section_full", t_section_full, 0 },
		{ "nbremote.section_modes", t_section_modes, NEED_CMP },
		{ "nbremote.two_descriptors", t_two_descriptors, 0 },
		{ "nbremote.mmap_attached", t_mmap_attached, 0 },
		{ "nbremote.enter_errnos", t_enter_errnos, 0 },
		{ "nbremote.enter_tracing_thread", t_enter_tracing_thread, 0 },
		{ "nbremote.enter_blocks_other_flavors",
		  t_enter_blocks_other_flavors, 0 },
		{ "nbremote.enter_concurrent", t_enter_concurrent, 0 },
		{ "nbremote.enable_disable_mid_section",
		  t_enable_disable_mid_section, 0 },
		{ "nbremote.detach_close_disable", t_detach_close_disable, 0 },
		{ "nbremote.thread_exit_in_section",
		  t_thread_exit_in_section, 0 },
		{ "nbremote.signal_in_section", t_signal_in_section, 0 },
		{ "nbremote.fork_shared", t_fork_shared, 0 },
		{ "nbremote.fork_child_dies_inside", t_fork_child_dies_inside,
		  0 },
		{ "nbremote.xproc_registry", t_xproc_registry, 0 },
		{ "nbremote.xproc_key_collision", t_xproc_key_collision, 0 },
		{ "nbremote.exec_reregister", t_exec_reregister, 0 },
		{ "nbremote.xproc_other_user", t_xproc_other_user, 0 },
	};
	unsigned i;

	/* The annotations are linked in, or preloaded with the runtime:
	 * the ioctls go through the native API where there is one, else
	 * through the interposed open()/ioctl() of /dev/kcov. */
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		reg_one(tests[i].name, tests[i].fn, FL_NETBSD,
			core_have_native, tests[i].need);
}
