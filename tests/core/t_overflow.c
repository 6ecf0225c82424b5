/*
 * tests/core/t_overflow.c -- capacity, dropped records, and a count word
 * the user scribbled on.
 *
 * Capacity: size-1 PCs, floor((size-1)/4) CMP records, on every kernel
 * (§1 "Buffer rules", §3 "overflow").  Records beyond it are dropped and
 * the count stays; UKCOV_IOC_DROPPED returns exactly how many were
 * dropped since the enable or the last call, and clears it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ukcov/sancov.h>

#include "kc.h"
#include "tests.h"

#define SZ(n) ((uint64_t)(n) << 1)

/* The PC sizes each flavor can map: multiples of 512 entries for Linux
 * and FreeBSD (the mapping must be exactly size*8), anything for NetBSD
 * and OpenBSD (partial mappings, §1.3/§1.4). */
static const uint64_t *sizes_for(const struct kc *k, unsigned *n)
{
	static const uint64_t page_sizes[] = { KC_ENTRIES };
	static const uint64_t any_sizes[] = { 2, 3, 5, 8, 9, 100, KC_ENTRIES };

	if (k->f->id == UKCOV_LINUX || k->f->id == UKCOV_FREEBSD) {
		*n = 1;
		return page_sizes;
	}
	*n = sizeof(any_sizes) / sizeof(any_sizes[0]);
	return any_sizes;
}

/* Fill a PC buffer exactly, then overflow it by 5. */
static void pc_fill(const struct kc *k, uint64_t size)
{
	uint64_t *buf, cap = size - 1;
	int fd = kc_setup(k, size, &buf);

	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, (unsigned)cap);
	CHECK_EQ(rec_count(buf), cap);
	CHECK_EQ(kc_dropped(k, fd), 0);
	call_n(target_leaf2, 5);
	CHECK_EQ(rec_count(buf), cap);
	CHECK_EQ(kc_dropped(k, fd), 5);
	CHECK_EQ(kc_dropped(k, fd), 0);
	/* Resetting the count is how users start over. */
	rec_reset(buf);
	target_leaf3();
	kc_disable_ok(k, fd);
	CHECK_EQ(kc_dropped(k, fd), 0);
	CHECK_EQ(rec_count(buf), 1);
	expect_pcs_in(buf, 0, 1, (const void *)target_leaf3);
	expect_pcs_in(buf, 1, cap - 1, (const void *)target_leaf);
	close(fd);
}

static void t_pc_capacity(const struct kc *k)
{
	unsigned i, n;
	const uint64_t *sizes = sizes_for(k, &n);

	for (i = 0; i < n; i++)
		pc_fill(k, sizes[i]);
}

/* Fill a CMP buffer exactly; the words after the last whole record stay
 * untouched. */
static void cmp_fill(const struct kc *k, uint64_t size)
{
	uint64_t *buf, cap = (size - 1) / 4, i;
	int fd = kc_setup(k, size, &buf);

	for (i = 1 + cap * 4; i < size; i++)
		buf[i] = 0xa5a5a5a5a5a5a5a5ULL;
	kc_enable_ok(k, fd, 1);
	for (i = 0; i < cap; i++)
		target_cmp4((uint32_t)i, 9);
	CHECK_EQ(rec_count(buf), cap);
	target_cmp8(1, 2);
	target_ccmp4(3);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), cap);
	CHECK_EQ(kc_dropped(k, fd), 2);
	for (i = 0; i < cap; i++)
		expect_cmp(buf, i, SZ(2), i, 9, (const void *)target_cmp4,
			   (const void *)__sanitizer_cov_trace_cmp4);
	for (i = 1 + cap * 4; i < size; i++)
		CHECK_EQ(buf[i], 0xa5a5a5a5a5a5a5a5ULL);
	close(fd);
}

static void t_cmp_capacity(const struct kc *k)
{
	unsigned i, n;
	const uint64_t *sizes = sizes_for(k, &n);

	for (i = 0; i < n; i++)
		cmp_fill(k, sizes[i]);
}

/* OpenBSD accepts n = 1, which "leaves room for 0 entries" (§1.4): every
 * record is dropped, and no page can be mapped (offset 0 >= 0*8). */
static void t_openbsd_size_one(const struct kc *k)
{
	int fd = kc_open_ok(k);

	kc_setbuf_ok(k, fd, 1);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 3);
	kc_disable_ok(k, fd);
	CHECK_EQ(kc_dropped(k, fd), 3);
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	      MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
}

/* A switch that does not fit: each case is one record, recorded while
 * there is room and dropped after (Linux write_comp_data per case). */
static void t_switch_overflow(const struct kc *k)
{
	uint64_t *buf, cap = (KC_ENTRIES - 1) / 4;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	buf[0] = cap - 2;
	kc_enable_ok(k, fd, 1);
	target_switch32(7);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), cap);
	CHECK_EQ(kc_dropped(k, fd), 3);
	CHECK_EQ(buf[1 + 4 * (cap - 2)], SZ(2) | 1);
	CHECK_EQ(buf[1 + 4 * (cap - 1)], SZ(2) | 1);
}

/* DROPPED counts from the enable: drops of an earlier enable that
 * nobody read are not reported after a new enable. */
static void t_dropped_since_enable(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, KC_ENTRIES - 1 + 5);
	kc_disable_ok(k, fd);
	kc_enable_ok(k, fd, 0);
	CHECK_EQ(kc_dropped(k, fd), 0);
	call_n(target_leaf, 2);
	CHECK_EQ(kc_dropped(k, fd), 2);
	kc_disable_ok(k, fd);
	/* Disabled: nothing is recorded, nothing dropped. */
	call_n(target_leaf, 4);
	CHECK_EQ(kc_dropped(k, fd), 0);
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1);
}

/* Any thread may ask (the owner thread keeps tracing). */
static void t_dropped_other_thread(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct actor *a = actor_start();
	struct kc_op en = { k, fd, k->f->mode_pc };
	struct kc_op fill = { k, fd, KC_ENTRIES - 1 + 7 };
	struct kc_op two = { k, fd, 2 };

	CHECK_EQ(actor_run(a, op_enable, &en), 0);
	actor_run(a, op_leaf, &fill);
	CHECK_EQ(kc_dropped(k, fd), 7);
	CHECK_EQ(kc_dropped(k, fd), 0);
	actor_run(a, op_leaf, &two);
	CHECK_EQ(kc_dropped(k, fd), 2);
	CHECK_EQ(actor_run(a, op_disable, &en), 0);
	actor_stop(a);
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1);
}

/* Reads racing the owner's drops lose none and count none twice: the
 * reports of a thread that keeps asking add up to exactly the number
 * dropped. */
#define RACE_DROPS 200000

struct drop_reader {
	const struct kc *k;
	int fd;
	volatile int stop;
	uint64_t sum;
};

static void *drop_reader_main(void *p)
{
	struct drop_reader *r = p;

	while (!r->stop)
		r->sum += kc_dropped(r->k, r->fd);
	return NULL;
}

static void t_dropped_concurrent(const struct kc *k)
{
	struct drop_reader r = { k, -1, 0, 0 };
	uint64_t *buf;
	pthread_t th;

	r.fd = kc_setup(k, KC_ENTRIES, &buf);
	kc_enable_ok(k, r.fd, 0);
	call_n(target_leaf, KC_ENTRIES - 1);
	CHECK_EQ(pthread_create(&th, NULL, drop_reader_main, &r), 0);
	call_n(target_leaf2, RACE_DROPS);
	r.stop = 1;
	CHECK_EQ(pthread_join(th, NULL), 0);
	kc_disable_ok(k, r.fd);
	CHECK_EQ(r.sum + kc_dropped(k, r.fd), RACE_DROPS);
	expect_only_pcs(buf, KC_ENTRIES - 1, (const void *)target_leaf);
}

/*
 * The count word is user memory (HARD-PROBLEMS.md §6): whatever is
 * written there, the runtime writes only inside the buffer, and "a
 * count at or past capacity is full: drop the record and count the
 * drop" -- also where Linux's own arithmetic wraps (1 + 4n for CMP,
 * n + 1 for PC) and would write at the start of the buffer.  A
 * 100-entry buffer leaves 3296 bytes of its page that no record may
 * touch; the whole page is read back through the descriptor (a memfd)
 * because Linux and FreeBSD cannot map a 100-entry buffer at all.
 */
#define SCRIBBLE_SIZE 100
#define PATTERN 0x5c5c5c5c5c5c5c5cULL

static void scribble(const struct kc *k, int cmp, uint64_t word0,
		     uint64_t expect_written_at)
{
	uint64_t page[PAGE / 8], cap = cmp ? (SCRIBBLE_SIZE - 1) / 4
					   : SCRIBBLE_SIZE - 1;
	uint64_t i, calls = 3, rec_words = cmp ? 4 : 1;
	int fd = kc_open_ok(k);

	kc_setbuf_ok(k, fd, SCRIBBLE_SIZE);
	for (i = 0; i < PAGE / 8; i++)
		page[i] = PATTERN;
	page[0] = word0;
	fd_write(fd, page, PAGE, 0);
	kc_enable_ok(k, fd, cmp);
	for (i = 0; i < calls; i++) {
		if (cmp)
			target_cmp8(0x1111, 0x2222);
		else
			target_leaf();
	}
	kc_disable_ok(k, fd);
	fd_read(fd, page, PAGE, 0);
	if (expect_written_at) {
		/* word0 = capacity-1: one record fits, at the very end. */
		CHECK_EQ(page[0], cap);
		CHECK_EQ(kc_dropped(k, fd), calls - 1);
		if (cmp)
			CHECK_EQ(page[expect_written_at + 1], 0x1111);
		else
			expect_ret_addr(page[expect_written_at],
					(const void *)target_leaf,
					(const void *)__sanitizer_cov_trace_pc);
	} else {
		CHECK_EQ(page[0], word0);
		CHECK_EQ(kc_dropped(k, fd), calls);
	}
	for (i = 1; i < PAGE / 8; i++) {
		if (expect_written_at && i >= expect_written_at &&
		    i < expect_written_at + rec_words)
			continue;
		if (page[i] != PATTERN)
			FAIL("word0=0x%llx: word %llu changed to 0x%llx",
			     (unsigned long long)word0, (unsigned long long)i,
			     (unsigned long long)page[i]);
	}
	close(fd);
}

static void t_scribble_pc(const struct kc *k)
{
	uint64_t cap = SCRIBBLE_SIZE - 1;

	scribble(k, 0, cap - 1, cap);		/* control: last slot */
	scribble(k, 0, cap, 0);
	scribble(k, 0, cap + 1, 0);
	scribble(k, 0, SCRIBBLE_SIZE, 0);
	scribble(k, 0, 1ULL << 62, 0);
	scribble(k, 0, 1ULL << 63, 0);
	scribble(k, 0, ~0ULL - 1, 0);		/* n + 1 = UINT64_MAX */
	scribble(k, 0, ~0ULL, 0);		/* n + 1 wraps to 0 */
}

static void t_scribble_cmp(const struct kc *k)
{
	uint64_t cap = (SCRIBBLE_SIZE - 1) / 4;

	scribble(k, 1, cap - 1, 1 + 4 * (cap - 1));	/* control */
	scribble(k, 1, cap, 0);
	scribble(k, 1, cap + 1, 0);
	scribble(k, 1, 1ULL << 62, 0);		/* 1 + 4n wraps to 1 */
	scribble(k, 1, (1ULL << 62) + 1, 0);	/* ... to 5 */
	scribble(k, 1, 1ULL << 63, 0);
	scribble(k, 1, ~0ULL / 4, 0);
	scribble(k, 1, ~0ULL, 0);
}

void register_overflow_tests(void)
{
	reg_flavors("overflow.pc_capacity", t_pc_capacity, 0);
	reg_flavors("overflow.cmp_capacity", t_cmp_capacity, NEED_CMP);
	reg_one("overflow.openbsd_size_one", t_openbsd_size_one, FL_OPENBSD,
		core_have_native, 0);
	reg_flavors("overflow.switch_overflow", t_switch_overflow, NEED_CMP);
	reg_flavors("overflow.dropped_since_enable", t_dropped_since_enable, 0);
	reg_flavors("overflow.dropped_other_thread", t_dropped_other_thread, 0);
	reg_flavors("overflow.dropped_concurrent", t_dropped_concurrent, 0);
	reg_flavors("overflow.scribble_pc", t_scribble_pc, 0);
	reg_flavors("overflow.scribble_cmp", t_scribble_cmp, NEED_CMP);
}
