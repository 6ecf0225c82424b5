/* tests/afl/m4.c -- one 4-byte == at offset 0 (the m4 target of
 * docs/TESTING.md, "AFL++"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint32_t x;

	if (n < 4)
		return 0;
	memcpy(&x, d, 4);
	if (x == 0x11223344u)
		abort();
	return 0;
}
