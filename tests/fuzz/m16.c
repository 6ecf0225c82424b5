/*
 * tests/fuzz/m16.c -- instrumented target: a real memcmp of the input
 * against 16 non-ASCII bytes, built with ukcov-cc -fsanitize=fuzzer.
 *
 * No CMP record carries the key: gcc calls libc's memcmp (not
 * instrumented) and clang would inline it into loads and an or of
 * xors.  ukcov-cc links with -fno-builtin-memcmp and --wrap=memcmp
 * (tools/wrapper.c), so the call reaches lib/afl_rtn.c, which hands
 * both operands to "ukcov fuzz" during its CMP executions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t key[16] = {
	0xc3, 0xa9, 0x8f, 0xf1, 0x9e, 0x81, 0xd7, 0xb2,
	0xa5, 0xfe, 0x90, 0xe4, 0x88, 0xcd, 0xb7, 0xf3,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 16 && memcmp(data, key, 16) == 0)
		abort();
	return 0;
}
