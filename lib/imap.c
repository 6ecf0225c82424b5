/*
 * lib/imap.c -- the maps that code instrumented inline tests
 * (include/ukcov/inline.h, ABI 2; docs/DESIGN.md, "Inline
 * instrumentation").
 *
 * Each thread's __ukcov_imap points at a map of bits, one per inline
 * point numbered g (a guard number, lib/sancov.c); a set bit means the
 * point has nothing to do in this thread and costs one test, a clear
 * bit makes the point call __ukcov_inline_pc_v2, which does what the
 * guard callback does.  The thread's state picks the map:
 *
 *   not tracing PCs        the process's map: bit g set once g is
 *                          numbered, unless a process-wide mode
 *                          (coverage=1, counters, trace_bb) records
 *                          every point, which keeps the bits clear
 *   unique mode, trusted   the thread's own bitmap (bit g = slot g,
 *   bitmap (unique.c)      the Linux proposal's guard bit), seen
 *                          through a second mapping of its pages
 *                          (mremap), followed by zeros
 *   any other trace        the zero map: every point calls
 *
 * The second mapping makes the user's bitmap itself the inline test:
 * a reset, by KCOV_RESET_TRACE or by the user zeroing the bitmap, is
 * seen by the next test with no call into the runtime.  It shows only
 * whole pages of the slots' bits; everything after them (a partial
 * page, a point numbered past the slots, the window of unregistered
 * TUs) reads zero, so those points call and the callback decides,
 * and no test ever reads the trace that follows the bitmap.
 *
 * Every map is UKCOV_INLINE_MAP_BITS bits of readable memory, so no
 * test reads outside one.  The process and zero maps are static (the
 * TLS initial value points at the process map: a thread is covered
 * from its first instruction); a thread's second mapping is reserved
 * once and never unmapped while the thread lives, so a test through a
 * stale pointer (a signal handler's interrupted frame) reads memory.
 *
 * Locking: __ukcov_imap is written by its thread, or by a thread
 * holding ukcov__proc_lock that clears another's hot state (relaxed
 * stores; the owner's next update wins).  The process map is written
 * under sancov.c's init_lock.  imap_* fields: the thread's own.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "ukcov/inline.h"

#define IMAP_BYTES	(UKCOV_INLINE_MAP_BITS / 8)
#define IMAP_PAGE	4096u

static uint8_t imap_process[IMAP_BYTES] __attribute__((aligned(IMAP_PAGE)));
static uint8_t imap_zero[IMAP_BYTES] __attribute__((aligned(IMAP_PAGE)));
/* A process-wide mode records every point (sancov.c, at its set-up). */
static int imap_every_point;

UKCOV_EXPORT __thread uint8_t *__ukcov_imap
	__attribute__((tls_model("initial-exec"))) = imap_process;

_Static_assert(UKCOV_INLINE_UNREG % IMAP_PAGE == 0,
	       "the unregistered window starts on a page");

/* The second mapping of the bitmap bits at bits (whole pages of the
 * first slots bits), or NULL.  Reserved once per thread; remapped only
 * when the bits move (a new arm clears imap_src). */
static uint8_t *imap_alias(struct ukcov_thread *t, const uint64_t *bits,
			   uint64_t slots)
{
	uintptr_t src = (uintptr_t)bits & ~(uintptr_t)(IMAP_PAGE - 1);
	size_t off = (uintptr_t)bits - src;
	size_t len = (off + slots / 8) & ~(size_t)(IMAP_PAGE - 1);

	if (len <= off || len > UKCOV_INLINE_UNREG)
		return NULL;
	if (t->imap_src == src && t->imap_len == len)
		return t->imap_region + off;
	if (t->imap_region == NULL) {
		void *r = ukcov__real_mmap(NULL, IMAP_BYTES + IMAP_PAGE,
					   PROT_READ,
					   MAP_PRIVATE | MAP_ANONYMOUS |
						   MAP_NORESERVE,
					   -1, 0);

		if (r == MAP_FAILED)
			return NULL;
		t->imap_region = r;
	} else if (t->imap_len) {
		/* Zeros again over the old bitmap's pages. */
		if (ukcov__real_mmap(t->imap_region, t->imap_len, PROT_READ,
				     MAP_PRIVATE | MAP_ANONYMOUS |
					     MAP_NORESERVE | MAP_FIXED,
				     -1, 0) == MAP_FAILED)
			return NULL;
	}
	t->imap_src = 0;
	t->imap_len = 0;
	/* old_size 0: the same pages again (mremap(2)); only a shared
	 * mapping can be, a private buffer gets the zero map. */
	if (mremap((void *)src, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   t->imap_region) == MAP_FAILED)
		return NULL;
	t->imap_src = src;
	t->imap_len = len;
	return t->imap_region + off;
}

static uint8_t *imap_choose(struct ukcov_thread *t)
{
	const uint64_t *bits;

	if (__atomic_load_n(&t->pc_area, __ATOMIC_RELAXED) == NULL)
		return imap_process;
	bits = __atomic_load_n(&t->uniq_bits, __ATOMIC_RELAXED);
	/* The bit alone decides only while the guard callback's would
	 * (uniq_gmax) and nothing process-wide wants every point. */
	if (bits && t->uniq_gmax &&
	    !__atomic_load_n(&imap_every_point, __ATOMIC_RELAXED)) {
		uint8_t *m = imap_alias(t, bits, (uint64_t)t->uniq_gmax + 1);

		if (m)
			return m;
	}
	return imap_zero;
}

void ukcov__imap_update(struct ukcov_thread *t)
{
	uint8_t **slot = t == &__ukcov_thread ? &__ukcov_imap : t->imap_slot;

	if (slot)
		__atomic_store_n(slot, imap_choose(t), __ATOMIC_RELAXED);
}

/* The calling thread's map again, after the callbacks changed its
 * unique state (unique_hot.h: a bitmap no longer trusted).  Exported
 * for the callbacks linked into executables (libukcov_cb.a). */
UKCOV_EXPORT void __ukcov_imap_refresh(void)
{
	ukcov__imap_update(&__ukcov_thread);
}

/* A new arm: the bits may be other pages at the same address. */
void ukcov__imap_forget(struct ukcov_thread *t)
{
	t->imap_src = 0;
}

void ukcov__imap_thread_start(struct ukcov_thread *t)
{
	t->imap_slot = &__ukcov_imap;
}

/* Thread exit, hot state cleared: nothing reads the region after. */
void ukcov__imap_release(struct ukcov_thread *t)
{
	uint8_t **slot = t == &__ukcov_thread ? &__ukcov_imap : t->imap_slot;

	if (slot)
		__atomic_store_n(slot, imap_process, __ATOMIC_RELAXED);
	if (t->imap_region)
		munmap(t->imap_region, IMAP_BYTES + IMAP_PAGE);
	t->imap_region = NULL;
	t->imap_src = 0;
	t->imap_len = 0;
}

/* Points first..first+n-1 (first a multiple of 8) have nothing to do
 * in a thread that does not trace: under sancov.c's init_lock. */
void ukcov__imap_process_set(uint32_t first, uint32_t n)
{
	uint8_t *p = imap_process + first / 8;

	memset(p, 0xff, n / 8);
	if (n % 8)
		p[n / 8] |= (uint8_t)((1u << (n % 8)) - 1);
}

/* A process-wide mode came on, before any point was numbered: every
 * point calls, in every thread. */
void ukcov__imap_every_point(void)
{
	__atomic_store_n(&imap_every_point, 1, __ATOMIC_RELAXED);
}
