/*
 * lib/sancov.c -- the SanitizerCoverage runtime behind the callbacks:
 * guard numbering across modules, the registry of instrumented regions
 * (guards, 8-bit counters, bool flags, PC tables) and the process-wide
 * state the guard callback reads (struct ukcov_sancov_hot).
 *
 * Guards.  Each instrumented module's constructor (clang, priority 2)
 * calls __sanitizer_cov_trace_pc_guard_init(start, stop) with its
 * __sancov_guards section.  As in compiler-rt
 * (sanitizer_coverage_libcdep_new.cpp, InitTracePcGuard) the guards get
 * the numbers following the ones already given out, so that they are
 * 1..N across the executable, its libraries and whatever dlopen brings
 * later; a call with an empty range or whose first guard is already
 * non-zero does nothing (the same section passed twice, or overlapping
 * a numbered one).  A library dlclose'd and dlopen'ed again comes back
 * with zeroed guards and gets new numbers; its old range stays in the
 * registry, with the module name and load bias it had, so what it
 * covered is still written out.
 *
 * The constructors may run before the runtime's own (priority 101):
 * every entry point runs sancov_setup() first.  Init calls come from
 * the dynamic loader under its lock, one at a time, but a program may
 * call them itself: they take init_lock.
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "ukcov/inline.h"
#include "sancov.h"
#include "textline.h"
#include <ukcov/sancov.h>

struct ukcov_sancov_hot __ukcov_sancov;

/* stack-depth: clang 14 declares it "external thread_local(initialexec)"
 * and stores the frame address when it is lower.  Starting at the top
 * of the address space makes the first instrumented call record. */
UKCOV_EXPORT __thread uintptr_t __sancov_lowest_stack
	__attribute__((tls_model("initial-exec"))) = UINTPTR_MAX;

/* The registry grows by mmap'ed chunks, never moves, and is published
 * with a release store of nregions: a reader (the dump, possibly in a
 * signal handler) sees whole entries without a lock. */
#define CHUNK_REGIONS 64
#define MAX_CHUNKS 1024
static struct ukcov_region *chunks[MAX_CHUNKS];	/* [L] */
static uint32_t nregions;			/* [L] written, [A] read */
static uint32_t nguards;			/* [L] guard numbers given out */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ukcov_region *region_at(uint32_t i)
{
	return &chunks[i / CHUNK_REGIONS][i % CHUNK_REGIONS];
}

/* A new registry entry, or NULL when out of memory (the section then
 * works for kcov tracing but is left out of coverage files). */
static struct ukcov_region *region_new_locked(void)
{
	uint32_t c = nregions / CHUNK_REGIONS;

	if (c >= MAX_CHUNKS)
		return NULL;
	if (!chunks[c]) {
		size_t bytes = CHUNK_REGIONS * sizeof(struct ukcov_region);
		void *p = ukcov__real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		chunks[c] = p;
	}
	return region_at(nregions);
}

static void region_publish_locked(void)
{
	__atomic_store_n(&nregions, nregions + 1, __ATOMIC_RELEASE);
}

struct find_module {
	uintptr_t addr;
	struct ukcov_region *r;
	int found;
};

static void module_exec_hull(const struct dl_phdr_info *info, uint64_t *lo,
			     uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		uint64_t s, e;

		if (exec_segment(info, i, &s, &e)) {
			*lo = s < *lo ? s : *lo;
			*hi = e > *hi ? e : *hi;
		}
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

/* The loaded object one of whose PT_LOAD segments holds addr. */
static int module_of_addr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_module *f = arg;
	char exe[PATH_MAX];

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || f->addr < lo ||
		    f->addr - lo >= ph->p_memsz)
			continue;
		f->r->bias = info->dlpi_addr;
		module_exec_hull(info, &f->r->lo, &f->r->hi);
		strncpy(f->r->path, object_path(info, exe, sizeof(exe)),
			sizeof(f->r->path) - 1);
		f->found = 1;
		return 1;
	}
	return 0;
}

static void region_locate(struct ukcov_region *r)
{
	struct find_module f = { .addr = (uintptr_t)r->start, .r = r };

	r->path[0] = '\0';
	r->bias = 0;
	dl_iterate_phdr(module_of_addr, &f);
}

struct ukcov_sancov_opts ukcov__sancov_opts;
static int setup_done;				/* [A] */

uint32_t ukcov__sancov_nregions(void)
{
	return __atomic_load_n(&nregions, __ATOMIC_ACQUIRE);
}

const struct ukcov_region *ukcov__sancov_region(uint32_t i)
{
	return region_at(i);
}

uint32_t ukcov__sancov_nguards(void)
{
	return __atomic_load_n(&nguards, __ATOMIC_ACQUIRE);
}

/*
 * Tables indexed by guard number, so that the callback needs no bounds
 * check: the PC of each guard's first hit (8 bytes) and, with
 * coverage_counters=1, its hit count (1 byte).  The whole 32-bit range
 * is reserved as PROT_NONE (which no overcommit policy charges) and
 * made usable as numbers are given out, before any guard holds them.
 * A table never moves: callbacks in other threads keep using it while
 * a dlopen adds guards.  With coverage_direct=1 the PC table is the
 * file <pid>.sancov.raw itself, mapped MAP_SHARED: what the callbacks
 * store is in the page cache at once, and survives SIGKILL.
 */
struct growtab {
	void *base;
	uint64_t usable;		/* [L] bytes mapped read-write */
	size_t elem;
	int fd;				/* -1: anonymous */
};
static struct growtab pc_tab = { .fd = -1 }, cnt_tab = { .fd = -1 };

static int growtab_reserve(struct growtab *t, size_t elem, int fd)
{
	uint64_t bytes = ((uint64_t)UINT32_MAX + 1) * elem;
	void *p = ukcov__real_mmap(NULL, bytes, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				   -1, 0);

	if (p == MAP_FAILED)
		return -1;
	t->base = p;
	t->elem = elem;
	t->fd = fd;
	t->usable = 0;
	return 0;
}

/* Make entries 0..last usable; -1 on failure. */
static int growtab_grow(struct growtab *t, uint64_t last)
{
	uint64_t need = (last + 1) * t->elem;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!t->base || need <= t->usable)
		return t->base ? 0 : -1;
	need = (need + page - 1) & ~(page - 1);
	if (t->fd < 0)
		return mprotect(t->base, need, PROT_READ | PROT_WRITE) ? -1 :
		       (t->usable = need, 0);
	/* The file grows first; the new mapping of it covers the old one
	 * at the same address (the same pages of the same file). */
	if (ftruncate(t->fd, (off_t)need) != 0 ||
	    ukcov__real_mmap(t->base, need, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_FIXED, t->fd, 0) == MAP_FAILED)
		return -1;
	t->usable = need;
	return 0;
}

/* On failure the mode stops (the numbers are still given out, for kcov
 * tracing). */
static void guard_tables_locked(uint64_t last)
{
	if (__ukcov_sancov.guard_pcs && growtab_grow(&pc_tab, last) != 0) {
		__atomic_fetch_and(&__ukcov_sancov.on, ~UKCOV_SANCOV_PCS,
				   __ATOMIC_RELEASE);
		ukcov__sancov_msg("ukcov: coverage: cannot grow the guard table",
				  "", 0, "; guard coverage off\n");
	}
	if (__ukcov_sancov.counters && growtab_grow(&cnt_tab, last) != 0) {
		__atomic_fetch_and(&__ukcov_sancov.on, ~UKCOV_SANCOV_CNT,
				   __ATOMIC_RELEASE);
		ukcov__sancov_msg("ukcov: coverage: cannot grow the counters",
				  "", 0, "; counters off\n");
	}
}

static void guard_tables_reserve(void)
{
	int fd = -1;

	if (ukcov__sancov_opts.direct) {
		fd = ukcov__sancov_create_direct("sancov.raw");
		if (fd < 0)
			return;		/* reported */
	}
	if (growtab_reserve(&pc_tab, sizeof(uint64_t), fd) == 0)
		__ukcov_sancov.guard_pcs = pc_tab.base;
	else
		ukcov__sancov_msg("ukcov: coverage: cannot reserve the guard "
				  "table", "", 0, "; guard coverage off\n");
	if (ukcov__sancov_opts.counters &&
	    growtab_reserve(&cnt_tab, 1, -1) == 0)
		__ukcov_sancov.counters = cnt_tab.base;
}

/*
 * trace-pc PCs (no guards): a set of the distinct PCs, open addressing
 * with linear probing over a fixed table mmap'ed at setup, inserted
 * lock-free by compare-and-swap.  The callback checks the home slot
 * inline; everything else is here.  A PC that finds no free slot
 * within PCSET_PROBES is counted as lost (reported at the dump).
 */
#define PCSET_BITS 21			/* 2 Mi slots, 16 MiB, reserved */
#define PCSET_PROBES 64
static uint64_t pcset_lost;			/* [A] */
static uint32_t pcset_used;			/* [A] set by the first insert */

/* The slots a reader must scan: none while no PC was ever inserted.  A
 * guard build with coverage=1 never calls trace_pc, and reading its 16
 * MiB of untouched table at each dump cost 4096 page faults (3 ms per
 * process, 1.5% of a quick sqlite run; docs/PERFORMANCE.md). */
uint64_t ukcov__sancov_pcset_slots(void)
{
	if (!__ukcov_sancov.pcset ||
	    !__atomic_load_n(&pcset_used, __ATOMIC_ACQUIRE))
		return 0;
	return (uint64_t)1 << PCSET_BITS;
}

uint64_t ukcov__sancov_pcset_lost(void)
{
	return __atomic_load_n(&pcset_lost, __ATOMIC_RELAXED);
}

static void pcset_reserve(void)
{
	void *p = ukcov__real_mmap(NULL,
				   ((size_t)1 << PCSET_BITS) * sizeof(uint64_t),
				   PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				   -1, 0);

	if (p == MAP_FAILED) {
		ukcov__sancov_msg("ukcov: coverage: cannot map the PC table",
				  "", 0, "; trace-pc coverage off\n");
		return;
	}
	__ukcov_sancov.pcset = p;
	__ukcov_sancov.pcset_shift = 64 - PCSET_BITS;
}

UKCOV_SANCOV_API void __ukcov_sancov_pcset_insert(uint64_t pc)
{
	uint64_t *set = __ukcov_sancov.pcset;
	uint64_t mask = ((uint64_t)1 << PCSET_BITS) - 1;
	uint64_t h = (pc * UKCOV_PCSET_HASH) >> __ukcov_sancov.pcset_shift;

	/* Before the table holds anything: a dump that reads 0 here saw
	 * the set as it was before this call. */
	if (!__atomic_load_n(&pcset_used, __ATOMIC_RELAXED)) {
		__atomic_store_n(&pcset_used, 1, __ATOMIC_RELEASE);
		ukcov__pclog_first_pc();
	}
	for (unsigned i = 0; i < PCSET_PROBES; i++) {
		uint64_t *slot = &set[(h + i) & mask];
		uint64_t v = __atomic_load_n(slot, __ATOMIC_RELAXED);

		if (v == 0 && __atomic_compare_exchange_n(slot, &v, pc, 0,
							  __ATOMIC_RELAXED,
							  __ATOMIC_RELAXED)) {
			/* New: coverage_direct=1 logs it now. */
			if (ukcov__pclog_append(pc) != 0)
				__atomic_fetch_add(&pcset_lost, 1,
						   __ATOMIC_RELAXED);
			return;
		}
		if (v == pc)
			return;
	}
	__atomic_fetch_add(&pcset_lost, 1, __ATOMIC_RELAXED);
}

static void dump_at_exit(void)
{
	ukcov__sancov_dump(0);
}

/* A fatal signal (signals.c): write the files with what is known now,
 * before the program's handler or the default action runs. */
static void fatal_dump(int sig)
{
	(void)sig;
	ukcov__sancov_dump(1);
}

/*
 * Once per process, from whichever comes first: a module constructor's
 * init call or the runtime's constructor.  Reads UKCOV_OPTIONS; with
 * coverage=1, maps the tables, then enables the callbacks' recording,
 * and arranges the dumps at exit and on fatal signals.
 */
static void sancov_setup(void)
{
	uint32_t bits = 0, trace;

	if (__atomic_load_n(&setup_done, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&init_lock);
	if (setup_done) {
		pthread_mutex_unlock(&init_lock);
		return;
	}
	ukcov__sancov_opts_parse(&ukcov__sancov_opts, ukcov__env("UKCOV_OPTIONS"));
	if (ukcov__sancov_opts.coverage || ukcov__sancov_opts.direct) {
		guard_tables_reserve();
		guard_tables_locked(nguards);
		if (__ukcov_sancov.guard_pcs)
			bits |= UKCOV_SANCOV_PCS;
		if (__ukcov_sancov.counters)
			bits |= UKCOV_SANCOV_CNT;
		if (pc_tab.fd >= 0) {
			bits |= UKCOV_SANCOV_DIRECT;
			/* A map from the start, so that a program without
			 * guards (trace-pc) leaves a pair rawunpack reads
			 * (and finds nothing in), not a lone raw file. */
			ukcov__sancov_write_direct_map();
		}
		/* trace-pc PCs: coverage=1 dumps the set, coverage_direct=1
		 * logs each new one (sancov_pclog.c). */
		pcset_reserve();
		if (__ukcov_sancov.pcset)
			bits |= UKCOV_SANCOV_PCSET;
	}
	trace = ukcov__sancov_trace_setup();
	__atomic_store_n(&setup_done, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&init_lock);
	if (ukcov__sancov_opts.direct && (bits & UKCOV_SANCOV_PCSET) &&
	    !ukcov__pclog_setup() && !ukcov__sancov_opts.coverage)
		bits &= ~UKCOV_SANCOV_PCSET;	/* nothing to keep PCs for */
	if ((ukcov__sancov_opts.coverage && bits) ||
	    ukcov__sancov_trace_wanted() || trace) {
		atexit(dump_at_exit);
		ukcov__signals_hook_fatal(fatal_dump);
	}
	if (trace) {	/* both words: trace_pc and the guards record */
		__atomic_fetch_or(&__ukcov_sancov.pc_on, trace,
				  __ATOMIC_RELEASE);
		__atomic_fetch_or(&__ukcov_sancov.on, trace, __ATOMIC_RELEASE);
	}
	if (trace || (bits & ~UKCOV_SANCOV_PCSET))
		ukcov__imap_every_point();	/* every guard records */
	if (bits & UKCOV_SANCOV_PCSET)
		__atomic_fetch_or(&__ukcov_sancov.pc_on, UKCOV_SANCOV_PCSET,
				  __ATOMIC_RELEASE);
	if (bits & ~UKCOV_SANCOV_PCSET)
		__atomic_fetch_or(&__ukcov_sancov.on, bits & ~UKCOV_SANCOV_PCSET,
				  __ATOMIC_RELEASE);
}

UKCOV_SANCOV_API void __ukcov_sancov_guard_init(uint32_t *start,
						uint32_t *stop)
{
	struct ukcov_region *r;
	uint64_t n;

	sancov_setup();
	/* compiler-rt's rule: nothing to number, or numbered already. */
	if (start == NULL || stop <= start || *start != 0)
		return;
	n = (uint64_t)(stop - start);
	pthread_mutex_lock(&init_lock);
	if (n > UINT32_MAX - 1 - nguards) {
		/* Guard numbers are 32 bits; leave the rest at 0 (off). */
		pthread_mutex_unlock(&init_lock);
		return;
	}
	guard_tables_locked(nguards + n);
	for (uint64_t i = 0; i < n; i++)
		start[i] = nguards + 1 + (uint32_t)i;
	r = region_new_locked();
	if (r) {
		r->kind = 0;
		r->start = start;
		r->stop = stop;
		r->first = nguards + 1;
		r->count = (uint32_t)n;
		region_locate(r);
		region_publish_locked();
	}
	__atomic_store_n(&nguards, nguards + (uint32_t)n, __ATOMIC_RELEASE);
	ukcov__uniq_note_guards();
	if (__ukcov_sancov.pcset || ukcov__sancov_trace_wanted())
		ukcov__sancov_modules_refresh();	/* a dlopen */
	if (pc_tab.fd >= 0)
		ukcov__sancov_write_direct_map();	/* the raw file's map */
	pthread_mutex_unlock(&init_lock);
}

/*
 * An inline-instrumented TU's points (include/ukcov/inline.h, ABI 2):
 * numbered as guards, from a multiple of 8 so that the TU's bits start
 * a byte of every map, below the unregistered window.  *tu becomes the
 * byte offset of its first bit, released last: a point that sees it
 * finds its number's tables grown and the process map's bit set.  The
 * region is a guard region, so the .sancov dump finds the module by
 * the TU's variable.  A TU that cannot be numbered keeps
 * UKCOV_INLINE_UNREG: its points call, as trace-pc's.
 */
UKCOV_EXPORT void __ukcov_inline_init_v2(uint64_t *tu, uint32_t n)
{
	struct ukcov_region *r;
	uint64_t first;

	sancov_setup();
	if (tu == NULL || n == 0 || n > UKCOV_INLINE_TU_MAX ||
	    __atomic_load_n(tu, __ATOMIC_RELAXED) != UKCOV_INLINE_UNREG)
		return;
	pthread_mutex_lock(&init_lock);
	first = ((uint64_t)nguards + 1 + 7) & ~(uint64_t)7;
	if (first + n > (uint64_t)UKCOV_INLINE_UNREG * 8) {
		pthread_mutex_unlock(&init_lock);
		return;
	}
	guard_tables_locked(first + n - 1);
	r = region_new_locked();
	if (r) {
		r->kind = 0;
		r->start = tu;
		r->stop = tu + 1;
		r->first = (uint32_t)first;
		r->count = n;
		region_locate(r);
		region_publish_locked();
	}
	__atomic_store_n(&nguards, (uint32_t)(first + n - 1), __ATOMIC_RELEASE);
	ukcov__uniq_note_guards();
	if (__ukcov_sancov.pcset || ukcov__sancov_trace_wanted())
		ukcov__sancov_modules_refresh();
	if (pc_tab.fd >= 0)
		ukcov__sancov_write_direct_map();
	if (!(__atomic_load_n(&__ukcov_sancov.on, __ATOMIC_RELAXED) &
	      ~UKCOV_SANCOV_KCOV))
		ukcov__imap_process_set((uint32_t)first, n);
	__atomic_store_n(tu, first / 8, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&init_lock);
}

static size_t element_size(int kind)
{
	return kind == UKCOV_REGION_PCS ? 2 * sizeof(uintptr_t) : 1;
}

/* inline-8bit-counters, inline-bool-flag, pc-table: the sections are
 * registered as given (the compiler updates counters and flags inline;
 * there is nothing to number).  An empty or reversed range is ignored,
 * as is the same section passed again. */
UKCOV_SANCOV_API void __ukcov_sancov_region_init(int kind, const void *start,
						 const void *stop)
{
	struct ukcov_region *r;
	uint32_t i;

	sancov_setup();
	if (start == NULL || (const char *)stop <= (const char *)start)
		return;
	pthread_mutex_lock(&init_lock);
	for (i = 0; i < nregions; i++) {
		r = region_at(i);
		if (r->kind == kind && r->start == start && r->stop == stop)
			break;
	}
	if (i == nregions && (r = region_new_locked()) != NULL) {
		r->kind = kind;
		r->start = start;
		r->stop = stop;
		r->first = 0;
		r->count = (uint32_t)(((const char *)stop - (const char *)start) /
				      element_size(kind));
		region_locate(r);
		region_publish_locked();
	}
	pthread_mutex_unlock(&init_lock);
}

/* A thread of this process is about to record PCs into a kcov area:
 * from now on the guard callbacks look at the TLS area too.  Sticky,
 * so that the guard callback's off path stays one load. */
void ukcov__sancov_note_tracer(void)
{
	if (!(__atomic_load_n(&__ukcov_sancov.pc_on, __ATOMIC_RELAXED) &
	      UKCOV_SANCOV_KCOV)) {
		__atomic_fetch_or(&__ukcov_sancov.on, UKCOV_SANCOV_KCOV,
				  __ATOMIC_RELEASE);
		__atomic_fetch_or(&__ukcov_sancov.pc_on, UKCOV_SANCOV_KCOV,
				  __ATOMIC_RELEASE);
	}
}

/* Called from the runtime's constructor. */
void ukcov__sancov_init(void)
{
	sancov_setup();
	/* The modules a dump in a signal handler can name trace-pc PCs
	 * in: the program and its libraries (refreshed at each guard
	 * init and at each ordinary dump). */
	if ((__atomic_load_n(&__ukcov_sancov.pc_on, __ATOMIC_RELAXED) &
	     UKCOV_SANCOV_PCSET) || ukcov__sancov_trace_wanted())
		ukcov__sancov_modules_refresh();
}

/* coverage_direct=1: the child gets its own <pid>.sancov.raw, starting
 * with what the parent had covered, mapped where the parent's was (its
 * MAP_SHARED mapping would write into the parent's file). */
static void direct_after_fork_child(void)
{
	if (pc_tab.fd < 0)
		return;
	ukcov__real_close(pc_tab.fd);
	pc_tab.fd = ukcov__sancov_child_direct("sancov.raw", pc_tab.base,
					       pc_tab.usable, pc_tab.usable);
	if (pc_tab.fd >= 0)
		ukcov__sancov_write_direct_map();
	else	/* recording goes on privately */
		__atomic_fetch_and(&__ukcov_sancov.on, ~UKCOV_SANCOV_PCS,
				   __ATOMIC_RELEASE);
}

void ukcov__sancov_after_fork_child(void)
{
	ukcov__sancov_dump_after_fork_child();
	direct_after_fork_child();
	ukcov__pclog_after_fork_child();
	ukcov__sancov_trace_after_fork_child();
}

/* ---- compiler-rt's coverage API (sanitizer/coverage_interface.h).
 * Weak: a static link that also brings clang's ubsan runtime keeps
 * that runtime's strong definitions instead of failing. ---- */
#define SANCOV_API UKCOV_EXPORT __attribute__((weak))

SANCOV_API void __sanitizer_cov_dump(void)
{
	ukcov__sancov_dump(0);
}

SANCOV_API void __sanitizer_dump_trace_pc_guard_coverage(void)
{
	ukcov__sancov_dump(0);
}

SANCOV_API void __sanitizer_dump_coverage(const uintptr_t *pcs, uintptr_t len)
{
	ukcov__sancov_dump_pcs(pcs, len);
}

/* The number of points covered: guards hit, distinct trace-pc PCs
 * (compiler-rt's old API, removed in 2017). */
SANCOV_API uintptr_t __sanitizer_get_total_unique_coverage(void)
{
	const uint64_t *g = __ukcov_sancov.guard_pcs, *set = __ukcov_sancov.pcset;
	uint64_t n = ukcov__sancov_nguards(), m = ukcov__sancov_pcset_slots();
	uintptr_t total = 0;

	for (uint64_t i = 1; g && i <= n; i++)
		total += __atomic_load_n(&g[i], __ATOMIC_RELAXED) != 0;
	for (uint64_t i = 0; set && i < m; i++)
		total += __atomic_load_n(&set[i], __ATOMIC_RELAXED) != 0;
	return total;
}

/* coverage_counters=1: one counter per guard, counter i for guard i+1. */
SANCOV_API uintptr_t __sanitizer_get_number_of_counters(void)
{
	return __ukcov_sancov.counters ? ukcov__sancov_nguards() : 0;
}

/* Or each counter's bucket bit into bitset[i] (one byte per counter;
 * NULL: only clear), clear the counters, return how many bits were new
 * (compiler-rt's old UpdateCounterBitsetAndClearCounters). */
SANCOV_API uintptr_t
__sanitizer_update_counter_bitset_and_clear_counters(uint8_t *bitset)
{
	uint8_t *c = __ukcov_sancov.counters;
	uint64_t n = ukcov__sancov_nguards();
	uintptr_t fresh = 0;

	for (uint64_t i = 0; c && i < n; i++) {
		uint8_t b = ukcov__counter_bucket(c[i + 1]);

		if (bitset) {
			fresh += (uintptr_t)__builtin_popcount(b & ~bitset[i]);
			bitset[i] |= b;
		}
		c[i + 1] = 0;
	}
	return fresh;
}

/* Forget what was covered so far (compiler-rt zeroes its PC vector);
 * the next dump writes only what runs after this. */
SANCOV_API void __sanitizer_cov_reset(void)
{
	uint64_t *g = __ukcov_sancov.guard_pcs;
	uint64_t *set = __ukcov_sancov.pcset;

	if (g)
		memset(g, 0, ((size_t)ukcov__sancov_nguards() + 1) * sizeof(*g));
	/* Private anonymous pages read back as zeros. */
	if (set)
		madvise(set, (size_t)ukcov__sancov_pcset_slots() * sizeof(*set),
			MADV_DONTNEED);
	__atomic_store_n(&pcset_lost, 0, __ATOMIC_RELAXED);
	ukcov__sancov_trace_reset();
}
