/*
 * ukcov/inline.h -- what code instrumented inline by ukcov's compiler
 * plugins (plugins/clang, plugins/gcc) reads and calls in libukcov.
 *
 * ABI version 2 (docs/DESIGN.md, "Inline instrumentation"; the section
 * __ukcov_pcs: docs/FORMATS.md).  Each translation unit (TU) of n
 * points (0 < n <= UKCOV_INLINE_TU_MAX) has
 *
 *	static uint64_t tu = UKCOV_INLINE_UNREG;	(a byte offset)
 *	constructor: __ukcov_inline_init_v2(&tu, n);
 *
 * and a function of it, for its point k (0 <= k < n, one per
 * instrumented basic block):
 *
 *	m = __ukcov_imap + tu;		(once per function, and again after
 *					 every call: the runtime changes
 *					 __ukcov_imap only in calls)
 *	... the block, from its start:
 *	if (!(m[k >> 3] & (1 << (k & 7))))	(the test's load ends at L;
 *		__ukcov_inline_pc_v2(L, k, &tu);  L is listed in __ukcov_pcs,
 *						  the call is out of line)
 *
 * A set bit means "nothing to do for this point in this thread": the
 * map is the thread's unique-mode bitmap while it records unique
 * coverage (bit g is the point numbered g, as a guard), a map of zeros
 * while it traces every PC, and the process's map (all ones while
 * nothing process-wide records) otherwise.  __ukcov_inline_pc_v2 has
 * the meaning of a call to __sanitizer_cov_trace_pc_guard() whose guard
 * holds tu * 8 + k and whose return address is L, or, before the TU's
 * constructor ran (tu still UKCOV_INLINE_UNREG), of a call to
 * __sanitizer_cov_trace_pc() with return address L.  Every map is
 * readable for UKCOV_INLINE_MAP_BITS bits, and the bits of the window
 * at UKCOV_INLINE_UNREG are never set: an unregistered TU's points
 * always make the call.  A runtime without this ABI has neither
 * __ukcov_imap nor __ukcov_inline_pc_v2, so a program that needs it
 * fails to link or load instead of running unrecorded.
 *
 * ABI 1 (a gate word, no map) is still provided for objects built with
 * it: __ukcov_inline_pc_v1.
 */
#ifndef UKCOV_INLINE_H
#define UKCOV_INLINE_H

#include <stdint.h>

#define UKCOV_INLINE_ABI	2
#define UKCOV_INLINE_MAP_SYM	"__ukcov_imap"	/* TLS, initial-exec */
#define UKCOV_INLINE_INIT_FN	"__ukcov_inline_init_v2"
#define UKCOV_INLINE_PC2_FN	"__ukcov_inline_pc_v2"
#define UKCOV_INLINE_PC2_GCC_FN "__ukcov_inline_pc_v2_gcc"
#define UKCOV_INLINE_PCS_SECTION "__ukcov_pcs"
#define UKCOV_INLINE_MAP_BITS	(1u << 25)	/* every map's readable bits */
#define UKCOV_INLINE_TU_MAX	(1u << 20)	/* points of one TU */
/* tu's value until its constructor runs: the byte offset of the last
 * UKCOV_INLINE_TU_MAX bits of every map, which stay clear. */
#define UKCOV_INLINE_UNREG \
	((UKCOV_INLINE_MAP_BITS - UKCOV_INLINE_TU_MAX) / 8)

/* ABI 1. */
#define UKCOV_INLINE_ON_SYM	"__ukcov_sancov"
#define UKCOV_INLINE_ON_OFS	4	/* a 32-bit word, read relaxed */
#define UKCOV_INLINE_PC_FN	"__ukcov_inline_pc_v1"

#ifdef __cplusplus
extern "C" {
#endif

/* The thread's map (see above); never NULL. */
extern __thread uint8_t *__ukcov_imap
	__attribute__((tls_model("initial-exec")));

/* Numbers the TU's n points (tu's value becomes the byte offset of its
 * first point's bit); called once per TU from its constructor.  A TU
 * that cannot be numbered (n too large, the numbers exhausted) keeps
 * UKCOV_INLINE_UNREG and records as trace-pc does. */
void __ukcov_inline_init_v2(uint64_t *tu, uint32_t n);

/*
 * The recording half of point k whose bit was clear.  On x86-64 the
 * arguments are in rdi (L), esi (k) and r11 (&tu), and the call keeps
 * every general register but r11 (LLVM's preserve_most) and needs no
 * particular stack alignment.  The prototype is for documentation: C
 * cannot pass r11.
 */
void __ukcov_inline_pc_v2(uint64_t pc, uint32_t k, const uint64_t *tu);

/*
 * The same, as the gcc plugin's cold path reaches it: jumped to (not
 * called) from a thunk, with the stack as that path leaves it: the
 * return address into the cold path, then rsi and rdi as they were,
 * then the 128 bytes of the red zone it stepped over.  It returns with
 * rdi and rsi restored and those 144 bytes popped ("ret $144"), and
 * every other register but r11 and the flags as it was, the vector
 * registers included (the asm that reaches it declares no others).
 */
void __ukcov_inline_pc_v2_gcc(uint64_t pc, uint32_t k, const uint64_t *tu);

/* ABI 1: on = the word at UKCOV_INLINE_ON_OFS of __ukcov_sancov;
 * if (on) __ukcov_inline_pc_v1(L), preserve_most. */
void __ukcov_inline_pc_v1(uint64_t pc);

#ifdef __cplusplus
}
#endif

#endif /* UKCOV_INLINE_H */
