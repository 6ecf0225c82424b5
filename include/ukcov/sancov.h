/*
 * <ukcov/sancov.h> -- the SanitizerCoverage callbacks libukcov defines.
 *
 * gcc 12 and clang 14 emit calls to these for every
 * -fsanitize-coverage= mode (cmpf/cmpd: gcc only; the rest of trace-pc
 * and trace-cmp: both; everything else: clang).  Programs never call
 * them; the declarations document the ABI (see
 * clang/docs/SanitizerCoverage.rst and gcc/sanitizer.def).
 */
#ifndef UKCOV_SANCOV_H_7740
#define UKCOV_SANCOV_H_7740

#include <stdint.h>
#include <ukcov/kcov.h>

#ifdef __cplusplus
extern "C" {
#endif

UKCOV_API void __sanitizer_cov_trace_pc(void);
UKCOV_API void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b);
UKCOV_API void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b);
UKCOV_API void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b);
UKCOV_API void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b);
UKCOV_API void __sanitizer_cov_trace_const_cmp1(uint8_t c, uint8_t v);
UKCOV_API void __sanitizer_cov_trace_const_cmp2(uint16_t c, uint16_t v);
UKCOV_API void __sanitizer_cov_trace_const_cmp4(uint32_t c, uint32_t v);
UKCOV_API void __sanitizer_cov_trace_const_cmp8(uint64_t c, uint64_t v);
UKCOV_API void __sanitizer_cov_trace_cmpf(float a, float b);
UKCOV_API void __sanitizer_cov_trace_cmpd(double a, double b);
UKCOV_API void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);

/* clang trace-pc-guard: guards numbered 1..N across every module. */
UKCOV_API void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
UKCOV_API void __sanitizer_cov_trace_pc_guard_init(uint32_t *start,
						   uint32_t *stop);
/* clang inline-8bit-counters, inline-bool-flag, pc-table. */
UKCOV_API void __sanitizer_cov_8bit_counters_init(char *start, char *end);
UKCOV_API void __sanitizer_cov_bool_flag_init(_Bool *start, _Bool *end);
UKCOV_API void __sanitizer_cov_pcs_init(const uintptr_t *pcs_beg,
					const uintptr_t *pcs_end);
/* clang trace-div, trace-gep (recorded as CONST compares with 0). */
UKCOV_API void __sanitizer_cov_trace_div4(uint32_t divisor);
UKCOV_API void __sanitizer_cov_trace_div8(uint64_t divisor);
UKCOV_API void __sanitizer_cov_trace_gep(uintptr_t idx);
/* clang indirect-calls, trace-loads, trace-stores (nothing recorded). */
UKCOV_API void __sanitizer_cov_trace_pc_indir(uintptr_t callee);
UKCOV_API void __sanitizer_cov_load1(uint8_t *addr);
UKCOV_API void __sanitizer_cov_load2(uint16_t *addr);
UKCOV_API void __sanitizer_cov_load4(uint32_t *addr);
UKCOV_API void __sanitizer_cov_load8(uint64_t *addr);
UKCOV_API void __sanitizer_cov_load16(__int128 *addr);
UKCOV_API void __sanitizer_cov_store1(uint8_t *addr);
UKCOV_API void __sanitizer_cov_store2(uint16_t *addr);
UKCOV_API void __sanitizer_cov_store4(uint32_t *addr);
UKCOV_API void __sanitizer_cov_store8(uint64_t *addr);
UKCOV_API void __sanitizer_cov_store16(__int128 *addr);
/* clang stack-depth: each thread's lowest frame address seen by
 * instrumented non-leaf functions; starts at UINTPTR_MAX. */
extern __thread uintptr_t __sancov_lowest_stack;

/*
 * compiler-rt's coverage API, for programs that run with
 * UKCOV_OPTIONS=coverage=1 (ukcov_sancov(7)): write the
 * <module>.<pid>.sancov files now; write the given PCs (return
 * addresses minus one) as such files; forget the coverage so far.
 */
UKCOV_API void __sanitizer_cov_dump(void);
UKCOV_API void __sanitizer_dump_trace_pc_guard_coverage(void);
UKCOV_API void __sanitizer_dump_coverage(const uintptr_t *pcs, uintptr_t len);
UKCOV_API void __sanitizer_cov_reset(void);
/* compiler-rt's API of 2016, removed in 2017: points covered so far;
 * with coverage_counters=1, the number of counters (one per guard) and
 * the update of a one-byte-per-counter bitset (ukcov_sancov(7)). */
UKCOV_API uintptr_t __sanitizer_get_total_unique_coverage(void);
UKCOV_API uintptr_t __sanitizer_get_number_of_counters(void);
UKCOV_API uintptr_t
__sanitizer_update_counter_bitset_and_clear_counters(uint8_t *bitset);
/* Also of 2016: with coverage_caller_callee=1, the distinct
 * (call site, callee) pairs of indirect calls recorded so far. */
UKCOV_API uintptr_t __sanitizer_get_total_unique_caller_callee_pairs(void);

#ifdef __cplusplus
}
#endif
#endif /* UKCOV_SANCOV_H_7740 */
