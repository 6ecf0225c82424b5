/* libFuzzer harness: the .symcov (JSON) reader, then the writer. */
#include "symcov.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strtab strs = { 0 };
	struct symcov sc;
	struct strbuf sb = { 0 };
	char err[ERRLEN];

	symcov_init(&sc, &strs);
	if (symcov_parse((const char *)data, size, &sc, "fuzz", true, err) == 0)
		symcov_write_json(&sc, &sb);
	sb_free(&sb);
	symcov_free(&sc);
	strtab_free(&strs);
	return 0;
}
