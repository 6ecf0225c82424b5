/*
 * tests/sancov/feat_target.c -- instrumented (clang trace-pc-guard,
 * -O1): four one-block functions, so one guard each, in this order.
 */
void feat_a(void);
void feat_b(void);
void feat_c(void);
void feat_d(void);

volatile int feat_sink;

void feat_a(void) { feat_sink += 1; }
void feat_b(void) { feat_sink += 2; }
void feat_c(void) { feat_sink += 3; }
void feat_d(void) { feat_sink += 4; }
