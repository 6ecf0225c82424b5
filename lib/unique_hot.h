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

/* A CMP record {type, arg1, arg2, pc}: four words per slot. */
static inline __attribute__((always_inline)) int
uniq_claim_cmp(struct ukcov_thread *t, uint64_t type, uint64_t a1,
	       uint64_t a2, uint64_t pc)
{
	uint64_t *bits = t->uniq_bits, *keys = t->uniq_keys;
	uint64_t h = (pc * UNIQ_MUL) ^ (a1 * UNIQ_MUL2) ^ (a2 * UNIQ_MUL3) ^ type;
	uint64_t i;

	h ^= h >> 31;
	i = (h * UNIQ_MUL) >> t->uniq_shift;
	for (unsigned n = 0; n < UKCOV_UNIQ_PROBES; n++) {
		uint64_t *k = &keys[i * 4];

		if (uniq_take_bit(bits, i)) {
			k[0] = type;
			k[1] = a1;
			k[2] = a2;
			k[3] = pc;
			return UNIQ_NEW;
		}
		if (k[3] == pc && k[1] == a1 && k[2] == a2 && k[0] == type)
			return UNIQ_SEEN;
		i = (i + 1) & t->uniq_mask;
	}
	return UNIQ_FULL;
}

#endif /* UKCOV_UNIQUE_HOT_H */
