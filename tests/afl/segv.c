/* tests/afl/segv.c -- an input that crashes with SIGSEGV: its edges
 * must reach the map (afl-fuzz tells crashes apart by them). */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 0 && d[0] == 'S')
		*(volatile int *)0 = 1;
	return 0;
}
