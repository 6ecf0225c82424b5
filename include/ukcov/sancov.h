/*
 * <ukcov/sancov.h> -- the SanitizerCoverage callbacks libukcov defines.
 *
 * gcc 12 and clang 14 emit calls to these for -fsanitize-coverage=
 * trace-pc and trace-cmp (cmpf/cmpd: gcc only).  Programs never call
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

#ifdef __cplusplus
}
#endif
#endif /* UKCOV_SANCOV_H_7740 */
