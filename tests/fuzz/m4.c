/* tests/fuzz/m4.c -- instrumented target: one 4-byte == at offset 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t x;

	if (size < 4)
		return 0;
	memcpy(&x, data, 4);
	if (x == 0x8badf00dU)
		abort();
	return 0;
}
