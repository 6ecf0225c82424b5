/*
 * examples/fuzz_target.c -- a libFuzzer-style target that AFL++ fuzzes
 * through libukcov: a record format with a 4-byte magic number, a
 * version and a 16-byte key that memcmp checks, then a length field
 * that is trusted one byte too far (the bug: abort() stands for it).
 *
 *   ukcov-cc -O2 -fsanitize=fuzzer fuzz_target.c -o fuzz_target
 *   mkdir in && printf 'hello, world....................' > in/a
 *   afl-fuzz -c 0 -i in -o out -- ./fuzz_target
 *   ./fuzz_target out/default/crashes/id:000000*    # reproduces
 *
 * One binary gives both the coverage and CmpLog's operands: the magic,
 * the version and the key come from the kcov CMP records and the
 * memcmp wrapper (docs/DESIGN.md, "AFL++").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const uint8_t key[16] = {
	0xd0, 0x0d, 0xfe, 0xed, 0x13, 0x37, 0xc0, 0xde,
	0xba, 0xad, 0xf0, 0x0d, 0x8b, 0xad, 0xf0, 0x0d,
};

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint32_t magic;

	if (n < 24)
		return 0;
	memcpy(&magic, d, 4);
	if (magic != 0x4b435655u)	/* "UVCK" */
		return 0;
	if (d[4] != 2)			/* version */
		return 0;
	if (memcmp(d + 5, key, 16) != 0)
		return 0;
	if (d[21] > n - 22)		/* length: one byte too generous */
		abort();
	return 0;
}
