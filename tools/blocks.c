/*
 * tools/blocks.c -- x86-64 basic blocks, their CFG and which ran.
 *
 * A function's ranges are decoded linearly (x86len.c lengths; the few
 * instructions that matter are classified here).  Block leaders are the
 * entry, range starts, targets of direct jumps and of the jump tables
 * found (read_table), the instruction after a jump, return or trap, each
 * coverage call (or its guard's set-up) and
 * the instruction after it: so every point gets a block of its own, and
 * code that a jump table enters at a coverage call is not merged with
 * the code before it.
 *
 * Which blocks ran.  A block holding a point ran iff the point was hit.
 * The others are inferred, iterating to a fixpoint, with rules that hold
 * when every call returns (longjmp, exit and exceptions can break the
 * post-dominator rules, as they break gcov's arc counts):
 *   - a block that ran: its dominators ran (every path from the entry
 *     to it passes through them) and its post-dominators ran (every path
 *     from it to a return passes through them);
 *   - a block that did not run: the blocks it dominates did not run, nor
 *     the blocks it post-dominates;
 *   - flow (flow_round): a block all of whose predecessors, or all of
 *     whose successors, did not run did not run; a block that ran with
 *     a single predecessor, or successor, that may have run: it ran.
 * These decide the blocks clang's SanitizerCoverage leaves out
 * (llvm/lib/Transforms/Instrumentation/SanitizerCoverage.cpp,
 * shouldInstrumentBlock: full dominators of their successors and full
 * post-dominators of several predecessors), and the blocks that gcc and
 * the code generators split off instrumented ones.  A block still
 * unknown (unreachable in the static CFG, e.g. code after a noreturn
 * call) decides no line.  An indirect jump whose table is not found is
 * given every block the direct edges do not reach from the entry as
 * successors (add_indirect_edges).
 */
#include "blocks.h"
#include "elfpoints.h"

#include <stdlib.h>
#include <string.h>

enum insn_kind {
	IK_PLAIN,	/* falls through */
	IK_JMP,		/* jmp rel */
	IK_JCC,		/* conditional rel: target and fall-through */
	IK_EXIT,	/* ret, ud2, hlt, int3: no successor here */
	IK_IJMP,	/* jmp through a register or memory */
};

struct insn {
	uint64_t addr, target;	/* target: of a jump; of a rip-relative
				 * lea; of an ijmp's absolute table */
	uint8_t len, kind;
	bool leader, cov_call, guard_setup;
	bool split;	/* a leader only because a coverage call ends the
			 * block before: no jump lands here */
	bool rip_lea;	/* lea disp32(%rip), reg: maybe a jump table */
	bool inline_check;	/* the jcc of an inline point's test */
	bool inline_test;	/* holds an inline point: its test */
	uint32_t jt_first, jt_n;	/* an ijmp's table targets in s->jt */
};

struct blk_scratch {
	struct insn *in;
	size_t nin, capin;
	uint64_t *jt;			/* jump table targets */
	size_t njt, capjt;
	uint64_t *tg;			/* direct jump targets */
	size_t ntg, captg;
	int *edges;			/* (from, to) pairs; to == n: exit */
	size_t nedges, capedges;
	int *twins;			/* (check, successor) pairs: inline
					 * points' tests (infer_twins) */
	size_t ntwins, captwins;
	int *off, *adj, *roff, *radj;	/* CSR successors, predecessors */
	int *idom, *ipdom, *order, *rpo_num, *stack;
	size_t capn;
	struct x86_decoder *dec; /* x86len, then capstone (VEX code) */
};

#define EXIT_NODE(n) ((int)(n))
#define EXIT_NODE_NONE (-1)

struct blk_scratch *blk_scratch_new(void)
{
	struct blk_scratch *s = xcalloc(1, sizeof(*s));

	s->dec = x86_decoder_new();
	return s;
}

void blk_scratch_free(struct blk_scratch *s)
{
	if (!s)
		return;
	free(s->in);
	free(s->jt);
	free(s->tg);
	free(s->edges);
	free(s->twins);
	free(s->off);
	free(s->adj);
	free(s->roff);
	free(s->radj);
	free(s->idom);
	free(s->ipdom);
	free(s->order);
	free(s->rpo_num);
	free(s->stack);
	x86_decoder_free(s->dec);
	free(s);
}

static const uint8_t *code_at(const struct code_map *cm, uint64_t a,
			      size_t *avail)
{
	for (size_t i = 0; i < cm->nsegs; i++) {
		const struct code_seg *g = &cm->segs[i];

		if (a >= g->addr && a - g->addr < g->size) {
			*avail = g->size - (size_t)(a - g->addr);
			return g->bytes + (a - g->addr);
		}
	}
	return NULL;
}

static int64_t rel(const uint8_t *p, unsigned n)
{
	int32_t d32;

	if (n == 1)
		return (int8_t)p[0];
	memcpy(&d32, p, 4);
	return d32;
}

/* Classify one instruction (Intel SDM vol. 2, appendix A).  Legacy
 * prefixes (bnd, notrack, hints, operand size, lock) and REX are
 * skipped; x86len already checked the length. */
static enum insn_kind classify_insn(const uint8_t *p, unsigned len,
				    uint64_t addr, uint64_t *target)
{
	unsigned i = 0;
	uint64_t next = addr + len;

	while (i < len && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 ||
			   p[i] == 0xf3 || p[i] == 0x2e || p[i] == 0x3e ||
			   p[i] == 0x26 || p[i] == 0x36 || p[i] == 0x64 ||
			   p[i] == 0x65 || p[i] == 0xf0))
		i++;
	while (i < len && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= len)
		return IK_PLAIN;
	switch (p[i]) {
	case 0x70 ... 0x7f:
	case 0xe0 ... 0xe3:
		*target = next + (uint64_t)rel(p + i + 1, 1);
		return IK_JCC;
	case 0xeb:
		*target = next + (uint64_t)rel(p + i + 1, 1);
		return IK_JMP;
	case 0xe9:
		if (i + 5 != len)
			return IK_EXIT;	/* 66 e9: rel16, not produced */
		*target = next + (uint64_t)rel(p + i + 1, 4);
		return IK_JMP;
	case 0xc2: case 0xc3: case 0xca: case 0xcb: case 0xcf:
	case 0xcc: case 0xf4:
		return IK_EXIT;
	case 0xff:
		if (i + 1 < len && ((p[i + 1] >> 3) & 7) >= 4 &&
		    ((p[i + 1] >> 3) & 7) <= 5)
			return IK_IJMP;
		return IK_PLAIN;
	case 0x0f:
		if (i + 1 < len && p[i + 1] == 0x0b)
			return IK_EXIT;	/* ud2 */
		if (i + 6 == len && (p[i + 1] & 0xf0) == 0x80) {
			*target = next + (uint64_t)rel(p + i + 2, 4);
			return IK_JCC;
		}
		return IK_PLAIN;
	default:
		return IK_PLAIN;
	}
}

/* lea disp32(%rip), reg (REX.W 8d, ModRM mod 00 rm 101): *target gets
 * the address it loads. */
static bool is_rip_lea(const uint8_t *p, unsigned len, uint64_t addr,
		       uint64_t *target)
{
	if (len != 7 || (p[0] & 0xf8) != 0x48 || p[1] != 0x8d ||
	    (p[2] & 0xc7) != 0x05)
		return false;
	*target = addr + len + (uint64_t)rel(p + 3, 4);
	return true;
}

/* jmp *disp32(,%reg,8) (ff 24 [SIB scale 8, no base] disp32, notrack
 * allowed): a non-PIC jump table of absolute addresses at *table. */
static bool is_abs_table_jmp(const uint8_t *p, unsigned len,
			     uint64_t *table)
{
	unsigned i = len >= 1 && p[0] == 0x3e ? 1 : 0;

	if (i < len && (p[i] & 0xf0) == 0x40)
		i++;
	if (i + 7 != len || p[i] != 0xff || p[i + 1] != 0x24 ||
	    (p[i + 2] & 0xc7) != 0xc5)
		return false;
	*table = (uint64_t)rel(p + i + 3, 4);
	return true;
}

/* A call instruction (e8 rel32, ff /2 through memory or register). */
static bool is_call(const uint8_t *p, unsigned len)
{
	unsigned i = 0;

	while (i < len && (p[i] == 0xf2 || p[i] == 0x3e || p[i] == 0x2e ||
			   (p[i] & 0xf0) == 0x40))
		i++;
	return i < len && (p[i] == 0xe8 ||
			   (p[i] == 0xff && i + 1 < len &&
			    ((p[i + 1] >> 3) & 7) == 2));
}

/* The argument set-up of a guard callback: lea guard(%rip),%rdi (48 8d
 * 3d), or the guard's absolute address in %edi/%rdi (bf imm32, 48 c7 c7
 * imm32).  clang places it with the call, on the line of no statement. */
static bool is_guard_setup(const uint8_t *p, unsigned len)
{
	return (len == 7 && p[0] == 0x48 && p[1] == 0x8d && p[2] == 0x3d) ||
	       (len == 5 && p[0] == 0xbf) ||
	       (len == 7 && p[0] == 0x48 && p[1] == 0xc7 && p[2] == 0xc7);
}

static void *grow_to(void *v, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return v;
	*cap = need * 2;
	return xrealloc(v, *cap * sz);
}

static size_t lower_bound(const uint64_t *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool has_point_in(const struct pcvec *pv, uint64_t lo, uint64_t hi)
{
	size_t i = lower_bound(pv->v, pv->n, lo);

	return i < pv->n && pv->v[i] < hi;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Decode one range; false if an instruction cannot be decoded. */
static bool decode_range(struct blk_scratch *s, const struct code_map *cm,
			 const struct addr_range *r,
			 const struct pcvec *points)
{
	uint64_t a = r->lo;
	bool after_break = true;
	int check_window = 0;

	while (a < r->hi) {
		size_t avail;
		const uint8_t *p = code_at(cm, a, &avail);
		unsigned n;
		struct insn *in;

		if (!p)
			return false;
		if (avail > r->hi - a)
			avail = (size_t)(r->hi - a);
		n = x86_decoder_len(s->dec, p, avail, a);
		if (n == 0)
			return false;
		s->in = grow_to(s->in, &s->capin, s->nin + 1, sizeof(*s->in));
		in = &s->in[s->nin++];
		memset(in, 0, sizeof(*in));
		in->addr = a;
		in->len = (uint8_t)n;
		in->kind = (uint8_t)classify_insn(p, n, a, &in->target);
		in->leader = after_break;
		in->split = after_break && s->nin > 1 &&
			    s->in[s->nin - 2].kind == IK_PLAIN &&
			    a != r->lo;
		in->cov_call = has_point_in(points, a, a + n) && is_call(p, n);
		in->guard_setup = is_guard_setup(p, n);
		in->rip_lea = is_rip_lea(p, n, a, &in->target);
		if (in->kind == IK_IJMP && is_abs_table_jmp(p, n, &in->target))
			in->rip_lea = true;	/* the table's address */
		if (in->kind == IK_JMP || in->kind == IK_JCC) {
			s->tg = grow_to(s->tg, &s->captg, s->ntg + 1,
					sizeof(*s->tg));
			s->tg[s->ntg++] = in->target;
		}
		/* An inline point (a plugin's, tools/pctable.c) is the last
		 * byte of the load of the word it tests, with no call: the
		 * conditional jump within the next two instructions is that
		 * test's, not the program's (inline_check). */
		if (in->kind == IK_JCC && check_window > 0)
			in->inline_check = true;
		in->inline_test = in->kind == IK_PLAIN &&
				  has_point_in(points, a, a + n) &&
				  !is_call(p, n);
		check_window = in->kind != IK_PLAIN ? 0
			       : has_point_in(points, a, a + n) && !is_call(p, n)
				       ? 3
				       : check_window - 1;
		after_break = in->kind != IK_PLAIN || in->cov_call;
		a += n;
	}
	return true;
}

/* The decoded instruction at exactly a, or NULL. */
static const struct insn *insn_at(const struct blk_scratch *s, uint64_t a)
{
	size_t lo = 0, hi = s->nin;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->in[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nin && s->in[lo].addr == a ? &s->in[lo] : NULL;
}

/* Entries of a jump table read at most (a switch of 4096 cases), and of
 * all the tables of a function: past them an indirect jump is treated
 * as one without a table. */
#define MAX_TABLE 4096
#define MAX_TABLES_ENTRIES (1u << 16)

/* One entry of the table at t: 4-byte offsets from t (PIC, gcc and
 * clang) or 8-byte addresses (abs).  False past the readable data. */
static bool table_entry(const struct code_map *cm, uint64_t t, size_t k,
			bool abs, uint64_t *target)
{
	size_t avail, w = abs ? 8 : 4;
	const uint8_t *p = code_at(cm, t + k * w, &avail);
	int32_t d;

	if (!p || avail < w)
		return false;
	if (abs) {
		memcpy(target, p, 8);
		return true;
	}
	memcpy(&d, p, 4);
	*target = t + (uint64_t)(int64_t)d;
	return true;
}

/*
 * The targets of the jump table behind the indirect jump at index j:
 * its table is the last rip-relative lea of the few instructions before
 * it (gcc and clang: lea table(%rip); movslq (table,idx,4); add table;
 * jmp), or the jump's own absolute table.  Entries are read while they
 * land on an instruction of this function: the table's own entries all
 * do; what follows it, if it happens to, only adds edges, which removes
 * inferences and never makes one wrong.
 */
static void read_table(struct blk_scratch *s, const struct code_map *cm,
		       size_t j)
{
	struct insn *jmp = &s->in[j];
	bool abs = jmp->rip_lea, found = abs;
	uint64_t t = jmp->target, tg;
	size_t k;

	for (size_t i = j, back = 0; !found && i-- > 0 && back < 8; back++) {
		if (s->in[i].kind != IK_PLAIN)
			break;
		if (s->in[i].rip_lea) {
			t = s->in[i].target;
			found = true;
		}
	}
	if (!found || s->njt >= MAX_TABLES_ENTRIES)
		return;
	jmp->jt_first = (uint32_t)s->njt;
	for (k = 0; k < MAX_TABLE && table_entry(cm, t, k, abs, &tg) &&
		    insn_at(s, tg);
	     k++) {
		s->jt = grow_to(s->jt, &s->capjt, s->njt + 1, sizeof(*s->jt));
		s->jt[s->njt++] = tg;
		s->tg = grow_to(s->tg, &s->captg, s->ntg + 1, sizeof(*s->tg));
		s->tg[s->ntg++] = tg;
	}
	jmp->jt_n = (uint32_t)k;
}

static bool decode(struct blk_scratch *s, const struct code_map *cm,
		   const struct addr_range *r, size_t nr, uint64_t entry,
		   const struct pcvec *points)
{
	s->nin = s->ntg = s->njt = 0;
	for (size_t i = 0; i < nr; i++)
		if (!decode_range(s, cm, &r[i], points))
			return false;
	for (size_t i = 0; i < s->nin; i++)
		if (s->in[i].kind == IK_IJMP)
			read_table(s, cm, i);
	s->tg = grow_to(s->tg, &s->captg, s->ntg + 1, sizeof(*s->tg));
	s->tg[s->ntg++] = entry;
	qsort(s->tg, s->ntg, sizeof(*s->tg), cmp_u64);
	for (size_t i = 0, k = 0; i < s->nin; i++) {
		while (k < s->ntg && s->tg[k] < s->in[i].addr)
			k++;
		if (k < s->ntg && s->tg[k] == s->in[i].addr) {
			s->in[i].leader = true;
			s->in[i].split = false;
		}
	}
	/* A coverage call (with a guard's set-up) starts the block it
	 * counts: compilers put it first.  Jump tables land there unseen,
	 * so the code before it is another block. */
	for (size_t i = 0; i < s->nin; i++) {
		size_t h = i;

		if (!s->in[i].cov_call)
			continue;
		if (i > 0 && s->in[i - 1].guard_setup && !s->in[i].leader)
			h = i - 1;
		s->in[h].leader = true;
		s->in[h].split = false;
	}
	return s->nin > 0;
}

/* The blocks of the decoded instructions, appended to out from base. */
static void make_blocks(struct blk_scratch *s, const struct pcvec *points,
			const struct pcvec *covered, struct blkvec *out)
{
	for (size_t i = 0; i < s->nin; i++) {
		const struct insn *last;
		struct blk *b;
		size_t j = i;

		while (j + 1 < s->nin && !s->in[j + 1].leader)
			j++;
		last = &s->in[j];
		out->v = grow_to(out->v, &out->cap, out->n + 1, sizeof(*b));
		b = &out->v[out->n++];
		b->lo = s->in[i].addr;
		b->hi = last->addr + last->len;
		b->mark_hi = b->hi;
		b->state = BLK_UNKNOWN;
		b->split = s->in[i].split;
		if (last->cov_call) {
			b->mark_hi = last->addr;
			if (j > i && s->in[j - 1].guard_setup)
				b->mark_hi = s->in[j - 1].addr;
		}
		/* An inline point's test and its jump are the coverage
		 * call's stand-in: they carry whatever line the compiler
		 * gave the instrumentation (gcc -O0: the line before a
		 * shared return block's), not the block's. */
		if (last->inline_check)
			for (size_t k = j; k > i && k + 3 > j; k--)
				if (s->in[k - 1].inline_test) {
					b->mark_hi = s->in[k - 1].addr;
					/* gcc's ABI-1 test takes the word's
					 * address first, as a guard's set-up. */
					if (k - 1 > i && s->in[k - 2].rip_lea)
						b->mark_hi = s->in[k - 2].addr;
					break;
				}
		if (has_point_in(points, b->lo, b->hi))
			b->state = has_point_in(covered, b->lo, b->hi)
					   ? BLK_RAN : BLK_NOT_RUN;
		i = j;
	}
}

/* The block of this function starting exactly at a, or -1. */
static int block_at(const struct blk *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].lo < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].lo == a ? (int)lo : -1;
}

static void add_edge(struct blk_scratch *s, int from, int to)
{
	s->edges = grow_to(s->edges, &s->capedges, s->nedges + 2,
			   sizeof(*s->edges));
	s->edges[s->nedges++] = from;
	s->edges[s->nedges++] = to;
}

/* The next block if it follows b in the same range, else the exit. */
static int fall_through(const struct blk *v, size_t n, size_t b)
{
	return b + 1 < n && v[b + 1].lo == v[b].hi ? (int)b + 1
						    : EXIT_NODE(n);
}

/* The last instruction of each block in turn: k follows b. */
static const struct insn *last_insn(const struct blk_scratch *s,
				    const struct blk *bk, size_t *k)
{
	while (*k + 1 < s->nin && s->in[*k + 1].addr < bk->hi)
		(*k)++;
	return &s->in[*k];
}

static void add_twin(struct blk_scratch *s, int check, int succ)
{
	if (succ == EXIT_NODE_NONE)
		return;
	s->twins = grow_to(s->twins, &s->captwins, s->ntwins + 2,
			   sizeof(*s->twins));
	s->twins[s->ntwins++] = check;
	s->twins[s->ntwins++] = succ;
}

/*
 * The test of an inline point: whichever way it goes, the block's own
 * code runs next (hot path: nothing records; cold path: the entry call,
 * then the same code or a copy of it), so both successors ran if the
 * point's block did (infer_twins).  gcc's plugin puts the cold path in
 * another section: then the jump leaves the function and comes back,
 * and only the fall-through is an edge.
 */
static void inline_check_edges(struct blk_scratch *s, const struct blk *v,
			       size_t n, size_t b, const struct insn *last)
{
	int f = fall_through(v, n, b), t = block_at(v, n, last->target);

	add_edge(s, (int)b, f);
	add_twin(s, (int)b, f == EXIT_NODE(n) ? EXIT_NODE_NONE : f);
	if (t >= 0) {
		add_edge(s, (int)b, t);
		add_twin(s, (int)b, t);
	}
}

/* The direct edges; indirect jumps get theirs in add_indirect_edges. */
static void make_edges(struct blk_scratch *s, const struct blk *v, size_t n)
{
	size_t k = 0;

	s->nedges = s->ntwins = 0;
	for (size_t b = 0; b < n; b++) {
		const struct insn *last = last_insn(s, &v[b], &k);
		int t;

		switch (last->kind) {
		case IK_JCC:
			if (last->inline_check) {
				inline_check_edges(s, v, n, b, last);
				break;
			}
			add_edge(s, (int)b, fall_through(v, n, b));
			t = block_at(v, n, last->target);
			add_edge(s, (int)b, t < 0 ? EXIT_NODE(n) : t);
			break;
		case IK_JMP:
			t = block_at(v, n, last->target);
			add_edge(s, (int)b, t < 0 ? EXIT_NODE(n) : t);
			break;
		case IK_EXIT:
			add_edge(s, (int)b, EXIT_NODE(n));
			break;
		case IK_IJMP:	/* without a table: add_indirect_edges */
			for (uint32_t x = 0; x < last->jt_n; x++) {
				t = block_at(v, n, s->jt[last->jt_first + x]);
				if (t >= 0)
					add_edge(s, (int)b, t);
			}
			break;
		default:
			add_edge(s, (int)b, fall_through(v, n, b));
		}
	}
}

/* CSR adjacency of the edges (nodes 0..n, n the exit), forward (off,
 * adj) and backward (roff, radj). */
static void make_csr(struct blk_scratch *s, size_t n)
{
	size_t ne = s->nedges / 2, nn = n + 1;

	s->off = xrealloc(s->off, (nn + 1) * sizeof(int));
	s->roff = xrealloc(s->roff, (nn + 1) * sizeof(int));
	s->adj = xrealloc(s->adj, (ne + 1) * sizeof(int));
	s->radj = xrealloc(s->radj, (ne + 1) * sizeof(int));
	memset(s->off, 0, (nn + 1) * sizeof(int));
	memset(s->roff, 0, (nn + 1) * sizeof(int));
	for (size_t e = 0; e < s->nedges; e += 2) {
		s->off[s->edges[e] + 1]++;
		s->roff[s->edges[e + 1] + 1]++;
	}
	for (size_t i = 0; i < nn; i++) {
		s->off[i + 1] += s->off[i];
		s->roff[i + 1] += s->roff[i];
	}
	for (size_t e = 0; e < s->nedges; e += 2) {
		int f = s->edges[e], t = s->edges[e + 1];

		s->adj[s->off[f]++] = t;
		s->radj[s->roff[t]++] = f;
	}
	for (size_t i = nn; i > 0; i--) {
		s->off[i] = s->off[i - 1];
		s->roff[i] = s->roff[i - 1];
	}
	s->off[0] = s->roff[0] = 0;
}

/* Edges added for indirect jumps at most: past it the jump tables'
 * blocks stay unreachable, hence unknown. */
#define MAX_INDIRECT_EDGES (1u << 16)

/*
 * An indirect jump (a switch's jump table) may go to any block that the
 * direct edges do not reach from the entry: the cases, and the blocks
 * only they lead to.  Edges that are not really there only remove
 * dominator relations, so every inference stays sound.  Not to the rest
 * of a block after its coverage call: compilers put the call at the
 * start of the block a jump lands on.
 */
static void add_indirect_edges(struct blk_scratch *s, const struct blk *v,
			       size_t n, size_t entry)
{
	bool *reached = xcalloc(n + 1, sizeof(*reached));
	int *stack = xmalloc((n + 1) * sizeof(*stack));
	size_t sp = 0, k = 0, added = 0;

	make_csr(s, n);
	reached[entry] = true;
	stack[sp++] = (int)entry;
	while (sp) {
		int u = stack[--sp];

		for (int e = s->off[u]; e < s->off[u + 1]; e++)
			if (!reached[s->adj[e]]) {
				reached[s->adj[e]] = true;
				stack[sp++] = s->adj[e];
			}
	}
	for (size_t b = 0; b < n; b++) {
		const struct insn *last = last_insn(s, &v[b], &k);
		bool any = false;

		if (last->kind != IK_IJMP || last->jt_n)
			continue;
		for (size_t c = 0; c < n && added < MAX_INDIRECT_EDGES; c++)
			if (!reached[c] && !v[c].split) {
				add_edge(s, (int)b, (int)c);
				any = true;
				added++;
			}
		if (!any)	/* a tail call through a pointer */
			add_edge(s, (int)b, EXIT_NODE(n));
	}
	free(reached);
	free(stack);
}

/* Reverse postorder from root along (off, adj): order[0..count), and
 * rpo_num[node] (-1: unreachable). */
static size_t reverse_postorder(struct blk_scratch *s, size_t nn, int root,
				const int *off, const int *adj)
{
	int *pos = xcalloc(nn, sizeof(int));	/* next edge to try */
	size_t sp = 0, cnt = 0;

	for (size_t i = 0; i < nn; i++)
		s->rpo_num[i] = -1;
	s->stack[sp++] = root;
	s->rpo_num[root] = -2;	/* on the stack */
	pos[root] = off[root];
	while (sp) {
		int u = s->stack[sp - 1];

		if (pos[u] < off[u + 1]) {
			int w = adj[pos[u]++];

			if (s->rpo_num[w] == -1) {
				s->rpo_num[w] = -2;
				pos[w] = off[w];
				s->stack[sp++] = w;
			}
			continue;
		}
		s->order[cnt++] = u;
		sp--;
	}
	for (size_t i = 0; i < cnt / 2; i++) {
		int t = s->order[i];

		s->order[i] = s->order[cnt - 1 - i];
		s->order[cnt - 1 - i] = t;
	}
	for (size_t i = 0; i < cnt; i++)
		s->rpo_num[s->order[i]] = (int)i;
	free(pos);
	return cnt;
}

/*
 * Immediate dominators from root along (off, adj), predecessors (roff,
 * radj): Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
 * Algorithm" (2001).  idom[root] = root; -1: unreachable.  Leaves the
 * reverse postorder in s->order (returned count).
 */
static size_t dominators(struct blk_scratch *s, size_t nn, int root,
			 const int *off, const int *adj, const int *roff,
			 const int *radj, int *idom)
{
	size_t cnt = reverse_postorder(s, nn, root, off, adj);
	bool changed = true;

	for (size_t i = 0; i < nn; i++)
		idom[i] = -1;
	idom[root] = root;
	while (changed) {
		changed = false;
		for (size_t i = 1; i < cnt; i++) {
			int b = s->order[i], nd = -1;

			for (int e = roff[b]; e < roff[b + 1]; e++) {
				int p = radj[e], x = p, y = nd;

				if (idom[p] < 0)
					continue;
				while (y >= 0 && x != y) {
					while (s->rpo_num[x] > s->rpo_num[y])
						x = idom[x];
					while (s->rpo_num[y] > s->rpo_num[x])
						y = idom[y];
				}
				nd = x;
			}
			if (nd >= 0 && idom[b] != nd) {
				idom[b] = nd;
				changed = true;
			}
		}
	}
	return cnt;
}

/* Set unknown to st; true if it changed. */
static bool decide(struct blk *b, enum blk_state st)
{
	if (b->state != BLK_UNKNOWN)
		return false;
	b->state = st;
	return true;
}

/* One round of the rules in the header comment. */
static bool infer_round(struct blk_scratch *s, struct blk *v, size_t n)
{
	bool changed = false;
	int ex = EXIT_NODE(n);

	for (size_t b = 0; b < n; b++) {
		if (v[b].state != BLK_RAN)
			continue;
		for (int d = (int)b; s->idom[d] >= 0 && s->idom[d] != d;) {
			d = s->idom[d];
			changed |= decide(&v[d], BLK_RAN);
		}
		for (int d = (int)b; s->ipdom[d] >= 0 && s->ipdom[d] != ex;) {
			d = s->ipdom[d];
			changed |= decide(&v[d], BLK_RAN);
		}
	}
	for (size_t b = 0; b < n; b++) {
		int d = s->idom[b], p = s->ipdom[b];

		if (v[b].state != BLK_UNKNOWN)
			continue;
		for (; d >= 0 && d != (int)b && v[d].state != BLK_NOT_RUN;
		     d = s->idom[d] == d ? -1 : s->idom[d])
			;
		for (; p >= 0 && p != ex && p != (int)b &&
		       v[p].state != BLK_NOT_RUN;
		     p = s->ipdom[p])
			;
		if ((d >= 0 && d != (int)b) || (p >= 0 && p != ex && p != (int)b))
			changed |= decide(&v[b], BLK_NOT_RUN);
	}
	return changed;
}

/* Among the nodes adj[lo..hi): how many are not known not to have run
 * (the exit counts as one), and the last such block. */
static int open_ends(const int *adj, int lo, int hi, const struct blk *v,
		     int ex, int *which)
{
	int k = 0;

	for (int e = lo; e < hi; e++)
		if (adj[e] == ex || v[adj[e]].state != BLK_NOT_RUN) {
			k++;
			*which = adj[e];
		}
	return k;
}

/*
 * The flow rules (gcov solves its arc counts the same way): a block is
 * entered from a predecessor and left to a successor.  A block (not the
 * entry: it is entered from outside) whose predecessors all did not run
 * did not run; a block whose successors all did not run (none of them
 * the exit) did not either; a block that ran with one predecessor, or
 * one successor, that may have run: that one ran.
 */
static bool flow_round(struct blk_scratch *s, struct blk *v, size_t n)
{
	bool changed = false;
	int ex = EXIT_NODE(n), w = -1;

	for (size_t b = 0; b < n; b++) {
		int np = open_ends(s->radj, s->roff[b], s->roff[b + 1], v, ex,
				   &w);
		int ns;

		if (v[b].state == BLK_UNKNOWN && b && np == 0 &&
		    s->roff[b + 1] > s->roff[b])
			changed |= decide(&v[b], BLK_NOT_RUN);
		if (v[b].state == BLK_RAN && b && np == 1)
			changed |= decide(&v[w], BLK_RAN);
		ns = open_ends(s->adj, s->off[b], s->off[b + 1], v, ex, &w);
		if (v[b].state == BLK_UNKNOWN && ns == 0 &&
		    s->off[b + 1] > s->off[b])
			changed |= decide(&v[b], BLK_NOT_RUN);
		if (v[b].state == BLK_RAN && ns == 1 && w != ex)
			changed |= decide(&v[w], BLK_RAN);
	}
	return changed;
}

/* Each successor of an inline point's test ran if the test's block did
 * (inline_check_edges).  Not "did not run" from "did not run", nor the
 * converse: a successor may be entered from elsewhere too (a shared
 * return block, a loop's head); the dominator rules decide those. */
static bool infer_twins(struct blk_scratch *s, struct blk *v)
{
	bool changed = false;

	for (size_t i = 0; i < s->ntwins; i += 2) {
		struct blk *c = &v[s->twins[i]], *t = &v[s->twins[i + 1]];

		if (c->state == BLK_RAN)
			changed |= decide(t, BLK_RAN);
	}
	return changed;
}

static void infer(struct blk_scratch *s, struct blk *v, size_t n)
{
	size_t nn = n + 1;

	if (s->capn < nn) {
		s->capn = nn * 2;
		s->idom = xrealloc(s->idom, s->capn * sizeof(int));
		s->ipdom = xrealloc(s->ipdom, s->capn * sizeof(int));
		s->order = xrealloc(s->order, s->capn * sizeof(int));
		s->rpo_num = xrealloc(s->rpo_num, s->capn * sizeof(int));
		s->stack = xrealloc(s->stack, s->capn * sizeof(int));
	}
	make_csr(s, n);
	dominators(s, nn, 0, s->off, s->adj, s->roff, s->radj, s->idom);
	dominators(s, nn, EXIT_NODE(n), s->roff, s->radj, s->off, s->adj,
		   s->ipdom);
	s->idom[n] = -1;	/* the exit is no block */
	while (infer_twins(s, v) | infer_round(s, v, n) | flow_round(s, v, n))
		;
}

/* Swap blocks 0 and e, in the array and in the edges. */
static void swap_first(struct blk_scratch *s, struct blk *v, int e)
{
	struct blk t = v[0];

	v[0] = v[e];
	v[e] = t;
	for (size_t i = 0; i < s->nedges; i++)
		s->edges[i] = s->edges[i] == e ? 0
			      : s->edges[i] == 0 ? e : s->edges[i];
	for (size_t i = 0; i < s->ntwins; i++)
		s->twins[i] = s->twins[i] == e ? 0
			      : s->twins[i] == 0 ? e : s->twins[i];
}

long blocks_function(struct blk_scratch *s, const struct code_map *cm,
		     const struct addr_range *r, size_t nr, uint64_t entry,
		     const struct pcvec *points, const struct pcvec *covered,
		     struct blkvec *out)
{
	size_t base = out->n, n;
	int e;

	if (!decode(s, cm, r, nr, entry, points))
		return -1;
	make_blocks(s, points, covered, out);
	n = out->n - base;
	e = block_at(out->v + base, n, entry);
	if (e < 0)
		e = 0;
	make_edges(s, out->v + base, n);
	add_indirect_edges(s, out->v + base, n, (size_t)e);
	/* The dominator trees are rooted at node 0: the entry block goes
	 * there while they are used, then back to its address order. */
	if (e)
		swap_first(s, out->v + base, e);
	infer(s, out->v + base, n);
	if (e)
		swap_first(s, out->v + base, e);
	return (long)n;
}
