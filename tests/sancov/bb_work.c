/* Instrumented straight-line functions for the basic-block trace tests
 * (60-sancov): each is one basic block, so each call is exactly one
 * trace_pc (gcc: one call per block) or guard (clang: the entry block)
 * event, at a point inside the function. */
volatile int bb_sink;

__attribute__((noinline)) void bb_a(void) { bb_sink += 1; }
__attribute__((noinline)) void bb_b(void) { bb_sink += 2; }
__attribute__((noinline)) void bb_c(void) { bb_sink += 3; }
