/* tests/fuzz/crash2.c -- instrumented target with three crash sites:
 * inputs starting with 'A' abort, with 'B' write through NULL, with 'C'
 * overflow the stack.  Crashes at one site share a stack; the fuzzer
 * keeps one file per site. */
#include <stdint.h>
#include <stdlib.h>

static volatile int *volatile nowhere;

/* Not a tail call, nor a loop: each level keeps a frame. */
static int deep(volatile const uint8_t *p, unsigned n)
{
	volatile char frame[256] = { 0 };

	frame[n % sizeof(frame)] = p[0];
	return deep(p, n + 1) + frame[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 1 && data[0] == 'A')
		abort();
	if (size >= 1 && data[0] == 'B')
		*nowhere = 1;
	if (size >= 1 && data[0] == 'C')
		return deep(data, 0);
	return 0;
}
