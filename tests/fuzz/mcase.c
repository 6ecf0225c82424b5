/*
 * tests/fuzz/mcase.c -- instrumented target: strncasecmp of the input's
 * first 16 bytes against a header name, built with ukcov-cc
 * -fsanitize=fuzzer so that the call reaches lib/afl_rtn.c.  Only the
 * first 16 bytes count, in either case.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[64];

	if (size < 4 || size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (strncasecmp(buf, "X-Ukcov-Routine:", 16) == 0)
		abort();
	return 0;
}
