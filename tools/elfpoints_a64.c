/*
 * tools/elfpoints_a64.c -- coverage points of an aarch64 ELF binary.
 *
 * Every A64 instruction is one little-endian 32-bit word, so a section is
 * swept word by word without a disassembler.  A call to a PC callback is
 *   bl   callback          (direct, or to a PLT stub of the callback)
 *   blr  xN                (xN loaded from the callback's GOT slot:
 *                           adrp + ldr, -fno-plt; or its address built
 *                           by adrp + add, when the linker relaxed the
 *                           GOT load of a static link)
 * and its point is the address of the call itself: the return address
 * - 4, as LLVM sancov's getPreviousInstructionPc does for AArch64
 * (llvm/tools/sancov/sancov.cpp) and compiler-rt's
 * StackTrace::GetPreviousInstructionPc (sanitizer_stacktrace.h).
 *
 * gcc keeps a GOT-loaded callback in a callee-saved register for the
 * whole function (-fno-plt: "adrp x20; ldr x20, [x20]; blr x20; ...
 * blr x20"), so the sweep tracks what each register holds.  A register
 * that any other instruction may write is forgotten, as are x0-x18 and
 * x30 after a call (AAPCS64 caller-saved): a point can be missed this
 * way.  Two exceptions keep a linear sweep right where blocks are laid
 * out after the return: a ret forgets nothing, and neither does the
 * epilogue's reload of x19-x28 from the stack ("ldp x19, x20, [sp,
 * #16]; ...; ret", then a block that still calls "blr x20").  Compiled
 * code writes a register before it calls through it, so a next function
 * does not inherit a stale callback; only a blr through a callee-saved
 * register reloaded from a spill slot in the same function could be
 * taken for a point it is not.
 */
#include "elfpoints.h"

#include <elf.h>
#include <string.h>

/* What a register is known to hold. */
enum a64_kind { A64_NONE, A64_PAGE, A64_ADDR, A64_LOADED };

struct a64_reg {
	enum a64_kind kind;
	uint64_t val;		/* page, address, or GOT slot read */
	uint64_t origin;	/* address of the adrp that began it */
};

struct a64_sweep {
	struct a64_reg x[32];	/* x31 is sp or xzr: never tracked */
	struct pcvec *funcs;	/* callback entries (+ PLT stubs found) */
	const struct pcvec *slots;	/* GOT slots of callbacks */
	struct pcvec *points;	/* NULL while sweeping PLT sections */
	size_t tail_calls;
	uint64_t sec_addr;
	const uint8_t *code;
};

#define A64_BTI_C 0xd503245fu	/* "bti c": may open a PLT stub */

static uint32_t a64_word(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);

	return (int64_t)((v ^ m) - m);
}

/* The target lists hold a handful of entries, unsorted. */
static bool a64_has(const struct pcvec *pv, uint64_t a)
{
	for (size_t i = 0; i < pv->n; i++)
		if (pv->v[i] == a)
			return true;
	return false;
}

static void a64_forget(struct a64_sweep *s, unsigned r)
{
	if (r < 31)
		s->x[r].kind = A64_NONE;
}

/* r, unless it is one of x19-x28, which AAPCS64 makes callee-saved. */
static void a64_forget_caller_saved(struct a64_sweep *s, unsigned r)
{
	if (r < 19 || r > 28)
		a64_forget(s, r);
}

/* After a call: the caller-saved registers and the link register. */
static void a64_forget_call(struct a64_sweep *s)
{
	for (unsigned r = 0; r <= 18; r++)
		s->x[r].kind = A64_NONE;
	s->x[30].kind = A64_NONE;
}

static bool a64_is_callback(const struct a64_sweep *s, const struct a64_reg *x)
{
	return (x->kind == A64_LOADED && a64_has(s->slots, x->val)) ||
	       (x->kind == A64_ADDR && a64_has(s->funcs, x->val));
}

/* A call or jump to a callback at addr (is_call: bl/blr, else b/br). */
static void a64_hit(struct a64_sweep *s, bool is_call, uint64_t addr)
{
	if (!s->points)
		return;
	if (is_call)
		pcvec_push(s->points, pc_to_point(EM_AARCH64, addr + 4));
	else
		s->tail_calls++;	/* gcc < 14 at -O2: GCC PR 90746 */
}

/* br xN in a PLT section: the stub it ends is a callback's when xN was
 * read from the callback's GOT slot. */
static void a64_plt_stub(struct a64_sweep *s, const struct a64_reg *x)
{
	uint64_t stub = x->origin;

	if (x->kind != A64_LOADED || !a64_has(s->slots, x->val))
		return;
	if (stub >= s->sec_addr + 4 &&
	    a64_word(s->code + (stub - 4 - s->sec_addr)) == A64_BTI_C)
		stub -= 4;
	if (!a64_has(s->funcs, stub))
		pcvec_push(s->funcs, stub);
}

/* bl, b, blr, br; false if w is none of these. */
static bool a64_branch(struct a64_sweep *s, uint32_t w, uint64_t addr)
{
	const struct a64_reg *x = &s->x[(w >> 5) & 31];

	if ((w & 0x7c000000u) == 0x14000000u) {		/* b, bl imm26 */
		uint64_t tg = addr + (uint64_t)(sign_extend(w & 0x3ffffffu,
							    26) * 4);
		bool call = w & 0x80000000u;

		if (a64_has(s->funcs, tg))
			a64_hit(s, call, addr);
		if (call)
			a64_forget_call(s);
		return true;
	}
	if ((w & 0xfffffc1fu) == 0xd63f0000u) {		/* blr xN */
		if (a64_is_callback(s, x))
			a64_hit(s, true, addr);
		a64_forget_call(s);
		return true;
	}
	if ((w & 0xfffffc1fu) == 0xd61f0000u) {		/* br xN */
		if (!s->points)
			a64_plt_stub(s, x);
		else if (a64_is_callback(s, x))
			a64_hit(s, false, addr);
		return true;
	}
	return false;
}

/* adrp, add #imm, ldr xT, [xN, #imm], mov xD, xM; false if none. */
static bool a64_track(struct a64_sweep *s, uint32_t w, uint64_t addr)
{
	unsigned d = w & 31, n = (w >> 5) & 31;
	struct a64_reg v = s->x[n];

	if ((w & 0x9f000000u) == 0x90000000u) {		/* adrp */
		uint64_t imm = ((w >> 29) & 3) | ((w >> 3) & 0x1ffffcu);

		v = (struct a64_reg){ A64_PAGE, (addr & ~(uint64_t)0xfff) +
				      ((uint64_t)sign_extend(imm, 21) << 12),
				      addr };
	} else if ((w & 0xff800000u) == 0x91000000u && n < 31 &&
		   v.kind == A64_PAGE) {		/* add x, x, #imm12 */
		uint64_t imm = (w >> 10) & 0xfff;

		v.kind = A64_ADDR;
		v.val += (w & 0x400000u) ? imm << 12 : imm;
	} else if ((w & 0xffc00000u) == 0xf9400000u && n < 31 &&
		   (v.kind == A64_PAGE || v.kind == A64_ADDR)) {
		v.kind = A64_LOADED;			/* ldr x, [x, #imm] */
		v.val += (uint64_t)((w >> 10) & 0xfff) * 8;
	} else if ((w & 0xffe0ffe0u) == 0xaa0003e0u) {	/* mov x, x */
		v = s->x[(w >> 16) & 31];
		if (((w >> 16) & 31) == 31)
			v.kind = A64_NONE;
	} else {
		return false;
	}
	if (d < 31)
		s->x[d] = v;
	return true;
}

/* Any other instruction: forget the registers it may write. */
static void a64_clobber(struct a64_sweep *s, uint32_t w)
{
	if ((w & 0x1c000000u) == 0x14000000u)	/* branches, system */
		return;
	if ((w & 0x0e000000u) == 0x0e000000u)	/* SIMD and FP */
		return;
	if ((w & 0x0a000000u) == 0x08000000u) {	/* loads and stores */
		if ((w & 0x3f000000u) == 0x08000000u)	/* exclusive */
			a64_forget(s, (w >> 16) & 31);	/* stxr status */
		if (!(w & 0x400000u))		/* L = 0: a store */
			return;
		if (((w >> 5) & 31) == 31) {	/* [sp]: a callee-saved reload */
			a64_forget_caller_saved(s, (w >> 10) & 31);
			a64_forget_caller_saved(s, w & 31);
			return;
		}
		a64_forget(s, (w >> 10) & 31);	/* Rt2 of a pair */
	}
	a64_forget(s, w & 31);
}

static void a64_sweep_section(struct a64_sweep *s, const uint8_t *code,
			      size_t size, uint64_t addr)
{
	memset(s->x, 0, sizeof(s->x));
	s->code = code;
	s->sec_addr = addr;
	for (size_t off = 0; off + 4 <= size; off += 4) {
		uint32_t w = a64_word(code + off);

		if (!a64_branch(s, w, addr + off) &&
		    !a64_track(s, w, addr + off))
			a64_clobber(s, w);
	}
}

int elfpoints_a64_sweep(Elf *elf, size_t shstrndx, struct pcvec *funcs,
			const struct pcvec *slots, struct pcvec *points,
			size_t *tail_calls, char err[ERRLEN])
{
	struct a64_sweep s = { .funcs = funcs, .slots = slots };

	/* The PLT sections first: their stubs are call targets too. */
	for (int plt = 1; plt >= 0; plt--) {
		Elf_Scn *scn = NULL;

		s.points = plt ? NULL : points;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			const char *name;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != SHT_PROGBITS ||
			    !(sh.sh_flags & SHF_EXECINSTR))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if ((name && strncmp(name, ".plt", 4) == 0) != plt)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d || !d->d_buf || d->d_size == 0)
				continue;
			if (d->d_size > sh.sh_size ||
			    sh.sh_addr + d->d_size < sh.sh_addr) {
				snprintf(err, ERRLEN, "corrupt section header");
				return -1;
			}
			a64_sweep_section(&s, d->d_buf, d->d_size, sh.sh_addr);
		}
	}
	*tail_calls = s.tail_calls;
	return 0;
}
