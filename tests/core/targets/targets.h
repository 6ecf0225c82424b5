/*
 * tests/core/targets/targets.h -- the instrumented code the core tests
 * drive.  targets.c is the only file of the suite compiled with
 * -fsanitize-coverage; it is built four times (gcc and clang, each with
 * trace-pc,trace-cmp and with trace-pc only) and every behavioural test
 * runs against each build.
 *
 * Every function lives in the section "ukcov_targets", so a test can
 * check that a recorded PC lies in target code (__start_/__stop_), and
 * each is exported (-rdynamic) so dladdr() names the function a PC lies
 * in.  The callback counts below hold for both compilers at -O2
 * (checked by the format tests).
 */
#ifndef CORE_TARGETS_H
#define CORE_TARGETS_H

#include <stdint.h>

extern char __start_ukcov_targets[], __stop_ukcov_targets[];

/* "gcc" or "clang"; 1 if built with trace-cmp; 1 if instrumented
 * inline by ukcov's plugin (a PC is then an entry of __ukcov_pcs, not
 * a return address). */
extern const char target_cc[];
extern const int target_has_cmp;
extern const int target_inline;

/* One basic block each: exactly one trace_pc record per call, no CMP
 * record. */
void target_leaf(void);
void target_leaf2(void);
void target_leaf3(void);

/* One basic block and exactly one comparison callback each.  Non-const:
 * {KCOV_CMP_SIZE(log2 N), a, b}.  Const: {SIZE | CONST, constant, v}. */
int target_cmp1(uint8_t a, uint8_t b);
int target_cmp2(uint16_t a, uint16_t b);
int target_cmp4(uint32_t a, uint32_t b);
int target_cmp8(uint64_t a, uint64_t b);
int target_scmp1(int8_t a, int8_t b);		/* operands zero-extended */
int target_ccmp1(uint8_t v);			/* v == TARGET_C1 */
int target_ccmp2(uint16_t v);			/* v == TARGET_C2 */
int target_ccmp4(uint32_t v);			/* v == TARGET_C4 */
int target_ccmp8(uint64_t v);			/* v == TARGET_C8 */
int target_ccmp4_left(uint32_t v);		/* TARGET_C4 < v */
#define TARGET_C1 0x5aU
#define TARGET_C2 0x5a5bU
#define TARGET_C4 0x12345678U
#define TARGET_C8 0x123456789abcdef0ULL

/* gcc only (clang emits no callback for floating-point compares):
 * {SIZE(2) or SIZE(3), bits of a, bits of b}. */
int target_cmpf(float a, float b);
int target_cmpd(double a, double b);

/* One __sanitizer_cov_trace_switch call each, with the cases below. */
void target_switch8(uint8_t v);
void target_switch16(uint16_t v);
void target_switch32(int32_t v);
void target_switch64(uint64_t v);
#define TARGET_SWITCH8_CASES  { 0xff, 0x01, 0x80 }
#define TARGET_SWITCH16_CASES { 0xfffe, 0x0001, 0x7fff }
#define TARGET_SWITCH32_CASES { -1, 1, 7, 100, 1000 }
#define TARGET_SWITCH64_CASES { 0x8000000000000000ULL, 1, 0xffffffffffULL }

/* Loops whose values stay in registers across points: the arguments'
 * (rdi, rsi, rdx, rcx, r8, r9) and doubles in vector registers.  A
 * point's code must keep them as a call to a callback does (the
 * calling convention): an inline point's cold path and the runtime's C
 * half behind it.  Exact results (small integers); the bodies are
 * keep.h's. */
double target_keep_fp(double a, double b, double c, double d, int n);
uint64_t target_keep_gp(uint64_t a, uint64_t b, uint64_t c, uint64_t d,
			uint64_t e, uint64_t n);

#endif
