/* Instrumented straight-line functions for the basic-block trace tests
 * (60-sancov): each is one basic block, so each call is exactly one
 * trace_pc (gcc: one call per block) or guard (clang: the entry block)
 * event, at a point inside the function.  bb_never never runs; the
 * order of the definitions is not the order in which they first run
 * (a pc-table's trace-points lists them in this order). */
volatile int bb_sink;

__attribute__((noinline)) void bb_never(void) { bb_sink += 4; }
__attribute__((noinline)) void bb_c(void) { bb_sink += 3; }
__attribute__((noinline)) void bb_a(void) { bb_sink += 1; }
__attribute__((noinline)) void bb_b(void) { bb_sink += 2; }
