/* tests/afl/cmp.c -- the known compares whose CmpLog entries
 * tests/suites.d/75-afl.sh checks: a 4-byte == with 0x11223344 at
 * offset 0, a 16-byte memcmp at offset 4 and a strcmp of the first 8
 * bytes with "fuzzing"; any input of 20 bytes runs all three. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const uint8_t magic[16] = {
	0x9a, 0xbc, 0xde, 0xf0, 0x81, 0x92, 0xa3, 0xb4,
	0xc5, 0xd6, 0xe7, 0xf8, 0x89, 0xfa, 0xcb, 0xed,
};

/* Volatile: the compiler may neither merge nor reorder the two tests. */
static volatile int seen;

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint32_t x;
	char word[9];

	if (n < 20)
		return 0;
	memcpy(&x, d, 4);
	seen = 0;
	if (x == 0x11223344u)
		seen = 1;
	if (memcmp(d + 4, magic, 16) == 0 && seen == 1)
		abort();
	memcpy(word, d, 8);
	word[8] = '\0';
	if (strcmp(word, "fuzzing") == 0)
		seen = 2;
	return 0;
}
