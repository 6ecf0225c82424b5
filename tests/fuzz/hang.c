/* tests/fuzz/hang.c -- instrumented target that never returns for an
 * input starting with 'H' (a timeout), and returns at once otherwise. */
#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	while (size >= 1 && data[0] == 'H')
		pause();
	return 0;
}
