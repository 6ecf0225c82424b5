/*
 * bench/ubench.c -- the micro-benchmark: nanoseconds per coverage callback.
 *
 *   ubench MODE [ITER [REPEAT]]
 *
 * Each loop iteration makes 64 calls from 64 distinct call sites in a
 * straight line, as instrumented code does; ubench itself is not
 * instrumented.  It is linked once per runtime (RT below): the empty
 * callbacks (rt/nop.c), the reference append runtime (rt/refcov.c), and
 * libukcov linked statically, through the -lukcov linker script, or as the
 * bare shared object (every call through the PLT).  Tracing is turned on
 * the way a kcov user turns it on (ukcov_open, KCOV_INIT_TRACE, mmap,
 * KCOV_ENABLE).
 *
 * MODE     calls                                      buffer
 * off      trace_pc, tracing off                      -
 * cache    trace_pc, tracing PCs                      32 Ki words (256 KiB)
 * dram     trace_pc, tracing PCs                      8 Mi words (64 MiB)
 * full     trace_pc, tracing PCs, buffer full (drop)  512 words
 * swoff    trace_switch (128 cases), tracing off      -
 * cmpoff   trace_cmp8, tracing off                    -
 * cmp      trace_cmp8, tracing comparisons            32 Ki words (256 KiB)
 * gdoff    trace_pc_guard, nothing enabled            -
 * guard    trace_pc_guard, tracing PCs                32 Ki words (256 KiB)
 * uniq     trace_pc, unique PC (libukcov only): every  32 Ki words, 4096-word
 *          call a point seen since the reset           bitmap
 * cuniq    trace_cmp8, unique CMP (libukcov only):     32 Ki words, 4096-word
 *          distinct records, so the table fills and    bitmap
 *          the timed calls are (mostly) drops
 *          (run with UKCOV_OPTIONS=coverage=1 for the process-wide mode)
 * calib    dependent adds, to estimate the clock
 *
 * In the cache, dram and cmp modes the loop resets word 0 when fewer than
 * 64 records are left, like a consumer draining the buffer, so every call
 * appends.  The whole buffer is written once before timing.  Prints
 * "ubench RT MODE: X ns/call (min of REPEAT runs of ITER*64 calls)".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(UB_UKCOV)
#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>
#define RT_NAME "ukcov"
#elif defined(UB_REF)
#include "rt/refcov.h"
#define RT_NAME "ref"
#else
#define RT_NAME "nop"
#endif

#define TRACE_PC  0	/* KCOV_TRACE_PC */
#define TRACE_CMP 1	/* KCOV_TRACE_CMP */

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b);
void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);

/* One guard per call site of body_guard, numbered by the runtime. */
static uint32_t guards[64];

struct mode {
	const char *name;
	void (*body)(long iter, uint64_t *area, uint64_t limit);
	size_t words;		/* buffer size */
	int trace;		/* -1: off, else TRACE_PC / TRACE_CMP */
	int reset;		/* reset word 0 when fewer than 64 records are left */
	unsigned long uniq;	/* bitmap words of a unique mode, or 0 */
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Word 0 is reset only between iterations, by this uninstrumented loop. */
#define DRAIN(area, limit) \
	do { if ((area) && (area)[0] >= (limit)) (area)[0] = 0; } while (0)
#define X8(c) c c c c c c c c
#define X64(c) X8(X8(c))

/* 64 call sites in a row make these long on purpose. */
/* NOLINTNEXTLINE(readability-function-size) */
static void body_pc(long iter, uint64_t *area, uint64_t limit)
{
	for (long i = 0; i < iter; i++) {
		X64(__sanitizer_cov_trace_pc();)
		DRAIN(area, limit);
		__asm__ volatile("" ::: "memory");
	}
}

/* NOLINTNEXTLINE(readability-function-size) */
static void body_cmp(long iter, uint64_t *area, uint64_t limit)
{
	for (long i = 0; i < iter; i++) {
		uint64_t v = (uint64_t)i;

		X64(__sanitizer_cov_trace_cmp8(v, 42); v++;)
		DRAIN(area, limit);
		__asm__ volatile("" ::: "memory");
	}
}

/* Each call site passes its own guard, as clang's code does; the
 * pointer increment is paid by every runtime alike. */
/* NOLINTNEXTLINE(readability-function-size) */
static void body_guard(long iter, uint64_t *area, uint64_t limit)
{
	for (long i = 0; i < iter; i++) {
		uint32_t *g = guards;

		X64(__sanitizer_cov_trace_pc_guard(g); g++;)
		DRAIN(area, limit);
		__asm__ volatile("" ::: "memory");
	}
}

static uint64_t switch_cases[2 + 128];

/* NOLINTNEXTLINE(readability-function-size) */
static void body_switch(long iter, uint64_t *area, uint64_t limit)
{
	for (long i = 0; i < iter; i++) {
		X64(__sanitizer_cov_trace_switch((uint64_t)i, switch_cases);)
		DRAIN(area, limit);
		__asm__ volatile("" ::: "memory");
	}
}

static void body_calib(long iter, uint64_t *area, uint64_t limit)
{
	uint64_t x = 0;

	(void)area;
	(void)limit;
	for (long i = 0; i < iter; i++) {
		X8(__asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"
				    "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0" : "+r"(x));)
	}
}

static const struct mode modes[] = {
	{ "off", body_pc, 0, -1, 0, 0 },
	{ "cache", body_pc, 32768, TRACE_PC, 1, 0 },
	{ "dram", body_pc, 8u << 20, TRACE_PC, 1, 0 },
	{ "full", body_pc, 512, TRACE_PC, 0, 0 },
	{ "swoff", body_switch, 0, -1, 0, 0 },
	{ "cmpoff", body_cmp, 0, -1, 0, 0 },
	{ "cmp", body_cmp, 32768, TRACE_CMP, 1, 0 },
	{ "gdoff", body_guard, 0, -1, 0, 0 },
	{ "guard", body_guard, 32768, TRACE_PC, 1, 0 },
	{ "calib", body_calib, 0, -1, 0, 0 },
	{ "uniq", body_pc, 32768, TRACE_PC, 0, 4096 },
	{ "cuniq", body_cmp, 32768, TRACE_CMP, 0, 4096 },
};

/* Turn tracing on for this thread; returns the buffer (NULL: none). */
static uint64_t *trace_on(const struct mode *m)
{
	uint64_t *area = NULL;

	if (m->trace < 0)
		return NULL;
#if !defined(UB_UKCOV)
	if (m->uniq) {
		fprintf(stderr, "ubench: %s: unique modes need libukcov\n", m->name);
		exit(3);
	}
#endif
#if defined(UB_UKCOV)
	int fd = ukcov_open(UKCOV_LINUX);

	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, (unsigned long)m->words)) {
		perror("ubench: ukcov_open/KCOV_INIT_TRACE");
		exit(1);
	}
	area = mmap(NULL, m->words * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED ||
	    (m->uniq ? ukcov_ioctl(fd, m->trace == TRACE_CMP ?
					   UKCOV_IOC_UNIQUE_ENABLE_CMP :
					   KCOV_UNIQUE_ENABLE, m->uniq)
		     : ukcov_ioctl(fd, KCOV_ENABLE, (unsigned long)m->trace))) {
		perror("ubench: mmap/KCOV_ENABLE");
		exit(1);
	}
#elif defined(UB_REF)
	area = mmap(NULL, m->words * 8, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (area == MAP_FAILED) {
		perror("ubench: mmap");
		exit(1);
	}
	refcov_attach(area, m->words, m->trace);
#endif
	return area;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "off";
	long iter = argc > 2 ? atol(argv[2]) : 2000000;
	int repeat = argc > 3 ? atoi(argv[3]) : 3;
	const struct mode *m = NULL;
	uint64_t *area, limit = 0;
	double best = 1e30;

	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (!strcmp(modes[i].name, name))
			m = &modes[i];
	if (!m || iter <= 0 || repeat <= 0) {
		fprintf(stderr, "usage: ubench off|cache|dram|full|swoff|cmpoff|cmp|"
				"gdoff|guard|calib|uniq|cuniq "
				"[ITER [REPEAT]]\n");
		return 2;
	}
	__sanitizer_cov_trace_pc_guard_init(guards, guards + 64);
	switch_cases[0] = 128;
	switch_cases[1] = 64;
	for (int i = 0; i < 128; i++)
		switch_cases[2 + i] = (uint64_t)i * 3;
	area = trace_on(m);
	if (area) {
		uint64_t cap = m->trace == TRACE_CMP ? (m->words - 1) / 4 : m->words - 1;

		if (m->uniq)	/* the trace after the bitmap, as the runtime has it */
			area += m->uniq;

		limit = m->reset ? cap - 64 : UINT64_MAX;
		/* Fault the buffer in (and, for "full", fill it) before timing. */
		m->body((long)(cap / 64) + 2, area, limit);
	}
	for (int r = 0; r < repeat; r++) {
		double t0 = now();

		m->body(iter, area, limit);
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	if (m->body == body_calib)
		printf("ubench %s calib: %.3f ns per dependent add (~%.2f GHz)\n", RT_NAME,
		       best / ((double)iter * 64) * 1e9, (double)iter * 64 / best / 1e9);
	else
		printf("ubench %s %s: %.3f ns/call (min of %d runs of %ld calls)\n", RT_NAME,
		       m->name, best / ((double)iter * 64) * 1e9, repeat, iter * 64);
	return 0;
}
