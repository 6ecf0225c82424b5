/*
 * lib/unique_hot.h -- the hot half of unique coverage (lib/unique.c has
 * the design): claim a key's slot in the calling thread's table, with
 * the bitmap at the head of the buffer saying which slots are taken.
 * Included by callbacks.c only; read after the area pointer was found
 * non-NULL, so the off path never sees it.
 */
#ifndef UKCOV_UNIQUE_HOT_H
#define UKCOV_UNIQUE_HOT_H

#include "internal.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* 2^64 / golden ratio: Knuth's multiplicative hash; the top bits of
 * the product pick the slot. */
#define UNIQ_MUL  0x9e3779b97f4a7c15ULL
#define UNIQ_MUL2 0xc2b2ae3d27d4eb4fULL
#define UNIQ_MUL3 0x165667b19e3779f9ULL

enum { UNIQ_SEEN = 0, UNIQ_NEW = 1, UNIQ_FULL = -1 };

/* Is bit i of the bitmap clear?  Then set it. */
static inline __attribute__((always_inline)) int
uniq_take_bit(uint64_t *bits, uint64_t i)
{
	uint64_t w = bits[i >> 6], b = (uint64_t)1 << (i & 63);

	if (w & b)
		return 0;
	bits[i >> 6] = w | b;
	return 1;
}

/* A PC whose probe starts at slot i: UNIQ_NEW (slot claimed now,
 * record it), UNIQ_SEEN, or UNIQ_FULL (no free slot within the probe
 * bound: drop, count it). */
static inline __attribute__((always_inline)) int
uniq_claim_pc_at(struct ukcov_thread *t, uint64_t pc, uint64_t i)
{
	uint64_t *bits = t->uniq_bits, *keys = t->uniq_keys;

	/* A key that may land off its guard number: from now on a guard's
	 * bit alone no longer proves it seen (unique.c, "may bit g alone"),
	 * nor does an inline point's test of it (lib/imap.c). */
	if (unlikely(t->uniq_gmax != 0)) {
		t->uniq_gmax = 0;
		__ukcov_imap_refresh();
	}
	t->uniq_trusted = 0;
	for (unsigned n = 0; n < UKCOV_UNIQ_PROBES; n++) {
		if (uniq_take_bit(bits, i)) {
			keys[i] = pc;
			return UNIQ_NEW;
		}
		if (keys[i] == pc)
			return UNIQ_SEEN;
		i = (i + 1) & t->uniq_mask;
	}
	return UNIQ_FULL;
}

/* The common case, inline in the callback: the first slot probed
 * holds this PC, so it was seen since the last reset.  One bitmap
 * word and one key load. */
static inline __attribute__((always_inline)) int
uniq_seen_at(const struct ukcov_thread *t, uint64_t pc, uint64_t i)
{
	return (t->uniq_bits[i >> 6] >> (i & 63) & 1) && t->uniq_keys[i] == pc;
}

/* trace-pc: the probe starts where the PC's hash says. */
static inline __attribute__((always_inline)) uint64_t
uniq_pc_slot(const struct ukcov_thread *t, uint64_t pc)
{
	return (pc * UNIQ_MUL) >> t->uniq_shift;
}

/*
 * trace-pc-guard: the probe starts at the guard's number g (1..N across
 * the process), so in a guard build bit g is guard g, as in the Linux
 * proposal (its __test_and_set_bit(pc_index, bitmap)).  Keeping the PC
 * in slot g as well costs one load on a seen point and makes a process
 * that mixes guard and trace-pc modules (their hashed slots may land
 * on a guard's bit) or an exec'd image (the old image's bits) probe on
 * instead of losing a point.  A number beyond the table starts where
 * its hash says: deduplicated still, where Linux appends every hit.
 */
static inline __attribute__((always_inline)) uint64_t
uniq_guard_slot(const struct ukcov_thread *t, uint32_t g, uint64_t pc)
{
	return g <= t->uniq_mask ? g : uniq_pc_slot(t, pc);
}

/*
 * CMP tables.  Comparisons are mostly distinct (sqlite: the table fills
 * within a run), so the costly case is a record that is NOT in the
 * table: it must look at every slot up to the first free one, or all
 * UKCOV_UNIQ_CMP_PROBES slots when the window is full, before it is
 * inserted or dropped.  A slot-by-slot probe of 32-byte keys made each
 * drop cost ~30 slots (4.6-57x the CMP trace on the bench workloads).
 * So the window is examined at once: its occupancy is 64 bits of the
 * bitmap, and each slot has a tag byte (8 more bits of the hash) in the
 * thread's table, after the keys; the 64 tags from the home slot on are
 * compared in four SSE2 compares.  Only an occupied slot whose tag
 * matches, before the first free slot, has its key compared.  The
 * semantics are those of linear probing over the window: a record is
 * SEEN if its key sits in an occupied slot before the first free one,
 * else NEW in that free slot, else (a full window) FULL: dropped and
 * counted, every time it comes.  The first 64 tags are mirrored after
 * the last slot, so the window never wraps in the tag array.  Tags
 * need no reset: a slot's validity is its bit, and a tag is written
 * with its key.
 */
static inline __attribute__((always_inline)) uint16_t *
uniq_cmp_tags(const struct ukcov_thread *t)
{
	return (uint16_t *)(t->uniq_keys + (t->uniq_mask + 1) * 4);
}

/* Bits i..i+63 of the bitmap, wrapping at the table's end (a table has
 * at least 64 slots: one bitmap word). */
static inline __attribute__((always_inline)) uint64_t
uniq_window_occ(const uint64_t *bits, uint64_t i, uint64_t mask)
{
	uint64_t w = i >> 6, s = i & 63, lo = bits[w] >> s;

	if (s == 0)
		return lo;
	return lo | bits[(w + 1) & (mask >> 6)] << (64 - s);
}

/* Bit j set where tags[j] == tag, j = 0..63 (false positives allowed:
 * every candidate's key is compared). */
static inline __attribute__((always_inline)) uint64_t
uniq_tag_match(const uint16_t *tags, uint16_t tag)
{
	uint64_t m = 0;
#ifdef __SSE2__
	const __m128i want = _mm_set1_epi16((short)tag);
	const __m128i *p = (const __m128i *)tags;
	/* 16 tags: two compares, packed from 0 / -1 words into 0 / -1
	 * bytes, one mask bit per tag.  Spelt out four times: gcc keeps a
	 * loop here, with a variable shift. */
#define UNIQ_TAGS16(q) ((uint64_t)(uint16_t)_mm_movemask_epi8(		\
		_mm_packs_epi16(_mm_cmpeq_epi16(_mm_loadu_si128(p + 2 * (q)), want), \
				_mm_cmpeq_epi16(_mm_loadu_si128(p + 2 * (q) + 1), want))) \
		<< (16 * (q)))

	m = UNIQ_TAGS16(0) | UNIQ_TAGS16(1) | UNIQ_TAGS16(2) | UNIQ_TAGS16(3);
#undef UNIQ_TAGS16
#else
	for (unsigned j = 0; j < 64; j++)
		m |= (uint64_t)(tags[j] == tag) << j;
#endif
	return m;
}

static inline __attribute__((always_inline)) int
uniq_cmp_is(const uint64_t *k, uint64_t type, uint64_t a1, uint64_t a2,
	    uint64_t pc)
{
	return k[3] == pc && k[1] == a1 && k[2] == a2 && k[0] == type;
}

/* A CMP record {type, arg1, arg2, pc}: four words per slot. */
static inline __attribute__((always_inline)) int
uniq_claim_cmp(struct ukcov_thread *t, uint64_t type, uint64_t a1,
	       uint64_t a2, uint64_t pc)
{
	uint64_t *bits = t->uniq_bits, *keys = t->uniq_keys;
	uint64_t mask = t->uniq_mask;
	uint64_t h = (pc * UNIQ_MUL) ^ (a1 * UNIQ_MUL2) ^ (a2 * UNIQ_MUL3) ^ type;
	uint64_t i, occ, cand, free_at;
	uint16_t *tags, tag;

	h ^= h >> 31;
	h *= UNIQ_MUL;
	i = h >> t->uniq_shift;
	/* No key is read before its tag matches: a full table is far
	 * larger than the caches (1 Mi slots: 32 MiB), the tags are 1/32
	 * of it, and a record dropped from a full window reads none. */
	tags = uniq_cmp_tags(t);
	tag = (uint16_t)(h >> (t->uniq_shift - 16));
	occ = uniq_window_occ(bits, i, mask);
	free_at = ~occ ? (uint64_t)__builtin_ctzll(~occ) : 64;
	cand = uniq_tag_match(tags + i, tag) & occ;
	if (free_at < 64)
		cand &= ((uint64_t)1 << free_at) - 1;
	for (; cand; cand &= cand - 1) {
		uint64_t j = (i + (uint64_t)__builtin_ctzll(cand)) & mask;

		if (uniq_cmp_is(&keys[j * 4], type, a1, a2, pc))
			return UNIQ_SEEN;
	}
	if (free_at == 64)
		return UNIQ_FULL;
	i = (i + free_at) & mask;
	bits[i >> 6] |= (uint64_t)1 << (i & 63);
	keys[i * 4] = type;
	keys[i * 4 + 1] = a1;
	keys[i * 4 + 2] = a2;
	keys[i * 4 + 3] = pc;
	tags[i] = tag;
	if (i < UKCOV_UNIQ_CMP_PROBES)
		tags[mask + 1 + i] = tag;	/* the mirror */
	return UNIQ_NEW;
}

#endif /* UKCOV_UNIQUE_HOT_H */
