/* tests/fuzz/m4x3.c -- instrumented target: three chained 4-byte ==
 * at offsets 0, 4 and 8. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t word(const uint8_t *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 12)
		return 0;
	if (word(data) == 0xa1b2c3d4U && word(data + 4) == 0xe5f60718U &&
	    word(data + 8) == 0x9abcdef0U)
		abort();
	return 0;
}
