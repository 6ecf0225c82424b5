/*
 * tests/core/t_remote.c -- Linux remote coverage in one process:
 * KCOV_REMOTE_ENABLE (docs/KERNELS.md "Linux remote coverage": every
 * check in the kernel's order and errno, full rollback), sections
 * (ukcov_remote_start/stop), the merge (kcov_move_area), the common handle
 * (§2.3), sections in signal handlers (the softirq analogue).
 *
 * The collector is the test's main thread or an actor; sections run on
 * other threads and call target code only.  Every "nothing recorded"
 * check has a positive control: the same section code with a
 * registered handle records exactly the PCs expected.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/linux/kcov.h>

#include "kc.h"
#include "tests.h"

#define USB(n) (KCOV_SUBSYSTEM_USB | (uint64_t)(n))
#define SUBSYS(s, n) (((uint64_t)(s) << 56) | (n))
#define COMMON(n) (KCOV_SUBSYSTEM_COMMON | (uint64_t)(n))

/* Room for a struct kcov_remote_arg with every handle (a flexible
 * array member cannot be followed by more storage in a struct). */
struct rarg {
	uint64_t raw[3 + KCOV_REMOTE_MAX_HANDLES + 1];
};
#define RA(r) ((struct kcov_remote_arg *)(void *)(r)->raw)

/* A collector: a buffer of KC_ENTRIES, remote-enabled for h. */
static int collector(const struct kc *k, uint64_t h, uint64_t **buf)
{
	int fd = kc_setup(k, KC_ENTRIES, buf);

	CHECK_OK(kc_remote_enable1(k, fd, h));
	return fd;
}

/* ---- sections run on other threads ---- */

struct sec_op {
	uint64_t handle;
	void (*fn)(void);
	unsigned n;
};

static long op_section(void *p)
{
	const struct sec_op *o = p;

	ukcov_remote_start(o->handle);
	call_n(o->fn, o->n);
	ukcov_remote_stop();
	return 0;
}

static void section_on_thread(uint64_t h, void (*fn)(void), unsigned n)
{
	struct sec_op o = { h, fn, n };

	thread_run(op_section, &o);
}

static long op_cmp_section(void *p)
{
	ukcov_remote_start(*(const uint64_t *)p);
	target_cmp4(1, 2);
	target_ccmp4(7);
	ukcov_remote_stop();
	return 0;
}

static long op_start(void *p)
{
	ukcov_remote_start(*(const uint64_t *)p);
	return 0;
}

static long op_stop(void *p)
{
	(void)p;
	ukcov_remote_stop();
	return 0;
}

static long op_common(void *p)
{
	(void)p;
	return (long)ukcov_common_handle();
}

/* Handle 0 and an unbalanced stop leave no section behind. */
static long op_noop_then_section(void *p)
{
	(void)p;
	ukcov_remote_start(0);
	target_leaf2();
	ukcov_remote_stop();
	ukcov_remote_stop();
	ukcov_remote_start(USB(1));
	target_leaf();
	ukcov_remote_stop();
	return 0;
}

/* Exported (the binaries link with -rdynamic) so that the report on
 * stderr can name them. */
long remote_nest_op(void *p);
long remote_self_op(void *p);

__attribute__((noinline)) long remote_nest_op(void *p)
{
	(void)p;
	ukcov_remote_start(USB(1));
	target_leaf();
	ukcov_remote_start(USB(2));	/* ignored, reported */
	target_leaf2();
	ukcov_remote_start(USB(2));	/* ignored, not reported again */
	target_leaf3();
	ukcov_remote_stop();
	ukcov_remote_stop();		/* unbalanced: nothing */
	return 0;
}

/* A name of 20 * 32 = 640 characters, so that the report of the
 * ignored start below does not fit the runtime's 512-byte line. */
#define LN_CAT_(a, b) a##b
#define LN_CAT(a, b) LN_CAT_(a, b)
#define LN_X2(a) LN_CAT(a, a)
#define REMOTE_LONG_OP LN_X2(LN_X2(LN_X2(LN_X2(LN_X2(remote_long_name_op_)))))
long REMOTE_LONG_OP(void *p);

__attribute__((noinline)) long REMOTE_LONG_OP(void *p)
{
	(void)p;
	ukcov_remote_start(USB(1));
	ukcov_remote_start(USB(1)); /* ignored, reported */
	target_leaf();
	ukcov_remote_stop();
	return 0;
}

__attribute__((noinline)) long remote_self_op(void *p)
{
	(void)p;
	ukcov_remote_start(USB(1));
	target_leaf();
	target_leaf();
	ukcov_remote_stop();
	return 0;
}


/* Exactly one "ukcov:" line, naming the handle, the place and why. */
static void expect_one_report(const char *msg, const char *handle,
			      const char *where, const char *why)
{
	const char *p = strstr(msg, "ukcov: ukcov_remote_start(");

	if (!p || strstr(p + 1, "ukcov:") || !strchr(p, '\n') ||
	    strchr(p, '\n')[1] != 0)
		FAIL("want one report line, got \"%s\"", msg);
	if (!strstr(p, handle) || !strstr(p, where) || !strstr(p, why))
		FAIL("report \"%s\" lacks \"%s\", \"%s\" or \"%s\"", msg,
		     handle, where, why);
}

static long op_unique_enable(void *p)
{
	const struct kc_op *o = p;

	return kc_req(o->k, o->fd, KCOV_UNIQUE_ENABLE, (unsigned long)o->arg);
}

static long op_reset_trace(void *p)
{
	const struct kc_op *o = p;

	return kc_req(o->k, o->fd, KCOV_RESET_TRACE, 0);
}

/* A thread that is a remote owner: an actor that enabled fd for h. */
struct owner_op {
	const struct kc *k;
	int fd;
	uint64_t h;
};

static long op_remote_enable(void *p)
{
	const struct owner_op *o = p;

	return kc_remote_enable1(o->k, o->fd, o->h);
}

/* The owner enables with a prepared argument. */
struct owner_arg {
	const struct kc *k;
	int fd;
	struct kcov_remote_arg *a;
};

static long op_remote_enable_arg(void *p)
{
	const struct owner_arg *o = p;

	return kc_req(o->k, o->fd, KCOV_REMOTE_ENABLE, (unsigned long)o->a);
}

/* The owner registers o->h as its common handle, no other handle. */
static long op_remote_enable_common(void *p)
{
	const struct owner_op *o = p;

	return kc_remote_enable(o->k, o->fd, KCOV_TRACE_PC, KC_ENTRIES, o->h, 0,
				NULL);
}

/* ---- KCOV_REMOTE_ENABLE: checks in kcov_ioctl's order (§2.1) ---- */

/* num_handles > 256 is EINVAL before the state and the thread are
 * looked at; 256 handles are accepted. */
static void t_enable_max_handles(const struct kc *k)
{
	uint64_t *buf, *own, h[KCOV_REMOTE_MAX_HANDLES];
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int other = kc_setup(k, KC_ENTRIES, &own);
	int open_fd = kc_open_ok(k);
	unsigned i;

	/* OPEN descriptor: the count check comes first. */
	CHECK_ERR(kc_remote_enable(k, open_fd, 0, 8, 0, 257, NULL), EINVAL);
	/* A thread tracing another fd: EINVAL for the count, not EBUSY. */
	kc_enable_ok(k, other, 0);
	CHECK_ERR(kc_remote_enable(k, fd, 0, 8, 0, 257, NULL), EINVAL);
	CHECK_ERR(kc_remote_enable(k, fd, 0, 8, 0, 0xffffffffu, NULL), EINVAL);
	CHECK_ERR(kc_remote_enable1(k, fd, USB(1)), EBUSY);
	kc_disable_ok(k, other);
	for (i = 0; i < KCOV_REMOTE_MAX_HANDLES; i++)
		h[i] = SUBSYS(1 + i % 255, i);
	CHECK_OK(kc_remote_enable(k, fd, KCOV_TRACE_PC, KC_ENTRIES, 0,
				  KCOV_REMOTE_MAX_HANDLES, h));
	section_on_thread(h[255], target_leaf, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
}

/* EFAULT: the argument or its handles array unreadable.  Nothing
 * changes: the same descriptor then enables. */
static void t_enable_efault(const struct kc *k);

/* The same with process_vm_readv refused (t_errno.c, efault_no_vm). */
static void t_enable_efault_no_vm(const struct kc *k)
{
	kc_deny_process_vm();
	t_enable_efault(k);
}

static void t_enable_efault(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	char *pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct kcov_remote_arg *ra;

	CHECK(pages != MAP_FAILED);
	CHECK_OK(munmap(pages + PAGE, PAGE));
	CHECK_ERR(kc_req(k, fd, KCOV_REMOTE_ENABLE, 0), EFAULT);
	/* num_handles readable, the struct's last bytes not. */
	ra = (struct kcov_remote_arg *)(pages + PAGE - 12);
	CHECK_ERR(kc_req(k, fd, KCOV_REMOTE_ENABLE, (unsigned long)ra), EFAULT);
	/* The 24-byte head fits; its one handle does not (truncated). */
	ra = (struct kcov_remote_arg *)(pages + PAGE - sizeof(*ra));
	memset(ra, 0, sizeof(*ra));
	ra->area_size = KC_ENTRIES;
	ra->num_handles = 1;
	CHECK_ERR(kc_req(k, fd, KCOV_REMOTE_ENABLE, (unsigned long)ra), EFAULT);
	/* 257 handles that are not there: EINVAL, the count comes first. */
	ra->num_handles = 257;
	CHECK_ERR(kc_req(k, fd, KCOV_REMOTE_ENABLE, (unsigned long)ra), EINVAL);
	/* No handles at all: a complete 24-byte argument is enough. */
	ra->num_handles = 0;
	CHECK_OK(kc_req(k, fd, KCOV_REMOTE_ENABLE, (unsigned long)ra));
	CHECK_OK(kc_disable(k, fd));
	expect_ready_state(k, fd, buf);
}

/* State first (EINVAL), then the thread (EBUSY), then the mode. */
static void t_enable_state_mode(const struct kc *k)
{
	uint64_t *buf, *own;
	int open_fd = kc_open_ok(k);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int other = kc_setup(k, KC_ENTRIES, &own);
	struct actor *a = actor_start();
	struct kc_op op = { k, other, 0 };

	CHECK_ERR(kc_remote_enable1(k, open_fd, USB(1)), EINVAL);
	CHECK_ERR(kc_remote_enable(k, fd, 2, 8, 0, 1, (uint64_t[]){ USB(1) }),
		  EINVAL);
	CHECK_ERR(kc_remote_enable(k, fd, 0xffffffffu, 8, 0, 0, NULL), EINVAL);
	/* Enabled by another thread: EINVAL (the state), even with a bad
	 * mode. */
	CHECK_OK(actor_run(a, op_enable, &op));
	CHECK_ERR(kc_remote_enable(k, other, 2, 8, 0, 0, NULL), EINVAL);
	CHECK_OK(actor_run(a, op_disable, &op));
	/* This thread traces another fd: EBUSY, before the bad mode. */
	kc_enable_ok(k, other, 0);
	CHECK_ERR(kc_remote_enable(k, fd, 2, 8, 0, 0, NULL), EBUSY);
	kc_disable_ok(k, other);
	/* Remote-enabled already: the state (EINVAL), and this thread is
	 * the owner (EBUSY) of the other fd. */
	CHECK_OK(kc_remote_enable1(k, fd, USB(1)));
	CHECK_ERR(kc_remote_enable1(k, fd, USB(2)), EINVAL);
	CHECK_ERR(kc_remote_enable1(k, other, USB(2)), EBUSY);
	CHECK_ERR(kc_enable(k, other, 0), EBUSY);
	/* A plain ENABLE of the remote-enabled fd: EINVAL (not READY). */
	CHECK_ERR(actor_run(a, op_enable, &(struct kc_op){ k, fd, 0 }),
		  EINVAL);
	actor_stop(a);
}

/* A bad handle: EINVAL, and everything is rolled back, including the
 * handles registered before it in the array. */
static void t_enable_bad_handle(const struct kc *k)
{
	static const struct {
		uint64_t h, common;
	} bad[] = {
		{ USB(1) | (1ULL << 32), 0 },	/* reserved bits 32-55 */
		{ USB(1) | (1ULL << 55), 0 },
		{ 0, 0 },			/* handle 0 */
		{ COMMON(5), 0 },		/* common in handles[] */
		{ USB(3), USB(4) },		/* global as common */
		{ USB(3), COMMON(4) | (1ULL << 40) },
	};
	uint64_t *buf, *buf2;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct actor *a = actor_start();
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t h[2] = { USB(7), bad[i].h };

		CHECK_ERR(kc_remote_enable(k, fd, KCOV_TRACE_PC, KC_ENTRIES,
					   bad[i].common, 2, h),
			  EINVAL);
		/* Rolled back: READY, the thread owns nothing, USB(7)
		 * is free for another descriptor. */
		CHECK_EQ(ukcov_common_handle(), 0);
		expect_ready_state(k, fd, buf);
		CHECK_OK(actor_run(a, op_remote_enable,
				   &(struct owner_op){ k, fd2, USB(7) }));
		section_on_thread(USB(7), target_leaf, 1);
		expect_only_pcs(buf2, 1, (const void *)target_leaf);
		rec_reset(buf2);
		CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, fd2, 0 }));
	}
	actor_stop(a);
}


/* EEXIST: a handle registered by another collector, the same handle
 * twice in one array, a common handle taken; full rollback each time. */
static void t_enable_eexist(const struct kc *k)
{
	uint64_t *buf, *buf2;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct actor *a = actor_start();
	uint64_t twice[3] = { USB(1), USB(2), USB(1) };
	uint64_t taken[2] = { USB(3), SUBSYS(9, 9) };

	CHECK_ERR(kc_remote_enable(k, fd, 0, KC_ENTRIES, 0, 3, twice), EEXIST);
	expect_ready_state(k, fd, buf);
	CHECK_EQ(ukcov_common_handle(), 0);
	/* USB(1) and USB(2) were rolled back: the actor takes USB(2). */
	CHECK_OK(actor_run(a, op_remote_enable,
			   &(struct owner_op){ k, fd2, USB(2) }));
	CHECK_ERR(kc_remote_enable1(k, fd, USB(2)), EEXIST);
	expect_ready_state(k, fd, buf);
	/* USB(3) first, then the taken USB(2): USB(3) is rolled back. */
	taken[1] = USB(2);
	CHECK_ERR(kc_remote_enable(k, fd, 0, KC_ENTRIES, 0, 2, taken), EEXIST);
	expect_ready_state(k, fd, buf);
	CHECK_OK(kc_remote_enable1(k, fd, USB(3)));
	CHECK_OK(kc_disable(k, fd));
	/* A common handle taken as a common handle by another collector. */
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, fd2, 0 }));
	CHECK_OK(actor_run(a, op_remote_enable_common,
			   &(struct owner_op){ k, fd2, COMMON(0x42) }));
	CHECK_ERR(kc_remote_enable(k, fd, 0, KC_ENTRIES, COMMON(0x42), 1,
				   (uint64_t[]){ USB(5) }),
		  EEXIST);
	CHECK_EQ(ukcov_common_handle(), 0);
	expect_ready_state(k, fd, buf);
	/* ... and a handle that is another collector's common handle. */
	CHECK_ERR(kc_remote_enable(k, fd, 0, KC_ENTRIES, 0, 1,
				   (uint64_t[]){ COMMON(0x42) }),
		  EINVAL);
	CHECK_OK(kc_remote_enable(k, fd, 0, KC_ENTRIES, COMMON(0x43), 1,
				  (uint64_t[]){ USB(5) }));
	CHECK_EQ(ukcov_common_handle(), COMMON(0x43));
	actor_stop(a);
}

/* A KCOV_REMOTE_ENABLE refused for a handle another collector holds
 * keeps none of the descriptor's mappings it made for the collection:
 * ten refusals leave the process's mappings as they were, and the
 * descriptor then collects a free handle. */
static void t_enable_eexist_keeps_no_mapping(const struct kc *k)
{
	uint64_t *buf, *buf2;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct actor *a = actor_start();
	int before;

	CHECK_OK(actor_run(a, op_remote_enable,
			   &(struct owner_op){ k, fd2, USB(2) }));
	CHECK_ERR(kc_remote_enable1(k, fd, USB(2)), EEXIST);
	before = kc_descriptor_maps();
	CHECK(before > 0);
	for (int i = 0; i < 10; i++)
		CHECK_ERR(kc_remote_enable1(k, fd, USB(2)), EEXIST);
	CHECK_EQ(kc_descriptor_maps(), before);
	CHECK_OK(kc_remote_enable1(k, fd, USB(3)));
	section_on_thread(USB(3), target_leaf, 1);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	actor_stop(a);
}

/* Every global subsystem 1..0xff is the application's; instance 0 and
 * 0xffffffff are valid. */
static void t_enable_subsystems(const struct kc *k)
{
	static const uint64_t hs[] = {
		SUBSYS(1, 0), SUBSYS(2, 1), SUBSYS(0x7f, 0xffffffffu),
		SUBSYS(0xff, 0), SUBSYS(0xff, 0xffffffffu),
	};
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	unsigned i;

	CHECK_OK(kc_remote_enable(k, fd, KCOV_TRACE_PC, KC_ENTRIES, 0,
				  sizeof(hs) / sizeof(hs[0]), hs));
	for (i = 0; i < sizeof(hs) / sizeof(hs[0]); i++) {
		section_on_thread(hs[i], target_leaf, 1);
		expect_only_pcs(buf, 1, (const void *)target_leaf);
		rec_reset(buf);
	}
}

/* ---- sections ---- */

/* A section's PCs, exactly, appended section after section; the owner's
 * own code and a thread's code outside sections are not recorded. */
static void t_section_records(const struct kc *k)
{
	uint64_t *buf;
	int fd = collector(k, USB(1), &buf);

	call_n(target_leaf3, 4);	/* the owner is not traced */
	thread_run(op_leaf, &(struct kc_op){ k, -1, 5 }); /* no section */
	CHECK_EQ(rec_count(buf), 0);
	section_on_thread(USB(1), target_leaf, 2);
	section_on_thread(USB(1), target_leaf2, 3);
	CHECK_EQ(rec_count(buf), 5);
	expect_pcs_in(buf, 0, 2, (const void *)target_leaf);
	expect_pcs_in(buf, 2, 3, (const void *)target_leaf2);
	CHECK_EQ(kc_dropped(k, fd), 0);
}

/* CMP mode: the section's comparison records, exactly. */
static void t_section_cmp(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_OK(kc_remote_enable(k, fd, KCOV_TRACE_CMP, KC_ENTRIES, 0, 1, &h));
	thread_run(op_cmp_section, &h);
	CHECK_EQ(rec_count(buf), 2);
	expect_cmp(buf, 0, KCOV_CMP_SIZE(2), 1, 2, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	expect_cmp(buf, 1, KCOV_CMP_SIZE(2) | KCOV_CMP_CONST, TARGET_C4, 7,
		   (const void *)target_ccmp4,
		   (const void *)__sanitizer_cov_trace_const_cmp4);
}

/* Handle 0, an unregistered handle, an unbalanced stop: no-ops.  The
 * thread is left without a section: the next start records. */
static void t_section_noop(const struct kc *k)
{
	uint64_t *buf;
	(void)collector(k, USB(1), &buf);

	section_on_thread(0, target_leaf2, 2);
	section_on_thread(USB(2), target_leaf2, 2);
	section_on_thread(COMMON(1), target_leaf2, 2);
	thread_run(op_noop_then_section, NULL);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/* Sections do not nest: the inner start is ignored and reported once
 * on stderr with where it happened; the outer section goes on. */
static void t_section_nested(const struct kc *k)
{
	uint64_t *buf1, *buf2;
	struct actor *a = actor_start();
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	char msg[1024];

	(void)collector(k, USB(1), &buf1);
	CHECK_OK(actor_run(a, op_remote_enable,
			   &(struct owner_op){ k, fd2, USB(2) }));
	capture_stderr_begin();
	thread_run(remote_nest_op, NULL);
	capture_stderr_end(msg, sizeof(msg));
	/* Outer section: leaf, leaf2 (after the ignored start), leaf3
	 * (after the second ignored start); USB(2) got nothing. */
	CHECK_EQ(rec_count(buf1), 3);
	expect_pcs_in(buf1, 0, 1, (const void *)target_leaf);
	expect_pcs_in(buf1, 1, 1, (const void *)target_leaf2);
	expect_pcs_in(buf1, 2, 1, (const void *)target_leaf3);
	CHECK_EQ(rec_count(buf2), 0);
	/* The positive control for buf2. */
	section_on_thread(USB(2), target_leaf, 1);
	expect_only_pcs(buf2, 1, (const void *)target_leaf);
	expect_one_report(msg, "0x100000000000002", "remote_nest_op+0x",
			  "sections do not nest");
	actor_stop(a);
}

/* A report longer than the runtime's line (512 bytes with its NUL) is
 * cut to 511 bytes that still end with the newline, so the next line
 * on stderr starts on its own. */
static void t_section_report_cut(const struct kc *k)
{
	uint64_t *buf;
	char msg[2048];
	size_t len;

	(void)collector(k, USB(1), &buf);
	capture_stderr_begin();
	thread_run(REMOTE_LONG_OP, NULL);
	capture_stderr_end(msg, sizeof(msg));
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	len = strlen(msg);
	if (len != 511 || msg[510] != '\n' || strchr(msg, '\n') != msg + 510 ||
	    strncmp(msg,
		    "ukcov: ukcov_remote_start(0x100000000000001) "
		    "ignored at remote_long_name_op_remote_long_name_op_",
		    96) != 0)
		FAIL("want one cut line of 511 bytes, got %zu: \"%s\"", len,
		     msg);
}

/* A thread that traces itself, and the remote owner: a start is
 * ignored (reported once each); the tracing thread keeps recording
 * into its own buffer. */
static void t_section_tracing_thread(const struct kc *k)
{
	uint64_t *buf, *own;
	int fd = collector(k, USB(1), &buf);
	int ofd = kc_setup(k, KC_ENTRIES, &own);
	char msg[1024];
	struct actor *a = actor_start();

	(void)fd;
	CHECK_OK(actor_run(a, op_enable, &(struct kc_op){ k, ofd, 0 }));
	capture_stderr_begin();
	CHECK_OK(actor_run(a, remote_self_op, NULL));
	capture_stderr_end(msg, sizeof(msg));
	expect_only_pcs(own, 2, (const void *)target_leaf);
	CHECK_EQ(rec_count(buf), 0);
	expect_one_report(msg, "0x100000000000001", "remote_self_op+0x",
			  "traces itself");
	/* The owner (this thread). */
	capture_stderr_begin();
	remote_self_op(NULL);
	remote_self_op(NULL);
	capture_stderr_end(msg, sizeof(msg));
	expect_one_report(msg, "0x100000000000001", "remote_self_op+0x",
			  "owns a remote collection");
	CHECK_EQ(rec_count(buf), 0);
	section_on_thread(USB(1), target_leaf2, 1);	/* control */
	expect_only_pcs(buf, 1, (const void *)target_leaf2);
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, ofd, 0 }));
	actor_stop(a);
}

/* A handle with reserved bits: the start is ignored and reported. */
static void t_section_reserved_bits(const struct kc *k)
{
	uint64_t *buf;
	char msg[1024];

	(void)collector(k, USB(1), &buf);
	capture_stderr_begin();
	section_on_thread(USB(1) | (1ULL << 33), target_leaf, 1);
	capture_stderr_end(msg, sizeof(msg));
	CHECK_EQ(rec_count(buf), 0);
	expect_one_report(msg, "0x100000200000001", "ukcov_remote_start(",
			  "reserved bits");
	section_on_thread(USB(1), target_leaf, 1);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/* A stop on a thread without a section leaves another thread's open
 * section alone. */
static void t_section_wrong_thread_stop(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	struct actor *a = actor_start();

	(void)collector(k, h, &buf);
	CHECK_OK(actor_run(a, op_start, &h));
	CHECK_OK(actor_run(a, op_leaf, &(struct kc_op){ k, -1, 1 }));
	thread_run(op_stop, NULL);
	ukcov_remote_stop();
	CHECK_EQ(rec_count(buf), 0);		/* still open */
	CHECK_OK(actor_run(a, op_leaf, &(struct kc_op){ k, -1, 2 }));
	CHECK_OK(actor_run(a, op_stop, NULL));
	expect_only_pcs(buf, 3, (const void *)target_leaf);
	CHECK_OK(actor_run(a, op_stop, NULL));	/* unbalanced: nothing */
	CHECK_EQ(rec_count(buf), 3);
	actor_stop(a);
}

/* Inside a section the thread has a kcov (Linux kcov_start sets
 * t->kcov): KCOV_ENABLE and KCOV_REMOTE_ENABLE are EBUSY. */
static void t_section_blocks_enable(const struct kc *k)
{
	uint64_t *buf, *own, h = USB(1);
	int ofd = kc_setup(k, KC_ENTRIES, &own);
	struct actor *a = actor_start();

	(void)collector(k, h, &buf);
	CHECK_OK(actor_run(a, op_start, &h));
	CHECK_ERR(actor_run(a, op_enable, &(struct kc_op){ k, ofd, 0 }), EBUSY);
	CHECK_ERR(actor_run(a, op_remote_enable,
			    &(struct owner_op){ k, ofd, USB(2) }), EBUSY);
	CHECK_ERR(actor_run(a, op_unique_enable, &(struct kc_op){ k, ofd, 8 }),
		  EBUSY);
	CHECK_OK(actor_run(a, op_stop, NULL));
	CHECK_OK(actor_run(a, op_enable, &(struct kc_op){ k, ofd, 0 }));
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, ofd, 0 }));
	actor_stop(a);
}

/* The same inside a Linux section for every other flavour's enable,
 * with that kernel's "this thread already has kcov" errno (FreeBSD
 * EINVAL, NetBSD and OpenBSD EBUSY): one thread never traces into two
 * buffers.  The section still records after the refusals; after its
 * stop the enables succeed. */
static void t_section_blocks_other_flavors(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	struct actor *a = actor_start();
	struct { const struct kc *k; int fd; uint64_t *buf; } o[FL_COUNT];

	(void)collector(k, h, &buf);
	for (int fl = FL_FREEBSD; fl < FL_COUNT; fl++) {
		o[fl].k = &kcs[fl][core_have_native];
		o[fl].fd = kc_setup(o[fl].k, KC_ENTRIES, &o[fl].buf);
	}
	CHECK_OK(actor_run(a, op_start, &h));
	for (int fl = FL_FREEBSD; fl < FL_COUNT; fl++)
		CHECK_ERR(actor_run(a, op_enable, &(struct kc_op){
				o[fl].k, o[fl].fd, o[fl].k->f->mode_pc }),
			  o[fl].k->f->e_second_fd);
	CHECK_OK(actor_run(a, op_leaf, &(struct kc_op){ k, -1, 2 }));
	CHECK_OK(actor_run(a, op_stop, NULL));
	expect_only_pcs(buf, 2, (const void *)target_leaf);
	for (int fl = FL_FREEBSD; fl < FL_COUNT; fl++) {
		CHECK_EQ(rec_count(o[fl].buf), 0);
		CHECK_OK(actor_run(a, op_enable, &(struct kc_op){
				o[fl].k, o[fl].fd, o[fl].k->f->mode_pc }));
		CHECK_OK(actor_run(a, op_leaf, &(struct kc_op){ k, -1, 1 }));
		CHECK_OK(actor_run(a, op_disable,
				   &(struct kc_op){ o[fl].k, o[fl].fd, 0 }));
		expect_only_pcs(o[fl].buf, 1, (const void *)target_leaf);
		close(o[fl].fd);
	}
	actor_stop(a);
}

/* ---- the collector's life: disable, re-enable, exit (sequence) ---- */

/* KCOV_DISABLE unregisters every handle (another descriptor may take
 * them) and clears the owner's common handle; a section open across
 * the disable is discarded at its stop. */
static void t_disable_unregisters(const struct kc *k)
{
	uint64_t *buf, *buf2, hs[2] = { USB(1), SUBSYS(3, 3) };
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct actor *w = actor_start(), *o = actor_start();

	CHECK_OK(kc_remote_enable(k, fd, 0, KC_ENTRIES, COMMON(7), 2, hs));
	CHECK_EQ(ukcov_common_handle(), COMMON(7));
	CHECK_OK(actor_run(w, op_start, &hs[1]));
	CHECK_OK(actor_run(w, op_leaf, &(struct kc_op){ k, -1, 2 }));
	kc_disable_ok(k, fd);
	CHECK_EQ(ukcov_common_handle(), 0);
	CHECK_OK(actor_run(w, op_leaf, &(struct kc_op){ k, -1, 1 }));
	CHECK_OK(actor_run(w, op_stop, NULL));
	CHECK_EQ(rec_count(buf), 0);			/* discarded */
	CHECK_EQ(kc_dropped(k, fd), 0);
	/* Every handle is free again, the common one included. */
	CHECK_OK(actor_run(o, op_remote_enable,
			   &(struct owner_op){ k, fd2, hs[1] }));
	CHECK_OK(actor_run(o, op_disable, &(struct kc_op){ k, fd2, 0 }));
	CHECK_OK(actor_run(o, op_remote_enable_common,
			   &(struct owner_op){ k, fd2, COMMON(7) }));
	section_on_thread(COMMON(7), target_leaf2, 1);
	expect_only_pcs(buf2, 1, (const void *)target_leaf2);
	/* The first descriptor is READY and records again. */
	expect_ready_state(k, fd, buf);
	actor_stop(w);
	actor_stop(o);
}

/* A disable and re-enable between a section's start and stop changes
 * the generation: the section is discarded, the next one merges. */
static void t_reenable_discards(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = collector(k, h, &buf);
	struct actor *w = actor_start();

	CHECK_OK(actor_run(w, op_start, &h));
	CHECK_OK(actor_run(w, op_leaf, &(struct kc_op){ k, -1, 2 }));
	kc_disable_ok(k, fd);
	CHECK_OK(kc_remote_enable1(k, fd, h));
	CHECK_OK(actor_run(w, op_leaf, &(struct kc_op){ k, -1, 1 }));
	CHECK_OK(actor_run(w, op_stop, NULL));
	CHECK_EQ(rec_count(buf), 0);
	section_on_thread(h, target_leaf3, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf3);
	actor_stop(w);
}

/* The owner thread exits without disabling (kcov_task_exit): the
 * descriptor is READY with its contents, every handle is free, and a
 * section open across the exit is discarded. */
static void t_owner_exit(const struct kc *k)
{
	uint64_t *buf, *buf2, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct actor *o = actor_start(), *w = actor_start();

	CHECK_OK(actor_run(o, op_remote_enable, &(struct owner_op){ k, fd, h }));
	section_on_thread(h, target_leaf, 1);
	CHECK_OK(actor_run(w, op_start, &h));
	CHECK_OK(actor_run(w, op_leaf, &(struct kc_op){ k, -1, 3 }));
	actor_stop(o);
	CHECK_OK(actor_run(w, op_stop, NULL));
	expect_only_pcs(buf, 1, (const void *)target_leaf);	/* kept */
	CHECK_OK(kc_remote_enable1(k, fd2, h));
	section_on_thread(h, target_leaf2, 1);
	expect_only_pcs(buf2, 1, (const void *)target_leaf2);
	kc_disable_ok(k, fd2);
	rec_reset(buf);
	expect_ready_state(k, fd, buf);
	actor_stop(w);
}

/* A worker thread that exits with its section open: merged at exit. */
static long op_start_and_exit(void *p)
{
	ukcov_remote_start(*(const uint64_t *)p);
	call_n(target_leaf2, 2);
	return 0;
}

static void t_worker_exit_in_section(const struct kc *k)
{
	uint64_t *buf, h = USB(1);

	(void)collector(k, h, &buf);
	thread_run(op_start_and_exit, &h);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
}

/* KCOV_RESET_TRACE by the remote owner empties the buffer (Linux: the
 * collector's kcov->mode is its trace mode); sections append after. */
static void t_reset_trace_owner(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = collector(k, h, &buf);
	struct actor *a = actor_start();

	section_on_thread(h, target_leaf, 3);
	CHECK_EQ(rec_count(buf), 3);
	CHECK_ERR(kc_req(k, fd, KCOV_RESET_TRACE, 1), EINVAL);
	CHECK_ERR(actor_run(a, op_reset_trace, &(struct kc_op){ k, fd, 0 }),
		  EINVAL);				/* not the owner */
	CHECK_EQ(rec_count(buf), 3);
	CHECK_OK(kc_req(k, fd, KCOV_RESET_TRACE, 0));
	CHECK_EQ(rec_count(buf), 0);
	section_on_thread(h, target_leaf2, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	actor_stop(a);
}

/* ---- the merge (kcov_move_area) ---- */

/* Truncated to the free space; the loss is counted exactly, whether
 * the section's own area or the collector's buffer was too small. */
static void t_merge_truncates(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2;
	uint64_t *buf2;

	CHECK_OK(kc_remote_enable(k, fd, 0, 4 * KC_ENTRIES, 0, 1, &h));
	section_on_thread(h, target_leaf, 600);
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1);
	expect_pcs_in(buf, 0, KC_ENTRIES - 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 600 - (KC_ENTRIES - 1));
	/* Partly full: 500 records, 20 more -> 11 fit, 9 lost. */
	__atomic_store_n(&buf[0], 500, __ATOMIC_RELEASE);
	section_on_thread(h, target_leaf2, 20);
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1);
	expect_pcs_in(buf, 500, 11, (const void *)target_leaf2);
	expect_pcs_in(buf, 499, 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 9);
	/* area_size 10: a section keeps 9 records. */
	fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	kc_disable_ok(k, fd);
	CHECK_OK(kc_remote_enable(k, fd2, 0, 10, 0, 1, &h));
	section_on_thread(h, target_leaf3, 20);
	expect_only_pcs(buf2, 9, (const void *)target_leaf3);
	CHECK_EQ(kc_dropped(k, fd2), 11);
}

/* area_size 0: a section gets no area (Linux: vmalloc(0) fails) and
 * records nothing, counts nothing; area_size 1 holds no record. */
static void t_merge_tiny_areas(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_OK(kc_remote_enable(k, fd, 0, 0, 0, 1, &h));
	section_on_thread(h, target_leaf, 3);
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(kc_dropped(k, fd), 0);
	kc_disable_ok(k, fd);
	CHECK_OK(kc_remote_enable(k, fd, 0, 1, 0, 1, &h));
	section_on_thread(h, target_leaf, 3);
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(kc_dropped(k, fd), 3);
	kc_disable_ok(k, fd);
	CHECK_OK(kc_remote_enable(k, fd, 0, 2, 0, 1, &h)); /* control */
	section_on_thread(h, target_leaf, 3);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 2);
}

/* A count word beyond the capacity is garbage: nothing is copied,
 * nothing outside the buffer is written, the loss is counted. */
static void t_merge_garbage_count(const struct kc *k)
{
	uint64_t *buf, h = USB(1), before[KC_ENTRIES];
	int fd = collector(k, h, &buf);

	__atomic_store_n(&buf[0], KC_ENTRIES, __ATOMIC_RELEASE);
	memcpy(before, buf, sizeof(before));
	section_on_thread(h, target_leaf, 5);
	CHECK(memcmp(before, buf, sizeof(before)) == 0);
	CHECK_EQ(kc_dropped(k, fd), 5);
	__atomic_store_n(&buf[0], ~0ULL, __ATOMIC_RELEASE);
	section_on_thread(h, target_leaf, 5);
	CHECK_EQ(buf[0], ~0ULL);
	CHECK_EQ(kc_dropped(k, fd), 5);
	/* A full buffer (count == capacity) is not garbage: 0 fit. */
	__atomic_store_n(&buf[0], KC_ENTRIES - 1, __ATOMIC_RELEASE);
	section_on_thread(h, target_leaf, 2);
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1);
	CHECK_EQ(kc_dropped(k, fd), 2);
	rec_reset(buf);
	section_on_thread(h, target_leaf, 2);		/* control */
	expect_only_pcs(buf, 2, (const void *)target_leaf);
}

/* ---- the common handle (§2.3) ---- */

static long op_common_in_new_thread(void *p)
{
	(void)p;
	return thread_run(op_common, NULL);
}

static long op_section_common(void *p)
{
	(void)p;
	ukcov_remote_start_common((uint32_t)ukcov_common_handle());
	target_leaf3();
	ukcov_remote_stop();
	return 0;
}

/* Stored on the enabling thread; inherited by threads created after
 * (and their threads) and by fork children; not by threads that
 * existed before; cleared on the owner by the disable. */
static void t_common_inherit(const struct kc *k)
{
	uint64_t *buf, ch = COMMON(0x42);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct actor *before = actor_start(), *after;
	struct peer p;

	CHECK_EQ(ukcov_common_handle(), 0);
	CHECK_OK(kc_remote_enable(k, fd, 0, KC_ENTRIES, ch, 0, NULL));
	CHECK_EQ(ukcov_common_handle(), ch);
	CHECK_EQ(actor_run(before, op_common, NULL), 0);
	/* Every variant: the shared runtime interposes pthread_create,
	 * libukcov.a gets it through --wrap (lib/static_wrap.c). */
	CHECK_EQ(thread_run(op_common, NULL), ch);
	CHECK_EQ(thread_run(op_common_in_new_thread, NULL), ch);
	after = actor_start();
	CHECK_EQ(actor_run(after, op_common, NULL), ch);
	CHECK_OK(actor_run(after, op_section_common, NULL));
	expect_only_pcs(buf, 1, (const void *)target_leaf3);
	if (peer_fork(&p) == 0) {
		/* The child keeps the handle but owns nothing. */
		if (ukcov_common_handle() != ch)
			_exit(1);
		_exit(0);
	}
	expect_exit0(p.pid);
	kc_disable_ok(k, fd);
	CHECK_EQ(ukcov_common_handle(), 0);
	/* A thread created before the disable keeps its stale copy. */
	CHECK_EQ(actor_run(after, op_common, NULL), ch);
	actor_stop(before);
	actor_stop(after);
}

/* ---- sections in signal handlers (the softirq analogue) ---- */

static uint64_t sig_handle;
static volatile sig_atomic_t sig_stop_in_handler = 1;

static void h_section(int sig)
{
	(void)sig;
	/* The handler is the softirq analogue: these are what it runs. */
	ukcov_remote_start(sig_handle); /* NOLINT(bugprone-signal-handler) */
	target_leaf2(); /* NOLINT(bugprone-signal-handler) */
	target_leaf2(); /* NOLINT(bugprone-signal-handler) */
	if (sig_stop_in_handler)
		ukcov_remote_stop(); /* NOLINT(bugprone-signal-handler) */
}

/* The thread's own section (USB(1)) is interrupted by a handler that
 * runs a section for USB(2): each collector gets its own PCs, and the
 * thread's section goes on after the handler. */
static long op_section_with_signal(void *p)
{
	(void)p;
	ukcov_remote_start(USB(1));
	target_leaf();
	raise(SIGUSR1);
	target_leaf3();
	ukcov_remote_stop();
	return 0;
}

/* The same, on a thread that traces its own descriptor. */
static long op_tracing_with_signal(void *p)
{
	const struct kc_op *o = p;

	if (kc_enable(o->k, o->fd, 0) != 0)
		return -1;
	target_leaf();
	raise(SIGUSR1);
	target_leaf3();
	return kc_disable(o->k, o->fd);
}

static void signal_sections(const struct kc *k, int stop_in_handler)
{
	uint64_t *buf1, *buf2, *own;
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	int ofd = kc_setup(k, KC_ENTRIES, &own);
	struct actor *o = actor_start();

	(void)collector(k, USB(1), &buf1);
	CHECK_OK(actor_run(o, op_remote_enable,
			   &(struct owner_op){ k, fd2, USB(2) }));
	sig_handle = USB(2);
	sig_stop_in_handler = stop_in_handler;
	CHECK(signal(SIGUSR1, h_section) != SIG_ERR);
	thread_run(op_section_with_signal, NULL);
	CHECK_EQ(rec_count(buf1), 2);
	expect_pcs_in(buf1, 0, 1, (const void *)target_leaf);
	expect_pcs_in(buf1, 1, 1, (const void *)target_leaf3);
	expect_only_pcs(buf2, 2, (const void *)target_leaf2);
	rec_reset(buf2);
	CHECK_OK(thread_run(op_tracing_with_signal,
			    &(struct kc_op){ k, ofd, 0 }));
	CHECK_EQ(rec_count(own), 2);
	expect_pcs_in(own, 0, 1, (const void *)target_leaf);
	expect_pcs_in(own, 1, 1, (const void *)target_leaf3);
	expect_only_pcs(buf2, 2, (const void *)target_leaf2);
	/* A handler on a thread without a section, for an unregistered
	 * handle: nothing anywhere (the controls are above). */
	rec_reset(buf2);
	sig_handle = USB(9);
	raise(SIGUSR1);
	CHECK_EQ(rec_count(buf1), 2);
	CHECK_EQ(rec_count(buf2), 0);
	actor_stop(o);
}

static void t_signal_sections(const struct kc *k)
{
	signal_sections(k, 1);
}

/* A handler that returns with its section open: it ends with the
 * handler. */
static void t_signal_section_left_open(const struct kc *k)
{
	signal_sections(k, 0);
}

/* Inside a handler the common handle reads 0 (kcov_common_handle:
 * !in_task()). */
static volatile uint64_t common_in_handler = 1;

static void h_common(int sig)
{
	(void)sig;
	common_in_handler = ukcov_common_handle(); /* NOLINT(bugprone-signal-handler) */
}

static void t_signal_common_handle(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_OK(kc_remote_enable(k, fd, 0, KC_ENTRIES, COMMON(3), 0, NULL));
	CHECK(signal(SIGUSR2, h_common) != SIG_ERR);
	raise(SIGUSR2);
	CHECK_EQ(common_in_handler, 0);
	CHECK_EQ(ukcov_common_handle(), COMMON(3));
}

/* ---- a thread's lookup cache (lib/remote.c cache_lookup) ---- */

/* The same thread's sections follow every registration change at once,
 * though it looked the handle up before: a disable, a re-enable of the
 * descriptor for another handle, the handle moving to another
 * collector. */
static void t_cache_follows_registrations(const struct kc *k)
{
	uint64_t *buf, *buf2, h = USB(1), h2 = USB(2);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct actor *w = actor_start();
	struct sec_op o = { h, target_leaf, 2 }, o2 = { h2, target_leaf2, 1 };

	CHECK_OK(kc_remote_enable1(k, fd, h));
	CHECK_OK(actor_run(w, op_section, &o));
	CHECK_OK(actor_run(w, op_section, &o));
	expect_only_pcs(buf, 4, (const void *)target_leaf);
	kc_disable_ok(k, fd);
	CHECK_OK(actor_run(w, op_section, &o));
	CHECK_EQ(rec_count(buf), 4);
	/* h moves to another collector. */
	CHECK_OK(kc_remote_enable1(k, fd2, h));
	CHECK_OK(actor_run(w, op_section, &o));
	expect_only_pcs(buf2, 2, (const void *)target_leaf);
	CHECK_EQ(rec_count(buf), 4);
	kc_disable_ok(k, fd2);
	/* The first descriptor again, for another handle only. */
	rec_reset(buf);
	CHECK_OK(kc_remote_enable1(k, fd, h2));
	CHECK_OK(actor_run(w, op_section, &o));
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(rec_count(buf2), 2);
	CHECK_OK(actor_run(w, op_section, &o2));
	expect_only_pcs(buf, 1, (const void *)target_leaf2);
	kc_disable_ok(k, fd);
	actor_stop(w);
}

/* ---- stress: N collectors x M workers x many sections ---- */

#define ST_COLLECTORS 3
#define ST_WORKERS 4
#define ST_SECTIONS 2000		/* per worker and phase */
#define ST_ENTRIES (64 * 1024ULL)

static void (*const st_fn[ST_COLLECTORS])(void) = {
	target_leaf, target_leaf2, target_leaf3,
};

struct st_worker {
	int id, phase;
	uint64_t sent[ST_COLLECTORS];	/* records this worker sent */
	pthread_barrier_t *go;
};

/* Section j of worker w goes to collector (w + j) % N with 1..3 PCs of
 * that collector's function; every 97th section forks a child that
 * runs a section of 5 PCs too, which reaches the parent's collector
 * through the machine's registry.  Collector 2 is gone in phase 1: its
 * sections are no-ops. */
static void *st_worker_main(void *p)
{
	struct st_worker *w = p;
	int j, c;
	unsigned k;

	for (j = 0; j < ST_SECTIONS; j++) {
		c = (w->id + j) % ST_COLLECTORS;
		k = 1 + (unsigned)j % 3;
		ukcov_remote_start(USB(c + 1));
		call_n(st_fn[c], k);
		ukcov_remote_stop();
		if (!(w->phase == 1 && c == 2))
			w->sent[c] += k;
		if (j % 97 == 0) {
			pid_t pid = fork();

			if (pid == 0) {
				ukcov_remote_start(USB(c + 1));
				call_n(st_fn[c], 5);
				ukcov_remote_stop();
				_exit(0);
			}
			if (pid < 0 || wait_status(pid) != 0)
				FAIL("fork child: %d", pid);
			/* Its section reached the parent's collector
			 * through the machine's registry. */
			if (!(w->phase == 1 && c == 2))
				w->sent[c] += 5;
		}
	}
	return NULL;
}

static void st_phase(struct st_worker *w, int phase)
{
	pthread_t th[ST_WORKERS];
	int i;

	for (i = 0; i < ST_WORKERS; i++) {
		w[i].id = i;
		w[i].phase = phase;
		CHECK_EQ(pthread_create(&th[i], NULL, st_worker_main, &w[i]), 0);
	}
	for (i = 0; i < ST_WORKERS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
}

/* Every surviving collector holds exactly its own requests' PCs, PC by
 * PC; the one whose owner exited holds what merged before, and the
 * section open across its exit is discarded; nothing is written past
 * any count; no registration leaks (each handle can be taken again). */
static void t_stress(const struct kc *k)
{
	struct st_worker w[ST_WORKERS];
	struct actor *own[ST_COLLECTORS], *late = actor_start();
	uint64_t *buf[ST_COLLECTORS], want[ST_COLLECTORS] = { 0 }, h3 = USB(3);
	int fd[ST_COLLECTORS], c, i;

	memset(w, 0, sizeof(w));
	for (c = 0; c < ST_COLLECTORS; c++) {
		uint64_t h = USB(c + 1);
		struct rarg *r = calloc(1, sizeof(*r));

		CHECK(r != NULL);
		fd[c] = kc_setup(k, ST_ENTRIES, &buf[c]);
		own[c] = actor_start();
		RA(r)->area_size = 64;
		RA(r)->num_handles = 1;
		RA(r)->handles[0] = h;
		CHECK_OK(actor_run(own[c], op_remote_enable_arg,
				   &(struct owner_arg){ k, fd[c], RA(r) }));
		free(r);
	}
	st_phase(w, 0);
	/* Collector 2's owner exits while a section for it is open. */
	CHECK_OK(actor_run(late, op_start, &h3));
	CHECK_OK(actor_run(late, op_leaf, &(struct kc_op){ k, -1, 3 }));
	actor_stop(own[2]);
	CHECK_OK(actor_run(late, op_stop, NULL));
	st_phase(w, 1);
	for (i = 0; i < ST_WORKERS; i++)
		for (c = 0; c < ST_COLLECTORS; c++)
			want[c] += w[i].sent[c];
	for (c = 0; c < ST_COLLECTORS; c++) {
		uint64_t n = rec_count(buf[c]);

		CHECK_EQ(n, want[c]);
		expect_pcs_in(buf[c], 0, n, (const void *)st_fn[c]);
		for (uint64_t x = n + 1; x < ST_ENTRIES; x++)
			if (buf[c][x] != 0)
				FAIL("collector %d: word %llu written past the "
				     "count", c, (unsigned long long)x);
		CHECK_EQ(kc_dropped(k, fd[c]), 0);
	}
	for (c = 0; c < 2; c++)
		CHECK_OK(actor_run(own[c], op_disable,
				   &(struct kc_op){ k, fd[c], 0 }));
	/* No leak: every handle registers again. */
	for (c = 0; c < ST_COLLECTORS; c++) {
		rec_reset(buf[c]);
		CHECK_OK(kc_remote_enable1(k, fd[c], USB(c + 1)));
		section_on_thread(USB(c + 1), st_fn[c], 1);
		expect_only_pcs(buf[c], 1, (const void *)st_fn[c]);
		kc_disable_ok(k, fd[c]);
	}
	for (c = 0; c < 2; c++)
		actor_stop(own[c]);
	actor_stop(late);
}

/* ---- bad input: area_size absurd, num_handles 0 with handles ---- */

/* area_size 0xffffffff is accepted (Linux: only > LONG_MAX/8 is
 * EINVAL); a section then holds what the collector's buffer can take,
 * and no more memory. */
static void t_enable_absurd_area(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_OK(kc_remote_enable(k, fd, 0, 0xffffffffu, 0, 1, &h));
	section_on_thread(h, target_leaf, 600);
	expect_only_pcs(buf, KC_ENTRIES - 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 600 - (KC_ENTRIES - 1));
}

/* ---- across processes (the machine's registry, registry.c) ---- */

/* One section of one target_leaf in a fork child, which must exit 0. */
static void section_in_child(uint64_t h)
{
	struct peer p;

	if (peer_fork(&p) == 0) {
		ukcov_remote_start(h);
		target_leaf();
		ukcov_remote_stop();
		_exit(0);
	}
	expect_exit0(p.pid);
}

/* A fork child's sections reach the parent's collector, by a global
 * handle and by the inherited common handle (syzkaller's fork server:
 * kcov_handle is inherited, the table is the system's). */
static void t_xproc_fork_child(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer p;

	CHECK_OK(kc_remote_enable(k, fd, 0, KC_ENTRIES, COMMON(0x42), 1, &h));
	if (peer_fork(&p) == 0) {
		ukcov_remote_start(h);
		call_n(target_leaf, 2);
		ukcov_remote_stop();
		ukcov_remote_start(ukcov_common_handle());
		target_leaf2();
		ukcov_remote_stop();
		_exit(ukcov_common_handle() == COMMON(0x42) ? 0 : 1);
	}
	expect_exit0(p.pid);
	CHECK_EQ(rec_count(buf), 3);
	expect_pcs_in(buf, 0, 2, (const void *)target_leaf);
	expect_pcs_in(buf, 2, 1, (const void *)target_leaf2);
	/* After the disable, a child's section finds nothing. */
	kc_disable_ok(k, fd);
	rec_reset(buf);
	section_in_child(h);
	CHECK_EQ(rec_count(buf), 0);
}

/* A handle is registered once for the machine: EEXIST while another
 * process's collector has it, free again after its disable. */
static void t_xproc_eexist(const struct kc *k)
{
	uint64_t *buf, *cbuf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int cfd = kc_setup(k, KC_ENTRIES, &cbuf);
	struct peer p;

	if (peer_fork(&p) == 0)
		kc_collector_child(k, cfd, h, &p);
	peer_wait(&p);
	CHECK_ERR(kc_remote_enable1(k, fd, h), EEXIST);
	expect_ready_state(k, fd, buf);
	rec_reset(buf);
	/* The child's collector gets this process's sections. */
	section_on_thread(h, target_leaf3, 2);
	expect_only_pcs(cbuf, 2, (const void *)target_leaf3);
	peer_tell(&p);
	expect_exit0(p.pid);
	CHECK_OK(kc_remote_enable1(k, fd, h));
	section_on_thread(h, target_leaf, 1);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/* A collector killed with SIGKILL: its registration is reclaimed by
 * the next REMOTE_ENABLE of the handle; a section open across the kill
 * loses its own coverage and nothing else. */
static void t_xproc_killed_collector(const struct kc *k)
{
	uint64_t *buf, *cbuf, *obuf, h = USB(1), h2 = USB(2);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int cfd = kc_setup(k, KC_ENTRIES, &cbuf);
	int ofd = kc_setup(k, KC_ENTRIES, &obuf);
	struct actor *w = actor_start(), *o = actor_start();
	struct peer p;

	CHECK_OK(actor_run(o, op_remote_enable, &(struct owner_op){ k, ofd, h2 }));
	if (peer_fork(&p) == 0)
		kc_collector_child(k, cfd, h, &p);
	peer_wait(&p);
	CHECK_OK(actor_run(w, op_start, &h));
	CHECK_OK(actor_run(w, op_leaf, &(struct kc_op){ k, -1, 2 }));
	CHECK_OK(kill(p.pid, SIGKILL));
	CHECK(WIFSIGNALED(wait_status(p.pid)));
	CHECK_OK(actor_run(w, op_stop, NULL));
	section_on_thread(h2, target_leaf2, 1);	/* others unaffected */
	expect_only_pcs(obuf, 1, (const void *)target_leaf2);
	CHECK_OK(kc_remote_enable1(k, fd, h)); /* reclaimed */
	section_on_thread(h, target_leaf3, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf3);
	actor_stop(w);
	actor_stop(o);
}

/* ---- stress across processes: collector processes killed mid-section ---- */

#define SK_WORKERS 4
#define SK_SECTIONS 5000		/* per worker */
#define SK_ENTRIES (64 * 1024ULL)
#define SK_SECONDS 30			/* the bound, deadlocks included */

/* Handles 0x11 and 0x12 belong to collector processes that live to the
 * end (target_leaf, target_leaf2); 0x13 (target_leaf3) to collector
 * process A, killed at a third of the run, then to B, which reclaims
 * A's registration while the workers run and is killed at two thirds. */
#define SK_H(c) USB(0x11 + (uint64_t)(c))

static void (*const sk_fn[3])(void) = {
	target_leaf, target_leaf2, target_leaf3,
};

static int sk_progress;		/* atomic: sections done by all workers */

struct sk_worker {
	int id;
	uint64_t sent[2];		/* records sent to the survivors */
};

/* Section j of worker w goes to collector (w + j) % 3 with 1..3 PCs of
 * its function; every 61st forks a child whose section of 5 PCs goes
 * through the machine's registry as well. */
static void *sk_worker_main(void *p)
{
	struct sk_worker *w = p;
	int j, c;
	unsigned n;

	for (j = 0; j < SK_SECTIONS; j++) {
		c = (w->id + j) % 3;
		n = 1 + (unsigned)j % 3;
		ukcov_remote_start(SK_H(c));
		call_n(sk_fn[c], n);
		ukcov_remote_stop();
		if (c < 2)
			w->sent[c] += n;
		if (j % 61 == 0) {
			pid_t pid = fork();

			if (pid == 0) {
				ukcov_remote_start(SK_H(c));
				call_n(sk_fn[c], 5);
				ukcov_remote_stop();
				_exit(0);
			}
			if (pid < 0 || wait_status(pid) != 0)
				FAIL("fork child: %d", pid);
			if (c < 2)
				w->sent[c] += 5;
		}
		__atomic_add_fetch(&sk_progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* A collector process for h on fd, alive until told (or killed). */
static void sk_collector(const struct kc *k, int fd, uint64_t h,
			 struct peer *p)
{
	if (peer_fork(p) == 0)
		kc_collector_child(k, fd, h, p);
	peer_wait(p);
}

/* Once the workers have done `at` sections: open a section for handle
 * 0x13 here, kill its collector process with SIGKILL inside it, reap
 * it, close the section (its coverage is lost, nothing else). */
static void sk_kill_at(int at, const struct peer *victim)
{
	while (__atomic_load_n(&sk_progress, __ATOMIC_RELAXED) < at)
		usleep(1000);
	ukcov_remote_start(SK_H(2));
	call_n(target_leaf3, 2);
	CHECK_OK(kill(victim->pid, SIGKILL));
	CHECK(WIFSIGNALED(wait_status(victim->pid)));
	ukcov_remote_stop();
}

/* A collector's buffer after the run: want records (or at most
 * SK_ENTRIES - 1 when want is ~0: a killed collector), each a PC of
 * fn, and nothing written past the count. */
static void sk_expect_buffer(const char *who, const uint64_t *buf,
			     uint64_t want, void (*fn)(void))
{
	uint64_t n = rec_count(buf), x;

	if (want != ~0ULL)
		CHECK_EQ(n, want);
	else if (n > SK_ENTRIES - 1)
		FAIL("%s: count %llu beyond the buffer", who,
		     (unsigned long long)n);
	expect_pcs_in(buf, 0, n < SK_ENTRIES ? n : 0, (const void *)fn);
	for (x = n + 1; x < SK_ENTRIES; x++)
		if (buf[x] != 0)
			FAIL("%s: word %llu written past the count %llu", who,
			     (unsigned long long)x, (unsigned long long)n);
}

/* The registry holds no slot for handle h: no registration leaked. */
static void sk_expect_unregistered(uint64_t h)
{
	/* registry.c's file: a 64-byte header, then slots of five
	 * 8-byte words whose first is the handle. */
	const char *path = getenv("UKCOV_REGISTRY");
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat st;
	uint64_t *f;
	size_t i, nslots;

	CHECK(fd >= 0);
	CHECK_OK(fstat(fd, &st));
	f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(f != MAP_FAILED);
	nslots = ((size_t)st.st_size - 64) / 40;
	for (i = 0; i < nslots; i++)
		if (f[8 + 5 * i] == h)
			FAIL("handle 0x%llx still registered (slot %zu, pid "
			     "%d)", (unsigned long long)h, i,
			     (int)(int32_t)f[8 + 5 * i + 1]);
	munmap(f, (size_t)st.st_size);
	close(fd);
}

/*
 * N collector processes x M worker threads x many sections, workers
 * forking, collector processes killed with SIGKILL mid-section (issue
 * 7 item 7).  Bounded by SK_SECONDS (alarm: a deadlock kills the test
 * binary).  Checks: each survivor holds exactly its requests' records,
 * PC by PC, and nothing past its count; a killed collector's buffer
 * holds only its own function's PCs and nothing past its count; after
 * the run no handle is left in the registry and every handle, the
 * killed ones included, can be REMOTE_ENABLE'd again.
 */
static void t_stress_kill(const struct kc *k)
{
	struct sk_worker w[SK_WORKERS];
	pthread_t th[SK_WORKERS];
	struct peer surv[2], a, b;
	uint64_t *buf[2], *abuf, *bbuf, want[2] = { 0, 0 };
	int fd[2], afd, bfd, c, i;

	alarm(SK_SECONDS);
	__atomic_store_n(&sk_progress, 0, __ATOMIC_RELAXED);
	memset(w, 0, sizeof(w));
	for (c = 0; c < 2; c++) {
		fd[c] = kc_setup(k, SK_ENTRIES, &buf[c]);
		sk_collector(k, fd[c], SK_H(c), &surv[c]);
	}
	afd = kc_setup(k, SK_ENTRIES, &abuf);
	bfd = kc_setup(k, SK_ENTRIES, &bbuf);
	sk_collector(k, afd, SK_H(2), &a);
	for (i = 0; i < SK_WORKERS; i++) {
		w[i].id = i;
		CHECK_EQ(pthread_create(&th[i], NULL, sk_worker_main, &w[i]),
			 0);
	}
	sk_kill_at(SK_WORKERS * SK_SECTIONS / 3, &a);
	/* B takes over A's dead registration while sections run. */
	sk_collector(k, bfd, SK_H(2), &b);
	sk_kill_at(2 * SK_WORKERS * SK_SECTIONS / 3, &b);
	for (i = 0; i < SK_WORKERS; i++) {
		CHECK_EQ(pthread_join(th[i], NULL), 0);
		for (c = 0; c < 2; c++)
			want[c] += w[i].sent[c];
	}
	sk_expect_buffer("survivor 0x11", buf[0], want[0], sk_fn[0]);
	sk_expect_buffer("survivor 0x12", buf[1], want[1], sk_fn[1]);
	sk_expect_buffer("killed A", abuf, ~0ULL, sk_fn[2]);
	sk_expect_buffer("killed B", bbuf, ~0ULL, sk_fn[2]);
	for (c = 0; c < 2; c++) {
		CHECK_EQ(kc_dropped(k, fd[c]), 0);
		peer_tell(&surv[c]);	/* disable and exit */
		expect_exit0(surv[c].pid);
	}
	/* Every handle registers again, here, and records. */
	for (c = 0; c < 3; c++) {
		uint64_t *nbuf;
		int nfd = kc_setup(k, KC_ENTRIES, &nbuf);

		CHECK_OK(kc_remote_enable1(k, nfd, SK_H(c)));
		section_on_thread(SK_H(c), sk_fn[c], 2);
		expect_only_pcs(nbuf, 2, (const void *)sk_fn[c]);
		kc_disable_ok(k, nfd);
		CHECK_OK(close(nfd));
	}
	for (c = 0; c < 3; c++)
		sk_expect_unregistered(SK_H(c));
	alarm(0);
}

/* Another user can neither read nor write a collector's buffer: the
 * kernel refuses /proc/<pid>/fd/<n> and the registry file; its
 * sections reach nothing.  A same-user child is the control. */
static void t_xproc_other_user(const struct kc *k)
{
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	const char *reg_path = getenv("UKCOV_REGISTRY");
	char path[64];
	struct peer p;

	if (geteuid() != 0) {
		/* Only root can become another user here: the check is
		 * the same user's control below. */
		reg_path = NULL;
	}
	CHECK_OK(kc_remote_enable1(k, fd, h));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	if (reg_path && peer_fork(&p) == 0) {
		int e1, e2, e3;
		int null = open("/dev/null", O_WRONLY);

		/* Its runtime reports the registry it may not open. */
		if (null < 0 || dup2(null, 2) < 0)
			_exit(9);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		e1 = open(path, O_RDWR) < 0 ? errno : 0;
		e2 = open(path, O_RDONLY) < 0 ? errno : 0;
		e3 = open(reg_path, O_RDWR) < 0 ? errno : 0;
		ukcov_remote_start(h);
		target_leaf();
		ukcov_remote_stop();
		_exit(e1 == EACCES && e2 == EACCES && e3 == EACCES ? 0 : 11);
	}
	if (reg_path)
		expect_exit0(p.pid);
	CHECK_EQ(rec_count(buf), 0);
	section_in_child(h);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/* A registry that is not this user's 0600 file of the right size and
 * magic is not used (reported once) and left as it is: coverage stays
 * in the process. */
static void registry_refused(const struct kc *k, int variant)
{
	static const char *const why[] = {
		"mode is not 0600", "wrong size", "corrupt header",
		"owned by another user",
	};
	char dir[64], file[96], msg[1024], before[256], after[256];
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf), rfd;

	snprintf(dir, sizeof(dir), "/tmp/ukcov-badreg.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/registry", dir);
	rfd = open(file, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(rfd >= 0);
	memset(before, 0x5a, sizeof(before));
	CHECK_EQ(write(rfd, before, sizeof(before)), sizeof(before));
	if (variant != 1)	/* the others have the right size */
		CHECK_OK(ftruncate(rfd, (off_t)(8 * 8 + 1024 * 40)));
	if (variant == 0)
		CHECK_OK(fchmod(rfd, 0644));
	if (variant == 3)
		CHECK_OK(fchown(rfd, 65534, 65534));
	close(rfd);
	setenv("UKCOV_REGISTRY", file, 1);
	capture_stderr_begin();
	CHECK_OK(kc_remote_enable1(k, fd, h));
	capture_stderr_end(msg, sizeof(msg));
	if (!strstr(msg, "remote registry") || !strstr(msg, why[variant]))
		FAIL("report \"%s\" lacks \"%s\"", msg, why[variant]);
	section_on_thread(h, target_leaf, 1);		/* in-process */
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	section_in_child(h);
	CHECK_EQ(rec_count(buf), 1);			/* nothing came */
	rfd = open(file, O_RDONLY);
	CHECK(rfd >= 0);
	CHECK_EQ(read(rfd, after, sizeof(after)), sizeof(after));
	CHECK(memcmp(before, after, sizeof(after)) == 0);
	close(rfd);
	unlink(file);
	rmdir(dir);
}

static void t_registry_mode(const struct kc *k)
{
	registry_refused(k, 0);
}

static void t_registry_truncated(const struct kc *k)
{
	registry_refused(k, 1);
}

static void t_registry_corrupt(const struct kc *k)
{
	registry_refused(k, 2);
}

static void t_registry_foreign(const struct kc *k)
{
	if (geteuid() == 0)
		registry_refused(k, 3);
	else
		registry_refused(k, 0);	/* cannot chown: the mode case */
}

/* ---- OpenBSD KIOREMOTEATTACH (docs/KERNELS.md "OpenBSD") ---- */

#define OBSD_KIOREMOTEATTACH 0x80084b04UL

struct obsd_attach {
	int subsystem, id;
};

static long obsd_attach(const struct kc *k, int fd, int subsystem)
{
	struct obsd_attach a = { subsystem, 7 };

	return kc_req(k, fd, OBSD_KIOREMOTEATTACH, (unsigned long)&a);
}

/* A section for this process's remote: (KCOV_REMOTE_COMMON, pid). */
static long op_obsd_section(void *p)
{
	ukcov_remote_start(KCOV_SUBSYSTEM_COMMON | (uint32_t)getpid());
	call_n(target_leaf2, (unsigned)(uintptr_t)p);
	ukcov_remote_stop();
	return 0;
}

/* Attach: READY only (ENXIO), subsystem COMMON only (EINVAL), one per
 * process (EBUSY), a bad pointer EFAULT; the enabling thread is not
 * traced and owns nothing (it may enable another descriptor); sections
 * for the process's remote record; any thread may disable; the last
 * close detaches. */
static void t_obsd_remote(const struct kc *k)
{
	const struct kc *ko = &kcs[FL_OPENBSD][1];
	uint64_t *buf, *buf2, *own;
	int open_fd = kc_open_ok(ko);
	int fd = kc_setup(ko, KC_ENTRIES, &buf);
	int fd2 = kc_setup(ko, KC_ENTRIES, &buf2);
	int ofd = kc_setup(ko, KC_ENTRIES, &own);
	struct actor *a = actor_start();

	(void)k;
	CHECK_ERR(obsd_attach(ko, open_fd, 0), ENXIO);
	CHECK_ERR(kc_req(ko, fd, OBSD_KIOREMOTEATTACH, 0), EFAULT);
	CHECK_ERR(obsd_attach(ko, fd, 1), EINVAL);
	CHECK_OK(obsd_attach(ko, fd, 0));
	CHECK_ERR(obsd_attach(ko, fd, 0), EBUSY);
	CHECK_ERR(obsd_attach(ko, fd2, 0), EBUSY);	/* one per process */
	kc_enable_ok(ko, fd, 0);
	CHECK_ERR(obsd_attach(ko, fd, 0), ENXIO);	/* TRACE */
	call_n(target_leaf, 3);				/* not traced */
	thread_run(op_obsd_section, (void *)(uintptr_t)2);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	/* p_kd is not set: this thread enables and traces another fd. */
	kc_enable_ok(ko, ofd, 0);
	target_leaf();
	expect_only_pcs(own, 1, (const void *)target_leaf);
	kc_disable_ok(ko, ofd);
	/* Any thread disables a remote-attached descriptor. */
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ ko, fd, 0 }));
	CHECK_ERR(kc_disable(ko, fd), ENXIO);
	thread_run(op_obsd_section, (void *)(uintptr_t)2);
	CHECK_EQ(rec_count(buf), 2);
	/* Enabled again: sections record again. */
	kc_enable_ok(ko, fd, 0);
	rec_reset(buf);
	thread_run(op_obsd_section, (void *)(uintptr_t)1);
	expect_only_pcs(buf, 1, (const void *)target_leaf2);
	/* The last close detaches: another descriptor may attach. */
	CHECK_OK(close(fd));
	CHECK_OK(obsd_attach(ko, fd2, 0));
	kc_enable_ok(ko, fd2, 0);
	thread_run(op_obsd_section, (void *)(uintptr_t)1);
	expect_only_pcs(buf2, 1, (const void *)target_leaf2);
	actor_stop(a);
}

/* KIOENABLE of an attached descriptor while the process's handle
 * (KCOV_REMOTE_COMMON, pid) is another collector's: EBUSY, and the
 * collection it set up is freed: ten refusals keep no mapping.  Once
 * the handle is free, the same descriptor enables and collects. */
static void t_obsd_enable_taken(const struct kc *k)
{
	const struct kc *ko = &kcs[FL_OPENBSD][1];
	uint64_t *buf, *lbuf, mine = COMMON((uint32_t)getpid());
	int fd = kc_setup(ko, KC_ENTRIES, &buf);
	int lfd = kc_setup(k, KC_ENTRIES, &lbuf);
	struct actor *a = actor_start();
	int before;

	CHECK_OK(actor_run(a, op_remote_enable_common,
			   &(struct owner_op){ k, lfd, mine }));
	CHECK_OK(obsd_attach(ko, fd, 0));
	CHECK_ERR(kc_enable(ko, fd, ko->f->mode_pc), EBUSY);
	before = kc_descriptor_maps();
	CHECK(before > 0);
	for (int i = 0; i < 10; i++)
		CHECK_ERR(kc_enable(ko, fd, ko->f->mode_pc), EBUSY);
	CHECK_EQ(kc_descriptor_maps(), before);
	CHECK_OK(actor_run(a, op_disable, &(struct kc_op){ k, lfd, 0 }));
	kc_enable_ok(ko, fd, 0);
	thread_run(op_obsd_section, (void *)(uintptr_t)1);
	expect_only_pcs(buf, 1, (const void *)target_leaf2);
	actor_stop(a);
}

/* Every run of the suite has a registry of its own (UKCOV_REGISTRY),
 * removed by the process that made it. */
static char reg_dir[64];
static pid_t reg_maker;

static void registry_cleanup(void)
{
	char path[128];

	if (getpid() != reg_maker)
		return;
	snprintf(path, sizeof(path), "%s/registry", reg_dir);
	unlink(path);
	rmdir(reg_dir);
}

static void private_registry(void)
{
	char path[128];

	snprintf(reg_dir, sizeof(reg_dir), "/tmp/ukcov-reg.XXXXXX");
	if (!mkdtemp(reg_dir))
		return;
	snprintf(path, sizeof(path), "%s/registry", reg_dir);
	setenv("UKCOV_REGISTRY", path, 1);
	reg_maker = getpid();
	atexit(registry_cleanup);
}

/* A table of the tests and the loop that registers them. */
void register_remote_tests(void) // NOLINT(readability-function-size)
{
	static const struct {
		const char *name;
		void (*fn)(const struct kc *);
		int both_apis;
		unsigned need;
	} tests[] = {
		{ "remote.enable_max_handles", t_enable_max_handles, 1, 0 },
		{ "remote.enable_efault", t_enable_efault, 1, 0 },
		{ "remote.enable_efault_no_vm", t_enable_efault_no_vm, 1, 0 },
		{ "remote.enable_state_mode", t_enable_state_mode, 1, 0 },
		{ "remote.enable_bad_handle", t_enable_bad_handle, 0, 0 },
		{ "remote.enable_eexist", t_enable_eexist, 0, 0 },
		{ "remote.enable_eexist_keeps_no_mapping",
		  t_enable_eexist_keeps_no_mapping, 0, 0 },
		{ "remote.enable_subsystems", t_enable_subsystems, 1, 0 },
		{ "remote.section_records", t_section_records, 1, 0 },
		{ "remote.section_cmp", t_section_cmp, 0, NEED_CMP },
		{ "remote.section_noop", t_section_noop, 0, 0 },
		{ "remote.section_nested", t_section_nested, 0, 0 },
		{ "remote.section_report_cut", t_section_report_cut, 0, 0 },
		{ "remote.section_tracing_thread", t_section_tracing_thread, 0,
		  0 },
		{ "remote.section_reserved_bits", t_section_reserved_bits, 0,
		  0 },
		{ "remote.section_wrong_thread_stop",
		  t_section_wrong_thread_stop, 0, 0 },
		{ "remote.section_blocks_enable", t_section_blocks_enable, 0,
		  0 },
		{ "remote.section_blocks_other_flavors",
		  t_section_blocks_other_flavors, 0, 0 },
		{ "remote.disable_unregisters", t_disable_unregisters, 0, 0 },
		{ "remote.reenable_discards", t_reenable_discards, 0, 0 },
		{ "remote.owner_exit", t_owner_exit, 0, 0 },
		{ "remote.worker_exit_in_section", t_worker_exit_in_section, 0,
		  0 },
		{ "remote.merge_truncates", t_merge_truncates, 0, 0 },
		{ "remote.merge_tiny_areas", t_merge_tiny_areas, 0, 0 },
		{ "remote.merge_garbage_count", t_merge_garbage_count, 0, 0 },
		{ "remote.common_inherit", t_common_inherit, 0, 0 },
		{ "remote.signal_sections", t_signal_sections, 0, 0 },
		{ "remote.signal_section_left_open", t_signal_section_left_open,
		  0, 0 },
		{ "remote.signal_common_handle", t_signal_common_handle, 0, 0 },
		{ "remote.cache_follows_registrations",
		  t_cache_follows_registrations, 0, 0 },
		{ "remote.stress", t_stress, 0, 0 },
		{ "remote.reset_trace_owner", t_reset_trace_owner, 1, 0 },
		{ "remote.xproc_fork_child", t_xproc_fork_child, 0, 0 },
		{ "remote.xproc_eexist", t_xproc_eexist, 0, 0 },
		{ "remote.xproc_killed_collector", t_xproc_killed_collector, 0,
		  0 },
		{ "remote.stress_kill", t_stress_kill, 0, 0 },
		{ "remote.xproc_other_user", t_xproc_other_user, 0, 0 },
		{ "remote.registry_mode", t_registry_mode, 0, 0 },
		{ "remote.registry_truncated", t_registry_truncated, 0, 0 },
		{ "remote.registry_corrupt", t_registry_corrupt, 0, 0 },
		{ "remote.registry_foreign", t_registry_foreign, 0, 0 },
		{ "remote.openbsd_attach", t_obsd_remote, 0, 0 },
		{ "remote.openbsd_enable_taken", t_obsd_enable_taken, 0, 0 },
		{ "remote.enable_absurd_area", t_enable_absurd_area, 1, 0 },
	};
	unsigned i;

	private_registry();
	/* The annotations are the native API; the ioctl also runs through
	 * the interposed open()/ioctl() of /sys/kernel/debug/kcov. */
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		char name[128];

		if (!tests[i].both_apis) {
			reg_one(tests[i].name, tests[i].fn, FL_LINUX, 1,
				tests[i].need);
			continue;
		}
		snprintf(name, sizeof(name), "%s/native", tests[i].name);
		reg_one(name, tests[i].fn, FL_LINUX, 1, tests[i].need);
		snprintf(name, sizeof(name), "%s/dev", tests[i].name);
		reg_one(name, tests[i].fn, FL_LINUX, 0,
			tests[i].need | NEED_NATIVE);
	}
}
