/* tests/fuzz/meintr.c -- instrumented target that returns with errno
 * EINTR, as a harness does after an interrupted call it retried: the
 * executor's writes after the input retry on a failed write only, not
 * on a stale errno.  One 4-byte == so that CMP executions run too. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t x = 0;

	if (size >= 4)
		memcpy(&x, data, 4);
	if (x == 0x5eed5eedU)
		errno = 0;
	else
		errno = EINTR;
	return 0;
}
