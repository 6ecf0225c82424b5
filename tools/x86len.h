/*
 * tools/x86len.h -- the length of an x86-64 instruction, from a small
 * table-driven decoder, for the coverage-point sweep (elfpoints.c).
 *
 * The decoder knows the encodings compilers emit for general-purpose,
 * x87 and SSE/SSE2-class code, lock included.  It answers 0 ("not sure")
 * for anything else: VEX/EVEX/XOP, the 0F38/0F3A maps, system
 * instructions, encodings whose validity depends on details it does not
 * model, and any encoding on which it could disagree with capstone.  The caller then asks
 * capstone, which stays the reference (tests/tool/x86len_check.c compares
 * the two exhaustively over prefixes x opcodes x ModRM, and on every test
 * binary; tests/tool/fuzz/fuzz_x86len.c fuzzes the difference).
 */
#ifndef UKCOV_TOOLS_X86LEN_H
#define UKCOV_TOOLS_X86LEN_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..15) of the instruction at code[0..avail), or 0 when the
 * decoder is not certain of it or it does not fit in avail bytes. */
unsigned x86len(const uint8_t *code, size_t avail);

#endif
