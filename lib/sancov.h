/*
 * lib/sancov.h -- internal interfaces of the SanitizerCoverage runtime
 * (lib/sancov*.c).  Nothing here is API.
 */
#ifndef UKCOV_LIB_SANCOV_H
#define UKCOV_LIB_SANCOV_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* UKCOV_OPTIONS (sancov_opts.c). */
struct ukcov_sancov_opts {
	int coverage;		/* coverage=1: <module>.<pid>.sancov */
	int bitset;		/* coverage_bitset=1 */
	int counters;		/* coverage_counters=1 */
	int direct;		/* coverage_direct=1 */
	int caller_callee;	/* coverage_caller_callee=1 */
	int trace_bb;		/* coverage_trace_bb=1 */
	unsigned long trace_max_events;	/* coverage_trace_max_events= */
	int verbosity;		/* 1: one line per file written */
	char dir[PATH_MAX];	/* coverage_dir=, default "." */
};

void ukcov__sancov_opts_parse(struct ukcov_sancov_opts *o, const char *s);

/* Three pieces written to stderr with one write(2); async-signal-safe. */
void ukcov__sancov_msg(const char *a, const char *b, size_t bn,
		       const char *c);

/* One instrumented section of one module instance (sancov.c). */
struct ukcov_region {
	int kind;			/* 0 guards, else UKCOV_REGION_* */
	const void *start, *stop;
	uint32_t first;			/* guards: number of the first one */
	uint32_t count;			/* elements */
	uint64_t bias;			/* module load bias at init */
	uint64_t lo, hi;		/* its executable segments' hull */
	char path[PATH_MAX];		/* module path ("" if unknown) */
};

uint32_t ukcov__sancov_nregions(void);	/* acquire: whole entries */
const struct ukcov_region *ukcov__sancov_region(uint32_t i);
extern struct ukcov_sancov_opts ukcov__sancov_opts;

/* The loaded modules, snapshot (sancov_dump.c). */
struct ukcov_modsnap {
	uint64_t lo, hi;		/* hull of the executable segments */
	uint64_t bias;
	char path[PATH_MAX];
};
void ukcov__sancov_modules_refresh(void);

/* The dumps (sancov_dump.c).  in_signal: use only what the last
 * snapshot knows, take no lock that a crashed thread may hold. */
void ukcov__sancov_dump(int in_signal);
void ukcov__sancov_dump_pcs(const uintptr_t *pcs, uintptr_t len);
void ukcov__sancov_dump_after_fork_child(void);

/* coverage_direct=1 (sancov_dump.c): create <dir>/<pid>.<suffix>
 * (exclusively, never through a symlink; reported on failure), and
 * (re)write <pid>.sancov.map for the guard regions known now. */
int ukcov__sancov_create_direct(const char *suffix);
void ukcov__sancov_write_direct_map(void);
int ukcov__sancov_child_direct(const char *suffix, void *base, size_t copy,
			       size_t len);

uint32_t ukcov__sancov_nguards(void);

/* For sancov_trace.c (sancov_dump.c): write dir/name safely (as every
 * coverage file), 0 or -1 (reported); the module of pc in the last
 * snapshot, or NULL; sort n (key, value) pairs of u64. */
/* coverage_direct=1 in trace-pc builds (sancov_pclog.c). */
int ukcov__pclog_setup(void);
int ukcov__pclog_append(uint64_t pc);
void ukcov__pclog_first_pc(void);
void ukcov__pclog_after_fork_child(void);

int ukcov__sancov_write_named(const char *name, const void *hdr, size_t hn,
			      const void *data, size_t dn);
void ukcov__sancov_unlink_own(const char *name);
const struct ukcov_modsnap *ukcov__sancov_module_of(uint64_t pc);
void ukcov__sort_u64_pairs(uint64_t *e, size_t n);

/* Caller-callee pairs and basic-block traces (sancov_trace.c). */
uint32_t ukcov__sancov_trace_setup(void);
int ukcov__sancov_trace_wanted(void);
void ukcov__sancov_trace_dump(void);
void ukcov__sancov_trace_reset(void);
void ukcov__sancov_trace_after_fork_child(void);

/* The trace-pc PC set (sancov.c). */
uint64_t ukcov__sancov_pcset_slots(void);
uint64_t ukcov__sancov_pcset_lost(void);

/* coverage_counters: a hit count as one bit per range 1, 2, 3, 4-7,
 * 8-15, 16-31, 32-127, 128+ (compiler-rt's old coverage_counters, the
 * AFL buckets); 0 for none. */
static inline uint8_t ukcov__counter_bucket(uint8_t c)
{
	if (c <= 3)
		return c == 3 ? 4 : c;
	if (c < 8)
		return 8;
	if (c < 16)
		return 16;
	if (c < 32)
		return 32;
	return c < 128 ? 64 : 128;
}

#endif
