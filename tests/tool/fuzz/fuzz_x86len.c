/* libFuzzer harness: a differential check of the x86-64 length decoder
 * (tools/x86len.c) against capstone, its oracle.  Wherever the decoder
 * answers, its length must be capstone's; a disagreement aborts, so the
 * input is kept as a crash. */
#include "x86len.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static csh cs;
	static cs_insn *insn;
	const uint8_t *p = data;
	size_t left = size;
	uint64_t addr = 0x1000;
	unsigned mine = x86len(data, size), theirs;

	if (!insn) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
			abort();
		insn = cs_malloc(cs);
	}
	if (mine == 0)
		return 0;
	theirs = cs_disasm_iter(cs, &p, &left, &addr, insn) ? insn->size : 0;
	if (mine != theirs) {
		fprintf(stderr, "x86len %u, capstone %u\n", mine, theirs);
		abort();
	}
	return 0;
}
