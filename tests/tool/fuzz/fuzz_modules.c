/* libFuzzer harness: the runtime's UKCOV_MODULES snapshot reader. */
#include "dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump d = { 0 };
	char err[ERRLEN];

	modules_parse((const char *)data, size, 0, &d, err);
	dump_free(&d);
	return 0;
}
