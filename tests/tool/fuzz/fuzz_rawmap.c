/* libFuzzer harness: sancov.py's raw/map pair.  The first input byte
 * gives the raw part's length in 8-byte words, the rest is the map. */
#include <string.h>
#include "dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump d;
	char err[ERRLEN];
	size_t rawlen, outside;
	int bits;

	if (size < 1)
		return 0;
	rawlen = (size_t)data[0] * 8 < size - 1 ? (size_t)data[0] * 8 : size - 1;
	if (rawmap_parse((const char *)data + 1, rawlen,
			 (const char *)data + 1 + rawlen, size - 1 - rawlen, &d,
			 &bits, &outside, err) == 0)
		dump_free(&d);
	return 0;
}
