/*
 * tests/fuzz/m16w.c -- instrumented target: 16 non-ASCII bytes compared
 * as memcmp(data, key, 16) == 0 would be.
 *
 * The word-compare form of tests/fuzz/m16.c: trace-cmp cannot see
 * memcmp itself (clang inlines a 16-byte memcmp into loads and an or
 * of xors, gcc calls libc's), so m16.c is solved from the routine's
 * operands (lib/afl_rtn.c); this target spells the inlined form out as
 * two traced 8-byte comparisons with the key's words, built with
 * -fno-builtin-memcmp so that neither compiler turns it back into a
 * call, and is solved from the CMP records alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t key[16] = {
	0xc3, 0xa9, 0x8f, 0xf1, 0x9e, 0x81, 0xd7, 0xb2,
	0xa5, 0xfe, 0x90, 0xe4, 0x88, 0xcd, 0xb7, 0xf3,
};

/* One 8-byte load: of the key, a constant the compilers fold. */
static uint64_t load8(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int equal16(const uint8_t *a, const uint8_t *b)
{
	if (load8(a) != load8(b))
		return 0;
	return load8(a + 8) == load8(b + 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 16 && equal16(data, key))
		abort();
	return 0;
}
