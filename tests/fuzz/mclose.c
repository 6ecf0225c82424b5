/* tests/fuzz/mclose.c -- instrumented target that, for inputs starting
 * with 'X', closes every descriptor above stderr and then blocks: the
 * executor can neither answer nor die, and the fuzzer must still get
 * its process back (a timeout), not wait forever. */
#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || data[0] != 'X')
		return 0;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (;;)
		pause();
}
