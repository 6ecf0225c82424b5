/*
 * tests/fuzz/munstable.c -- instrumented target whose 4-byte == sees
 * the input plus 0 or 1, by the parity of the call: the two CMP runs
 * of a hints job record different operands, so the hint is unstable
 * and dropped (syzkaller keeps only comparisons both runs saw).
 * Without that rule some seeds solve it as fast as m4.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned calls;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t x;

	if (size < 4)
		return 0;
	memcpy(&x, data, 4);
	if (x + (++calls & 1) == 0x8badf00dU)
		abort();
	return 0;
}
