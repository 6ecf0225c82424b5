/* tests/afl/m16.c -- memcmp against 16 non-ASCII bytes (the m16 target
 * of docs/TESTING.md, "AFL++"): trace-cmp cannot see it, the routine
 * wrapper can. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const uint8_t magic[16] = {
	0x9a, 0xbc, 0xde, 0xf0, 0x81, 0x92, 0xa3, 0xb4,
	0xc5, 0xd6, 0xe7, 0xf8, 0x89, 0xfa, 0xcb, 0xed,
};

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n >= 16 && memcmp(d, magic, 16) == 0)
		abort();
	return 0;
}
