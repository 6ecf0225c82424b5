/* tests/afl/m8.c -- one 8-byte == at offset 0 (the m8 target of
 * docs/TESTING.md, "AFL++"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint64_t x;

	if (n < 8)
		return 0;
	memcpy(&x, d, 8);
	if (x == 0x8877665544332211ull)
		abort();
	return 0;
}
