/* tests/fuzz/m8.c -- instrumented target: one 8-byte == at offset 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t x;

	if (size < 8)
		return 0;
	memcpy(&x, data, 8);
	if (x == 0xf00dcafe8badbeefULL)
		abort();
	return 0;
}
