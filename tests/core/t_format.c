/*
 * tests/core/t_format.c -- record formats (docs/KERNELS.md "Linux",
 * PC and CMP buffer): TRACE_PC words are return addresses of the
 * __sanitizer_cov_trace_pc calls inside the function that ran; TRACE_CMP
 * records are 4 x u64 {type, arg1, arg2, pc}.  Every record is checked
 * against the function it must come from, for gcc- and clang-built
 * targets alike.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ukcov/sancov.h>

#include "kc.h"
#include "tests.h"

/* The point a dump holds for a record's return address, as
 * docs/FORMATS.md states it ("PC conventions"): the call's last byte on
 * x86-64, the bl/blr itself on aarch64, the return address - 2 on riscv
 * (sancov's getPreviousInstructionPc). */
#if defined(__aarch64__)
#define POINT(ret) ((ret) - 4)
#define POINT_OF_0x11 "d"
#elif defined(__riscv)
#define POINT(ret) ((ret) - 2)
#define POINT_OF_0x11 "f"
#else
#define POINT(ret) ((ret) - 1)
#define POINT_OF_0x11 "10"
#endif

#define SZ(n) ((uint64_t)(n) << 1)	/* KCOV_CMP_SIZE */
#define CONST 1ULL			/* KCOV_CMP_CONST */
#define CB(name) ((const void *)__sanitizer_cov_trace_##name)
#define FN(name) ((const void *)target_##name)

/* Calls are recorded in order, each as the return address of its
 * callback call; repeated calls of one function give one PC value. */
static void t_pc_records(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 3);
	call_n(target_leaf2, 2);
	target_leaf3();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 6);
	expect_pcs_in(buf, 0, 3, (const void *)target_leaf);
	expect_pcs_in(buf, 3, 2, (const void *)target_leaf2);
	expect_pcs_in(buf, 5, 1, (const void *)target_leaf3);
	CHECK_EQ(buf[1], buf[2]);
	CHECK_EQ(buf[1], buf[3]);
	CHECK_EQ(buf[4], buf[5]);
	CHECK(buf[1] != buf[4] && buf[4] != buf[6]);
	/* Nothing after the last record. */
	CHECK_EQ(buf[7], 0);
}

/* PC mode records no comparison: a cmp target is one basic block, one
 * PC.  Whether the targets have trace-cmp or not. */
static void t_pc_mode_no_cmp(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	target_cmp4(1, 2);
	target_ccmp8(3);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 2);
	expect_pcs_in(buf, 0, 1, (const void *)target_cmp4);
	expect_pcs_in(buf, 1, 1, (const void *)target_ccmp8);
}

/* Run fn in CMP mode on a fresh buffer; returns the buffer. */
static uint64_t *cmp_run(const struct kc *k, void (*fn)(void))
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 1);
	fn();
	kc_disable_ok(k, fd);
	return buf;
}

static void cmp_all(void)
{
	call_n(target_leaf, 4);		/* no PC in CMP mode */
	target_cmp1(0xf1, 0x82);
	target_cmp2(0xf1f2, 0x8283);
	target_cmp4(0xf1f2f3f4, 0x11223344);
	target_cmp8(0xf1f2f3f4f5f6f7f8ULL, 0x1122334455667788ULL);
	target_scmp1(-1, -128);
	target_ccmp1(0xf0);
	target_ccmp2(0xf0f1);
	target_ccmp4(0xf0f1f2f3);
	target_ccmp8(0xf0f1f2f3f4f5f6f7ULL);
	target_ccmp4_left(7);
}

/* cmpN: {SIZE(log2 N), a, b}; const_cmpN: {SIZE | CONST, constant, v}
 * whichever side the constant is written on (clang
 * SanitizerCoverage.rst: "Arg1 is a compile-time constant"); operands
 * zero-extended. */
static void t_cmp_records(const struct kc *k)
{
	uint64_t *buf = cmp_run(k, cmp_all);

	CHECK_EQ(rec_count(buf), 10);
	expect_cmp(buf, 0, SZ(0), 0xf1, 0x82, FN(cmp1), CB(cmp1));
	expect_cmp(buf, 1, SZ(1), 0xf1f2, 0x8283, FN(cmp2), CB(cmp2));
	expect_cmp(buf, 2, SZ(2), 0xf1f2f3f4, 0x11223344, FN(cmp4), CB(cmp4));
	expect_cmp(buf, 3, SZ(3), 0xf1f2f3f4f5f6f7f8ULL, 0x1122334455667788ULL,
		   FN(cmp8), CB(cmp8));
	expect_cmp(buf, 4, SZ(0), 0xff, 0x80, FN(scmp1), CB(cmp1));
	expect_cmp(buf, 5, SZ(0) | CONST, TARGET_C1, 0xf0, FN(ccmp1),
		   CB(const_cmp1));
	expect_cmp(buf, 6, SZ(1) | CONST, TARGET_C2, 0xf0f1, FN(ccmp2),
		   CB(const_cmp2));
	expect_cmp(buf, 7, SZ(2) | CONST, TARGET_C4, 0xf0f1f2f3, FN(ccmp4),
		   CB(const_cmp4));
	expect_cmp(buf, 8, SZ(3) | CONST, TARGET_C8, 0xf0f1f2f3f4f5f6f7ULL,
		   FN(ccmp8), CB(const_cmp8));
	expect_cmp(buf, 9, SZ(2) | CONST, TARGET_C4, 7, FN(ccmp4_left),
		   CB(const_cmp4));
	CHECK_EQ(buf[1 + 4 * 10], 0);
}

/* trace_switch: one {SIZE(width) | CONST, case, val} record per case,
 * all with the pc of the one trace_switch call (§3, Linux; NetBSD and
 * OpenBSD the same), values truncated to the switch's width so that gcc
 * (sign-extends) and clang (zero-extends) agree.  The cases may come in
 * any order (gcc sorts them signed, clang unsigned). */
static void expect_switch(const uint64_t *buf, uint64_t first, unsigned log2w,
			  const uint64_t *cases, unsigned n, uint64_t val,
			  const void *fn)
{
	uint64_t mask = log2w == 3 ? ~0ULL : (1ULL << (8u << log2w)) - 1;
	unsigned i, j, seen = 0;

	for (i = 0; i < n; i++) {
		const uint64_t *r = &buf[1 + 4 * (first + i)];

		for (j = 0; j < n; j++)
			if (r[1] == (cases[j] & mask) && !(seen & (1u << j)))
				break;
		if (j == n)
			FAIL("switch record %u: case 0x%llx is not a case",
			     i, (unsigned long long)r[1]);
		seen |= 1u << j;
		expect_cmp(buf, first + i, SZ(log2w) | CONST, cases[j] & mask,
			   val & mask, fn,
			   (const void *)__sanitizer_cov_trace_switch);
		CHECK_EQ(r[3], buf[1 + 4 * first + 3]);
	}
}

static void switch_all(void)
{
	target_switch8(0xfe);
	target_switch16(0xfffd);
	target_switch32(-5);
	target_switch64(3);
}

static void t_cmp_switch(const struct kc *k)
{
	static const uint64_t c8[] = TARGET_SWITCH8_CASES;
	static const uint64_t c16[] = TARGET_SWITCH16_CASES;
	static const int32_t c32s[] = TARGET_SWITCH32_CASES;
	static const uint64_t c64[] = TARGET_SWITCH64_CASES;
	uint64_t c32[5], *buf = cmp_run(k, switch_all);
	unsigned i;

	for (i = 0; i < 5; i++)
		c32[i] = (uint64_t)(int64_t)c32s[i];
	CHECK_EQ(rec_count(buf), 3 + 3 + 5 + 3);
	expect_switch(buf, 0, 0, c8, 3, 0xfe, (const void *)target_switch8);
	expect_switch(buf, 3, 1, c16, 3, 0xfffd, (const void *)target_switch16);
	expect_switch(buf, 6, 2, c32, 5, (uint64_t)(int64_t)-5,
		      (const void *)target_switch32);
	expect_switch(buf, 11, 3, c64, 3, 3, (const void *)target_switch64);
}

static void float_all(void)
{
	target_cmpf(1.5f, -2.0f);
	target_cmpd(1.5, -2.0);
	target_cmp4(5, 6);
}

/* gcc's cmpf/cmpd: type SIZE(2)/SIZE(3) without CONST, the operands' bit
 * patterns.  clang emits no callback for floating compares: only the
 * control record of target_cmp4 appears. */
static void t_cmp_float(const struct kc *k)
{
	uint64_t *buf = cmp_run(k, float_all);
	uint64_t n = 0;

	if (strcmp(target_cc, "gcc") == 0) {
		CHECK_EQ(rec_count(buf), 3);
		expect_cmp(buf, 0, SZ(2), 0x3fc00000, 0xc0000000, FN(cmpf),
			   CB(cmpf));
		expect_cmp(buf, 1, SZ(3), 0x3ff8000000000000ULL,
			   0xc000000000000000ULL, FN(cmpd), CB(cmpd));
		n = 2;
	} else {
		CHECK_EQ(rec_count(buf), 1);
	}
	expect_cmp(buf, n, SZ(2), 5, 6, FN(cmp4), CB(cmp4));
}

/* Word 0 counts records of whatever mode is enabled: a CMP enable
 * after PC records (no reset) appends at 1 + 4 * count, as every
 * kernel's write_comp_data/trace_cmp computes it. */
static void t_mode_switch(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 3);
	kc_disable_ok(k, fd);
	kc_enable_ok(k, fd, 1);
	target_cmp4(0xabc, 0xdef);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 4);
	expect_pcs_in(buf, 0, 3, (const void *)target_leaf);
	expect_cmp(buf, 3, SZ(2), 0xabc, 0xdef, FN(cmp4), CB(cmp4));
	CHECK_EQ(buf[4], 0);		/* words 4..12 untouched */
	CHECK_EQ(buf[12], 0);
}

/* Targets built with trace-pc only: CMP mode records nothing at all,
 * while PC mode on the same buffer records (positive control). */
static void t_pc_only_targets(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 1);
	cmp_all();
	switch_all();
	float_all();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 0);
	CHECK_EQ(kc_dropped(k, fd), 0);
	kc_enable_ok(k, fd, 0);
	target_cmp4(1, 2);
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 1, (const void *)target_cmp4);
}

#ifndef CORE_PRELOAD
/* The module line of a ukcov dump (docs/FORMATS.md §3) whose [lo, hi)
 * holds pc: its index and bias, or -1. */
static int dump_module_of(const char *text, uint64_t pc, uint64_t *bias)
{
	const char *p = text;
	uint64_t b, lo, hi;
	int idx;

	while ((p = strstr(p, "\nmodule ")) != NULL) {
		p++;
		if (sscanf(p, "module %d %*s %" SCNx64 " %" SCNx64 " %" SCNx64,
			   &idx, &b, &lo, &hi) == 4 && pc >= lo && pc < hi) {
			*bias = b;
			return idx;
		}
	}
	return -1;
}

/* ukcov_dump() of a PC trace: the targets' module has one "pcs" block,
 * and each of its lines is exactly one offset (return address - 1 -
 * bias, lowercase hex), sorted, once each.  Each line is built afresh:
 * a byte left from the line before would make the offsets unreadable
 * to the tool (ukcov symbolize, merge, report). */
static void t_dump_pcs_lines(const struct kc *k)
{
	char text[1 << 16], want[256];
	uint64_t *buf, pcs[3], bias = 0, t;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int out = memfd_create("dump", 0), idx, n;
	ssize_t len;

	kc_enable_ok(k, fd, 0);
	target_leaf2();
	target_leaf();
	target_leaf2();
	target_leaf3();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 4);
	CHECK_OK(out);
	CHECK_OK(ukcov_dump(out, buf, KC_ENTRIES, UKCOV_DUMP_PC));
	len = pread(out, text, sizeof(text) - 1, 0);
	CHECK(len > 0 && (size_t)len < sizeof(text) - 1);
	text[len] = '\0';
	idx = dump_module_of(text, POINT(buf[1]), &bias);
	CHECK(idx >= 0);
	pcs[0] = POINT(buf[1]) - bias;	/* the three distinct PCs, sorted */
	pcs[1] = POINT(buf[2]) - bias;
	pcs[2] = POINT(buf[4]) - bias;
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (pcs[j] < pcs[i]) {
				t = pcs[i];
				pcs[i] = pcs[j];
				pcs[j] = t;
			}
	CHECK(pcs[0] < pcs[1] && pcs[1] < pcs[2]);
	n = snprintf(want, sizeof(want),
		     "\npcs %d 3\n%" PRIx64 "\n%" PRIx64 "\n%" PRIx64 "\n",
		     idx, pcs[0], pcs[1], pcs[2]);
	CHECK(n > 0 && (size_t)n < sizeof(want));
	if (!strstr(text, want))
		FAIL("no exact lines \"pcs %d 3\", %" PRIx64 ", %" PRIx64
		     ", %" PRIx64 " in the dump", idx, pcs[0], pcs[1], pcs[2]);
	CHECK(strstr(text, "\nend\n") != NULL);
}

/* ukcov_dump() of a CMP trace: one "cmp <idx|-> <offset> <type> <arg1>
 * <arg2>" line per record (docs/FORMATS.md), each field separated by
 * one space.  Two hand-made records: one whose PC lies in no module,
 * its line exact with "-" and the absolute point (0x11: 0x10, aarch64
 * 0xd); one in target_leaf, with its module's index and the offset
 * from the module's bias. */
static void t_dump_cmp_lines(const struct kc *k)
{
	uint64_t ret = (uint64_t)(uintptr_t)target_leaf + 5, bias = 0;
	uint64_t buf[1 + 8] = { 2,     SZ(2) | CONST, 0xf1f2, 0x82, 0x11,
				SZ(3), 0x33,	      0x44,   ret };
	char text[1 << 16], want[128];
	int out = memfd_create("dump", 0), idx;
	ssize_t len;

	(void)k;
	CHECK_OK(out);
	CHECK_OK(ukcov_dump(out, buf, 9, UKCOV_DUMP_CMP));
	len = pread(out, text, sizeof(text) - 1, 0);
	CHECK(len > 0 && (size_t)len < sizeof(text) - 1);
	text[len] = '\0';
	if (!strstr(text, "\ncmp - " POINT_OF_0x11 " 5 f1f2 82\n"))
		FAIL("no exact line \"cmp - " POINT_OF_0x11
		     " 5 f1f2 82\" in the dump");
	idx = dump_module_of(text, POINT(ret), &bias);
	CHECK(idx >= 0);
	snprintf(want, sizeof(want), "\ncmp %d %" PRIx64 " 6 33 44\n", idx,
		 POINT(ret) - bias);
	if (!strstr(text, want))
		FAIL("no exact line \"%s\" in the dump", want + 1);
	close(out);
}
#endif

void register_format_tests(void)
{
	reg_flavors("format.pc_records", t_pc_records, 0);
	reg_flavors("format.pc_mode_no_cmp", t_pc_mode_no_cmp, 0);
	reg_flavors("format.cmp_records", t_cmp_records, NEED_CMP);
	/* FreeBSD's own trace_switch differs (§3: no CONST bit, arg1 =
	 * val | 1); ukcov records Linux's format for every flavor by
	 * design, so the switch format is checked on the other three. */
	reg_one("format.cmp_switch", t_cmp_switch, FL_LINUX, core_have_native,
		NEED_CMP);
	reg_one("format.cmp_switch", t_cmp_switch, FL_NETBSD, core_have_native,
		NEED_CMP);
	reg_one("format.cmp_switch", t_cmp_switch, FL_OPENBSD, core_have_native,
		NEED_CMP);
	reg_flavors("format.cmp_float", t_cmp_float, NEED_CMP);
	reg_flavors("format.mode_switch", t_mode_switch, NEED_CMP);
	reg_flavors("format.pc_only_targets", t_pc_only_targets, NEED_PCONLY);
#ifndef CORE_PRELOAD
	reg_one("format.dump_pcs_lines", t_dump_pcs_lines, FL_LINUX, 1,
		NEED_NATIVE);
	reg_one("format.dump_cmp_lines", t_dump_cmp_lines, FL_LINUX, 1, 0);
#endif
}
