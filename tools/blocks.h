/*
 * tools/blocks.h -- basic blocks of x86-64 functions, their CFG, and
 * which of them ran, for line coverage (tools/lines.c).
 *
 * A block that holds a coverage point is known: it ran iff its point was
 * covered.  The others are inferred from the dominator and post-dominator
 * trees of the function's CFG (blocks.c says which rules and why); what
 * cannot be inferred stays unknown and marks no line.
 */
#ifndef UKCOV_TOOLS_BLOCKS_H
#define UKCOV_TOOLS_BLOCKS_H

#include "util.h"

enum blk_state { BLK_UNKNOWN, BLK_RAN, BLK_NOT_RUN };

struct blk {
	uint64_t lo, hi;	/* [lo, hi): whole instructions */
	uint64_t mark_hi;	/* lines are marked in [lo, mark_hi): a
				 * coverage call and its argument set-up
				 * end the block and are left out */
	enum blk_state state;
	bool split;		/* starts right after a coverage call */
};

struct blkvec {
	struct blk *v;		/* sorted by lo, never overlapping */
	size_t n, cap;
};

/* The executable bytes of an image, by ELF virtual address. */
struct code_seg {
	uint64_t addr;
	const uint8_t *bytes;
	size_t size;
};

struct code_map {
	struct code_seg *segs;
	size_t nsegs;
};

struct addr_range {
	uint64_t lo, hi;
};

/* Reusable scratch memory of blocks_function. */
struct blk_scratch;

struct blk_scratch *blk_scratch_new(void);
void blk_scratch_free(struct blk_scratch *s);

/*
 * Decode the function made of ranges r[0..nr) (its hot and cold parts,
 * sorted by address),
 * entered at entry; append its blocks, with their states, to out.
 * points are every coverage point of the image (sorted), covered those
 * that ran (sorted).  Returns the number of blocks appended, or -1 when
 * the code cannot be decoded (nothing appended).
 */
long blocks_function(struct blk_scratch *s, const struct code_map *cm,
		     const struct addr_range *r, size_t nr, uint64_t entry,
		     const struct pcvec *points, const struct pcvec *covered,
		     struct blkvec *out);

#endif
