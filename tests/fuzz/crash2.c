/* tests/fuzz/crash2.c -- instrumented target with two crash sites:
 * inputs starting with 'A' abort, with 'B' write through NULL.  Crashes
 * at one site share a stack; the fuzzer keeps one file per site. */
#include <stdint.h>
#include <stdlib.h>

static volatile int *volatile nowhere;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 1 && data[0] == 'A')
		abort();
	if (size >= 1 && data[0] == 'B')
		*nowhere = 1;
	return 0;
}
