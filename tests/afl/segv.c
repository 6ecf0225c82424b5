/* tests/afl/segv.c -- an input that crashes with SIGSEGV: its edges
 * must reach the map (afl-fuzz tells crashes apart by them). */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 0 && d[0] == 'S')
		raise(SIGSEGV);	/* as a bad store would, without the lint */
	return 0;
}
