/*
 * bench/rt/refcov.c -- a minimal kcov-like append runtime: what a
 * recording callback cannot do with less.  It is the reference the target
 * "PC tracing within 10% of a minimal append-to-buffer callback" is
 * measured against.
 *
 * Semantics are Linux kcov's (kernel/kcov.c): word 0 of the buffer counts
 * the records; a PC record is one word, a comparison record four words
 * {type, arg1, arg2, pc}; when the buffer is full the record is dropped
 * (nothing counts the drop).  Per-thread state is one TLS pointer and
 * size; linked statically it is local-exec TLS.  Unlike the kernel, the
 * switch callback returns before its per-case loop when comparisons are
 * not being traced, as ukcov's must (docs/PERFORMANCE.md: a 128-case
 * switch checked once costs an empty callback while tracing is off).
 *
 * The buffer comes from the launcher (kcovrun -k ref): a memfd inherited
 * through exec, named in the environment (refcov.h), mapped MAP_SHARED
 * like a kcov buffer, so the launcher can read and reset the count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "refcov.h"

#define TLS static __thread __attribute__((tls_model("initial-exec")))

TLS uint64_t *t_pc_area;		/* non-NULL: tracing PCs */
TLS uint64_t *t_cmp_area;	/* non-NULL: tracing comparisons */
TLS uint64_t t_words;		/* size of the area in words */

void refcov_attach(uint64_t *area, size_t words, int mode)
{
	t_words = words;
	t_pc_area = mode == REFCOV_PC ? area : NULL;
	t_cmp_area = mode == REFCOV_CMP ? area : NULL;
}

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void)
{
	uint64_t *area = t_pc_area;
	uint64_t pos;

	if (!area)
		return;
	pos = area[0] + 1;
	if (__builtin_expect(pos < t_words, 1)) {
		area[pos] = (uint64_t)__builtin_return_address(0);
		area[0] = pos;
	}
}

/* trace-pc-guard: the same append; guards numbered 1..N. */
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	uint64_t *area = t_pc_area;
	uint64_t pos;

	if (!area || !*guard)
		return;
	pos = area[0] + 1;
	if (__builtin_expect(pos < t_words, 1)) {
		area[pos] = (uint64_t)__builtin_return_address(0);
		area[0] = pos;
	}
}

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	static uint32_t n;

	if (start == stop || *start)
		return;
	for (uint32_t *p = start; p < stop; p++)
		*p = ++n;
}

/* Linux write_comp_data(): one 4-word record, if it fits. */
static inline __attribute__((always_inline)) void
put_cmp(uint64_t type, uint64_t arg1, uint64_t arg2, uint64_t pc)
{
	uint64_t *area = t_cmp_area;
	uint64_t count, start;

	if (!area)
		return;
	count = area[0];
	start = 1 + count * 4;
	if (__builtin_expect(start + 4 <= t_words, 1)) {
		area[start] = type;
		area[start + 1] = arg1;
		area[start + 2] = arg2;
		area[start + 3] = pc;
		area[0] = count + 1;
	}
}

#define RET_IP ((uint64_t)__builtin_return_address(0))
#define CMP_SIZE(n) ((uint64_t)(n) << 1)	/* KCOV_CMP_SIZE */
#define REF_CMP(name, type, typebits) \
	void name(type a, type b); \
	void name(type a, type b) { put_cmp(typebits, a, b, RET_IP); }

REF_CMP(__sanitizer_cov_trace_cmp1, uint8_t, CMP_SIZE(0))
REF_CMP(__sanitizer_cov_trace_cmp2, uint16_t, CMP_SIZE(1))
REF_CMP(__sanitizer_cov_trace_cmp4, uint32_t, CMP_SIZE(2))
REF_CMP(__sanitizer_cov_trace_cmp8, uint64_t, CMP_SIZE(3))
REF_CMP(__sanitizer_cov_trace_const_cmp1, uint8_t, CMP_SIZE(0) | 1)
REF_CMP(__sanitizer_cov_trace_const_cmp2, uint16_t, CMP_SIZE(1) | 1)
REF_CMP(__sanitizer_cov_trace_const_cmp4, uint32_t, CMP_SIZE(2) | 1)
REF_CMP(__sanitizer_cov_trace_const_cmp8, uint64_t, CMP_SIZE(3) | 1)

/* Floating-point comparisons: the kernel has none; record the bits. */
#define REF_CMPF(name, ftype, itype, typebits) \
	void name(ftype a, ftype b); \
	void name(ftype a, ftype b) \
	{ \
		itype x, y; \
		__builtin_memcpy(&x, &a, sizeof x); \
		__builtin_memcpy(&y, &b, sizeof y); \
		put_cmp(typebits, x, y, RET_IP); \
	}

REF_CMPF(__sanitizer_cov_trace_cmpf, float, uint32_t, CMP_SIZE(2))
REF_CMPF(__sanitizer_cov_trace_cmpd, double, uint64_t, CMP_SIZE(3))

/* cases[0] is the number of cases, cases[1] the width in bits. */
void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);
void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases)
{
	uint64_t type;

	if (!t_cmp_area)
		return;
	switch (cases[1]) {
	case 8: type = CMP_SIZE(0); break;
	case 16: type = CMP_SIZE(1); break;
	case 32: type = CMP_SIZE(2); break;
	case 64: type = CMP_SIZE(3); break;
	default: return;
	}
	for (uint64_t i = 0; i < cases[0]; i++)
		put_cmp(type | 1, cases[i + 2], val, RET_IP);
}

/* The main thread of a workload started by kcovrun -k ref records from
 * before main, like a kcov-enabled thread that has exec'ed. */
__attribute__((constructor)) static void refcov_from_env(void)
{
	const char *fd = getenv(REFCOV_ENV_FD);
	const char *words = getenv(REFCOV_ENV_WORDS);
	const char *mode = getenv(REFCOV_ENV_MODE);
	size_t n;
	void *area;

	if (!fd || !words || !mode)
		return;
	n = strtoull(words, NULL, 0);
	area = mmap(NULL, n * 8, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(fd), 0);
	if (area == MAP_FAILED)
		abort();
	refcov_attach(area, n, atoi(mode));
}
