/* libFuzzer harness: the .sancov parser and writer (round trip). */
#include <stdlib.h>
#include "sancov_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcvec pv = { 0 };
	struct strbuf sb = { 0 };
	char err[ERRLEN];
	int bits;

	if (sancov_parse(data, size, &pv, &bits, err) == 0) {
		pcvec_sort_unique(&pv, true);
		sancov_serialize(&sb, &pv, bits);
	}
	sb_free(&sb);
	pcvec_free(&pv);
	return 0;
}
