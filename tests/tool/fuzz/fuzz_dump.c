/* libFuzzer harness: the ukcov dump reader, union and writer. */
#include "dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump d, u = { 0 };
	struct strbuf sb = { 0 };
	char err[ERRLEN];

	if (dump_parse((const char *)data, size, &d, err) == 0) {
		dump_union(&u, &d);
		dump_union(&u, &d);
		dump_canonicalize(&u);
		dump_serialize(&u, &sb);
		dump_free(&d);
	}
	dump_free(&u);
	sb_free(&sb);
	return 0;
}
