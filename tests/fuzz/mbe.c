/* tests/fuzz/mbe.c -- instrumented target: a big-endian 4-byte == at
 * offset 0, then a signed byte compared as an int (sign-extended) at
 * offset 4: hints must try both byte orders and sign extension. */
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t be;

	if (size < 5)
		return 0;
	be = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
	     (uint32_t)data[2] << 8 | data[3];
	if (be == 0xc0ffee42U && (int)(int8_t)data[4] == -77)
		abort();
	return 0;
}
