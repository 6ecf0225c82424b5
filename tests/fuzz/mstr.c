/*
 * tests/fuzz/mstr.c -- instrumented target: strcmp of the input, as a
 * string, against a UTF-8 word (non-ASCII bytes), built with ukcov-cc
 * -fsanitize=fuzzer so that the call reaches lib/afl_rtn.c.  The
 * input must be the word exactly: the string's end counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[64];

	if (size < 2 || size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (strcmp(buf, "\xc3\xa9t\xc3\xa9-\xe2\x82\xac-ukcov") == 0)
		abort();
	return 0;
}
