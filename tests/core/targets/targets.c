/*
 * tests/core/targets/targets.c -- the only instrumented code of the core
 * suite (see targets.h).  Keep each function's shape: the tests count
 * on exactly one basic block (leaf, cmp) or one switch per function.
 */
#include "keep.h"
#include "targets.h"

#define TARGET __attribute__((section("ukcov_targets"), noinline, used))

#ifdef __clang__
const char target_cc[] = "clang";
#else
const char target_cc[] = "gcc";
#endif
const int target_has_cmp = TARGET_HAS_CMP;
#ifndef TARGET_INLINE
#define TARGET_INLINE 0
#endif
const int target_inline = TARGET_INLINE;

volatile int target_sink;

TARGET void target_leaf(void)
{
	target_sink = 1;
}

TARGET void target_leaf2(void)
{
	target_sink = 2;
}

TARGET void target_leaf3(void)
{
	target_sink = 3;
}

TARGET int target_cmp1(uint8_t a, uint8_t b)
{
	return a == b;
}

TARGET int target_cmp2(uint16_t a, uint16_t b)
{
	return a == b;
}

TARGET int target_cmp4(uint32_t a, uint32_t b)
{
	return a == b;
}

TARGET int target_cmp8(uint64_t a, uint64_t b)
{
	return a == b;
}

TARGET int target_scmp1(int8_t a, int8_t b)
{
	return a < b;
}

TARGET int target_ccmp1(uint8_t v)
{
	return v == TARGET_C1;
}

TARGET int target_ccmp2(uint16_t v)
{
	return v == TARGET_C2;
}

TARGET int target_ccmp4(uint32_t v)
{
	return v == TARGET_C4;
}

TARGET int target_ccmp8(uint64_t v)
{
	return v == TARGET_C8;
}

TARGET int target_ccmp4_left(uint32_t v)
{
	return TARGET_C4 < v;
}

TARGET int target_cmpf(float a, float b)
{
	return a < b;
}

TARGET int target_cmpd(double a, double b)
{
	return a < b;
}

/* Distinct callees keep the switches from becoming lookup tables. */
static TARGET void target_case_a(void) { target_sink = 10; }
static TARGET void target_case_b(void) { target_sink = 11; }
static TARGET void target_case_c(void) { target_sink = 12; }
static TARGET void target_case_d(void) { target_sink = 13; }
static TARGET void target_case_e(void) { target_sink = 14; }

TARGET void target_switch8(uint8_t v)
{
	switch (v) {
	case 0xff: target_case_a(); break;
	case 0x01: target_case_b(); break;
	case 0x80: target_case_c(); break;
	}
}

TARGET void target_switch16(uint16_t v)
{
	switch (v) {
	case 0xfffe: target_case_a(); break;
	case 0x0001: target_case_b(); break;
	case 0x7fff: target_case_c(); break;
	}
}

TARGET void target_switch32(int32_t v)
{
	switch (v) {
	case -1: target_case_a(); break;
	case 1: target_case_b(); break;
	case 7: target_case_c(); break;
	case 100: target_case_d(); break;
	case 1000: target_case_e(); break;
	}
}

TARGET void target_switch64(uint64_t v)
{
	switch (v) {
	case 0x8000000000000000ULL: target_case_a(); break;
	case 1: target_case_b(); break;
	case 0xffffffffffULL: target_case_c(); break;
	}
}

TARGET double target_keep_fp(double a, double b, double c, double d, int n)
{
	return keep_fp(a, b, c, d, n);
}

TARGET uint64_t target_keep_gp(uint64_t a, uint64_t b, uint64_t c, uint64_t d,
			       uint64_t e, uint64_t n)
{
	return keep_gp(a, b, c, d, e, n);
}
