/*
 * tests/core/t_unique.c -- unique coverage: Linux's proposed
 * KCOV_UNIQUE_ENABLE and KCOV_RESET_TRACE, and ukcov's CMP twin
 * UKCOV_IOC_UNIQUE_ENABLE_CMP.
 *
 * Oracle: "Coverage deduplication for KCOV" (Alexander Potapenko, v4
 * 2025-07-31; docs/KERNELS.md "Proposed Linux requests"): patch 07/10
 * kcov_handle_unique_enable checks, in order, mode != INIT || !area ->
 * EINVAL, kcov->t || current->kcov -> EBUSY, !words || words >= size-1
 * -> EINVAL; the first `words` words are the bitmap, the trace (own
 * count word) follows; a point is appended only while its bit is
 * clear; the user resets by zeroing bitmap and count.  Patch 10/10
 * KCOV_RESET_TRACE: arg != 0 || current->kcov != kcov -> EINVAL, then
 * bitmap zeroed and trace[0] = 0.  DISABLE and thread exit forget the
 * bitmap (kcov_reset).  Linux flavor only.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ukcov/inline.h>
#include <ukcov/linux/kcov.h>

#include "kc.h"
#include "targets/keep.h"
#include "tests.h"

#define BW 8			/* bitmap words in most tests */
#define TRACE(buf) ((buf) + BW)	/* the trace: count word, records */
#define SZ(n) ((uint64_t)(n) << 1)

static int uniq_enable(const struct kc *k, int fd, unsigned long words)
{
	return (int)kc_req(k, fd, KCOV_UNIQUE_ENABLE, words);
}

static void uniq_enable_ok(const struct kc *k, int fd, unsigned long words)
{
	if (uniq_enable(k, fd, words) != 0)
		FAIL("KCOV_UNIQUE_ENABLE(%lu): %s", words, errname(errno));
}

static void uniq_cmp_enable_ok(const struct kc *k, int fd, unsigned long words)
{
	if (kc_req(k, fd, UKCOV_IOC_UNIQUE_ENABLE_CMP, words) != 0)
		FAIL("UKCOV_IOC_UNIQUE_ENABLE_CMP(%lu): %s", words,
		     errname(errno));
}

/* The user's reset, as the proposal's documentation does it. */
static void user_reset(uint64_t *buf, uint64_t words)
{
	__atomic_store_n(&buf[words], 0, __ATOMIC_RELAXED);
	memset(buf, 0, words * 8);
}

static void three_leaves(void)
{
	call_n(target_leaf, 3);
	call_n(target_leaf2, 2);
	target_leaf3();
	call_n(target_leaf, 2);
}

/* Records of the trace at buf+words: leaf, leaf2, leaf3, once each. */
static void expect_leaves(const uint64_t *buf, uint64_t words)
{
	const uint64_t *tr = buf + words;

	CHECK_EQ(rec_count(tr), 3);
	expect_pcs_in(tr, 0, 1, (const void *)target_leaf);
	expect_pcs_in(tr, 1, 1, (const void *)target_leaf2);
	expect_pcs_in(tr, 2, 1, (const void *)target_leaf3);
}

/* ---- registers across points ---- */

static void keep_round(const char *what)
{
	for (int n = 1; n <= 80; n += 13) {
		double fp = target_keep_fp(1.5, 2.0, 3.25, 4.0, n);
		double fx = keep_fp(1.5, 2.0, 3.25, 4.0, n);
		uint64_t gp = target_keep_gp(0x1111, 0x2222, 0x4444, 0x8888,
					     0x10000, (uint64_t)n);
		uint64_t gx = keep_gp(0x1111, 0x2222, 0x4444, 0x8888, 0x10000,
				      (uint64_t)n);

		if (fp != fx)
			FAIL("%s: target_keep_fp(n = %d) = %.17g, not %.17g",
			     what, n, fp, fx);
		if (gp != gx)
			FAIL("%s: target_keep_gp(n = %d) = %#llx, not %#llx",
			     what, n, (unsigned long long)gp,
			     (unsigned long long)gx);
	}
}

/*
 * The values a function keeps in registers survive its points in every
 * mode: a plain trace that appends and then drops, unique mode's new
 * points (an inline build's C half; tests/suites.d/10-core.sh runs the
 * inline variants with UKCOV_SCRIBBLE_VECTORS=1, which has that C half
 * set xmm0-15 to all ones first, as any C code may change them), and
 * a bitmap too small for the points' numbers (every point to the C
 * half).
 */
static void t_keeps_registers(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	keep_round("not tracing");
	kc_enable_ok(k, fd, 0);
	keep_round("PC trace");
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1); /* and drops */
	CHECK(kc_dropped(k, fd) > 0);
	kc_disable_ok(k, fd);
	uniq_enable_ok(k, fd, BW);
	for (int r = 0; r < 3; r++) {
		user_reset(buf, BW);
		keep_round("unique");
	}
	CHECK(rec_count(TRACE(buf)) > 0);
	kc_disable_ok(k, fd);
	uniq_enable_ok(k, fd, 1);
	keep_round("unique, one bitmap word");
	keep_round("unique, one bitmap word, again");
	kc_disable_ok(k, fd);
	close(fd);
}

/* ---- errnos and state rules ---- */

static void t_errnos(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_open_ok(k), fd2;

	/* No buffer: mode != KCOV_MODE_INIT. */
	CHECK_ERR(uniq_enable(k, fd, BW), EINVAL);
	kc_setbuf_ok(k, fd, KC_ENTRIES);
	buf = kc_map(fd, KC_ENTRIES);
	/* Bitmap of 0 words, or one that leaves fewer than two words. */
	CHECK_ERR(uniq_enable(k, fd, 0), EINVAL);
	CHECK_ERR(uniq_enable(k, fd, KC_ENTRIES - 1), EINVAL);
	CHECK_ERR(uniq_enable(k, fd, KC_ENTRIES), EINVAL);
	CHECK_ERR(uniq_enable(k, fd, 1UL << 40), EINVAL);
	CHECK_ERR(uniq_enable(k, fd, ~0UL), EINVAL);
	CHECK_ERR(kc_req(k, fd, UKCOV_IOC_UNIQUE_ENABLE_CMP, 0), EINVAL);
	/* Bad input changed nothing: READY, whole-buffer PC trace. */
	expect_ready_state(k, fd, buf);
	/* Enabled already, by this thread: the state check comes first. */
	uniq_enable_ok(k, fd, BW);
	CHECK_ERR(uniq_enable(k, fd, BW), EINVAL);
	CHECK_ERR(uniq_enable(k, fd, 0), EINVAL);
	CHECK_ERR(kc_enable(k, fd, KCOV_TRACE_PC), EINVAL);
	/* This thread traces fd: another READY descriptor is EBUSY, even
	 * with a bad bitmap size (EBUSY is checked before the size). */
	fd2 = kc_setup(k, KC_ENTRIES, &buf);
	CHECK_ERR(uniq_enable(k, fd2, BW), EBUSY);
	CHECK_ERR(uniq_enable(k, fd2, 0), EBUSY);
	kc_disable_ok(k, fd);
	uniq_enable_ok(k, fd2, KC_ENTRIES - 2);	/* the largest bitmap */
	kc_disable_ok(k, fd2);
	close(fd2);
	close(fd);
}

/* Another thread enables it while this one traces it: EINVAL (state),
 * and a thread tracing something else gets EBUSY. */
static long op_uniq_enable(void *p)
{
	const struct kc_op *op = p;

	return uniq_enable(op->k, op->fd, (unsigned long)op->arg);
}

static void t_enabled_elsewhere(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct kc_op op = { k, fd, BW };

	uniq_enable_ok(k, fd, BW);
	CHECK_ERR(thread_run(op_uniq_enable, &op), EINVAL);
	kc_disable_ok(k, fd);
	CHECK_EQ(thread_run(op_uniq_enable, &op), 0);	/* exits: READY */
	uniq_enable_ok(k, fd, BW);
	kc_disable_ok(k, fd);
	close(fd);
}

/* Each point once per reset; a second identical run adds 0; a reset
 * then gives exactly the same records again. */
static void t_once_per_reset(const struct kc *k)
{
	uint64_t *buf, first[3];
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	uniq_enable_ok(k, fd, BW);
	user_reset(buf, BW);
	three_leaves();
	expect_leaves(buf, BW);
	memcpy(first, TRACE(buf) + 1, sizeof(first));
	three_leaves();
	CHECK_EQ(rec_count(TRACE(buf)), 3);
	user_reset(buf, BW);
	three_leaves();
	CHECK_EQ(rec_count(TRACE(buf)), 3);
	CHECK(memcmp(first, TRACE(buf) + 1, sizeof(first)) == 0);
	/* Only the count reset: the points are still seen. */
	rec_reset(TRACE(buf));
	three_leaves();
	CHECK_EQ(rec_count(TRACE(buf)), 0);
	kc_disable_ok(k, fd);
	CHECK_EQ(kc_dropped(k, fd), 0);
	close(fd);
}

/* The trace holds size - words - 1 records: with the largest bitmap,
 * one; the next new point is dropped and counted. */
static void t_trace_capacity(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	uniq_enable_ok(k, fd, KC_ENTRIES - 2);
	target_leaf();
	target_leaf2();
	target_leaf();
	kc_disable_ok(k, fd);
	CHECK_EQ(buf[KC_ENTRIES - 2], 1);
	expect_pcs_in(buf + KC_ENTRIES - 2, 0, 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 1);
	close(fd);
}

/* KCOV_RESET_TRACE: owner only, arg 0; zeroes bitmap and count through
 * the runtime's mapping, so a read-only mapping is enough. */
static long op_reset(void *p)
{
	const struct kc_op *op = p;

	return kc_req(op->k, op->fd, KCOV_RESET_TRACE, (unsigned long)op->arg);
}

static void t_reset_trace(const struct kc *k)
{
	uint64_t *rw, *ro, first[3];
	int fd = kc_setup(k, KC_ENTRIES, &rw);
	struct kc_op op = { k, fd, 0 };
	struct peer p;

	ro = mmap(NULL, (size_t)KC_ENTRIES * 8, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(ro != MAP_FAILED);
	/* Not enabled: current->kcov != kcov. */
	CHECK_ERR(kc_req(k, fd, KCOV_RESET_TRACE, 0), EINVAL);
	uniq_enable_ok(k, fd, BW);
	three_leaves();
	expect_leaves(ro, BW);
	memcpy(first, ro + BW + 1, sizeof(first));
	CHECK_ERR(kc_req(k, fd, KCOV_RESET_TRACE, 1), EINVAL);
	/* Another thread, another process: EINVAL, nothing changes. */
	CHECK_ERR(thread_run(op_reset, &op), EINVAL);
	if (peer_fork(&p) == 0) {
		CHECK_ERR(kc_req(k, fd, KCOV_RESET_TRACE, 0), EINVAL);
		_exit(0);
	}
	expect_exit0(p.pid);
	expect_leaves(ro, BW);
	CHECK_OK(kc_req(k, fd, KCOV_RESET_TRACE, 0));
	CHECK_EQ(ro[BW], 0);
	for (int i = 0; i < BW; i++)
		CHECK_EQ(ro[i], 0);
	three_leaves();
	expect_leaves(ro, BW);
	CHECK(memcmp(first, ro + BW + 1, sizeof(first)) == 0);
	kc_disable_ok(k, fd);
	/* A plain trace: the reset is the count. */
	kc_enable_ok(k, fd, 0);
	target_leaf();
	CHECK(rec_count(ro) > 0);
	CHECK_OK(kc_req(k, fd, KCOV_RESET_TRACE, 0));
	CHECK_EQ(rec_count(ro), 0);
	target_leaf();
	CHECK_EQ(rec_count(ro), 1);
	kc_disable_ok(k, fd);
	munmap(ro, (size_t)KC_ENTRIES * 8);
	close(fd);
}

/* DISABLE forgets the bitmap (kcov_reset): a plain enable uses the
 * whole buffer, word 0 counting again. */
static void t_disable_forgets(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	uniq_enable_ok(k, fd, BW);
	target_leaf();
	kc_disable_ok(k, fd);
	/* The bitmap has the leaf's bit, and only that. */
	{
		int bits = 0;

		for (int i = 0; i < BW; i++)
			bits += __builtin_popcountll(buf[i]);
		CHECK_EQ(bits, 1);
	}
	CHECK_EQ(rec_count(TRACE(buf)), 1);
	rec_reset(buf);
	kc_enable_ok(k, fd, 0);
	target_leaf();
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
	close(fd);
}

/* Thread exit disables (kcov_task_exit); two threads, two bitmaps. */
struct uniq_thread {
	const struct kc *k;
	int fd;
	void (*second)(void);
};

static long op_uniq_run(void *p)
{
	const struct uniq_thread *u = p;

	if (uniq_enable(u->k, u->fd, BW) != 0)
		return -1;
	call_n(target_leaf, 4);
	call_n(u->second, 3);
	target_leaf();
	return 0;	/* exits enabled: the descriptor goes back to READY */
}

static void t_threads(const struct kc *k)
{
	uint64_t *b1, *b2;
	int fd1 = kc_setup(k, KC_ENTRIES, &b1);
	int fd2 = kc_setup(k, KC_ENTRIES, &b2);
	struct actor *a1 = actor_start(), *a2 = actor_start();
	struct uniq_thread u1 = { k, fd1, target_leaf2 };
	struct uniq_thread u2 = { k, fd2, target_leaf3 };

	CHECK_EQ(actor_run(a1, op_uniq_run, &u1), 0);
	CHECK_EQ(actor_run(a2, op_uniq_run, &u2), 0);
	/* Each thread saw the leaf: each bitmap has it once. */
	CHECK_EQ(actor_run(a1, op_uniq_run, &u1), -1);	/* EINVAL: enabled */
	CHECK_EQ(rec_count(TRACE(b1)), 2);
	CHECK_EQ(rec_count(TRACE(b2)), 2);
	expect_pcs_in(TRACE(b1), 0, 1, (const void *)target_leaf);
	expect_pcs_in(TRACE(b1), 1, 1, (const void *)target_leaf2);
	expect_pcs_in(TRACE(b2), 0, 1, (const void *)target_leaf);
	expect_pcs_in(TRACE(b2), 1, 1, (const void *)target_leaf3);
	CHECK_EQ(TRACE(b1)[1], TRACE(b2)[1]);
	actor_stop(a1);
	actor_stop(a2);
	/* Thread exit: READY again, the bitmap forgotten (word 0 counts
	 * again, once the user resets it). */
	rec_reset(b1);
	expect_ready_state(k, fd1, b1);
	uniq_enable_ok(k, fd2, BW);
	kc_disable_ok(k, fd2);
	close(fd1);
	close(fd2);
}

/* ---- CMP (ukcov's extension) ---- */

static void cmp_run(void)
{
	for (int i = 0; i < 3; i++) {
		target_cmp4(1, 2);
		target_ccmp4(5);
		target_switch32(7);
	}
	target_cmp4(1, 3);
}

static void t_cmp(const struct kc *k)
{
	uint64_t *buf, first[8 * 4];
	uint64_t *tr;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	const uint64_t cases[] = { (uint64_t)-1 & 0xffffffff, 1, 7, 100, 1000 };

	tr = TRACE(buf);
	uniq_cmp_enable_ok(k, fd, BW);
	cmp_run();
	/* cmp4(1,2), ccmp4(5), 5 switch cases, cmp4(1,3). */
	CHECK_EQ(rec_count(tr), 8);
	expect_cmp(tr, 0, SZ(2), 1, 2, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	expect_cmp(tr, 1, SZ(2) | 1, TARGET_C4, 5, (const void *)target_ccmp4,
		   (const void *)__sanitizer_cov_trace_const_cmp4);
	/* The switch's five cases, in the compiler's order. */
	for (int i = 0, seen = 0; i < 5; i++) {
		const uint64_t *r = &tr[1 + (2 + i) * 4];
		int j = 0;

		while (j < 5 && (r[1] != cases[j] || (seen & (1 << j))))
			j++;
		CHECK(j < 5);
		seen |= 1 << j;
		CHECK_EQ(r[0], SZ(2) | 1);
		CHECK_EQ(r[2], 7);
	}
	expect_cmp(tr, 7, SZ(2), 1, 3, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	memcpy(first, tr + 1, sizeof(first));
	cmp_run();
	CHECK_EQ(rec_count(tr), 8);
	CHECK_OK(kc_req(k, fd, KCOV_RESET_TRACE, 0));
	cmp_run();
	CHECK_EQ(rec_count(tr), 8);
	CHECK(memcmp(first, tr + 1, sizeof(first)) == 0);
	/* The unique PC mode records no comparison, and the reverse. */
	kc_disable_ok(k, fd);
	uniq_enable_ok(k, fd, BW);
	user_reset(buf, BW);
	target_cmp4(9, 9);
	CHECK_EQ(rec_count(tr), 1);	/* its block's PC only */
	expect_pcs_in(tr, 0, 1, (const void *)target_cmp4);
	kc_disable_ok(k, fd);
	CHECK_EQ(kc_dropped(k, fd), 0);
	close(fd);
}

/* A bitmap of one word: 64 slots, all in every record's window
 * (UKCOV_UNIQ_CMP_PROBES).  Of 200 distinct records exactly the first
 * 64 are kept and the other 136 dropped and counted, each time they
 * come; the kept ones are repeats, never counted; nothing is written
 * past the records. */
static void t_table_full(const struct kc *k)
{
	uint64_t *buf, *tr;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	for (uint64_t i = 1; i < KC_ENTRIES; i++)
		buf[i] = 0xa5a5a5a5a5a5a5a5ULL;
	buf[0] = 0;
	tr = buf + 1;
	tr[0] = 0;
	uniq_cmp_enable_ok(k, fd, 1);
	for (uint32_t i = 0; i < 200; i++) {
		target_cmp4(i, 0xbeef);
		/* No record is lost while the table has room. */
		if (i < 64)
			CHECK_EQ(rec_count(tr), i + 1);
	}
	CHECK_EQ(rec_count(tr), 64);
	CHECK_EQ(buf[0], ~0ULL);
	CHECK_EQ(kc_dropped(k, fd), 200 - 64);
	for (uint32_t i = 0; i < 64; i++)
		expect_cmp(tr, i, SZ(2), i, 0xbeef, (const void *)target_cmp4,
			   (const void *)__sanitizer_cov_trace_cmp4);
	/* The kept records are repeats; the dropped ones are counted
	 * again, once per occurrence. */
	for (uint32_t i = 0; i < 64; i++)
		target_cmp4(i, 0xbeef);
	CHECK_EQ(kc_dropped(k, fd), 0);
	for (uint32_t i = 64; i < 200; i++)
		target_cmp4(i, 0xbeef);
	target_cmp4(199, 0xbeef);
	CHECK_EQ(rec_count(tr), 64);
	CHECK_EQ(kc_dropped(k, fd), 200 - 64 + 1);
	/* A reset empties the table: the next 64 distinct are kept. */
	CHECK_OK(kc_req(k, fd, KCOV_RESET_TRACE, 0));
	for (uint32_t i = 1000; i < 1100; i++)
		target_cmp4(i, 0xbeef);
	CHECK_EQ(rec_count(tr), 64);
	CHECK_EQ(kc_dropped(k, fd), 100 - 64);
	expect_cmp(tr, 63, SZ(2), 1063, 0xbeef, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	kc_disable_ok(k, fd);
	for (uint64_t i = 1 + 1 + 4 * 64; i < KC_ENTRIES; i++)
		CHECK_EQ(buf[i], 0xa5a5a5a5a5a5a5a5ULL);
	close(fd);
}

/* Unique CMP with the trace after the bitmap full: every record is
 * dropped and counted without a lookup, repeats and new ones alike
 * (the CMP trace's rule), and no slot is claimed; before that a repeat
 * is never counted; the user's reset records them again. */
static void t_cmp_trace_full(const struct kc *k)
{
	uint64_t *buf, *tr, bits = 0;
	const uint64_t cap = (KC_ENTRIES - BW - 1) / 4;	/* 125 */
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	tr = TRACE(buf);
	uniq_cmp_enable_ok(k, fd, BW);
	for (uint32_t i = 0; i + 1 < cap; i++)
		target_cmp4(i, 7);
	target_cmp4(5, 7);		/* a repeat, room left: not counted */
	CHECK_EQ(kc_dropped(k, fd), 0);
	target_cmp4((uint32_t)cap - 1, 7);
	CHECK_EQ(rec_count(tr), cap);
	target_cmp4(5, 7);		/* a repeat: counted */
	target_cmp4(500, 7);		/* new: counted */
	target_switch32(7);		/* five cases: counted at once */
	CHECK_EQ(rec_count(tr), cap);
	CHECK_EQ(kc_dropped(k, fd), 7);
	for (int w = 0; w < BW; w++)
		bits += (uint64_t)__builtin_popcountll(buf[w]);
	CHECK_EQ(bits, cap);
	expect_cmp(tr, cap - 1, SZ(2), cap - 1, 7, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	user_reset(buf, BW);
	target_cmp4(500, 7);
	target_cmp4(500, 7);
	CHECK_EQ(rec_count(tr), 1);
	CHECK_EQ(kc_dropped(k, fd), 0);
	expect_cmp(tr, 0, SZ(2), 500, 7, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	kc_disable_ok(k, fd);
	close(fd);
}

/* A larger table at half load: 8 words, 512 slots, 256 distinct
 * records all kept (a window of 64 full slots at this load would be
 * a broken hash), and a second pass adds nothing. */
static void t_table_half(const struct kc *k)
{
	uint64_t *buf, *tr, bits = 0;
	int fd = kc_setup(k, 2048, &buf);	/* room for all 256 */

	tr = TRACE(buf);
	uniq_cmp_enable_ok(k, fd, BW);
	for (uint32_t i = 0; i < 256; i++)
		target_cmp4(i * 0x10001u, ~i);
	CHECK_EQ(rec_count(tr), 256);
	for (uint32_t i = 0; i < 256; i++)
		target_cmp4(i * 0x10001u, ~i);
	CHECK_EQ(rec_count(tr), 256);
	CHECK_EQ(kc_dropped(k, fd), 0);
	for (int w = 0; w < BW; w++)
		bits += (uint64_t)__builtin_popcountll(buf[w]);
	CHECK_EQ(bits, 256);
	for (uint32_t i = 0; i < 256; i++)
		expect_cmp(tr, i, SZ(2), (uint64_t)i * 0x10001u, (uint32_t)~i,
			   (const void *)target_cmp4,
			   (const void *)__sanitizer_cov_trace_cmp4);
	kc_disable_ok(k, fd);
	close(fd);
}

/* The user scribbles on the bitmap and the count word: never a write
 * outside the buffer's trace capacity, and the runtime recovers at the
 * next reset. */
static void t_scribbled(const struct kc *k)
{
	uint64_t *buf, *tr, cap = KC_ENTRIES - BW - 1;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	tr = TRACE(buf);
	uniq_enable_ok(k, fd, BW);
	/* Every slot looks taken by a key that is not there: dropped. */
	memset(buf, 0xff, (size_t)BW * 8);
	target_leaf();
	CHECK_EQ(rec_count(tr), 0);
	/* Inline points are numbered as guards: a set bit is a seen guard,
	 * as in the Linux proposal, not a taken slot (lib/imap.c). */
	CHECK_EQ(kc_dropped(k, fd), target_inline ? 0 : 1);
	/* A garbage count: full, dropped, nothing written. */
	user_reset(buf, BW);
	tr[0] = 1ULL << 62;
	tr[1] = 0x1234;
	target_leaf2();
	CHECK_EQ(tr[0], 1ULL << 62);
	CHECK_EQ(tr[1], 0x1234);
	CHECK_EQ(kc_dropped(k, fd), 1);
	/* A count one short of the capacity: exactly one more fits. */
	user_reset(buf, BW);
	tr[0] = cap - 1;
	target_leaf();
	target_leaf2();
	CHECK_EQ(tr[0], cap);
	expect_pcs_in(tr, cap - 1, 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 1);
	/* Clearing one point's bit records it again. */
	user_reset(buf, BW);
	target_leaf();
	CHECK_EQ(rec_count(tr), 1);
	memset(buf, 0, (size_t)BW * 8);
	target_leaf();
	CHECK_EQ(rec_count(tr), 2);
	CHECK_EQ(tr[1], tr[2]);
	kc_disable_ok(k, fd);
	close(fd);
}

/* ---- direct bits (trace-pc builds, lib/unique.c "Direct bits") ---- */

/* The executable's text as the runtime sees it: from the first
 * executable PT_LOAD segment of the first loaded object to the end of
 * the last.  lo6 is its start >> 6; the direct bits take text_words
 * words, bit pc & 63 of word (pc >> 6) - lo6. */
static uint64_t text_lo6, text_words;

static int exe_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
	}
	text_lo6 = lo >> 6;
	text_words = (hi >> 6) - text_lo6 + 1;
	return 1;
}

/* A bitmap with room for the direct bits and 64 words of hashed slots
 * (the runtime's condition). */
static uint64_t direct_bitmap(void)
{
	dl_iterate_phdr(exe_text, NULL);
	return text_words + 64;
}

/* Entries for that bitmap and a short trace, whole pages (the buffer
 * is mapped whole: Linux kcov_mmap wants the exact size). */
static uint64_t direct_entries(uint64_t bw)
{
	return (bw + 512 + 511) & ~(uint64_t)511;
}

static int direct_bit(const uint64_t *buf, uint64_t pc)
{
	return buf[(pc >> 6) - text_lo6] >> (pc & 63) & 1;
}

static uint64_t bitmap_popcount(const uint64_t *buf, uint64_t words)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < words; i++)
		n += (uint64_t)__builtin_popcountll(buf[i]);
	return n;
}

/*
 * Calls of the PC callback through a register, as harness code calling
 * it by hand (a user may).  CALL_LEN is that call's length: the
 * distance between the return addresses of two calls back to back.
 *   x86-64:  call *%rbx (ff d3), the shortest x86-64 call; the stack
 *            below the red zone and 16-byte aligned for the callback's
 *            slow paths;
 *   aarch64: blr x19 (d63f0260); sp is always 16-byte aligned;
 *   riscv64: jalr s1 (000480e7), never the 2-byte c.jalr (norvc).
 */
#if defined(__x86_64__)
#define CALL_LEN 2
#define X86_CLOBBERS "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", \
	"r10", "r11", "r12", "memory", "cc", "xmm0", "xmm1", "xmm2",	\
	"xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",	\
	"xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* Three calls back to back: three points CALL_LEN bytes apart. */
static __attribute__((noinline)) void adjacent_calls(void)
{
	__asm__ volatile(
		"mov %%rsp, %%r12\n\t"
		"sub $128, %%rsp\n\t"
		"and $-16, %%rsp\n\t"
		"mov __sanitizer_cov_trace_pc@GOTPCREL(%%rip), %%rbx\n\t"
		"call *%%rbx\n\t"
		"call *%%rbx\n\t"
		"call *%%rbx\n\t"
		"mov %%r12, %%rsp"
		::: X86_CLOBBERS);
}
#elif defined(__aarch64__)
#define CALL_LEN 4
#define A64_CLOBBERS "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", \
	"x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",	\
	"x18", "x19", "x30", "memory", "cc", "v0", "v1", "v2", "v3", "v4", \
	"v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21", "v22", \
	"v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"

static __attribute__((noinline)) void adjacent_calls(void)
{
	__asm__ volatile(
		"adrp x19, :got:__sanitizer_cov_trace_pc\n\t"
		"ldr x19, [x19, :got_lo12:__sanitizer_cov_trace_pc]\n\t"
		"blr x19\n\t"
		"blr x19\n\t"
		"blr x19"
		::: A64_CLOBBERS);
}
#elif defined(__riscv) && __riscv_xlen == 64
#define CALL_LEN 4
#define RV_CLOBBERS "ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a0",	\
	"a1", "a2", "a3", "a4", "a5", "a6", "a7", "s1", "memory", "ft0",	\
	"ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9",	\
	"ft10", "ft11", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7"

static __attribute__((noinline)) void adjacent_calls(void)
{
	__asm__ volatile(
		".option push\n\t"
		".option norvc\n\t"
		"la s1, __sanitizer_cov_trace_pc\n\t"
		"jalr s1\n\t"
		"jalr s1\n\t"
		"jalr s1\n\t"
		".option pop"
		::: RV_CLOBBERS);
}
#else
#error "tests/core/t_unique.c: no register call for this architecture"
#endif

/* A bitmap large enough: each leaf's bit is where the layout says, the
 * bitmap holds exactly those bits, each point is recorded once per
 * reset, and PCs CALL_LEN bytes apart are three points. */
static void t_direct_bits(const struct kc *k)
{
	uint64_t bw = direct_bitmap(), *buf, *tr, first[3];
	int fd = kc_setup(k, direct_entries(bw), &buf);

	tr = buf + bw;
	uniq_enable_ok(k, fd, bw);
	three_leaves();
	three_leaves();
	expect_leaves(buf, bw);
	memcpy(first, tr + 1, sizeof(first));
	for (int i = 1; i <= 3; i++)
		CHECK(direct_bit(buf, tr[i]));
	CHECK_EQ(bitmap_popcount(buf, bw), 3);
	user_reset(buf, bw);
	three_leaves();
	CHECK_EQ(rec_count(tr), 3);
	CHECK(memcmp(first, tr + 1, sizeof(first)) == 0);
	user_reset(buf, bw);
	adjacent_calls();
	adjacent_calls();
	CHECK_EQ(rec_count(tr), 3);
	CHECK_EQ(tr[2] - tr[1], CALL_LEN);
	CHECK_EQ(tr[3] - tr[2], CALL_LEN);
	CHECK_EQ(bitmap_popcount(buf, bw), 3);
	kc_disable_ok(k, fd);
	CHECK_EQ(kc_dropped(k, fd), 0);
	close(fd);
}

/* Calls of the PC callback from HASHED_CALLS register calls (as in
 * adjacent_calls) in an executable page of our own, then a return: as
 * many distinct points outside the executable's text, which therefore
 * take the hashed table after the direct bits.  The page is written,
 * then made read-execute. */
#define HASHED_CALLS 1000

static uint8_t *hashed_code_new(size_t *len)
{
	uint8_t *p;

	*len = ((size_t)HASHED_CALLS * CALL_LEN + 4 + 4095) & ~(size_t)4095;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		FAIL("mmap: %s", errname(errno));
#if defined(__x86_64__)
	for (size_t i = 0; i < HASHED_CALLS; i++) {
		p[2 * i] = 0xff;		/* call *%rbx */
		p[2 * i + 1] = 0xd3;
	}
	p[(size_t)2 * HASHED_CALLS] = 0xc3;	/* ret */
#elif defined(__riscv)
	for (size_t i = 0; i <= HASHED_CALLS; i++) {
		/* jalr s1; then jr s2 (back to hashed_calls). */
		uint32_t insn = i < HASHED_CALLS ? 0x000480e7u : 0x00090067u;

		memcpy(p + 4 * i, &insn, 4);
	}
	__builtin___clear_cache((char *)p, (char *)p + *len);
#else
	for (size_t i = 0; i <= HASHED_CALLS; i++) {
		/* blr x19; then ret (x30 restored by the caller first). */
		uint32_t insn = i < HASHED_CALLS ? 0xd63f0260u : 0xd65f0280u;

		memcpy(p + 4 * i, &insn, 4);
	}
	__builtin___clear_cache((char *)p, (char *)p + *len);
#endif
	if (mprotect(p, *len, PROT_READ | PROT_EXEC) != 0)
		FAIL("mprotect: %s", errname(errno));
	return p;
}

#if defined(__x86_64__)
/* Run that code: %rbx holds the callback (callee-saved, so it stays
 * for every call); the stack as adjacent_calls() leaves it, one word
 * lower, so that the callback is entered with the ABI's alignment. */
static __attribute__((noinline)) void hashed_calls(const uint8_t *code)
{
	__asm__ volatile(
		"mov %%rsp, %%r12\n\t"
		"sub $128, %%rsp\n\t"
		"and $-16, %%rsp\n\t"
		"sub $8, %%rsp\n\t"
		"mov __sanitizer_cov_trace_pc@GOTPCREL(%%rip), %%rbx\n\t"
		"call *%0\n\t"
		"mov %%r12, %%rsp"
		:: "r"(code) : X86_CLOBBERS);
}
#elif defined(__riscv)
/* s1 holds the callback; the page's jalr's overwrite ra, so the code is
 * entered by a jr with its return address in s2 ("jr s2"). */
static __attribute__((noinline)) void hashed_calls(const uint8_t *code)
{
	__asm__ volatile(
		"la s1, __sanitizer_cov_trace_pc\n\t"
		"lla s2, 1f\n\t"
		"jr %0\n"
		"1:"
		:: "r"(code) : RV_CLOBBERS, "s2");
}
#else
/* x19 holds the callback; the page's blr's overwrite x30, so the code
 * is entered by a br with its return address in x20 ("ret x20"). */
static __attribute__((noinline)) void hashed_calls(const uint8_t *code)
{
	__asm__ volatile(
		"adrp x19, :got:__sanitizer_cov_trace_pc\n\t"
		"ldr x19, [x19, :got_lo12:__sanitizer_cov_trace_pc]\n\t"
		"adr x20, 1f\n\t"
		"br %0\n"
		"1:"
		:: "r"(code) : A64_CLOBBERS, "x20");
}
#endif

/* With direct bits, the hashed table is the bitmap's words after them
 * (64 here: 4096 slots): a table sized by the whole bitmap would put
 * its high slots' bits in the trace.  1000 hashed points: each recorded
 * once, in call order, CALL_LEN bytes apart; their bits all in the hashed
 * words; none in the direct ones; the trace after the last record still
 * zero. */
static void t_direct_hashed(const struct kc *k)
{
	uint64_t bw = direct_bitmap(), *buf, *tr, n, entries, first;
	uint64_t words = HASHED_CALLS + 1;
	size_t len;
	uint8_t *code = hashed_code_new(&len);
	int fd;

	/* A trace longer than the bitmap: bits set past the hashed words
	 * land in it, to be seen, rather than past the mapping. */
	entries = (2 * bw + words + 512 + 511) & ~(uint64_t)511;
	fd = kc_setup(k, entries, &buf);
	tr = buf + bw;
	uniq_enable_ok(k, fd, bw);
	hashed_calls(code);
	hashed_calls(code);
	kc_disable_ok(k, fd);
	n = rec_count(tr);
	CHECK_EQ(n, HASHED_CALLS);
	first = tr[1];
	/* The return address of the first call, less one as the kernel's
	 * _RET_IP_ - 1 convention, or not: the runtime's choice. */
	CHECK(first == (uint64_t)(uintptr_t)code + CALL_LEN - 1 ||
	      first == (uint64_t)(uintptr_t)code + CALL_LEN);
	for (uint64_t i = 1; i < HASHED_CALLS; i++)
		if (tr[1 + i] != first + CALL_LEN * i)
			FAIL("record %llu: 0x%llx, want 0x%llx",
			     (unsigned long long)i,
			     (unsigned long long)tr[1 + i],
			     (unsigned long long)(first + CALL_LEN * i));
	for (uint64_t i = 1 + HASHED_CALLS; i < entries - bw; i++)
		if (tr[i] != 0)
			FAIL("trace word %llu after the records: 0x%llx",
			     (unsigned long long)i, (unsigned long long)tr[i]);
	CHECK_EQ(bitmap_popcount(buf, text_words), 0);
	CHECK_EQ(bitmap_popcount(buf + text_words, bw - text_words),
		 HASHED_CALLS);
	CHECK_EQ(kc_dropped(k, fd), 0);
	close(fd);
	munmap(code, len);
}

static long op_uniq_leaves(void *p)
{
	const struct uniq_thread *u = p;

	if (uniq_enable(u->k, u->fd, direct_bitmap()) != 0)
		return -1;
	three_leaves();
	return 0;	/* exits enabled: the descriptor goes back to READY */
}

/* Bits this image set stay valid when another thread enables the same
 * descriptor without a reset (0 new records, as with the proposal's
 * guard bitmap); once a plain trace has written over the buffer they
 * are unknown, and the points are recorded again (hashed), not lost. */
static void t_direct_image(const struct kc *k)
{
	uint64_t bw = direct_bitmap(), *buf, *tr;
	int fd = kc_setup(k, direct_entries(bw), &buf);
	struct actor *a = actor_start();
	struct uniq_thread u = { k, fd, NULL };

	tr = buf + bw;
	CHECK_EQ(actor_run(a, op_uniq_leaves, &u), 0);
	actor_stop(a);
	expect_leaves(buf, bw);
	uniq_enable_ok(k, fd, bw);
	three_leaves();
	CHECK_EQ(rec_count(tr), 3);
	adjacent_calls();		/* positive control */
	CHECK_EQ(rec_count(tr), 6);
	kc_disable_ok(k, fd);
	/* A plain trace over the head of the buffer. */
	rec_reset(buf);
	kc_enable_ok(k, fd, 0);
	target_leaf();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 1);
	uniq_enable_ok(k, fd, bw);
	three_leaves();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(tr), 9);
	expect_pcs_in(tr, 6, 1, (const void *)target_leaf);
	expect_pcs_in(tr, 7, 1, (const void *)target_leaf2);
	expect_pcs_in(tr, 8, 1, (const void *)target_leaf3);
	close(fd);
}

/* ---- fork and exec ---- */

/* A fork server: each child enables the parent's descriptor in unique
 * mode, runs, and exits enabled; the parent resets between runs and
 * reads exactly the same records. */
static void t_fork_server(const struct kc *k)
{
	uint64_t *buf, first[3];
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	for (int round = 0; round < 3; round++) {
		struct peer p;

		user_reset(buf, BW);
		if (peer_fork(&p) == 0) {
			uniq_enable_ok(k, fd, BW);
			three_leaves();
			three_leaves();
			_exit(0);
		}
		expect_exit0(p.pid);
		expect_leaves(buf, BW);
		if (round == 0)
			memcpy(first, TRACE(buf) + 1, sizeof(first));
		CHECK(memcmp(first, TRACE(buf) + 1, sizeof(first)) == 0);
	}
	/* The parent enabled, a child starts disabled. */
	user_reset(buf, BW);
	uniq_enable_ok(k, fd, BW);
	{
		struct peer p;

		if (peer_fork(&p) == 0) {
			three_leaves();
			_exit(0);
		}
		expect_exit0(p.pid);
	}
	CHECK_EQ(rec_count(TRACE(buf)), 0);
	target_leaf2();		/* positive control */
	CHECK_EQ(rec_count(TRACE(buf)), 1);
	kc_disable_ok(k, fd);
	close(fd);
}

/* The exec'd image (core --unique-exec-target): calls the leaves,
 * exits enabled. */
int unique_exec_target_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	three_leaves();
	three_leaves();
	return 0;
}

/* exec keeps unique mode: the new image's leaves are recorded once
 * each after the old image's record. */
static void t_exec(const struct kc *k)
{
	uint64_t *buf, *tr, own[3];
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer p;

	tr = TRACE(buf);
	/* This image's leaves, to compare the new image's offsets with. */
	uniq_enable_ok(k, fd, BW);
	three_leaves();
	kc_disable_ok(k, fd);
	expect_leaves(buf, BW);
	memcpy(own, tr + 1, sizeof(own));
	user_reset(buf, BW);
	if (peer_fork(&p) == 0) {
		char *argv[] = { "core", "--unique-exec-target", NULL };

		uniq_enable_ok(k, fd, BW);
		target_leaf();
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	expect_exit0(p.pid);
	CHECK_EQ(rec_count(tr), 4);
	expect_pcs_in(tr, 0, 1, (const void *)target_leaf);
	/* The new image's leaves, in call order, once each: the same
	 * binary, so the same distances between them. */
	CHECK_EQ(tr[3] - tr[2], own[1] - own[0]);
	CHECK_EQ(tr[4] - tr[3], own[2] - own[1]);
	/* The descriptor is READY again after the exec'd process exits. */
	rec_reset(buf);
	expect_ready_state(k, fd, buf);
	close(fd);
}

/* The same with a bitmap large enough for direct bits: the old image
 * set its leaf's direct bit, so the new one (another address space
 * layout) finds the direct words dirty and hashes; its leaves are
 * recorded once each, none lost to the old image's bits. */
static void t_exec_direct(const struct kc *k)
{
	uint64_t bw = direct_bitmap(), *buf, *tr;
	int fd = kc_setup(k, direct_entries(bw), &buf);
	struct peer p;

	tr = buf + bw;
	if (peer_fork(&p) == 0) {
		char *argv[] = { "core", "--unique-exec-target", NULL };

		uniq_enable_ok(k, fd, bw);
		target_leaf();
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	expect_exit0(p.pid);
	CHECK_EQ(rec_count(tr), 4);
	expect_pcs_in(tr, 0, 1, (const void *)target_leaf);
	CHECK(tr[2] != tr[3] && tr[3] != tr[4] && tr[2] != tr[4]);
	rec_reset(buf);
	expect_ready_state(k, fd, buf);
	close(fd);
}

/* The BSD flavors have no unique mode (ukcov(4)): the requests are
 * unknown to them, answered with their unknown-request errno, and a
 * mode number beyond theirs is EINVAL; nothing changes. */
static void t_bsd_refuse(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_ERR(kc_req(k, fd, KCOV_UNIQUE_ENABLE, BW), k->f->e_unknown);
	CHECK_ERR(kc_req(k, fd, UKCOV_IOC_UNIQUE_ENABLE_CMP, BW),
		  k->f->e_unknown);
	CHECK_ERR(kc_req(k, fd, KCOV_RESET_TRACE, 0), k->f->e_unknown);
	CHECK_ERR(kc_enable(k, fd, 3), EINVAL);
	CHECK_ERR(kc_enable(k, fd, 0x103), EINVAL);
	expect_ready_state(k, fd, buf);
	close(fd);
}

/* ---- inline targets (include/ukcov/inline.h, lib/imap.c) ---- */

/* Guard numbers run out: TUs of UKCOV_INLINE_TU_MAX points are
 * numbered until the next would reach the window that stays clear
 * (UKCOV_INLINE_UNREG), and that one keeps UKCOV_INLINE_UNREG, its
 * points calling as trace-pc's do (lib/sancov.c).  In a child, whose
 * numbers are its own. */
static void t_inline_numbers_run_out(const struct kc *k)
{
	static uint64_t tu[41];
	const uint64_t window = (uint64_t)UKCOV_INLINE_UNREG * 8;
	pid_t pid;

	(void)k;
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		unsigned i;

		for (i = 0; i < 40; i++) {
			tu[i] = UKCOV_INLINE_UNREG;
			__ukcov_inline_init_v2(&tu[i], UKCOV_INLINE_TU_MAX);
			if (tu[i] == UKCOV_INLINE_UNREG)
				break;
			if (tu[i] * 8 + UKCOV_INLINE_TU_MAX > window)
				_exit(2); /* bits in the window */
		}
		/* 31 TUs fit below the window, less the numbers the
		 * program's own points took. */
		if (i < 29 || i > 31)
			_exit(3);
		/* A TU of 8 points still fits after the refused one. */
		tu[i] = UKCOV_INLINE_UNREG;
		__ukcov_inline_init_v2(&tu[i], 8);
		if (tu[i] == UKCOV_INLINE_UNREG || tu[i] * 8 + 8 > window)
			_exit(4);
		_exit(0);
	}
	expect_exit0(pid);
}

#define INLINE_BW 1024	/* 65536 slots: two whole pages of bits */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void (*const inline_leaf[3])(void) = { target_leaf, target_leaf2,
					      target_leaf3 };

/* A function of several points, its blocks run in two orders: the
 * same points each time. */
static void inline_switch_orders(uint64_t *buf, uint64_t bw)
{
	static const int32_t v[] = { -1, 1, 7, 100, 1000 };
	uint64_t *tr = buf + bw, fwd[16], n;

	user_reset(buf, bw);
	for (int i = 0; i < 5; i++)
		target_switch32(v[i]);
	n = rec_count(tr);
	CHECK(n >= 6 && n <= 16);
	memcpy(fwd, tr + 1, n * 8);
	qsort(fwd, n, 8, cmp_u64);
	user_reset(buf, bw);
	for (int i = 4; i >= 0; i--)
		target_switch32(v[i]);
	CHECK_EQ(rec_count(tr), n);
	qsort(tr + 1, n, 8, cmp_u64);
	CHECK(memcmp(fwd, tr + 1, n * 8) == 0);
}

/* Each leaf after the other two: a point that tested another point's
 * bit would be taken as seen. */
static void inline_leaf_orders(uint64_t *buf, uint64_t bw)
{
	uint64_t *tr = buf + bw;

	for (int last = 0; last < 3; last++) {
		user_reset(buf, bw);
		for (int i = 1; i <= 3; i++)
			inline_leaf[(last + i) % 3]();
		CHECK_EQ(rec_count(tr), 3);
		expect_pcs_in(tr, 2, 1, (const void *)inline_leaf[last]);
	}
}

/*
 * Inline points are numbered as guards (bit g is slot g), and with a
 * bitmap of whole pages each point's inline test reads the bitmap
 * itself through a second mapping of its pages: a point is recorded
 * once per reset, a reset by the user alone (no call) makes every
 * point new again, bits the user sets make points seen, and no test
 * reads the trace after the bitmap (zeros there).
 */
static void t_inline_bits(const struct kc *k)
{
	uint64_t bw = INLINE_BW, *buf, *tr, saved[INLINE_BW];
	int fd = kc_setup(k, bw + 512, &buf);
	const volatile uint8_t *m;

	tr = buf + bw;
	uniq_enable_ok(k, fd, bw);
	three_leaves();
	three_leaves();
	expect_leaves(buf, bw);
	CHECK_EQ(bitmap_popcount(buf, bw), 3);
	m = __ukcov_imap;
	CHECK(m != NULL);
	/* The thread's map shows the bitmap's bytes, live. */
	for (uint64_t i = 0; i < bw * 8; i++)
		if (m[i] != ((const uint8_t *)buf)[i])
			FAIL("map byte %llu: 0x%x, bitmap 0x%x",
			     (unsigned long long)i, m[i],
			     ((const uint8_t *)buf)[i]);
	CHECK(tr[0] != 0);
	CHECK_EQ(m[bw * 8], 0);		/* not the trace's count */
	for (int r = 0; r < 3; r++) {
		user_reset(buf, bw);
		CHECK_EQ(m[0] | m[bw * 8 - 1], 0);
		three_leaves();
		expect_leaves(buf, bw);
	}
	inline_switch_orders(buf, bw);
	inline_leaf_orders(buf, bw);
	memcpy(saved, buf, sizeof(saved));
	user_reset(buf, bw);
	memcpy(buf, saved, sizeof(saved));	/* the points' bits, by hand */
	three_leaves();
	CHECK_EQ(rec_count(tr), 0);
	CHECK_EQ(kc_dropped(k, fd), 0);
	kc_disable_ok(k, fd);
	/* Not tracing: the process's map, whatever the bitmap says. */
	CHECK(__ukcov_imap != m);
	close(fd);
}

/* The targets of one basic block each (targets.h): calls the i-th,
 * returns its address. */
#define ONE_BLOCK_N 13
static const void *call_one_block(unsigned i)
{
	switch (i) {
	case 0:
		target_leaf();
		return (const void *)target_leaf;
	case 1:
		target_leaf2();
		return (const void *)target_leaf2;
	case 2:
		target_leaf3();
		return (const void *)target_leaf3;
	case 3:
		(void)target_cmp1(1, 2);
		return (const void *)target_cmp1;
	case 4:
		(void)target_cmp2(1, 2);
		return (const void *)target_cmp2;
	case 5:
		(void)target_cmp4(1, 2);
		return (const void *)target_cmp4;
	case 6:
		(void)target_cmp8(1, 2);
		return (const void *)target_cmp8;
	case 7:
		(void)target_scmp1(1, 2);
		return (const void *)target_scmp1;
	case 8:
		(void)target_ccmp1(1);
		return (const void *)target_ccmp1;
	case 9:
		(void)target_ccmp2(1);
		return (const void *)target_ccmp2;
	case 10:
		(void)target_ccmp4(1);
		return (const void *)target_ccmp4;
	case 11:
		(void)target_ccmp8(1);
		return (const void *)target_ccmp8;
	default:
		(void)target_ccmp4_left(1);
		return (const void *)target_ccmp4_left;
	}
}

/*
 * Each inline point tests its own bit and no other: the points reached
 * first in one order, then after a reset in the other, are each
 * recorded once, in the order they ran.  A point that tested another's
 * bit (or byte) would be lost whenever that point had recorded first.
 */
static void t_inline_order(const struct kc *k)
{
	uint64_t bw = INLINE_BW, *buf, *tr;
	int fd = kc_setup(k, bw + 512, &buf);

	tr = buf + bw;
	uniq_enable_ok(k, fd, bw);
	for (unsigned pass = 0; pass < 2; pass++) {
		const void *ran[ONE_BLOCK_N];

		user_reset(buf, bw);
		for (unsigned i = 0; i < ONE_BLOCK_N; i++)
			ran[i] = call_one_block(pass ? ONE_BLOCK_N - 1 - i : i);
		for (unsigned i = 0; i < ONE_BLOCK_N; i++)
			call_one_block(i);
		CHECK_EQ(rec_count(tr), ONE_BLOCK_N);
		CHECK_EQ(bitmap_popcount(buf, bw), ONE_BLOCK_N);
		for (unsigned i = 0; i < ONE_BLOCK_N; i++)
			expect_pcs_in(tr, i, 1, ran[i]);
	}
	kc_disable_ok(k, fd);
	close(fd);
}

struct inline_thread {
	const struct kc *k;
	int fd;
	int first; /* the leaf this thread runs first */
};

static long op_inline_enable(void *p)
{
	const struct inline_thread *u = p;

	return uniq_enable(u->k, u->fd, INLINE_BW);
}

static long op_inline_leaves(void *p)
{
	const struct inline_thread *u = p;

	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 3; i++)
			inline_leaf[(u->first + i) % 3]();
	return 0;
}

static long op_inline_disable(void *p)
{
	const struct inline_thread *u = p;

	return kc_req(u->k, u->fd, KCOV_DISABLE, 0);
}

/*
 * Eight threads enabled at once, each with its own bitmap: each
 * records the three leaves once, in its own order.  They run in the
 * reverse order of their enables, so a thread whose map showed another
 * thread's bitmap (the last one armed, or the first) would take that
 * thread's points as seen.
 */
static void t_inline_threads(const struct kc *k)
{
	enum { N = 8 };
	struct inline_thread u[N];
	struct actor *a[N];
	uint64_t *buf[N];

	for (int i = 0; i < N; i++) {
		u[i] = (struct inline_thread){ k, 0, i % 3 };
		u[i].fd = kc_setup(k, INLINE_BW + 512, &buf[i]);
		a[i] = actor_start();
		CHECK_EQ(actor_run(a[i], op_inline_enable, &u[i]), 0);
	}
	for (int i = N - 1; i >= 0; i--)
		CHECK_EQ(actor_run(a[i], op_inline_leaves, &u[i]), 0);
	for (int i = 0; i < N; i += 2)
		CHECK_EQ(actor_run(a[i], op_inline_leaves, &u[i]), 0);
	for (int i = 0; i < N; i++) {
		const uint64_t *tr = buf[i] + INLINE_BW;

		CHECK_EQ(actor_run(a[i], op_inline_disable, &u[i]), 0);
		actor_stop(a[i]);
		CHECK_EQ(rec_count(tr), 3);
		for (int j = 0; j < 3; j++)
			expect_pcs_in(tr, (uint64_t)j, 1,
				      (const void *)
					      inline_leaf[(u[i].first + j) % 3]);
		CHECK_EQ(bitmap_popcount(buf[i], INLINE_BW), 3);
		close(u[i].fd);
	}
}

void register_unique_tests(void)
{
	reg_one("unique.bsd_refuse", t_bsd_refuse, FL_FREEBSD,
		core_have_native, 0);
	reg_one("unique.bsd_refuse", t_bsd_refuse, FL_NETBSD,
		core_have_native, 0);
	reg_one("unique.bsd_refuse", t_bsd_refuse, FL_OPENBSD,
		core_have_native, 0);
	for (int native = 0; native <= core_have_native; native++) {
		const unsigned nat = native ? NEED_NATIVE : 0;

		reg_one("unique.errnos", t_errnos, FL_LINUX, native, nat);
		reg_one("unique.once_per_reset", t_once_per_reset, FL_LINUX,
			native, nat);
		reg_one("unique.reset_trace", t_reset_trace, FL_LINUX, native,
			nat);
	}
	reg_one("unique.enabled_elsewhere", t_enabled_elsewhere, FL_LINUX,
		core_have_native, 0);
	reg_one("unique.trace_capacity", t_trace_capacity, FL_LINUX,
		core_have_native, 0);
	reg_one("unique.disable_forgets_bitmap", t_disable_forgets, FL_LINUX,
		core_have_native, 0);
	reg_one("unique.threads", t_threads, FL_LINUX, core_have_native, 0);
	reg_one("unique.cmp", t_cmp, FL_LINUX, core_have_native, NEED_CMP);
	reg_one("unique.table_full", t_table_full, FL_LINUX, core_have_native,
		NEED_CMP);
	reg_one("unique.cmp_trace_full", t_cmp_trace_full, FL_LINUX,
		core_have_native, NEED_CMP);
	reg_one("unique.table_half", t_table_half, FL_LINUX, core_have_native,
		NEED_CMP);
	reg_one("unique.scribbled", t_scribbled, FL_LINUX, core_have_native, 0);
	reg_one("unique.fork_server", t_fork_server, FL_LINUX,
		core_have_native, 0);
	reg_one("unique.exec", t_exec, FL_LINUX, core_have_native, 0);
	reg_one("unique.keeps_registers", t_keeps_registers, FL_LINUX,
		core_have_native, 0);
	reg_one("unique.inline_numbers_run_out", t_inline_numbers_run_out,
		FL_LINUX, core_have_native, 0);
	/* Direct bits are trace-pc's executable-text bits; inline points
	 * have their guard numbers' bits instead. */
	if (target_inline) {
		reg_one("unique.inline_bits", t_inline_bits, FL_LINUX,
			core_have_native, 0);
		reg_one("unique.inline_order", t_inline_order, FL_LINUX,
			core_have_native, 0);
		reg_one("unique.inline_threads", t_inline_threads, FL_LINUX,
			core_have_native, 0);
	} else {
		reg_one("unique.direct_bits", t_direct_bits, FL_LINUX,
			core_have_native, 0);
		reg_one("unique.direct_image", t_direct_image, FL_LINUX,
			core_have_native, 0);
		reg_one("unique.direct_hashed", t_direct_hashed, FL_LINUX,
			core_have_native, 0);
	}
	reg_one("unique.exec_direct", t_exec_direct, FL_LINUX,
		core_have_native, 0);
}
