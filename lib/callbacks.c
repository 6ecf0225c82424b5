/*
 * lib/callbacks.c -- the __sanitizer_cov_* callbacks that gcc 12 and
 * clang 14 emit, for every -fsanitize-coverage mode (the init callbacks
 * forward to lib/sancov.c).
 *
 * These run billions of times.  With tracing off a callback is one TLS
 * load, one compare and a return.  With tracing on it appends one record
 * the way the kernels do (Linux __sanitizer_cov_trace_pc and
 * write_comp_data): word 0 counts records; the record is written first
 * and the count published with a release store, so a reader that
 * acquire-loads the count sees only whole records.  The count lives in
 * memory the user may scribble on: it is read once and bounded against
 * the capacity the runtime recorded itself (never one in the buffer).
 *
 * This file is compiled into libukcov_cb.a, which "-lukcov" links into
 * the executable, so instrumented code calls these directly, not
 * through the PLT.  Keep every callback in this one object: clang links
 * weak no-op cmp callbacks from its ubsan runtime when it drives the
 * link with -fsanitize-coverage, and only a strong definition pulled in
 * for __sanitizer_cov_trace_pc overrides them.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "unique_hot.h"
#include <ukcov/linux/kcov.h>
#include <ukcov/inline.h>
#include <ukcov/sancov.h>

#define CALLBACK UKCOV_EXPORT __attribute__((hot))

/* The hot callbacks come in x86-64 assembly (trace_pc, trace_pc_guard)
 * with C versions beside them, which are the specification for every
 * other architecture; make UKCOV_NO_ASM=1 builds the C versions on
 * x86-64 too, so that make test runs them (tests/suites.d/15-noasm.sh),
 * as zstd's ZSTD_DISABLE_ASM does for its decoder. */
#if defined(__x86_64__) && defined(__ELF__) && !defined(UKCOV_NO_ASM)
#define UKCOV_ASM_CALLBACKS 1
#else
#define UKCOV_ASM_CALLBACKS 0
#endif
#define RET_IP() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* A static link must bring the rest of the runtime (constructor,
 * interposers) along with the callbacks.  The copy in libukcov_cb.a
 * goes with libukcov.so, which has the runtime already. */
#ifndef UKCOV_CALLBACKS_ONLY
__attribute__((used)) static const char *const ukcov_anchor_ref =
	&ukcov__runtime_anchor;
#endif

/* The linker script behind -lukcov names this (EXTERN), so that this
 * object is linked even when every callback an instrumented program
 * uses is already (weakly) defined by another runtime. */
UKCOV_EXPORT const char __ukcov_callbacks = 1;

/* Only the owner thread writes its descriptor's drop count, so a plain
 * increment published with a relaxed store is enough. */
static inline void count_drop(struct ukcov_thread *t, uint64_t n)
{
	uint64_t *d = t->drops;

	__atomic_store_n(d, __atomic_load_n(d, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

/* One PC record (Linux __sanitizer_cov_trace_pc). */
static inline __attribute__((always_inline)) void
pc_record(struct ukcov_thread *t, uint64_t *area, uint64_t pc)
{
	uint64_t n = __atomic_load_n(&area[0], __ATOMIC_RELAXED);

	if (likely(n < t->pc_cap)) {
		area[n + 1] = pc;
		__atomic_store_n(&area[0], n + 1, __ATOMIC_RELEASE);
	} else {
		count_drop(t, 1);
	}
}

/* Append pc unless this thread saw it since the last reset; the probe
 * for its slot starts at `slot` (unique_hot.h). */
static __attribute__((noinline)) void
trace_pc_unique(struct ukcov_thread *t, uint64_t *area, uint64_t pc,
		uint64_t slot)
{
	switch (uniq_claim_pc_at(t, pc, slot)) {
	case UNIQ_NEW:
		pc_record(t, area, pc);
		return;
	case UNIQ_FULL:
		count_drop(t, 1);
		return;
	default:
		return;
	}
}

/* Append pc, new to this thread since the last reset: the executable's
 * PC whose direct bit (unique.c, "Direct bits") is in word w.  The
 * caller read no area: a CMP-unique thread has no direct bits, but a
 * handler may have cleared the area since. */
static __attribute__((noinline)) void
trace_pc_direct(struct ukcov_thread *t, uint64_t pc, uint64_t w)
{
	uint64_t *area = __atomic_load_n(&t->pc_area, __ATOMIC_RELAXED);

	if (area == NULL)
		return;
	t->uniq_direct[w] |= (uint64_t)1 << (pc & 63);
	pc_record(t, area, pc);
}

/*
 * The kcov part of trace_pc: this thread's PC area, if it traces.
 * Unique mode is tested first, on its bitmap pointer, which is NULL
 * whenever the area is (ukcov__thread_clear_hot clears both, and only
 * ukcov__uniq_hot sets it): a point seen since the reset, with a direct
 * bit, returns after the bitmap pointer, one word and one bit test,
 * without reading the area.  A hashed point loads the area first, then
 * its slot's bitmap word and key.  On x86-64 the callback is assembly
 * that does the common cases itself and calls this for the rest
 * (docs/DESIGN.md, "trace-pc builds: direct bits").
 */
static inline __attribute__((always_inline)) void
kcov_pc(uint64_t pc)
{
	struct ukcov_thread *t = &__ukcov_thread;
	uint64_t *bits = __atomic_load_n(&t->uniq_bits, __ATOMIC_RELAXED);
	uint64_t *area;

	if (unlikely(bits != NULL)) {
		uint64_t w = (pc >> 6) - t->uniq_lo6;

		if (likely(w < t->uniq_dwords)) {
			if (likely(t->uniq_direct[w] >> (pc & 63) & 1))
				return;
			trace_pc_direct(t, pc, w);
			return;
		}
	}
	area = __atomic_load_n(&t->pc_area, __ATOMIC_RELAXED);
	if (area == NULL)
		return;
	if (unlikely(bits != NULL)) {
		uint64_t i = uniq_pc_slot(t, pc);

		if (likely(uniq_seen_at(t, pc, i)))
			return;
		trace_pc_unique(t, area, pc, i);
		return;
	}
	pc_record(t, area, pc);
}

/* coverage=1 in a trace-pc build: the PC joins the process's set of
 * distinct PCs; the home slot is checked here, the rest is a call. */
static inline __attribute__((always_inline)) void pcset_hit(uint64_t pc)
{
	uint64_t h = (pc * UKCOV_PCSET_HASH) >> __ukcov_sancov.pcset_shift;

	if (likely(__atomic_load_n(&__ukcov_sancov.pcset[h],
				   __ATOMIC_RELAXED) == pc))
		return;
	__ukcov_sancov_pcset_insert(pc);
}

/* Out of line, so that the off and kcov-only paths need no frame. */
static __attribute__((noinline, used)) void trace_pc_process(uint32_t on,
							     uint64_t pc)
{
	if (on & UKCOV_SANCOV_KCOV)
		kcov_pc(pc);
	if (on & UKCOV_SANCOV_PCSET)
		pcset_hit(UKCOV_PREV_PC(pc));
	if (on & UKCOV_SANCOV_TRACE)
		__ukcov_sancov_trace_event(UKCOV_PREV_PC(pc));
}

#if UKCOV_ASM_CALLBACKS
/*
 * Every PC a thread traces through a kcov descriptor, but the cases
 * the assembly callback below does itself (an append, a drop, a point
 * seen at its direct bit or in its hashed home slot); entered by a tail
 * jump with the return address still the edge's, (on, pc) in (edi,
 * rsi).  "used": only the assembly refers to them.
 */
static __attribute__((noinline, used)) void trace_pc_kcov_slow(uint32_t on,
							      uint64_t pc)
{
	(void)on;
	kcov_pc(pc);
}

/*
 * trace_pc in assembly, for the byte layout (docs/DESIGN.md, "The hot
 * path"), and with a gate like the guard callback's (below):
 *
 *   entry:  load __ukcov_sancov.pc_on; test
 *   gate:   jne on; ret          nothing enabled: the fall-through ret
 *   on:     pc = return address
 *           word != KCOV alone: tail jump to trace_pc_process
 *           bits = this thread's uniq_bits; NULL: a plain trace, at 2
 *           w = (pc >> 6) - uniq_lo6; w >= uniq_dwords: hashed, at 5
 *           bit pc & 63 of uniq_direct[w] clear: the slow path (new)
 *           ret (seen: no taken branch)
 *   5:      slot i = pc's hash; bit i clear or key i != pc: the slow
 *           path (new, or further in the probe); ret (seen)
 *   2:      area = pc_area; NULL: ret (this thread does not trace)
 *           n = area[0]; n >= pc_cap: ++*drops, ret (count_drop: only
 *           this thread writes it)
 *           area[n + 1] = pc; area[0] = n + 1; ret
 *
 * Only one mode can be the fall-through.  Unique is: it is what "ukcov
 * run" collects by default, and its target is the tighter one (no
 * slower than the trace, U1; the trace's is within 10% of the
 * reference append, T2, which the trace meets with room: 0.97-1.01
 * with the gate open, docs/PERFORMANCE.md "Direct bits").  The C
 * version (other architectures, below) makes the seen point's "ret" a
 * jump to a shared one.  The count is stored after the record with a
 * plain store: x86-64 keeps stores in order, which is the release
 * pc_record does.  The gate (gate_open, below) turns "jne on; ret"
 * into a nop in a process whose word is non-zero once its constructors
 * have run (kcov enabled before an exec, coverage=1): pc_on's bits are
 * never cleared.
 */
#define PC_ON_OFS	4	/* offsetof(struct ukcov_sancov_hot, pc_on) */
#define T_AREA_OFS	0	/* offsetof(struct ukcov_thread, ...) */
#define T_CAP_OFS	16
#define T_DROPS_OFS	32
#define T_BITS_OFS	40
#define T_KEYS_OFS	48
#define T_SHIFT_OFS	64
#define T_DIRECT_OFS	72
#define T_LO_OFS	80
#define T_DW_OFS	88
#define UNIQ_MUL_ASM	0x9e3779b97f4a7c15	/* UNIQ_MUL, for the asm */
_Static_assert(offsetof(struct ukcov_sancov_hot, pc_on) == PC_ON_OFS, "pc_on");
_Static_assert(offsetof(struct ukcov_thread, pc_area) == T_AREA_OFS, "pc_area");
_Static_assert(offsetof(struct ukcov_thread, pc_cap) == T_CAP_OFS, "pc_cap");
_Static_assert(offsetof(struct ukcov_thread, drops) == T_DROPS_OFS, "drops");
_Static_assert(offsetof(struct ukcov_thread, uniq_bits) == T_BITS_OFS, "bits");
_Static_assert(offsetof(struct ukcov_thread, uniq_keys) == T_KEYS_OFS, "keys");
_Static_assert(offsetof(struct ukcov_thread, uniq_shift) == T_SHIFT_OFS,
	       "uniq_shift");
_Static_assert(UNIQ_MUL_ASM == UNIQ_MUL, "the hash of uniq_pc_slot");
_Static_assert(offsetof(struct ukcov_thread, uniq_direct) == T_DIRECT_OFS,
	       "uniq_direct");
_Static_assert(offsetof(struct ukcov_thread, uniq_lo6) == T_LO_OFS, "lo6");
_Static_assert(offsetof(struct ukcov_thread, uniq_dwords) == T_DW_OFS,
	       "uniq_dwords");
_Static_assert(UKCOV_SANCOV_KCOV == 2, "the PC callback's KCOV word");
#define STR_(x) #x
#define STR(x) STR_(x)
/* A gate's address, for gate_open(): a pointer named var to the label. */
#define GATE_ADDR(var, label)						\
	"	.pushsection .data.rel.ro, \"aw\"\n"				\
	"	.p2align 3\n"							\
	#var ":\n"							\
	"	.quad	" #label "\n"						\
	"	.popsection\n"
__asm__(
	"	.text\n"
	"	.p2align 6\n"
	"	.globl	__sanitizer_cov_trace_pc\n"
	"	.type	__sanitizer_cov_trace_pc, @function\n"
	"__sanitizer_cov_trace_pc:\n"
	"	.cfi_startproc\n"
	"	movq	__ukcov_sancov@GOTPCREL(%rip), %rax\n"
	"	movl	" STR(PC_ON_OFS) "(%rax), %edi\n"
	"	testl	%edi, %edi\n"
	".Lukcov_pc_gate:\n"
	"	jne	1f\n"			/* 75 01 */
	"	ret\n"				/* c3: off */
	"1:	movq	(%rsp), %rsi\n"
	"	cmpl	$2, %edi\n"		/* UKCOV_SANCOV_KCOV alone? */
	"	jne	trace_pc_process\n"
	"	movq	__ukcov_thread@GOTTPOFF(%rip), %rax\n"
	"	movq	%fs:" STR(T_BITS_OFS) "(%rax), %rdx\n"
	"	testq	%rdx, %rdx\n"
	"	je	2f\n"			/* a plain trace */
	"	movq	%rsi, %rcx\n"
	"	shrq	$6, %rcx\n"
	"	subq	%fs:" STR(T_LO_OFS) "(%rax), %rcx\n"
	"	cmpq	%fs:" STR(T_DW_OFS) "(%rax), %rcx\n"
	"	jae	5f\n"			/* hashed */
	"	movq	%fs:" STR(T_DIRECT_OFS) "(%rax), %rdx\n"
	"	movq	(%rdx,%rcx,8), %rdx\n"
	"	btq	%rsi, %rdx\n"
	"	jnc	trace_pc_kcov_slow\n"	/* new */
	"	ret\n"				/* seen */
	/* Hashed (unique_hot.h, uniq_pc_slot and uniq_seen_at): slot i,
	 * seen if its bit is set and its key is this PC; %rdx still holds
	 * the bitmap of the slots. */
	"5:	movl	%fs:" STR(T_SHIFT_OFS) "(%rax), %ecx\n"
	"	movabsq	$" STR(UNIQ_MUL_ASM) ", %r8\n"
	"	imulq	%rsi, %r8\n"
	"	shrq	%cl, %r8\n"
	"	movq	%r8, %rcx\n"
	"	shrq	$6, %rcx\n"
	"	movq	(%rdx,%rcx,8), %rcx\n"
	"	btq	%r8, %rcx\n"
	"	jnc	trace_pc_kcov_slow\n"
	"	movq	%fs:" STR(T_KEYS_OFS) "(%rax), %rdx\n"
	"	cmpq	%rsi, (%rdx,%r8,8)\n"
	"	jne	trace_pc_kcov_slow\n"
	"	ret\n"
	"2:	movq	%fs:" STR(T_AREA_OFS) "(%rax), %rdx\n"
	"	testq	%rdx, %rdx\n"
	"	je	3f\n"
	"	movq	(%rdx), %rcx\n"
	"	cmpq	%fs:" STR(T_CAP_OFS) "(%rax), %rcx\n"
	"	jae	4f\n"
	"	addq	$1, %rcx\n"
	"	movq	%rsi, (%rdx,%rcx,8)\n"
	"	movq	%rcx, (%rdx)\n"
	"3:	ret\n"
	"4:	movq	%fs:" STR(T_DROPS_OFS) "(%rax), %rdx\n"
	"	addq	$1, (%rdx)\n"		/* full: count_drop */
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	__sanitizer_cov_trace_pc, .-__sanitizer_cov_trace_pc\n"
	GATE_ADDR(pc_gate_addr, .Lukcov_pc_gate));
extern __attribute__((visibility("hidden"))) unsigned char *const
	pc_gate_addr;	/* local to this object (the asm above) */
#else
/*
 * The layout of every callback (docs/PERFORMANCE.md, "Tracing-off
 * layout"): nothing enabled is the fall-through into "ret".  Like the
 * guard callback, trace_pc reads the process-wide word first (one load,
 * one compare): coverage=1 must see the PCs of threads the runtime
 * never armed.  A thread that traces through a kcov descriptor has set
 * the KCOV bit (ukcov__thread_rearm_hot); mode variants (unique) are
 * tested first on their bitmap pointer (kcov_pc).
 */
CALLBACK void __sanitizer_cov_trace_pc(void)
{
	uint32_t on = __atomic_load_n(&__ukcov_sancov.pc_on, __ATOMIC_RELAXED);

	if (likely(on == 0))	/* off: the fall-through return */
		return;
	if (likely(on == UKCOV_SANCOV_KCOV))
		kcov_pc(RET_IP());
	else
		trace_pc_process(on, RET_IP());
}
#endif

/*
 * clang's trace-pc-guard: one call per edge with the edge's guard,
 * which __sanitizer_cov_trace_pc_guard_init numbered 1..N across the
 * process (lib/sancov.c).  With nothing enabled this is one global load
 * and one compare: the process-wide word says whether coverage=1 keeps
 * PCs and whether any thread of the process has ever traced PCs
 * through a kcov descriptor; only then is the TLS area looked at.  A
 * guard the program set to 0 is off, as in compiler-rt
 * (sanitizer_coverage_libcdep_new.cpp, __sanitizer_cov_trace_pc_guard).
 * Shape and cost: docs/DESIGN.md, "The hot path".
 */
/*
 * Unique mode: bit g is guard g (KCOV_UNIQUE_ENABLE).  While the
 * thread's bitmap holds only guards at their own numbers (uniq_gmax,
 * lib/unique.c) the bit alone decides, as in the Linux proposal; the
 * PC still goes into slot g, so the key check finds it if trust is
 * lost later.  Otherwise the probe starts at slot g and compares keys.
 */
static inline __attribute__((always_inline)) void
guard_unique(struct ukcov_thread *t, uint64_t *area, uint32_t g, uint64_t pc)
{
	uint64_t i;

	if (likely(g <= t->uniq_gmax)) {
		if (uniq_take_bit(t->uniq_bits, g)) {
			t->uniq_keys[g] = pc;
			pc_record(t, area, pc);
		}
		return;
	}
	i = uniq_guard_slot(t, g, pc);
	if (!uniq_seen_at(t, pc, i))
		trace_pc_unique(t, area, pc, i);
}

/* Guard g's edge into this thread's PC area. */
static inline __attribute__((always_inline)) void
guard_kcov_hit(struct ukcov_thread *t, uint64_t *area, uint32_t g, uint64_t pc)
{
	if (t->uniq_bits != NULL)
		guard_unique(t, area, g, pc);
	else
		pc_record(t, area, pc);
}

static inline __attribute__((always_inline)) void
guard_hit(const uint32_t *guard, uint32_t on, uint64_t pc)
{
	uint32_t g = *guard;

	if (unlikely(g == 0))
		return;
	if (unlikely(on & UKCOV_SANCOV_TRACE))	/* coverage_trace_bb */
		__ukcov_sancov_trace_event(UKCOV_PREV_PC(pc));
	if (on & UKCOV_SANCOV_PCS) {
		/* The first hit's point, as compiler-rt keeps it.  Racing
		 * threads store the same value. */
		uint64_t *slot = &__ukcov_sancov.guard_pcs[g];

		if (__atomic_load_n(slot, __ATOMIC_RELAXED) == 0)
			__atomic_store_n(slot, UKCOV_PREV_PC(pc),
					 __ATOMIC_RELAXED);
	}
	if (unlikely(on & UKCOV_SANCOV_CNT)) {
		uint8_t *c = &__ukcov_sancov.counters[g];

		if (*c != 255)
			*c = (uint8_t)(*c + 1);
	}
	if (on & UKCOV_SANCOV_KCOV) {
		struct ukcov_thread *t = &__ukcov_thread;
		uint64_t *area = __atomic_load_n(&t->pc_area, __ATOMIC_RELAXED);

		if (area != NULL)
			guard_kcov_hit(t, area, g, pc);
	}
}

/* A new guard in trusted unique mode: its bit, its key, its record. */
static __attribute__((noinline)) void
guard_unique_claim(struct ukcov_thread *t, uint64_t *bits, uint32_t g,
		   uint64_t pc)
{
	uint64_t *area = __atomic_load_n(&t->pc_area, __ATOMIC_RELAXED);

	if (area == NULL)	/* a handler disabled us since uniq_gmax */
		return;
	bits[g >> 6] |= (uint64_t)1 << (g & 63);
	t->uniq_keys[g] = pc;
	pc_record(t, area, pc);
}

/* Every other guard edge into a kcov buffer. */
static __attribute__((noinline)) void
guard_kcov_slow(struct ukcov_thread *t, uint32_t g, uint64_t pc)
{
	uint64_t *area = __atomic_load_n(&t->pc_area, __ATOMIC_RELAXED);

	if (area != NULL && g != 0)
		guard_kcov_hit(t, area, g, pc);
}

/* Any mix of bits but KCOV alone or PCS alone (counters, direct, both
 * consumers at once, or none). */
static __attribute__((noinline)) void
guard_mixed(const uint32_t *guard, uint32_t on, uint64_t pc)
{
	guard_hit(guard, on, pc);
}

/*
 * Every word but coverage=1 alone, entered by a tail jump from the
 * callback (the return address is still the edge's; "used": the x86-64
 * callback is assembly).  Guard edges into a kcov buffer alone (the
 * word is exactly KCOV) first, and in it unique mode with a trusted
 * bitmap, the Linux proposal's case: uniq_gmax is 0 whenever this
 * thread does not trace (ukcov__thread_clear_hot clears it with the
 * area: signal handlers, disable) or must compare keys, and g - 1 wraps
 * for a zeroed guard, so one compare admits exactly the guards whose
 * bit alone decides.  A seen guard is then one TLS field, the guard,
 * and one bitmap word.
 */
static __attribute__((noinline, used)) void
guard_not_pcs(uint32_t *guard, uint32_t on)
{
	struct ukcov_thread *t = &__ukcov_thread;
	uint32_t g = *guard;

	if (likely(on == UKCOV_SANCOV_KCOV)) {
		uint64_t *bits = t->uniq_bits;

		if (likely(g - 1 < t->uniq_gmax) && likely(bits != NULL)) {
			if (likely(bits[g >> 6] >> (g & 63) & 1))
				return;			/* seen */
			guard_unique_claim(t, bits, g, RET_IP());
			return;
		}
		guard_kcov_slow(t, g, RET_IP());
		return;
	}
	guard_mixed(guard, on, RET_IP());
}

#if UKCOV_ASM_CALLBACKS
/*
 * The callback in assembly, for one byte sequence the gate below can
 * rewrite (docs/DESIGN.md, "The hot path"; docs/PERFORMANCE.md, "Guard
 * callbacks: T4 and U2"):
 *
 *   entry:  load __ukcov_sancov.on; test
 *   gate:   jne on; ret          nothing enabled: the fall-through ret
 *   on:     on != PCS alone: tail jump to guard_not_pcs (kcov, unique,
 *                                any other mix)
 *           slot = guard_pcs[*guard]; slot != 0: ret (seen)
 *           slot = return address - 1; ret
 *
 * With the gate closed (as built) the off path is one load and one
 * compare with "ret" as its fall-through (the layout rule of docs/PERFORMANCE.md,
 * "Tracing-off layout"), and an enabled
 * process takes the jne on every call.  On AMD Zen 5 that one taken
 * branch per edge cost 13% of a whole sqlite run under coverage=1
 * (1.13x compiler-rt's runtime, whose callback takes none).  A process
 * whose word is already non-zero when its constructors have run can
 * never be "off" again (KCOV is sticky, PCS lasts the process), so
 * gate_open() then turns "jne on; ret" into a 3-byte nop: the
 * enabled path falls through too.  Every path after the gate also
 * handles a word of 0 (guard_not_pcs records nothing then).
 */
#define GUARD_ON_OFS    0	/* offsetof(struct ukcov_sancov_hot, on) */
#define GUARD_PCS_OFS   16	/* offsetof(..., guard_pcs) */
_Static_assert(offsetof(struct ukcov_sancov_hot, on) == GUARD_ON_OFS,
	       "the guard callback's offset of on");
_Static_assert(offsetof(struct ukcov_sancov_hot, guard_pcs) == GUARD_PCS_OFS,
	       "the guard callback's offset of guard_pcs");
_Static_assert(UKCOV_SANCOV_PCS == 1, "the guard callback's PCS bit");
__asm__(
	"	.text\n"
	"	.p2align 6\n"
	"	.globl	__sanitizer_cov_trace_pc_guard\n"
	"	.type	__sanitizer_cov_trace_pc_guard, @function\n"
	"__sanitizer_cov_trace_pc_guard:\n"
	"	.cfi_startproc\n"
	"	movq	__ukcov_sancov@GOTPCREL(%rip), %rax\n"
	"	movl	" STR(GUARD_ON_OFS) "(%rax), %esi\n"
	"	testl	%esi, %esi\n"
	".Lukcov_guard_gate:\n"
	"	jne	1f\n"			/* 75 01 */
	"	ret\n"				/* c3: off */
	"1:	cmpl	$1, %esi\n"		/* UKCOV_SANCOV_PCS alone? */
	"	jne	guard_not_pcs\n"
	"	movl	(%rdi), %ecx\n"		/* guard number g */
	"	movq	" STR(GUARD_PCS_OFS) "(%rax), %rax\n"
	"	leaq	(%rax,%rcx,8), %rax\n"
	"	cmpq	$0, (%rax)\n"
	"	je	2f\n"
	"	ret\n"				/* seen: the common case */
	"2:	movq	(%rsp), %rdx\n"		/* first hit: PC - 1, as */
	"	subq	$1, %rdx\n"		/* compiler-rt keeps it */
	"	movq	%rdx, (%rax)\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	__sanitizer_cov_trace_pc_guard, .-__sanitizer_cov_trace_pc_guard\n"
	GATE_ADDR(guard_gate_addr, .Lukcov_guard_gate));
extern __attribute__((visibility("hidden"))) unsigned char *const
	guard_gate_addr;	/* local to this object (the asm above) */

/* The gate's files, opened and closed with raw system calls: libukcov
 * exports open and close (interpose.c), and this object also goes alone
 * into libukcov_cb.a, where the runtime's ukcov__real_* (hidden in
 * libukcov.so) are out of reach. */
static int gate_file_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags);
}

static void gate_file_close(int fd)
{
	(void)syscall(SYS_close, fd);
}

/* Is this the only thread of the process?  Field 20 of /proc/self/stat
 * (proc(5)), counted after the ')' that ends the command name. */
static int single_threaded(void)
{
	char buf[1024];
	ssize_t n;
	const char *p;
	int fd = gate_file_open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	int field = 2;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	gate_file_close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (; p && *p && field < 20; p++)
		field += *p == ' ';
	return p && field == 20 && strtol(p, NULL, 10) == 1;
}

/*
 * Open the gate: rewrite "jne on; ret" as a nop through /proc/self/mem
 * (which writes a private copy of the text page, as a debugger's
 * breakpoint does), so that the text mapping never becomes writable.
 * Only while this is the only thread, so no one executes the bytes as
 * they change.  Any failure (a kernel with proc_mem.force_override=never,
 * no /proc, a seccomp policy) leaves the gate closed: the callback is
 * the same, one taken branch slower.
 */
static void gate_open(unsigned char *gate)
{
	static const unsigned char closed[3] = { 0x75, 0x01, 0xc3 };
	static const unsigned char open_[3] = { 0x0f, 0x1f, 0x00 };
	int fd;

	if (memcmp(gate, closed, sizeof(closed)) != 0 || !single_threaded())
		return;
	fd = gate_file_open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pwrite(fd, open_, sizeof(open_), (off_t)(uintptr_t)gate) !=
	    (ssize_t)sizeof(open_))
		(void)0;	/* closed still: correct, a branch slower */
	gate_file_close(fd);
}

/* Open a callback's gate if its word is on and the user did not ask
 * to keep it closed (env=closed). */
static void gate_open_if(unsigned char *gate, const uint32_t *word,
			 const char *env)
{
	const char *v = ukcov__env(env);

	if (__atomic_load_n(word, __ATOMIC_RELAXED) != 0 &&
	    !(v && strcmp(v, "closed") == 0))
		gate_open(gate);
}

/* After the runtime's constructor (priority 101: coverage options,
 * exec takeover) and the instrumented modules' init calls.  Each copy
 * of this object (libukcov.a, libukcov_cb.a in the executable,
 * libukcov.so.0) opens its own gate.  UKCOV_GUARD_GATE=closed keeps it
 * closed (the tests compare both). */
__attribute__((constructor(102))) static void gates_at_start(void)
{
	gate_open_if(guard_gate_addr, &__ukcov_sancov.on, "UKCOV_GUARD_GATE");
	gate_open_if(pc_gate_addr, &__ukcov_sancov.pc_on, "UKCOV_PC_GATE");
}
#else
CALLBACK void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	uint32_t on = __atomic_load_n(&__ukcov_sancov.on, __ATOMIC_RELAXED);

	if (likely(on == 0))	/* off: the fall-through return */
		return;
	/* coverage=1 alone, the common case, as compiler-rt does it: the
	 * guard's slot, stored once.  A guard zeroed by the program writes
	 * slot 0, which no file reads (direct mode sets another bit and
	 * takes guard_hit). */
	if (likely(on == UKCOV_SANCOV_PCS)) {
		uint64_t *slot = &__ukcov_sancov.guard_pcs[*guard];

		if (likely(__atomic_load_n(slot, __ATOMIC_RELAXED) != 0))
			return;
		__atomic_store_n(slot, UKCOV_PREV_PC(RET_IP()),
				 __ATOMIC_RELAXED);
		return;
	}
	/* Out of line, with the edge's PC as an argument: inlined, the
	 * slow path's register saves would come before the off test (gcc
	 * 12 pushes four), and off would no longer be a fall-through. */
	guard_mixed(guard, on, RET_IP());
}
#endif

/* The module constructors' init calls.  They live here, next to the
 * callbacks, so that linking the callbacks also overrides the weak
 * versions of clang's ubsan runtime; the work is in lib/sancov.c. */
UKCOV_EXPORT void __sanitizer_cov_trace_pc_guard_init(uint32_t *start,
						      uint32_t *stop)
{
	__ukcov_sancov_guard_init(start, stop);
}

UKCOV_EXPORT void __sanitizer_cov_8bit_counters_init(char *start, char *end)
{
	__ukcov_sancov_region_init(UKCOV_REGION_COUNTERS, start, end);
}

UKCOV_EXPORT void __sanitizer_cov_bool_flag_init(_Bool *start, _Bool *end)
{
	__ukcov_sancov_region_init(UKCOV_REGION_BOOLS, start, end);
}

UKCOV_EXPORT void __sanitizer_cov_pcs_init(const uintptr_t *beg,
					   const uintptr_t *end)
{
	__ukcov_sancov_region_init(UKCOV_REGION_PCS, beg, end);
}

/* One {type, arg1, arg2, pc} record; 4 x u64 as in every kernel. */
static inline __attribute__((always_inline)) void
cmp_record(struct ukcov_thread *t, uint64_t *area, uint64_t type,
	   uint64_t arg1, uint64_t arg2, uint64_t pc)
{
	uint64_t n = __atomic_load_n(&area[0], __ATOMIC_RELAXED);
	uint64_t *rec;

	if (unlikely(n >= t->cmp_cap)) {
		count_drop(t, 1);
		return;
	}
	rec = &area[1 + n * 4];
	rec[0] = type;
	rec[1] = arg1;
	rec[2] = arg2;
	rec[3] = pc;
	__atomic_store_n(&area[0], n + 1, __ATOMIC_RELEASE);
}

/* Unique CMP: is the trace after the bitmap full?  Then every record
 * is dropped and counted without a lookup, as the CMP trace drops
 * whatever comes once its buffer is full, until the user's reset zeroes
 * the count (docs/DESIGN.md, "Unique coverage": comparisons are mostly
 * distinct, so the lookup of each one in a full table cost 4.6-57x the
 * CMP trace).  The count word is the user's: read once, bounded by the
 * runtime's capacity. */
static inline __attribute__((always_inline)) int
uniq_trace_full(const struct ukcov_thread *t, const uint64_t *area)
{
	return __atomic_load_n(&area[0], __ATOMIC_RELAXED) >= t->cmp_cap;
}

/* Append the record unless this thread saw it since the last reset.
 * The operands come first, in the registers the callbacks received them
 * in (see trace_switch_records). */
static __attribute__((noinline)) void
trace_cmp_unique(uint64_t arg1, uint64_t arg2, struct ukcov_thread *t,
		 uint64_t *area, uint64_t type, uint64_t pc)
{
	int r;

	if (uniq_trace_full(t, area)) {
		count_drop(t, 1);
		return;
	}
	r = uniq_claim_cmp(t, type, arg1, arg2, pc);

	if (r == UNIQ_NEW)
		cmp_record(t, area, type, arg1, arg2, pc);
	else if (r == UNIQ_FULL)
		count_drop(t, 1);
}

/* Tracing is on: unique mode (lib/unique.c) or a plain append. */
static inline __attribute__((always_inline)) void
trace_cmp_on(struct ukcov_thread *t, uint64_t *area, uint64_t type,
	     uint64_t arg1, uint64_t arg2, uint64_t pc)
{
	if (unlikely(t->uniq_bits != NULL)) {	/* see trace_pc */
		trace_cmp_unique(arg1, arg2, t, area, type, pc);
		return;
	}
	cmp_record(t, area, type, arg1, arg2, pc);
}

/*
 * The body of every cmp callback.  A macro rather than a function so
 * that the return address and the operands are computed in the
 * callback itself and after the test: as a function argument gcc loads
 * the return address before the test, one more load on the off path.
 */
#define TRACE_CMP(type, arg1, arg2) do {				\
	struct ukcov_thread *t_ = &__ukcov_thread;			\
	uint64_t *area_ = __atomic_load_n(&t_->cmp_area, __ATOMIC_RELAXED); \
									\
	if (likely(area_ == NULL))	/* off: the fall-through */	\
		return;							\
	trace_cmp_on(t_, area_, (type), (arg1), (arg2), RET_IP());	\
} while (0)

#define SZ(log2) KCOV_CMP_SIZE(log2)
#define CONST KCOV_CMP_CONST

CALLBACK void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b)
{
	TRACE_CMP(SZ(0), a, b);
}

CALLBACK void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b)
{
	TRACE_CMP(SZ(1), a, b);
}

CALLBACK void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b)
{
	TRACE_CMP(SZ(2), a, b);
}

CALLBACK void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b)
{
	TRACE_CMP(SZ(3), a, b);
}

/* Both compilers pass the compile-time constant first (clang
 * SanitizerCoverage.rst; gcc sancov.cc); the kernels record it as arg1. */
CALLBACK void __sanitizer_cov_trace_const_cmp1(uint8_t c, uint8_t v)
{
	TRACE_CMP(SZ(0) | CONST, c, v);
}

CALLBACK void __sanitizer_cov_trace_const_cmp2(uint16_t c, uint16_t v)
{
	TRACE_CMP(SZ(1) | CONST, c, v);
}

CALLBACK void __sanitizer_cov_trace_const_cmp4(uint32_t c, uint32_t v)
{
	TRACE_CMP(SZ(2) | CONST, c, v);
}

CALLBACK void __sanitizer_cov_trace_const_cmp8(uint64_t c, uint64_t v)
{
	TRACE_CMP(SZ(3) | CONST, c, v);
}

/*
 * gcc only: floating-point compares.  No kernel has these; the record
 * carries the operands' bit patterns with the size of the type.  The
 * operands arrive in SSE registers: their conversion to bit patterns
 * happens out of line, after the test, or gcc would hoist it onto the
 * off path.
 */
static __attribute__((noinline)) void
trace_cmpf_on(struct ukcov_thread *t, uint64_t *area, float a, float b,
	      uint64_t pc)
{
	uint32_t x, y;

	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	trace_cmp_on(t, area, SZ(2), x, y, pc);
}

static __attribute__((noinline)) void
trace_cmpd_on(struct ukcov_thread *t, uint64_t *area, double a, double b,
	      uint64_t pc)
{
	uint64_t x, y;

	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	trace_cmp_on(t, area, SZ(3), x, y, pc);
}

/* Like TRACE_CMP, with the out-of-line recording of floating operands. */
#define TRACE_CMP_FP(on, a, b) do {					\
	struct ukcov_thread *t_ = &__ukcov_thread;			\
	uint64_t *area_ = __atomic_load_n(&t_->cmp_area, __ATOMIC_RELAXED); \
									\
	if (likely(area_ == NULL))	/* off: the fall-through */	\
		return;							\
	on(t_, area_, (a), (b), RET_IP());				\
} while (0)

CALLBACK void __sanitizer_cov_trace_cmpf(float a, float b)
{
	TRACE_CMP_FP(trace_cmpf_on, a, b);
}

CALLBACK void __sanitizer_cov_trace_cmpd(double a, double b)
{
	TRACE_CMP_FP(trace_cmpd_on, a, b);
}

/*
 * cases[0] = number of case values, cases[1] = width in bits, then the
 * values.  One CONST record per case {case value, val}, as Linux does.
 * gcc sign-extends narrow values and clang zero-extends them; both are
 * truncated to the switch's width here so that the records of both
 * compilers agree with each other and with the cmpN callbacks
 * (docs/DESIGN.md, "Deliberate differences").  A width other than
 * 8/16/32/64 is ignored, as in Linux.  val and cases come first, in the
 * registers the callback received them in, so that no move precedes
 * the callback's test.
 */
static __attribute__((noinline)) void
trace_switch_records(uint64_t val, const uint64_t *cases,
		     struct ukcov_thread *t, uint64_t *area, uint64_t pc)
{
	uint64_t type, mask, i, n, room, k;

	switch (cases[1]) {
	case 8:  type = SZ(0) | CONST; mask = 0xffULL; break;
	case 16: type = SZ(1) | CONST; mask = 0xffffULL; break;
	case 32: type = SZ(2) | CONST; mask = 0xffffffffULL; break;
	case 64: type = SZ(3) | CONST; mask = ~0ULL; break;
	default: return;
	}
	if (unlikely(t->uniq_bits != NULL)) {
		/* Unique CMP mode: each case is its own {type, case, val, pc}
		 * record, kept or not on its own. */
		for (i = 0; i < cases[0]; i++) {
			uint64_t c = cases[i + 2] & mask;
			int r;

			if (uniq_trace_full(t, area)) {
				count_drop(t, cases[0] - i);
				return;
			}
			r = uniq_claim_cmp(t, type, c, val & mask, pc);

			if (r == UNIQ_NEW)
				cmp_record(t, area, type, c, val & mask, pc);
			else if (r == UNIQ_FULL)
				count_drop(t, 1);
		}
		return;
	}
	/* Measure the room once: the records that fit are written and
	 * published together, the rest are counted as dropped in one go
	 * (a full buffer would otherwise pay a drop per case). */
	n = __atomic_load_n(&area[0], __ATOMIC_RELAXED);
	room = n < t->cmp_cap ? t->cmp_cap - n : 0;
	k = cases[0] < room ? cases[0] : room;
	for (i = 0; i < k; i++) {
		uint64_t *rec = &area[1 + (n + i) * 4];

		rec[0] = type;
		rec[1] = cases[i + 2] & mask;
		rec[2] = val & mask;
		rec[3] = pc;
	}
	if (k)
		__atomic_store_n(&area[0], n + k, __ATOMIC_RELEASE);
	if (cases[0] > k)
		count_drop(t, cases[0] - k);
}

CALLBACK void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases)
{
	struct ukcov_thread *t = &__ukcov_thread;
	uint64_t *area = __atomic_load_n(&t->cmp_area, __ATOMIC_RELAXED);

	/* Check "tracing?" once, before the per-case loop: sqlite's VDBE
	 * switch has ~118 cases, and a per-case check cost 5.8x an empty
	 * callback against 3.3x (docs/PERFORMANCE.md).  The records are
	 * written out of line. */
	if (likely(area == NULL))
		return;
	trace_switch_records(val, cases, t, area, RET_IP());
}

/*
 * clang's trace-div and trace-gep.  No kernel records these; they go to
 * the comparison buffer the way libFuzzer reads them
 * (FuzzerTracePC.cpp: HandleCmp(PC, value, 0)): a CONST record
 * {0, value} of the operand's size.  docs/DESIGN.md, "Deliberate
 * differences".
 */
CALLBACK void __sanitizer_cov_trace_div4(uint32_t divisor)
{
	TRACE_CMP(SZ(2) | CONST, 0, divisor);
}

CALLBACK void __sanitizer_cov_trace_div8(uint64_t divisor)
{
	TRACE_CMP(SZ(3) | CONST, 0, divisor);
}

CALLBACK void __sanitizer_cov_trace_gep(uintptr_t idx)
{
	TRACE_CMP(SZ(3) | CONST, 0, idx);
}

/*
 * clang's trace-loads/trace-stores.  A kcov buffer has no record type
 * for an access address, and compiler-rt defines them as no-ops too:
 * they exist so that every build links, and cost a call and a return.
 */
#define NO_RECORD(name, type) \
	CALLBACK void name(type p) { (void)p; }
NO_RECORD(__sanitizer_cov_load1, uint8_t *)
NO_RECORD(__sanitizer_cov_load2, uint16_t *)
NO_RECORD(__sanitizer_cov_load4, uint32_t *)
NO_RECORD(__sanitizer_cov_load8, uint64_t *)
NO_RECORD(__sanitizer_cov_load16, __int128 *)
NO_RECORD(__sanitizer_cov_store1, uint8_t *)
NO_RECORD(__sanitizer_cov_store2, uint16_t *)
NO_RECORD(__sanitizer_cov_store4, uint32_t *)
NO_RECORD(__sanitizer_cov_store8, uint64_t *)
NO_RECORD(__sanitizer_cov_store16, __int128 *)

/*
 * clang's indirect-calls (with trace-pc or trace-pc-guard; gcc 12 has
 * no such option): called just before each indirect call with the
 * callee.  With coverage_caller_callee=1 the pair (this call site =
 * return address - 1, callee) joins the process's set
 * (lib/sancov_trace.c); otherwise one load and one compare.
 */
CALLBACK void __sanitizer_cov_trace_pc_indir(uintptr_t callee)
{
	if (likely(__atomic_load_n(&__ukcov_sancov.indir_on,
				   __ATOMIC_RELAXED) == 0))
		return;
	__ukcov_sancov_indir_pair(UKCOV_PREV_PC(RET_IP()), callee);
}

/* The PC and guard callbacks as the program's code calls them (the
 * copy linked into the executable), for lib/afl.c to count the calls:
 * the runtime names this table, never a callback. */
UKCOV_EXPORT const struct ukcov_point_callbacks __ukcov_point_callbacks = {
	.trace_pc = __sanitizer_cov_trace_pc,
	.trace_pc_guard = __sanitizer_cov_trace_pc_guard,
};

/*
 * The recording half of a point instrumented inline by ukcov's compiler
 * plugins (include/ukcov/inline.h, docs/DESIGN.md "Inline
 * instrumentation"): the inline code tested the word
 * __sanitizer_cov_trace_pc tests first and found it non-zero; this is
 * the rest of that callback with the point's PC for its return address.
 * Here, beside the callback, so that both share one definition of a
 * record and the executable calls it directly (libukcov_cb.a), never
 * through the PLT.
 */
_Static_assert(offsetof(struct ukcov_sancov_hot, pc_on) == UKCOV_INLINE_ON_OFS,
	       "the inline word of include/ukcov/inline.h");
static __attribute__((noinline, used)) void inline_pc_record(uint64_t pc)
{
	uint32_t on = __atomic_load_n(&__ukcov_sancov.pc_on, __ATOMIC_RELAXED);

	if (likely(on == UKCOV_SANCOV_KCOV))
		kcov_pc(pc);
	else if (on != 0)
		trace_pc_process(on, pc);
}

#if defined(__x86_64__) && defined(__ELF__)
/*
 * UKCOV_SCRIBBLE_VECTORS=1, for tests: the C half of an inline point
 * sets xmm0-15 to all ones before it does anything, as any C function
 * it runs may change them.  The cold paths must keep the caller's
 * vector registers all the same (clang's call saves those it needs
 * around it, gcc's entry saves the whole vector state; tests/core,
 * unique.keeps_registers).  Read once, before the constructors of
 * ordinary priority.
 */
static int scribble_vectors;

__attribute__((constructor(102))) static void scribble_at_start(void)
{
	const char *v = ukcov__env("UKCOV_SCRIBBLE_VECTORS");

	scribble_vectors = v != NULL && strcmp(v, "1") == 0;
}

static __attribute__((noinline)) void scribble_vector_registers(void)
{
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\t"
			 "pcmpeqd %%xmm1, %%xmm1\n\t"
			 "pcmpeqd %%xmm2, %%xmm2\n\t"
			 "pcmpeqd %%xmm3, %%xmm3\n\t"
			 "pcmpeqd %%xmm4, %%xmm4\n\t"
			 "pcmpeqd %%xmm5, %%xmm5\n\t"
			 "pcmpeqd %%xmm6, %%xmm6\n\t"
			 "pcmpeqd %%xmm7, %%xmm7\n\t"
			 "pcmpeqd %%xmm8, %%xmm8\n\t"
			 "pcmpeqd %%xmm9, %%xmm9\n\t"
			 "pcmpeqd %%xmm10, %%xmm10\n\t"
			 "pcmpeqd %%xmm11, %%xmm11\n\t"
			 "pcmpeqd %%xmm12, %%xmm12\n\t"
			 "pcmpeqd %%xmm13, %%xmm13\n\t"
			 "pcmpeqd %%xmm14, %%xmm14\n\t"
			 "pcmpeqd %%xmm15, %%xmm15"
			 :
			 :
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15");
}
#endif

/*
 * ABI 2: point k of the TU whose offset is *tu found its bit clear in
 * the thread's map (lib/imap.c).  A numbered point is guard tu * 8 + k
 * with return address pc; a point of a TU not numbered yet is a
 * trace_pc with return address pc.
 */
static __attribute__((noinline, used)) void
inline_pc2_record(uint64_t pc, uint32_t k, const uint64_t *tu)
{
	uint64_t b = __atomic_load_n(tu, __ATOMIC_ACQUIRE);
	uint32_t on, g;

#if defined(__x86_64__) && defined(__ELF__)
	if (unlikely(scribble_vectors))
		scribble_vector_registers();
#endif
	if (b >= UKCOV_INLINE_UNREG) {
		inline_pc_record(pc);
		return;
	}
	on = __atomic_load_n(&__ukcov_sancov.on, __ATOMIC_RELAXED);
	g = (uint32_t)(b * 8) + k;
	if (on != 0)
		guard_hit(&g, on, pc);
}

#if defined(__x86_64__) && defined(__ELF__)
/*
 * The entry has LLVM's preserve_most convention (ABI 1): it keeps every
 * general register but r11, so an instrumented function keeps its
 * values in the caller-saved registers across the cold call, and its
 * hot path needs no frame for it.  gcc has no such attribute: the C
 * half is called with the registers the SysV ABI lets it clobber saved
 * here, on a stack aligned here: gcc's plugin calls from inside an asm
 * statement, where the stack may be 8 bytes off (a leaf function).
 *
 * The common cases return before the save, as in the callback's
 * assembly (above, with the same offsets), with two registers saved:
 * unique mode's point this thread saw since the reset, whose direct
 * bit is set, and a plain trace's append or drop (count_drop: only
 * this thread writes it); a new or hashed point and the process-wide
 * modes go to C.
 */
#define PUSH(r)	"	pushq	%" #r "\n	.cfi_adjust_cfa_offset 8\n"
#define POP(r)	"	popq	%" #r "\n	.cfi_adjust_cfa_offset -8\n"
#define SAVE(r)		"	pushq	%" #r "\n"	/* CFA on rbp */
#define RESTORE(r)	"	popq	%" #r "\n"
/* Around the C half: a frame on an aligned stack and every register
 * the SysV ABI lets C clobber but r11 (preserve_most). */
#define SAVE_CALLER_SAVED						\
	PUSH(rbp)							\
	"	.cfi_rel_offset %rbp, 0\n"				\
	"	movq	%rsp, %rbp\n"					\
	"	.cfi_def_cfa_register %rbp\n"				\
	"	andq	$-16, %rsp\n"					\
	SAVE(rax) SAVE(rcx) SAVE(rdx) SAVE(rsi)				\
	SAVE(rdi) SAVE(r8) SAVE(r9) SAVE(r10)
#define RESTORE_CALLER_SAVED						\
	RESTORE(r10) RESTORE(r9) RESTORE(r8) RESTORE(rdi)		\
	RESTORE(rsi) RESTORE(rdx) RESTORE(rcx) RESTORE(rax)		\
	"	movq	%rbp, %rsp\n"					\
	"	.cfi_def_cfa_register %rsp\n"				\
	POP(rbp)							\
	"	.cfi_restore %rbp\n"					\
	"	ret\n"
#if UKCOV_ASM_CALLBACKS
#define INLINE_SEEN_FAST_PATH						\
	PUSH(rax) PUSH(rcx)						\
	"	movq	__ukcov_sancov@GOTPCREL(%rip), %r11\n"		\
	"	cmpl	$2, " STR(PC_ON_OFS) "(%r11)\n"			\
	"	jne	1f\n"						\
	"	movq	__ukcov_thread@GOTTPOFF(%rip), %r11\n"		\
	"	movq	%fs:" STR(T_BITS_OFS) "(%r11), %rax\n"		\
	"	testq	%rax, %rax\n"					\
	"	je	2f\n"						\
	"	movq	%rdi, %rcx\n"					\
	"	shrq	$6, %rcx\n"					\
	"	subq	%fs:" STR(T_LO_OFS) "(%r11), %rcx\n"		\
	"	cmpq	%fs:" STR(T_DW_OFS) "(%r11), %rcx\n"		\
	"	jae	1f\n"						\
	"	movq	%fs:" STR(T_DIRECT_OFS) "(%r11), %rax\n"		\
	"	movq	(%rax,%rcx,8), %rax\n"				\
	"	btq	%rdi, %rax\n"					\
	"	jnc	1f\n"						\
	"3:\n"								\
	POP(rcx) POP(rax)						\
	"	ret\n"							\
	"	.cfi_adjust_cfa_offset 16\n"				\
	"2:	movq	%fs:" STR(T_AREA_OFS) "(%r11), %rax\n"		\
	"	testq	%rax, %rax\n"					\
	"	je	3b\n"						\
	"	movq	(%rax), %rcx\n"					\
	"	cmpq	%fs:" STR(T_CAP_OFS) "(%r11), %rcx\n"		\
	"	jae	4f\n"						\
	"	addq	$1, %rcx\n"					\
	"	movq	%rdi, (%rax,%rcx,8)\n"				\
	"	movq	%rcx, (%rax)\n"					\
	"	jmp	3b\n"						\
	"4:	movq	%fs:" STR(T_DROPS_OFS) "(%r11), %rax\n"		\
	"	addq	$1, (%rax)\n"					\
	"	jmp	3b\n"						\
	"1:\n"								\
	POP(rcx) POP(rax)
#else
#define INLINE_SEEN_FAST_PATH ""
#endif
__asm__(
	"	.text\n"
	"	.p2align 4\n"
	"	.globl	__ukcov_inline_pc_v1\n"
	"	.type	__ukcov_inline_pc_v1, @function\n"
	"__ukcov_inline_pc_v1:\n"
	"	.cfi_startproc\n"
	INLINE_SEEN_FAST_PATH
	SAVE_CALLER_SAVED
	"	call	inline_pc_record\n"
	RESTORE_CALLER_SAVED
	"	.cfi_endproc\n"
	"	.size	__ukcov_inline_pc_v1, .-__ukcov_inline_pc_v1\n");
#undef INLINE_SEEN_FAST_PATH

/*
 * The entry: pc in rdi, k in esi, tu in r11; keeps every register but
 * r11.  Its own path is a plain trace's append or drop (the word is
 * the guards' KCOV alone, the thread has no bitmap: the zero map sends
 * every point here), as the callback's, with rax saved and r11 (tu,
 * which a plain trace does not need) for the area; everything else
 * is C.
 */
#define ON_OFS	0	/* offsetof(struct ukcov_sancov_hot, on) */
_Static_assert(offsetof(struct ukcov_sancov_hot, on) == ON_OFS, "on");
/* One instruction a line, as the assembler reads it. */
/* clang-format off */
#if UKCOV_ASM_CALLBACKS
/*
 * A plain trace's append or drop, as both inline entries take it, with
 * rax saved: its checks use rax alone, so a word or thread with
 * anything else to do goes on after label 1 with rax restored and
 * rdi, rsi and r11 as the entry got them.  Past the checks tu is not
 * needed: the area goes in r11, rax takes the capacity and then the
 * slot's number, and a drop loads the TLS offset again rather than
 * keep it in a register that would need a save on every record.  Each
 * way out restores rax and leaves by RETURN itself: a drop takes one
 * branch, not two (on Intel taken branches are what a drop costs;
 * docs/PERFORMANCE.md, "The callback PC trace on Intel").
 */
#define INLINE2_TRACE(RETURN)						\
	PUSH(rax)							\
	"	movq	__ukcov_sancov@GOTPCREL(%rip), %rax\n"		\
	"	cmpl	$2, " STR(ON_OFS) "(%rax)\n"			\
	"	jne	1f\n"						\
	"	movq	__ukcov_thread@GOTTPOFF(%rip), %rax\n"		\
	"	cmpq	$0, %fs:" STR(T_BITS_OFS) "(%rax)\n"		\
	"	jne	1f\n"						\
	"	movq	%fs:" STR(T_AREA_OFS) "(%rax), %r11\n"		\
	"	testq	%r11, %r11\n"					\
	"	je	3f\n"						\
	"	movq	%fs:" STR(T_CAP_OFS) "(%rax), %rax\n"		\
	"	cmpq	%rax, (%r11)\n"					\
	"	jae	4f\n"						\
	"	movq	(%r11), %rax\n"					\
	"	addq	$1, %rax\n"					\
	"	movq	%rdi, (%r11,%rax,8)\n"				\
	"	movq	%rax, (%r11)\n"					\
	"3:\n"								\
	POP(rax)							\
	RETURN								\
	"	.cfi_adjust_cfa_offset 8\n"				\
	"4:	movq	__ukcov_thread@GOTTPOFF(%rip), %rax\n"		\
	"	movq	%fs:" STR(T_DROPS_OFS) "(%rax), %rax\n"		\
	"	addq	$1, (%rax)\n"					\
	POP(rax)							\
	RETURN								\
	"	.cfi_adjust_cfa_offset 8\n"				\
	"1:\n"								\
	POP(rax)
#define INLINE2_TRACE_FAST_PATH						\
	INLINE2_TRACE("	ret\n")
#else
#define INLINE2_TRACE_FAST_PATH ""
#endif
/* clang-format on */
__asm__(
	"	.text\n"
	"	.p2align 4\n"
	"	.globl	__ukcov_inline_pc_v2\n"
	"	.type	__ukcov_inline_pc_v2, @function\n"
	"__ukcov_inline_pc_v2:\n"
	"	.cfi_startproc\n"
	INLINE2_TRACE_FAST_PATH
	SAVE_CALLER_SAVED
	"	movq	%r11, %rdx\n"
	"	call	inline_pc2_record\n"
	RESTORE_CALLER_SAVED
	"	.cfi_endproc\n"
	"	.size	__ukcov_inline_pc_v2, .-__ukcov_inline_pc_v2\n");
#undef INLINE2_TRACE_FAST_PATH

/*
 * The gcc plugin's entry (plugins/gcc): its cold path skipped the red
 * zone and pushed rdi and rsi before setting them to the PC and k and
 * calling its thunk, which puts &tu in r11 and jumps here.  So rsi and
 * r11 are free once k and tu are no longer needed (a plain trace's
 * append or drop, the path every point takes while a thread traces
 * PCs), and the return restores rdi and rsi and steps back over them
 * and the red zone (8 + 8 + 128 bytes), as the thunk's own code did
 * after a call to __ukcov_inline_pc_v2: one call and one save fewer a
 * record.  coverage=1 and its counters are done here too.  Everything
 * else goes to that entry, with rdi, esi and r11 as it wants them, and
 * with the vector state saved around it: gcc's asm says it clobbers
 * r11 and the flags only, and the C half behind that entry may change
 * any vector register (docs/DESIGN.md, "Inline instrumentation").
 */
/* One instruction a line, as the assembler reads it. */
/* clang-format off */
#define GCC_RETURN							\
	"	movq	8(%rsp), %rsi\n"				\
	"	movq	16(%rsp), %rdi\n"				\
	"	ret	$144\n"
#define INLINE_UNREG_ASM 0x3e0000	/* UKCOV_INLINE_UNREG, for the asm */
_Static_assert(INLINE_UNREG_ASM == UKCOV_INLINE_UNREG,
	       "the window of TUs not numbered yet");
/* The vector state the C half may change (see above): XSAVE's x87,
 * SSE, AVX, opmask, ZMM_Hi256 and Hi16_ZMM components (Intel SDM
 * vol. 1, 13.1), as much of it as the OS enabled.  XRSTOR of the
 * standard form needs the header's bytes after XSTATE_BV zero. */
#define VSTATE_MASK	"0xe7"
#define XSAVE_HEADER_CLEAR						\
	"	movq	%rdx, 512(%rsp)\n"				\
	"	movq	%rdx, 520(%rsp)\n"				\
	"	movq	%rdx, 528(%rsp)\n"				\
	"	movq	%rdx, 536(%rsp)\n"				\
	"	movq	%rdx, 544(%rsp)\n"				\
	"	movq	%rdx, 552(%rsp)\n"				\
	"	movq	%rdx, 560(%rsp)\n"				\
	"	movq	%rdx, 568(%rsp)\n"
#if UKCOV_ASM_CALLBACKS
#define INLINE2_GCC_TRACE_FAST_PATH					\
	INLINE2_TRACE(GCC_RETURN)
/*
 * coverage=1 and its counters (the word has no other bit), as
 * guard_hit does them: the guard's count, saturating, and its slot, set
 * by the first hit to the point (the guard callback's assembly does
 * that too).  Every point comes here in those modes (lib/imap.c), so
 * none may pay the vector state's save below.  A TU not numbered yet
 * goes to C.
 */
#define GUARD_CNT_OFS	32	/* offsetof(..., counters) */
_Static_assert(offsetof(struct ukcov_sancov_hot, counters) == GUARD_CNT_OFS,
	       "the gcc entry's offset of counters");
_Static_assert(UKCOV_SANCOV_CNT == 8, "the gcc entry's CNT bit");
#define INLINE2_GCC_PCS_FAST_PATH					\
	PUSH(rax) PUSH(rcx) PUSH(rdx)					\
	"	movq	__ukcov_sancov@GOTPCREL(%rip), %rax\n"		\
	"	movl	" STR(ON_OFS) "(%rax), %edx\n"			\
	"	testl	$-10, %edx\n"		/* ~(PCS | CNT) */	\
	"	jne	2f\n"						\
	"	movq	(%r11), %rcx\n"					\
	"	cmpq	$" STR(INLINE_UNREG_ASM) ", %rcx\n"		\
	"	jae	2f\n"						\
	"	leaq	(%rsi,%rcx,8), %rcx\n"		/* g */		\
	"	testq	%rcx, %rcx\n"					\
	"	je	3f\n"						\
	"	testl	$8, %edx\n"					\
	"	je	5f\n"						\
	"	movq	" STR(GUARD_CNT_OFS) "(%rax), %r11\n"		\
	"	cmpb	$255, (%r11,%rcx)\n"				\
	"	je	5f\n"						\
	"	addb	$1, (%r11,%rcx)\n"				\
	"5:	testl	$1, %edx\n"					\
	"	je	3f\n"						\
	"	movq	" STR(GUARD_PCS_OFS) "(%rax), %rax\n"		\
	"	leaq	(%rax,%rcx,8), %rax\n"				\
	"	cmpq	$0, (%rax)\n"					\
	"	jne	3f\n"						\
	"	leaq	-1(%rdi), %rcx\n"				\
	"	movq	%rcx, (%rax)\n"					\
	"3:\n"								\
	POP(rdx) POP(rcx) POP(rax)					\
	GCC_RETURN							\
	"	.cfi_adjust_cfa_offset 24\n"				\
	"2:\n"								\
	POP(rdx) POP(rcx) POP(rax)
#else
#define INLINE2_GCC_TRACE_FAST_PATH ""
#define INLINE2_GCC_PCS_FAST_PATH ""
#endif
__asm__(
	"	.text\n"
	"	.p2align 4\n"
	"	.globl	__ukcov_inline_pc_v2_gcc\n"
	"	.type	__ukcov_inline_pc_v2_gcc, @function\n"
	"__ukcov_inline_pc_v2_gcc:\n"
	"	.cfi_startproc\n"
	INLINE2_GCC_TRACE_FAST_PATH
	INLINE2_GCC_PCS_FAST_PATH
	PUSH(rbp)
	"	.cfi_rel_offset %rbp, 0\n"
	"	movq	%rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	SAVE(rax) SAVE(rdx)
	"	movl	ukcov_vstate_size(%rip), %eax\n"
	"	testl	%eax, %eax\n"
	"	je	6f\n"
	"5:	cmpl	$1, %eax\n"
	"	je	7f\n"
	"	subq	%rax, %rsp\n"
	"	andq	$-64, %rsp\n"
	"	xorl	%edx, %edx\n"
	XSAVE_HEADER_CLEAR
	"	movl	$" VSTATE_MASK ", %eax\n"
	"	xsave	(%rsp)\n"
	"	call	*__ukcov_inline_pc_v2@GOTPCREL(%rip)\n"
	"	movl	$" VSTATE_MASK ", %eax\n"
	"	xorl	%edx, %edx\n"
	"	xrstor	(%rsp)\n"
	"	jmp	8f\n"
	"7:	subq	$512, %rsp\n"
	"	andq	$-64, %rsp\n"
	"	fxsave64	(%rsp)\n"
	"	call	*__ukcov_inline_pc_v2@GOTPCREL(%rip)\n"
	"	fxrstor64	(%rsp)\n"
	"8:	leaq	-16(%rbp), %rsp\n"
	RESTORE(rdx) RESTORE(rax)
	"	movq	%rbp, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	POP(rbp)
	"	.cfi_restore %rbp\n"
	GCC_RETURN
	/* Once: the bytes the XSAVE area needs for VSTATE_MASK's
	 * components, their furthest end (CPUID 0DH.i: EAX the size, EBX
	 * the offset, 0 for a component the CPU lacks; the legacy area and
	 * the header first), as glibc sizes its own (cpu_features.c); or 1
	 * for FXSAVE if the OS enabled no XSAVE state (CPUID 1:ECX.OSXSAVE
	 * clear).  Threads racing here store the same value. */
	"	.cfi_def_cfa %rbp, 16\n"
	"	.cfi_offset %rbp, -16\n"
	"6:	pushq	%rbx\n"
	"	pushq	%rcx\n"
	"	pushq	%r8\n"
	"	pushq	%r9\n"
	"	movl	$1, %eax\n"
	"	cpuid\n"
	"	movl	$1, %r8d\n"
	"	btl	$27, %ecx\n"
	"	jnc	9f\n"
	"	movl	$576, %r8d\n"
	"	movl	$2, %r9d\n"
	"10:	movl	$0xd, %eax\n"
	"	movl	%r9d, %ecx\n"
	"	cpuid\n"
	"	addl	%eax, %ebx\n"
	"	cmpl	%ebx, %r8d\n"
	"	cmovbl	%ebx, %r8d\n"
	"	addl	$1, %r9d\n"
	"	cmpl	$8, %r9d\n"
	"	jb	10b\n"
	"9:	movl	%r8d, %eax\n"
	"	movl	%eax, ukcov_vstate_size(%rip)\n"
	"	popq	%r9\n"
	"	popq	%r8\n"
	"	popq	%rcx\n"
	"	popq	%rbx\n"
	"	jmp	5b\n"
	"	.cfi_endproc\n"
	"	.size	__ukcov_inline_pc_v2_gcc, .-__ukcov_inline_pc_v2_gcc\n"
	"	.local	ukcov_vstate_size\n"
	"	.comm	ukcov_vstate_size, 4, 4\n");
/* clang-format on */
#undef INLINE2_GCC_TRACE_FAST_PATH
#undef INLINE2_GCC_PCS_FAST_PATH
#undef INLINE2_TRACE
#undef VSTATE_MASK
#undef INLINE_UNREG_ASM
#undef GUARD_CNT_OFS
#undef XSAVE_HEADER_CLEAR
#undef GCC_RETURN
#undef PUSH
#undef POP
#undef SAVE
#undef RESTORE
#undef SAVE_CALLER_SAVED
#undef RESTORE_CALLER_SAVED
#else
UKCOV_EXPORT void __ukcov_inline_pc_v1(uint64_t pc)
{
	inline_pc_record(pc);
}

/* Other targets have no plugin; the C entry takes its three
 * arguments the ordinary way. */
UKCOV_EXPORT void __ukcov_inline_pc_v2(uint64_t pc, uint32_t k,
				       const uint64_t *tu)
{
	inline_pc2_record(pc, k, tu);
}
#endif
