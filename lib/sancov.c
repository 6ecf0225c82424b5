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
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "textline.h"
#include <ukcov/sancov.h>

struct ukcov_sancov_hot __ukcov_sancov;

/* stack-depth: clang 14 declares it "external thread_local(initialexec)"
 * and stores the frame address when it is lower.  Starting at the top
 * of the address space makes the first instrumented call record. */
UKCOV_EXPORT __thread uintptr_t __sancov_lowest_stack
	__attribute__((tls_model("initial-exec"))) = UINTPTR_MAX;

/* One instrumented section of one module instance. */
struct region {
	int kind;			/* 0 guards, else UKCOV_REGION_* */
	const void *start, *stop;
	uint32_t first;			/* guards: number of the first one */
	uint32_t count;			/* elements */
	uint64_t bias;			/* module load bias at init */
	char path[PATH_MAX];		/* module path ("" if unknown) */
};

/* The registry grows by mmap'ed chunks, never moves, and is published
 * with a release store of nregions: a reader (the dump, possibly in a
 * signal handler) sees whole entries without a lock. */
#define CHUNK_REGIONS 64
#define MAX_CHUNKS 1024
static struct region *chunks[MAX_CHUNKS];	/* [L] */
static uint32_t nregions;			/* [L] written, [A] read */
static uint32_t nguards;			/* [L] guard numbers given out */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static struct region *region_at(uint32_t i)
{
	return &chunks[i / CHUNK_REGIONS][i % CHUNK_REGIONS];
}

/* A new registry entry, or NULL when out of memory (the section then
 * works for kcov tracing but is left out of coverage files). */
static struct region *region_new_locked(void)
{
	uint32_t c = nregions / CHUNK_REGIONS;

	if (c >= MAX_CHUNKS)
		return NULL;
	if (!chunks[c]) {
		void *p = mmap(NULL, CHUNK_REGIONS * sizeof(struct region),
			       PROT_READ | PROT_WRITE,
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
	struct region *r;
	int found;
};

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
		strncpy(f->r->path, object_path(info, exe, sizeof(exe)),
			sizeof(f->r->path) - 1);
		f->found = 1;
		return 1;
	}
	return 0;
}

static void region_locate(struct region *r)
{
	struct find_module f = { .addr = (uintptr_t)r->start, .r = r };

	r->path[0] = '\0';
	r->bias = 0;
	dl_iterate_phdr(module_of_addr, &f);
}

UKCOV_SANCOV_API void __ukcov_sancov_guard_init(uint32_t *start,
						uint32_t *stop)
{
	struct region *r;
	uint64_t n;

	/* compiler-rt's rule: nothing to number, or numbered already. */
	if (start == NULL || stop <= start || *start != 0)
		return;
	n = (uint64_t)(stop - start);
	pthread_mutex_lock(&init_lock);
	if (n > UINT32_MAX - nguards) {
		/* Guard numbers are 32 bits; leave the rest at 0 (off). */
		pthread_mutex_unlock(&init_lock);
		return;
	}
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
	nguards += (uint32_t)n;
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
	struct region *r;
	uint32_t i;

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
	if (!(__atomic_load_n(&__ukcov_sancov.on, __ATOMIC_RELAXED) &
	      UKCOV_SANCOV_KCOV))
		__atomic_fetch_or(&__ukcov_sancov.on, UKCOV_SANCOV_KCOV,
				  __ATOMIC_RELEASE);
}

/* Called from the runtime's constructor. */
void ukcov__sancov_init(void)
{
}
