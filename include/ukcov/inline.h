/*
 * ukcov/inline.h -- what code instrumented inline by ukcov's compiler
 * plugins (plugins/clang, plugins/gcc) reads and calls in libukcov.
 *
 * ABI version 1.  A plugin emits, in every instrumented basic block:
 *
 *	on = *(uint32_t *)((char *)&__ukcov_sancov + UKCOV_INLINE_ON_OFS);
 *	L: (an address inside the block, after the instruction that reads
 *	    the word; listed in the section __ukcov_pcs, docs/FORMATS.md)
 *	if (on)
 *		__ukcov_inline_pc_v1(L);	(out of line)
 *
 * which has the meaning of a call to __sanitizer_cov_trace_pc() whose
 * return address is L: the word is the one that callback tests first
 * (non-zero while anything in the process may record a PC: a thread
 * traces through a kcov descriptor, coverage=1, coverage_trace_bb=1).
 * The object __ukcov_sancov is named, not the word, so that a copy
 * relocation in a non-PIE executable moves the whole object and the
 * runtime sees the same word.  A runtime without this ABI has no
 * __ukcov_inline_pc_v1, so a program that needs it fails to link or
 * load instead of running unrecorded.
 */
#ifndef UKCOV_INLINE_H
#define UKCOV_INLINE_H

#include <stdint.h>

#define UKCOV_INLINE_ABI	1
#define UKCOV_INLINE_ON_SYM	"__ukcov_sancov"
#define UKCOV_INLINE_ON_OFS	4	/* a 32-bit word, read relaxed */
#define UKCOV_INLINE_PC_FN	"__ukcov_inline_pc_v1"
#define UKCOV_INLINE_PCS_SECTION "__ukcov_pcs"

#ifdef __cplusplus
extern "C" {
#endif

/* The recording half of a point whose word was non-zero: what
 * __sanitizer_cov_trace_pc() does for return address pc.  On x86-64 it
 * keeps every general register but r11 (LLVM's preserve_most), and
 * needs no particular stack alignment; C callers may call it as a
 * plain function. */
void __ukcov_inline_pc_v1(uint64_t pc);

#ifdef __cplusplus
}
#endif

#endif /* UKCOV_INLINE_H */
