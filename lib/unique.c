/*
 * lib/unique.c -- unique coverage: each coverage point is recorded once
 * until the user resets the buffer.
 *
 * Linux's proposed KCOV_UNIQUE_ENABLE ("Coverage deduplication for
 * KCOV", Alexander Potapenko, v4 2025-07-31, patch 07/10) splits the
 * KCOV_INIT_TRACE buffer in two: the first N words are a bitmap, the
 * rest is a trace with its own count word.  A trace-pc-guard callback
 * whose guard index has its bit clear sets the bit and appends the PC;
 * one whose bit is set returns.  The user resets by zeroing the bitmap
 * and the trace count, or with KCOV_RESET_TRACE (patch 10/10).
 *
 * trace-pc builds (gcc, clang without guards) have no index to number a
 * point.  Here each thread keeps an open-addressing table of keys in a
 * private mapping made at enable (never in a callback): 2^k slots, k as
 * large as the bitmap allows up to UKCOV_UNIQ_*_MAX_LOG2, a
 * multiplicative hash of the key picks the first slot, linear probing
 * at most UKCOV_UNIQ_PROBES slots.  **Bit i of the user's bitmap says
 * whether slot i holds a key**: the table has no occupancy of its own.
 * So the proposal's reset (zero the bitmap and the count) empties the
 * table too, with no call into the runtime, and KCOV_RESET_TRACE is the
 * same memset.  A key left in a slot whose bit was cleared is dead: it
 * is overwritten by the next key that lands there.  A record whose key
 * finds neither itself nor a clear bit within the probe bound is
 * dropped and counted (UKCOV_IOC_DROPPED): the table is too full, the
 * remedy is a larger bitmap.  CMP records use a 64-slot window with a
 * tag per slot instead, and once the trace is full every CMP record is
 * dropped and counted without a lookup (unique_hot.h, callbacks.c,
 * docs/DESIGN.md "Unique CMP: drops").
 *
 * What a scribbled bitmap can do: a bit set by the user makes its slot
 * look taken by a key that is not there (the probe goes on past it, or
 * a stale key there is taken as seen); a bit cleared makes its key be
 * recorded again.  Either way every write stays inside the bitmap, the
 * thread's table and the trace's runtime-computed capacity.
 *
 * The table is per thread, written only by its thread (handlers run
 * with the hot state cleared), so no atomics.  fork: the child's copy
 * is a cache, unused until the child enables.  exec: the new image
 * maps a fresh table at takeover; the bits the old image set stay set
 * until the next reset, as slots with no key, so the old image's
 * points are not recorded twice under the old slot but PCs of the new
 * image (new addresses) are recorded once each.
 */
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* kcov_handle_unique_enable: "Cannot use zero-sized bitmap, also the
 * bitmap must leave at least two words for the trace": EINVAL. */
int ukcov__uniq_check_words(uint64_t entries, uint64_t words)
{
	if (words == 0 || entries < 2 || words >= entries - 1)
		return -EINVAL;
	return 0;
}

/* log2 of the number of slots: the largest power of two of bitmap
 * bits, bounded so that the table stays a few MiB of virtual memory. */
static unsigned slots_log2(int mode, uint64_t words)
{
	unsigned max = mode == UKCOV_MODE_CMP ? UKCOV_UNIQ_CMP_MAX_LOG2
					      : UKCOV_UNIQ_PC_MAX_LOG2;
	/* words < 2^31 (Linux's INT_MAX/8 entries), so bits < 2^37. */
	unsigned l = 63u - (unsigned)__builtin_clzll(words * 64);

	return l < max ? l : max;
}

/* PC tables: one 8-byte key per slot.  CMP tables: 32-byte keys, then
 * a 16-bit tag per slot and a mirror of the first window's tags
 * (unique_hot.h, uniq_claim_cmp). */
static size_t table_bytes(int mode, uint64_t words)
{
	size_t slots = (size_t)1 << slots_log2(mode, words);

	if (mode == UKCOV_MODE_CMP)
		return (slots + UKCOV_UNIQ_CMP_PROBES) * (32 + 2);
	return slots * 8;
}

/* Outside the hot path (enable, exec takeover, a followed thread's
 * start): make sure the thread has a table for this mode and bitmap.
 * A table already large enough is reused; its stale keys are dead
 * because validity lives in the bitmap. */
int ukcov__uniq_prepare(struct ukcov_thread *t, int mode, uint64_t words)
{
	size_t need;
	void *p;

	if (words == 0)
		return 0;
	need = table_bytes(mode, words);
	if (t->uniq_table && t->uniq_table_len >= need)
		return 0;
	p = ukcov__real_mmap(NULL, need, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			     0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (t->uniq_table)
		munmap(t->uniq_table, t->uniq_table_len);
	t->uniq_table = p;
	t->uniq_table_len = need;
	return 0;
}

/* Records that fit: the trace after the bitmap keeps one count word,
 * as every kernel computes capacity (entries-1 PCs, (entries-1)/4 CMP
 * records). */
void ukcov__uniq_caps(struct ukcov_thread *t, uint64_t entries)
{
	uint64_t trace = entries > t->uniq_words ? entries - t->uniq_words : 0;

	t->pc_cap = trace ? trace - 1 : 0;
	t->cmp_cap = trace ? (trace - 1) / 4 : 0;
}

/*
 * Direct bits (trace-pc builds).  A seen point above costs a hash, a
 * bitmap word and a key compare: 5-6 instructions and a dependent load
 * more than the trace's append, 1.13-1.15x the drained trace's time on
 * the bench workloads.  But a trace-pc PC is an address in a module's
 * text, and the executable's text is one range: a bit per byte of it
 * names every PC exactly, with no hash and no key, and a seen point is
 * one bitmap word and one bit test (callbacks.c, kcov_pc).  When the
 * bitmap has room for a bit per byte of the executable's text and 64
 * words more, its head holds those bits: word (pc >> 6) - (lo >> 6),
 * bit pc & 63; the hashed table (the PCs of other modules) is built
 * from the words after them.  The bits of one image depend on its
 * addresses, so they are used only when this image knows what set them:
 *   - the direct words are all zero when the thread arms (enable, exec
 *     takeover, a followed thread), or
 *   - a thread of this image armed the same descriptor with direct
 *     bits before (a disable and an enable without a reset, by the
 *     same thread or another: as in the Linux proposal, a point whose
 *     bit is set stays seen; a fork child runs the same image, an
 *     exec'd one starts with no memory of it: struct ukcov_desc).
 * Otherwise (an image exec'd into a bitmap its predecessor dirtied) the
 * whole bitmap is the hashed table, as before, whose key compare makes
 * stale bits harmless.  Guard builds keep bit g = guard g: the direct
 * bits are used only in a process without guards when it arms.
 */
static uint64_t text_lo6;	/* [I] executable's text start >> 6 */
static uint64_t text_words;	/* [I] words covering its text, 0: unknown */

static int exe_text_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (hi > lo) {
		/* A return address may be hi itself (a call that ends the
		 * text): words up to and including hi's. */
		text_lo6 = lo >> 6;
		text_words = (hi >> 6) - text_lo6 + 1;
	}
	return 1;		/* the first object is the executable */
}

/* From the constructor, before an exec takeover arms a thread. */
void ukcov__uniq_text_init(void)
{
	dl_iterate_phdr(exe_text_of, NULL);
}

/* Words of direct bits this image's text needs (0: unknown). */
uint64_t ukcov__uniq_text_words(void)
{
	return text_words;
}

static int words_clear(const uint64_t *buf, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (__atomic_load_n(&buf[i], __ATOMIC_RELAXED) != 0)
			return 0;
	return 1;
}

/* [A] set once the first guard is numbered (sancov.c tells us, being
 * the layer above): guards number their points, the text bitmap is
 * only for trace-pc builds. */
static int guards_numbered;

void ukcov__uniq_note_guards(void)
{
	__atomic_store_n(&guards_numbered, 1, __ATOMIC_RELEASE);
}

/* Arming, with t->mode and t->uniq_words set: direct bits or not, for
 * as long as this arm lasts (ukcov__uniq_hot reads the choice).
 * *image_armed is the descriptor's flag in this process (NULL: a
 * followed thread's own new buffer); under ukcov__proc_lock. */
void ukcov__uniq_direct_choose(struct ukcov_thread *t, const uint64_t *buf,
			       int *image_armed)
{
	uint64_t d = text_words;
	int ok = buf && t->mode == UKCOV_MODE_PC && d && t->uniq_words >= 64 &&
		 d <= t->uniq_words - 64 &&
		 !__atomic_load_n(&guards_numbered, __ATOMIC_ACQUIRE) &&
		 ((image_armed && *image_armed) || words_clear(buf, d));

	t->uniq_dwords_armed = ok ? d : 0;
	/* Any other arm (a plain trace writes over the bitmap, an exec'd
	 * predecessor's bits) makes the bits unknown again. */
	if (image_armed)
		*image_armed = ok;
}

/* Sets the unique hot fields for a thread recording into buf, and
 * returns the area the callbacks append to: buf itself for a plain
 * trace, the trace after the bitmap for a unique mode, NULL when the
 * thread has no usable table (then it records nothing). */
uint64_t *ukcov__uniq_hot(struct ukcov_thread *t, uint64_t *buf)
{
	uint64_t d;
	unsigned l;

	if (t->uniq_words == 0) {
		t->uniq_bits = NULL;
		return buf;
	}
	if (!t->uniq_table ||
	    t->uniq_table_len < table_bytes(t->mode, t->uniq_words))
		return NULL;
	d = t->uniq_dwords_armed;	/* < uniq_words - 63: see choose */
	l = slots_log2(t->mode, t->uniq_words - d);
	t->uniq_keys = t->uniq_table;
	t->uniq_mask = ((uint64_t)1 << l) - 1;
	t->uniq_shift = 64 - l;
	/* Only read by the guard callback, and only once the caller has
	 * set pc_area (uniq_gmax is cleared with it). */
	t->uniq_gmax = t->uniq_trusted ? (uint32_t)t->uniq_mask : 0;
	t->uniq_direct = buf;
	t->uniq_lo6 = text_lo6;
	t->uniq_dwords = d;
	t->uniq_bits = buf + d;		/* the hashed table's bits */
	return buf + t->uniq_words;
}

/* Thread exit: the hot pointers are already cleared. */
void ukcov__uniq_release(struct ukcov_thread *t)
{
	t->uniq_bits = NULL;
	t->uniq_keys = NULL;
	if (t->uniq_table)
		munmap(t->uniq_table, t->uniq_table_len);
	t->uniq_table = NULL;
	t->uniq_table_len = 0;
}

/* KCOV_RESET_TRACE (patch 10/10): bitmap_zero, then trace[0] = 0.
 * Through the runtime's own writable mapping, so the user's may be
 * read-only.  words == 0: a plain trace, only the count. */
void ukcov__uniq_reset_buffer(uint64_t *buf, uint64_t words)
{
	if (words)
		memset(buf, 0, words * 8);
	__atomic_store_n(&buf[words], 0, __ATOMIC_RELEASE);
}

/*
 * Guard builds: may bit g alone say "guard g was seen"?  Linux's
 * proposal indexes the bitmap by the guard id and trusts the bit; ukcov
 * also keeps each guard's PC in slot g and, by default, compares it, so
 * that bits set by something else (a trace-pc module's hashed PCs in
 * the same thread, the image before an exec, a bitmap already dirty at
 * enable) make the probe go on instead of losing a point.  The key load
 * costs one more cache miss per call in a large program, so the guard
 * callback skips it (t->uniq_gmax) while every set bit is known to be a
 * guard at its own number:
 *   - trusted when the thread arms the descriptor (enable, exec
 *     takeover, a followed thread's start) with an all-zero bitmap, and
 *     after KCOV_RESET_TRACE zeroed it;
 *   - distrusted (for good, until such a reset) by the first key that
 *     is claimed anywhere but at its guard number: uniq_claim_pc_at, the
 *     one place hashed and probed keys are claimed.
 * Only the owner thread writes its bitmap and these fields, so the
 * callback that distrusts and the one that trusts never race.  A user's
 * own reset (zeroing the bitmap) does not restore trust: ukcov does not
 * see it, and the key check stays correct.  Bits the user scribbles
 * while trusted make their guards look seen, as for a trace-pc key.
 */
/* Arming (enable, exec takeover, a followed thread): outside the hot
 * path, t->uniq_words of buf already known. */
void ukcov__uniq_trust_if_clear(struct ukcov_thread *t, const uint64_t *buf)
{
	int clear = buf && words_clear(buf, t->uniq_words);

	/* Guards record only in PC mode: a CMP bitmap is never theirs. */
	t->uniq_trusted = buf && t->uniq_words && clear &&
			  t->mode == UKCOV_MODE_PC;
}

/* KCOV_RESET_TRACE by the owner: the bitmap is zero now.  The hot field
 * changes only while the hot block is the thread's own bitmap (not a
 * remote section's, not cleared for a signal handler). */
void ukcov__uniq_trust_after_reset(struct ukcov_thread *t, const uint64_t *buf)
{
	if (t->mode != UKCOV_MODE_PC)
		return;
	t->uniq_trusted = 1;
	if (t->uniq_direct == buf && t->uniq_bits != NULL &&
	    t->pc_area != NULL)
		t->uniq_gmax = (uint32_t)t->uniq_mask;
}
