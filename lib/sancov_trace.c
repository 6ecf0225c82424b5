/*
 * lib/sancov_trace.c -- the two features of the old sancov runtime that compiler-rt
 * removed in 2017 (llvm-mirror/compiler-rt 104db270d "remove run-time
 * support for -fsanitize-coverage=indirect-calls" and 2409e866b "...
 * trace-bb"), rebuilt for today's callbacks and for threads:
 *
 *   coverage_caller_callee=1  caller-callee.<pid>.sancov: every distinct
 *       (call site, callee) pair of the indirect calls that
 *       __sanitizer_cov_trace_pc_indir reports, as two text lines
 *       "<module> 0x<offset>", caller first (the old
 *       DumpCallerCalleePairs layout).  No per-caller limit (the old
 *       runtime kept 14 callees per caller and dropped the rest
 *       silently); what does not fit in the tables is counted and
 *       reported.
 *   coverage_trace_bb=1  trace-points.<pid>.sancov (one text line
 *       "<module> 0x<offset>" per point, the old DumpTrace layout:
 *       every point of the modules with a PC table, then those of the
 *       others that ran; see tb_table_build),
 *       trace-events.<pid>.sancov (one host-order u32 per event: the
 *       0-based line of its point in trace-points) and, new,
 *       trace-threads.<pid>.sancov (one u32 per event: the number of
 *       the thread that ran it).  Events come from trace_pc and
 *       trace_pc_guard; the process keeps at most
 *       coverage_trace_max_events of them and counts the rest.
 *
 * Byte layouts: docs/FORMATS.md.  Options: ukcov_sancov(7).
 *
 * Recording (the callbacks' out-of-line part, reached only when the
 * option's bit is set): no lock, no allocation, no libc.  PCs are
 * interned in fixed open-addressing tables mmap'ed at setup (claimed by
 * compare-and-swap; the slot number is the PC's identity), a pair is
 * one 64-bit key (caller slot, callee slot) in a third such table, and
 * an event is one 64-bit store into a preallocated array at an index
 * taken with one atomic add (so events keep the process-wide order in
 * which they claimed their index).
 *
 * Dumping runs under sancov_dump.c's dump flag, possibly in a
 * fatal-signal handler: mmap'ed scratch, textline.h, the last module
 * snapshot.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "sancov.h"
#include "textline.h"
#include <ukcov/sancov.h>

/* ---- PC interning: a fixed table of distinct PCs ---- */

#define PROBES 64

struct pctab {
	uint64_t *keys;		/* [A] PCs, 0 = free; claimed by CAS */
	unsigned bits;		/* [S] log2(slots) */
};

static int pctab_map(struct pctab *t, unsigned bits)
{
	void *p = ukcov__real_mmap(NULL, ((size_t)1 << bits) * sizeof(uint64_t),
				   PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				   -1, 0);

	if (p == MAP_FAILED)
		return -1;
	t->keys = p;
	t->bits = bits;
	return 0;
}

static uint64_t pctab_slots(const struct pctab *t)
{
	return t->keys ? (uint64_t)1 << t->bits : 0;
}

/* key's slot + 1, claiming a free slot if key is new; 0 if no slot
 * within PROBES of its home is free (the table is full there).  key is
 * never 0. */
static uint32_t pctab_intern(struct pctab *t, uint64_t key)
{
	uint64_t mask = pctab_slots(t) - 1;
	uint64_t h = (key * UKCOV_PCSET_HASH) >> (64 - t->bits);

	for (unsigned i = 0; i < PROBES; i++) {
		uint64_t s = (h + i) & mask;
		uint64_t v = __atomic_load_n(&t->keys[s], __ATOMIC_RELAXED);

		if (v == 0 && __atomic_compare_exchange_n(&t->keys[s], &v, key,
							  0, __ATOMIC_RELAXED,
							  __ATOMIC_RELAXED))
			return (uint32_t)s + 1;
		if (v == key)
			return (uint32_t)s + 1;
	}
	return 0;
}

static void pctab_clear(struct pctab *t)
{
	/* Private anonymous pages read back as zeros. */
	if (t->keys)
		madvise(t->keys, pctab_slots(t) * sizeof(uint64_t),
			MADV_DONTNEED);
}

/* ---- state ---- */

#define CC_PC_BITS 18		/* 256 Ki call sites and callees, 2 MiB */
#define CC_PAIR_BITS 20		/* 1 Mi pairs, 8 MiB */
#define TB_POINT_BITS 20	/* 1 Mi trace points, 8 MiB + 8 MiB scratch */

static struct pctab cc_pcs;	/* callers and callees */
static struct pctab cc_pairs;	/* (caller slot+1) << 32 | (callee slot+1) */
static uint64_t cc_unique;	/* [A] distinct pairs recorded */
static uint64_t cc_cut;		/* [A] calls whose pair found no slot */

static struct pctab tb_points;	/* PC - 1 of each point */
static uint64_t *tb_events;	/* [A] (thread << 32) | (point slot + 1);
				 * 0: claimed, not yet written */
static uint64_t tb_max;		/* [S] capacity of tb_events */
static uint64_t tb_claimed;	/* [A] events that claimed an index,
				 * including those past tb_max (cut) */
static uint64_t tb_nopoint;	/* [A] events whose point found no slot */
static uint32_t tb_threads;	/* [A] thread numbers given out */
static __thread uint32_t tb_thread;	/* this thread's number, 0: none */
/* Dump scratch [D]: per point slot, its 1-based line (0 outside a
 * dump), and the slots in line order. */
static uint32_t *tb_line;
static uint32_t *tb_order;

static int cc_on(void)
{
	return __atomic_load_n(&__ukcov_sancov.indir_on, __ATOMIC_RELAXED) != 0;
}

static int tb_on(void)
{
	return (__atomic_load_n(&__ukcov_sancov.pc_on, __ATOMIC_RELAXED) &
		UKCOV_SANCOV_TRACE) != 0;
}

int ukcov__sancov_trace_wanted(void)
{
	return cc_on() || tb_on();
}

static void *map_anon(size_t bytes)
{
	void *p = ukcov__real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				   -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The event array ends at a page boundary followed by an inaccessible
 * page (as the old runtime's tr_event_array): a write past the bound
 * faults instead of landing in the page's slack. */
static char *tb_pages;		/* [S] the event array's pages */
static size_t tb_pages_len;	/* [S] their length, guard excluded */

static void *map_guarded(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (bytes + page - 1) / page * page;
	char *p = map_anon(len + page);

	if (!p || mprotect(p + len, page, PROT_NONE) != 0)
		return NULL;
	tb_pages = p;
	tb_pages_len = len;
	return p + len - bytes;
}

/* Forget every event: private anonymous pages read back as zeros. */
static void tb_clear_events(void)
{
	__atomic_store_n(&tb_claimed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&tb_nopoint, 0, __ATOMIC_RELAXED);
	madvise(tb_pages, tb_pages_len, MADV_DONTNEED);
}

static int tb_map(void)
{
	size_t slots = (size_t)1 << TB_POINT_BITS;

	tb_max = ukcov__sancov_opts.trace_max_events;
	if (pctab_map(&tb_points, TB_POINT_BITS) != 0)
		return -1;
	tb_events = map_guarded((tb_max ? tb_max : 1) * sizeof(uint64_t));
	tb_line = map_anon(slots * sizeof(uint32_t));
	tb_order = map_anon(slots * sizeof(uint32_t));
	return tb_events && tb_line && tb_order ? 0 : -1;
}

/* At setup, before any callback can see the bits: map the tables of
 * the features UKCOV_OPTIONS asks for, enable caller-callee recording
 * (its own word) and return the bit that enables tracing in the
 * trace_pc and guard words (the caller publishes it), or 0. */
uint32_t ukcov__sancov_trace_setup(void)
{
	uint32_t bits = 0;

	if (ukcov__sancov_opts.caller_callee) {
		if (pctab_map(&cc_pcs, CC_PC_BITS) == 0 &&
		    pctab_map(&cc_pairs, CC_PAIR_BITS) == 0)
			__atomic_store_n(&__ukcov_sancov.indir_on, 1,
					 __ATOMIC_RELEASE);
		else
			ukcov__sancov_msg("ukcov: coverage_caller_callee: cannot "
					  "map the tables", "", 0, "; off\n");
	}
	if (ukcov__sancov_opts.trace_bb) {
		if (tb_map() == 0)
			bits |= UKCOV_SANCOV_TRACE;
		else
			ukcov__sancov_msg("ukcov: coverage_trace_bb: cannot map "
					  "the event buffer", "", 0, "; off\n");
	}
	return bits;
}

/* ---- recording (from the callbacks, lib/callbacks.c) ---- */

/* caller: the call site (the callback's return address - 1, as the old
 * runtime's IndirCall got it); callee: the called address. */
UKCOV_SANCOV_API void __ukcov_sancov_indir_pair(uint64_t caller,
						uint64_t callee)
{
	uint32_t a, b;
	uint64_t key, mask, h;

	if (callee == 0)
		return;		/* a call through NULL: it faults next */
	a = pctab_intern(&cc_pcs, caller);
	b = pctab_intern(&cc_pcs, callee);
	if (a == 0 || b == 0)
		goto cut;
	key = (uint64_t)a << 32 | b;
	mask = pctab_slots(&cc_pairs) - 1;
	h = (key * UKCOV_PCSET_HASH) >> (64 - cc_pairs.bits);
	for (unsigned i = 0; i < PROBES; i++) {
		uint64_t *s = &cc_pairs.keys[(h + i) & mask];
		uint64_t v = __atomic_load_n(s, __ATOMIC_RELAXED);

		if (v == key)
			return;
		if (v == 0 && __atomic_compare_exchange_n(s, &v, key, 0,
							  __ATOMIC_RELAXED,
							  __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&cc_unique, 1, __ATOMIC_RELAXED);
			return;
		}
		if (v == key)
			return;		/* another thread's, just now */
	}
cut:
	__atomic_fetch_add(&cc_cut, 1, __ATOMIC_RELAXED);
}

/* Thread numbers are 1, 2, ... in the order of the threads' first
 * events (the forking thread of a child restarts at 1). */
static uint32_t thread_number(void)
{
	uint32_t n = tb_thread;

	if (n == 0) {
		n = __atomic_add_fetch(&tb_threads, 1, __ATOMIC_RELAXED);
		tb_thread = n;
	}
	return n;
}

/* pc: the point (the callback's return address - 1). */
UKCOV_SANCOV_API void __ukcov_sancov_trace_event(uint64_t pc)
{
	uint64_t i = __atomic_fetch_add(&tb_claimed, 1, __ATOMIC_RELAXED);
	uint32_t p;

	if (i >= tb_max)
		return;		/* cut: counted by tb_claimed - tb_max */
	p = pctab_intern(&tb_points, pc);
	if (p == 0)
		__atomic_fetch_add(&tb_nopoint, 1, __ATOMIC_RELAXED);
	/* One store: a dump sees the whole event or 0. */
	__atomic_store_n(&tb_events[i], (uint64_t)thread_number() << 32 | p,
			 __ATOMIC_RELEASE);
}

/* ---- dumping ---- */

/* "<module> 0x<offset>\n" for pc, into l (the old runtime's
 * "%s 0x%zx\n"; a PC in no known module is "<unknown> 0x<address>"). */
static void put_point(struct line *l, uint64_t pc)
{
	const struct ukcov_modsnap *m = ukcov__sancov_module_of(pc);

	if (m) {
		put(l, m->path, strlen(m->path));
		pc -= m->bias;
	} else
		put(l, "<unknown>", 9);
	put(l, " 0x", 3);
	put_hex(l, pc);
	put(l, "\n", 1);
}

/* The text of n points, pc_at(i) for each, as one mmap'ed buffer
 * (two passes: measure, then fill).  *len is its length; NULL if no
 * memory. */
static char *points_text(uint64_t (*pc_at)(size_t, void *), void *arg,
			 size_t n, size_t *len, size_t *bytes)
{
	struct line l;
	size_t total = 0, at = 0;
	char *buf;

	for (size_t i = 0; i < n; i++) {
		l.n = 0;
		put_point(&l, pc_at(i, arg));
		total += l.n;
	}
	*bytes = total ? total : 1;
	buf = ukcov__real_mmap(NULL, *bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < n && at < total; i++) {
		l.n = 0;
		put_point(&l, pc_at(i, arg));
		if (l.n > total - at)
			l.n = total - at;	/* a snapshot changed under us */
		memcpy(buf + at, l.buf, l.n);
		at += l.n;
	}
	*len = at;
	return buf;
}

/* "<what>.<pid>.sancov" */
static void file_name(struct line *name, const char *what)
{
	name->n = 0;
	put(name, what, strlen(what));
	put(name, ".", 1);
	put_dec(name, (unsigned)getpid());
	put(name, ".sancov", 8);
	name->buf[sizeof(name->buf) - 1] = '\0';
}

static void report_count(const char *what, uint64_t n, const char *tail)
{
	struct line l = { .n = 0 };

	put_dec(&l, (unsigned)n);
	put(&l, "", 1);
	ukcov__sancov_msg(what, l.buf, strlen(l.buf), tail);
}

/* caller-callee: pair i of the sorted (caller, callee) array is lines
 * 2i and 2i+1. */
static uint64_t cc_pc_at(size_t i, void *arg)
{
	return ((const uint64_t *)arg)[i];
}

static void cc_dump(void)
{
	uint64_t slots = pctab_slots(&cc_pairs), n = 0, cut;
	size_t bytes, len, tbytes;
	uint64_t *pairs;
	struct line name;
	char *text;

	for (uint64_t s = 0; s < slots; s++)
		n += __atomic_load_n(&cc_pairs.keys[s], __ATOMIC_RELAXED) != 0;
	if (n == 0 && __atomic_load_n(&cc_cut, __ATOMIC_RELAXED) == 0)
		return;		/* no indirect call: no file, as before */
	bytes = (n ? n : 1) * 2 * sizeof(uint64_t);
	pairs = ukcov__real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pairs == MAP_FAILED)
		return;
	n = 0;
	for (uint64_t s = 0; s < slots && n < bytes / 16; s++) {
		uint64_t k = __atomic_load_n(&cc_pairs.keys[s], __ATOMIC_RELAXED);

		if (k == 0)
			continue;
		pairs[2 * n] = cc_pcs.keys[(k >> 32) - 1];
		pairs[2 * n + 1] = cc_pcs.keys[(uint32_t)k - 1];
		n++;
	}
	/* By caller, then callee: the same order in every run of a
	 * program that loads at the same addresses. */
	ukcov__sort_u64_pairs(pairs, n);
	text = points_text(cc_pc_at, pairs, 2 * n, &len, &tbytes);
	if (text) {
		file_name(&name, "caller-callee");
		(void)ukcov__sancov_write_named(name.buf, "", 0, text, len);
		munmap(text, tbytes);
	}
	munmap(pairs, bytes);
	cut = __atomic_load_n(&cc_cut, __ATOMIC_RELAXED);
	if (cut)
		report_count("ukcov: coverage_caller_callee: the tables were "
			     "full; ", cut, " indirect calls were not recorded\n");
}

/*
 * The points of modules built with a PC table (-fsanitize-coverage=
 * ...,pc-table): every instrumented point, run or not, as the seed's
 * trace-points lists "all the instrumented points in the program".
 * Lines 0..n-1 are the table entries of the modules still loaded (the
 * last snapshot has their instance: same path, same bias), in the
 * order their tables were registered, then each table's order; an
 * entry's PC is its block's first instruction.  A point that ran is
 * the callback's call site, inside its block, after the block's first
 * instruction and before the next block's: its line is that of the
 * greatest table PC at or below it in the same module.
 */
struct tb_table {
	uint64_t *pc;		/* line -> table PC */
	uint64_t *by_pc;	/* (PC, line) pairs sorted by PC */
	size_t n;
	size_t bytes;		/* of the one mapping holding both */
};

/* A PC table of a module instance still loaded.  (A library loaded
 * again at the same address has one region: sancov.c's region_init
 * keeps one per range.) */
static int region_loaded(const struct ukcov_region *r)
{
	const struct ukcov_modsnap *m = ukcov__sancov_module_of(r->lo);

	return m && m->bias == r->bias && strcmp(m->path, r->path) == 0;
}

static void tb_table_build(struct tb_table *t)
{
	uint32_t nr = ukcov__sancov_nregions();
	size_t n = 0;

	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < nr; i++) {
		const struct ukcov_region *r = ukcov__sancov_region(i);

		if (r->kind == UKCOV_REGION_PCS && region_loaded(r))
			n += r->count;
	}
	if (n == 0)
		return;
	t->bytes = 3 * n * sizeof(uint64_t);
	t->pc = map_anon(t->bytes);
	if (!t->pc)
		return;
	t->by_pc = t->pc + n;
	for (uint32_t i = 0; i < nr; i++) {
		const struct ukcov_region *r = ukcov__sancov_region(i);
		const uintptr_t *e = r->start;

		if (r->kind != UKCOV_REGION_PCS || !region_loaded(r))
			continue;
		for (size_t k = 0; k < r->count && t->n < n; k++) {
			t->pc[t->n] = e[2 * k];		/* {PC, flags} */
			t->by_pc[2 * t->n] = e[2 * k];
			t->by_pc[2 * t->n + 1] = t->n;
			t->n++;
		}
	}
	ukcov__sort_u64_pairs(t->by_pc, t->n);
}

/* The table line of the point that ran at pc, or -1 (no table has its
 * module). */
static int64_t tb_table_line(const struct tb_table *t, uint64_t pc)
{
	const struct ukcov_modsnap *m = ukcov__sancov_module_of(pc);
	size_t lo = 0, hi = t->n;
	uint64_t at;

	while (lo < hi) {		/* the first entry above pc */
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_pc[2 * mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !m)
		return -1;
	at = t->by_pc[2 * (lo - 1)];
	if (at < m->lo || at >= m->hi)
		return -1;		/* a table PC of another module */
	return (int64_t)t->by_pc[2 * (lo - 1) + 1];
}

struct tb_lines {
	const struct tb_table *t;
	uint32_t extra;		/* points after the table's, in tb_order */
};

static uint64_t tb_pc_at(size_t i, void *arg)
{
	const struct tb_lines *l = arg;

	if (i < l->t->n)
		return l->t->pc[i];
	return tb_points.keys[tb_order[i - l->t->n]];
}

/*
 * Lines of the points in the first n events: tb_line[slot] is 1 + the
 * line of that point.  Points of a table module take their table line;
 * the others follow the table's, in order of first appearance, their
 * slots in tb_order.  Counts the events not yet written.
 */
static void tb_number_points(uint64_t n, const struct tb_table *t,
			     struct tb_lines *l, uint64_t *unwritten)
{
	l->t = t;
	l->extra = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = __atomic_load_n(&tb_events[i], __ATOMIC_ACQUIRE);
		uint32_t s = (uint32_t)e;
		int64_t line;

		if (e == 0) {
			(*unwritten)++;
			continue;
		}
		if (s == 0 || tb_line[s - 1] != 0)
			continue;
		line = t->n ? tb_table_line(t, tb_points.keys[s - 1]) : -1;
		if (line >= 0) {
			tb_line[s - 1] = (uint32_t)line + 1;
			continue;
		}
		tb_order[l->extra++] = s - 1;
		tb_line[s - 1] = (uint32_t)(t->n + l->extra);
	}
}

/* The scratch back to zeros: every point with a line is in an event. */
static void tb_unnumber_points(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint32_t s = (uint32_t)__atomic_load_n(&tb_events[i],
						      __ATOMIC_ACQUIRE);

		if (s)
			tb_line[s - 1] = 0;
	}
}

/* trace-events and trace-threads: the events whose point has a line,
 * in order. */
static void tb_write_events(uint64_t n)
{
	size_t bytes = (n ? n : 1) * sizeof(uint32_t), k = 0;
	uint32_t *ev = ukcov__real_mmap(NULL, 2 * bytes, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t *th;
	struct line name;

	if (ev == MAP_FAILED)
		return;
	th = ev + bytes / sizeof(uint32_t);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = __atomic_load_n(&tb_events[i], __ATOMIC_ACQUIRE);
		uint32_t s = (uint32_t)e;

		if (s == 0 || tb_line[s - 1] == 0)
			continue;	/* unwritten, no point, or newer */
		ev[k] = tb_line[s - 1] - 1;
		th[k] = (uint32_t)(e >> 32);
		k++;
	}
	file_name(&name, "trace-events");
	(void)ukcov__sancov_write_named(name.buf, "", 0, ev, k * sizeof(*ev));
	file_name(&name, "trace-threads");
	(void)ukcov__sancov_write_named(name.buf, "", 0, th, k * sizeof(*th));
	munmap(ev, 2 * bytes);
}

static void tb_dump(void)
{
	uint64_t claimed = __atomic_load_n(&tb_claimed, __ATOMIC_RELAXED);
	uint64_t n = claimed < tb_max ? claimed : tb_max, unwritten = 0;
	uint64_t nopoint = __atomic_load_n(&tb_nopoint, __ATOMIC_RELAXED);
	struct tb_table t;
	struct tb_lines l;
	size_t len, bytes;
	struct line name;
	char *text;

	if (claimed == 0)
		return;		/* no event: no files, as before */
	tb_table_build(&t);
	tb_number_points(n, &t, &l, &unwritten);
	text = points_text(tb_pc_at, &l, t.n + l.extra, &len, &bytes);
	if (text) {
		file_name(&name, "trace-points");
		(void)ukcov__sancov_write_named(name.buf, "", 0, text, len);
		munmap(text, bytes);
		tb_write_events(n);
	}
	tb_unnumber_points(n);
	if (t.pc)
		munmap(t.pc, t.bytes);
	if (claimed > tb_max)
		report_count("ukcov: coverage_trace_bb: ", claimed - tb_max,
			     " events past coverage_trace_max_events were "
			     "not recorded\n");
	if (nopoint)
		report_count("ukcov: coverage_trace_bb: the points table was "
			     "full; ", nopoint, " events were not recorded\n");
	if (unwritten)
		report_count("ukcov: coverage_trace_bb: ", unwritten,
			     " events were still being written and are not "
			     "in the files\n");
}

/* Under sancov_dump.c's dump flag, after a module snapshot. */
void ukcov__sancov_trace_dump(void)
{
	if (cc_on())
		cc_dump();
	if (tb_on())
		tb_dump();
}

/* __sanitizer_cov_reset: forget the pairs and the trace. */
void ukcov__sancov_trace_reset(void)
{
	if (cc_on()) {
		pctab_clear(&cc_pairs);
		pctab_clear(&cc_pcs);
		__atomic_store_n(&cc_unique, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&cc_cut, 0, __ATOMIC_RELAXED);
	}
	if (tb_on()) {
		tb_clear_events();
	}
}

/* fork: the child's trace is what the child runs (its only thread, the
 * one that forked, becomes thread 1); the pairs carry over, like the
 * covered PCs of the .sancov files. */
void ukcov__sancov_trace_after_fork_child(void)
{
	if (!tb_on())
		return;
	tb_clear_events();
	__atomic_store_n(&tb_threads, 0, __ATOMIC_RELAXED);
	tb_thread = 0;
}

/* compiler-rt's old API (coverage_interface.h, removed in 2017). */
UKCOV_EXPORT __attribute__((weak)) uintptr_t
__sanitizer_get_total_unique_caller_callee_pairs(void)
{
	return __atomic_load_n(&cc_unique, __ATOMIC_RELAXED);
}
