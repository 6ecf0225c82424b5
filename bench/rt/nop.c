/*
 * bench/rt/nop.c -- the cheapest possible runtime ("b0"): every callback
 * that -fsanitize-coverage=trace-pc,trace-cmp and trace-pc-guard emit, as
 * an empty function (the guard init numbers nothing).
 * Whatever a build linked with this costs over the uninstrumented build is
 * the price of the calls themselves (and of the code the compiler could not
 * optimise around them); no runtime can go below it.
 */
#include <stdint.h>

#define NOP_CMP(name, type) \
	void name(type a, type b); \
	void name(type a, type b) { (void)a; (void)b; }

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) {}

NOP_CMP(__sanitizer_cov_trace_cmp1, uint8_t)
NOP_CMP(__sanitizer_cov_trace_cmp2, uint16_t)
NOP_CMP(__sanitizer_cov_trace_cmp4, uint32_t)
NOP_CMP(__sanitizer_cov_trace_cmp8, uint64_t)
NOP_CMP(__sanitizer_cov_trace_const_cmp1, uint8_t)
NOP_CMP(__sanitizer_cov_trace_const_cmp2, uint16_t)
NOP_CMP(__sanitizer_cov_trace_const_cmp4, uint32_t)
NOP_CMP(__sanitizer_cov_trace_const_cmp8, uint64_t)
NOP_CMP(__sanitizer_cov_trace_cmpf, float)
NOP_CMP(__sanitizer_cov_trace_cmpd, double)

void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);
void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases)
{
	(void)val;
	(void)cases;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	(void)guard;
}

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	(void)start;
	(void)stop;
}
