/*
 * tests/core/targets/keep.h -- the bodies of target_keep_fp and
 * target_keep_gp (targets.h), inlined into them in targets.c, where
 * they are instrumented, and into the core tests, where they are not
 * and give the expected results.
 */
#ifndef CORE_TARGETS_KEEP_H
#define CORE_TARGETS_KEEP_H

#include <stdint.h>

static inline __attribute__((always_inline)) double
keep_fp(double a, double b, double c, double d, int n)
{
	for (int i = 0; i < n; i++) {
		if (i & 1)
			a += b;
		else
			c += d;
		if (i % 3 == 0)
			b += 1.0;
		else
			d += 2.0;
	}
	return a + b * 3 + c * 5 + d * 7;
}

static inline __attribute__((always_inline)) uint64_t
keep_gp(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (i & 1)
			a += b;
		else
			c ^= d;
		if (i % 3 == 0)
			b += e;
		else
			e += 3;
	}
	return a ^ b << 1 ^ c << 2 ^ d << 3 ^ e << 4;
}

#endif
