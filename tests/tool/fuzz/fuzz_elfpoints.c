/* libFuzzer harness: the ELF coverage-point finder (libelf + capstone)
 * on hostile ELF images. */
#include "elfpoints.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcvec pv = { 0 };
	char err[ERRLEN];

	elfpoints_scan(data, size, &pv, err);
	pcvec_free(&pv);
	return 0;
}
