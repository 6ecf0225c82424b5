/* tests/fuzz/m2x2.c -- instrumented target: two 2-byte == at offsets 0
 * and 2, each its own branch (the volatile store keeps the compilers
 * from merging them into one 4-byte compare): only a 2-byte hint
 * replaces either operand whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static volatile int reached;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t a, b;

	if (size < 4)
		return 0;
	memcpy(&a, data, 2);
	memcpy(&b, data + 2, 2);
	if (a == 0xbeef) {
		reached = 1;
		if (b == 0xc0de)
			abort();
	}
	return 0;
}
