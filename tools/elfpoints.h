/*
 * tools/elfpoints.h -- find every coverage point of an ELF binary.
 *
 * A coverage point is a call to a SanitizerCoverage PC callback
 * (__sanitizer_cov_trace_pc_guard, __sanitizer_cov_trace_pc and the legacy
 * names sancov knows), direct or through a PLT stub or a GOT slot.  Its
 * address is the return address of the call less a per-machine step
 * (pc_to_point): the value the trace-pc-guard runtime writes to .sancov.
 * A kcov record holds the return address itself.
 */
#ifndef UKCOV_TOOLS_ELFPOINTS_H
#define UKCOV_TOOLS_ELFPOINTS_H

#include "util.h"

#include <gelf.h>

struct elf_info {
	uint8_t build_id[64];	/* NT_GNU_BUILD_ID descriptor */
	size_t build_id_len;	/* 0: none */
	int elf_type;		/* ET_EXEC, ET_DYN, ... */
	unsigned machine;	/* e_machine: EM_X86_64, EM_AARCH64, ... */
	uint64_t text_span;	/* bytes from the first to the end of the
				 * last executable PT_LOAD segment, 0: none */
};

/*
 * The coverage point of a record's PC, the callback's return address pc,
 * on an ELF machine (EM_*; 0: unknown, taken as x86-64): an address
 * inside the call instruction, as LLVM sancov's getPreviousInstructionPc
 * (llvm/tools/sancov/sancov.cpp) and compiler-rt's
 * StackTrace::GetPreviousInstructionPc choose it.  x86-64: pc - 1 (calls
 * are 2 to 7 bytes), aarch64: pc - 4 (the bl/blr itself), riscv: pc - 2
 * (a call may be a 2-byte c.jalr).  libukcov's .sancov files use the
 * same rule (UKCOV_PREV_PC, lib/internal.h), so every input agrees.
 */
uint64_t pc_to_point(unsigned machine, uint64_t pc);

/*
 * Find all coverage points (sorted, unique ELF virtual addresses) of the
 * ELF image in buf.  Returns 0, or -1 with a message in err (not an ELF
 * file, unsupported machine, no coverage callbacks found ...).
 */
int elfpoints_scan(const void *buf, size_t len, struct pcvec *points,
		   char err[ERRLEN]);

/* The same with capstone alone, without the table decoder (x86len.h):
 * the oracle the tests compare elfpoints_scan against. */
int elfpoints_scan_capstone(const void *buf, size_t len,
			    struct pcvec *points, char err[ERRLEN]);

/* Same for a file; prints "FILE: problem" on failure. */
int elfpoints_load(const char *path, struct pcvec *points);

/*
 * Tail calls (jmp, not call) to a PC callback in the file at path.  gcc
 * before 14 emits them at -O2 (GCC PR 90746); the callback then records
 * the return address of the instrumented function's caller, which is no
 * coverage point.  0 when there are none or the file cannot be read.
 */
size_t elfpoints_tail_calls(const char *path);

/* The aarch64 sweep (tools/elfpoints_a64.c): funcs and slots as found by
 * the symbol and relocation tables; PLT stubs of callbacks are added to
 * funcs.  Returns 0, or -1 with err. */
int elfpoints_a64_sweep(Elf *elf, size_t shstrndx, struct pcvec *funcs,
			const struct pcvec *slots, struct pcvec *points,
			size_t *tail_calls, char err[ERRLEN]);

/*
 * The point sweep's x86-64 length decoder for other linear sweeps
 * (blocks.c): the table decoder (x86len.h), and capstone, loaded on
 * first need, for what it does not model (VEX/EVEX code of -mavx2 or
 * -march=native builds, the 0F38/0F3A maps).  0: neither decodes it.
 * One per thread.
 */
struct x86_decoder;
struct x86_decoder *x86_decoder_new(void);
unsigned x86_decoder_len(struct x86_decoder *d, const uint8_t *p, size_t avail,
			 uint64_t addr);
void x86_decoder_free(struct x86_decoder *d);

/* Build-id, type and machine of an ELF file; -1 with err if it is not ELF. */
int elf_read_info(const char *path, struct elf_info *info, char err[ERRLEN]);

/* True if buf looks like an ELF file (magic only). */
bool is_elf_image(const void *buf, size_t len);

#endif
