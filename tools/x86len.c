/*
 * tools/x86len.c -- x86-64 instruction lengths for the coverage-point
 * sweep: legacy prefixes, REX, the one-byte and 0F opcode maps, ModRM,
 * SIB, displacement and immediate sizes (Intel SDM vol. 2, ch. 2 and
 * appendix A, "Opcode Map").
 *
 * Why a hand-written decoder when capstone exists (measured 2026-11-23,
 * docs/PERFORMANCE.md "Tool"): finding the coverage points of the sqlite
 * benchmark binary means a linear sweep of 4.8 MiB of .text, 1.17 million
 * instructions, and capstone took 47% of `ukcov symbolize`'s CPU samples
 * doing it, plus libc's string functions it calls: it decodes every
 * operand and prints every mnemonic and operand string even with
 * CS_OPT_DETAIL off (cs_disasm_iter always formats).  The
 * sweep needs only each instruction's length, and the target of the few
 * that are call/jmp rel32 or call/jmp [rip+disp32] (elfpoints.c classify).
 * A table lookup per byte does that at a small fraction of the cost.
 *
 * The decoder must never disagree with capstone (the point set must equal
 * sancov's, which sweeps the same way), so it is deliberately incomplete:
 * every encoding it does not model exactly returns 0 and the caller
 * decodes that one instruction with capstone.  The tables below were
 * checked exhaustively against capstone 4.0.2 over prefix combinations x
 * both opcode maps x all ModRM bytes (tests/tool/x86len_check.c).
 */
#include "x86len.h"

#include <stdbool.h>

/* Per-opcode properties.  0 means "not modelled: ask capstone". */
enum {
	OK = 1 << 0,	/* a modelled encoding */
	M = 1 << 1,	/* a ModRM byte (and maybe SIB, displacement) follows */
	I8 = 1 << 2,	/* 1-byte immediate */
	I16 = 1 << 3,	/* 2-byte immediate */
	IZ = 1 << 4,	/* imm16 with a 66 prefix (and no REX.W), else imm32 */
	IV = 1 << 5,	/* imm64 with REX.W, imm16 with 66, else imm32 */
	MOFFS = 1 << 6,	/* absolute address: 8 bytes, 4 with a 67 prefix */
	REL32 = 1 << 7,	/* rel32 branch; a 66 prefix makes it vendor-specific */
	G = 1 << 8,	/* validity (or immediate) depends on ModRM: group_ok */
	SSE = 1 << 9,	/* 66/F3/F2 select the instruction: sse_prefixes */
	REP = 1 << 10,	/* F2/F3 allowed (string ops, pause, bnd branches) */
	MO = 1 << 11,	/* memory operand only (ModRM.mod != 3) */
	RO = 1 << 12,	/* register operand only (ModRM.mod == 3) */
	NO66 = 1 << 13,	/* capstone sizes it oddly after 66 or 67 */
	LK = 1 << 14,	/* lock allowed with a memory operand (group_lock_ok) */
	X87 = 1 << 15,	/* x87 escape: validity from x87_mem/x87_reg */
};

/* add, or, adc, sbb, and, sub, xor, cmp; "op r/m, reg" takes a lock
 * prefix (read-modify-write), except cmp, which only reads. */
#define ALU(b, lk) [(b)] = OK | M | (lk), [(b) + 1] = OK | M | (lk), \
	[(b) + 2] = OK | M, [(b) + 3] = OK | M, [(b) + 4] = OK | I8, \
	[(b) + 5] = OK | IZ

/* The one-byte map in 64-bit mode.  Prefixes, REX and 0F are handled by
 * the caller; invalid-in-64-bit opcodes, VEX/EVEX (C4, C5, 62) and
 * far/system oddities stay 0. */
static const uint16_t map1[256] = {
	ALU(0x00, LK), ALU(0x08, LK), ALU(0x10, LK), ALU(0x18, LK),
	ALU(0x20, LK), ALU(0x28, LK), ALU(0x30, LK), ALU(0x38, 0),
	[0x50 ... 0x5f] = OK,
	[0x63] = OK | M,
	[0x68] = OK | IZ, [0x69] = OK | M | IZ,
	[0x6a] = OK | I8, [0x6b] = OK | M | I8,
	[0x6c ... 0x6f] = OK | REP,
	[0x70 ... 0x7f] = OK | I8,
	[0x80] = OK | M | I8 | LK, [0x81] = OK | M | IZ | LK,
	[0x83] = OK | M | I8 | LK,
	[0x84 ... 0x85] = OK | M, [0x86 ... 0x87] = OK | M | LK,
	[0x88 ... 0x8b] = OK | M,
	[0x8c] = OK | M | G, [0x8d] = OK | M | G, [0x8e] = OK | M | G,
	[0x8f] = OK | M | G,
	[0x90] = OK | REP, [0x91 ... 0x99] = OK, [0x9b ... 0x9f] = OK,
	[0xa0 ... 0xa3] = OK | MOFFS,
	[0xa4 ... 0xa7] = OK | REP, [0xa8] = OK | I8, [0xa9] = OK | IZ,
	[0xaa ... 0xaf] = OK | REP,
	[0xb0 ... 0xb7] = OK | I8, [0xb8 ... 0xbf] = OK | IV,
	[0xc0 ... 0xc1] = OK | M | I8 | G, [0xc2] = OK | I16 | NO66,
	[0xc3] = OK | REP,
	[0xc6] = OK | M | I8 | G, [0xc7] = OK | M | IZ | G,
	[0xc8] = OK | I16 | I8, [0xc9] = OK, [0xca] = OK | I16 | NO66,
	[0xcb ... 0xcc] = OK, [0xcd] = OK | I8,
	[0xd0 ... 0xd3] = OK | M | G,
	[0xd8 ... 0xdf] = OK | M | X87,
	[0xe0 ... 0xe7] = OK | I8,
	[0xe8 ... 0xe9] = OK | REL32 | REP, [0xeb] = OK | I8,
	[0xec ... 0xef] = OK,
	[0xf4 ... 0xf5] = OK,
	[0xf6 ... 0xf7] = OK | M | G | LK,
	[0xf8 ... 0xfd] = OK,
	[0xfe] = OK | M | G | LK, [0xff] = OK | M | G | REP | LK,
};

/* The 0F map.  0F 38 and 0F 3A (three-byte maps), 3DNow!, system and
 * VMX instructions and group 7/9/15 stay 0. */
static const uint16_t map2[256] = {
	[0x05] = OK, [0x0b] = OK,
	[0x18] = OK | M | MO | G,		/* prefetch hints */
	[0x1e] = OK | M | G | REP,		/* endbr64/endbr32 only */
	[0x10 ... 0x12] = OK | M | SSE, [0x13] = OK | M | SSE | MO,
	[0x14 ... 0x16] = OK | M | SSE, [0x17] = OK | M | SSE | MO,
	[0x1f] = OK | M | MO,		/* LLVM rejects nop with a register */
	[0x28 ... 0x2a] = OK | M | SSE, [0x2b] = OK | M | SSE | MO,
	[0x2c ... 0x2f] = OK | M | SSE,
	[0x31] = OK,
	[0x40 ... 0x4f] = OK | M,
	[0x50] = OK | M | SSE | RO, [0x51 ... 0x6f] = OK | M | SSE,
	[0x70] = OK | M | I8 | SSE,
	[0x71 ... 0x73] = OK | M | I8 | SSE | RO | G,	/* shift by imm8 */
	[0x74 ... 0x76] = OK | M | SSE,
	[0x7e ... 0x7f] = OK | M | SSE,
	[0x80 ... 0x8f] = OK | REL32,
	[0x90 ... 0x9f] = OK | M,
	[0xa2] = OK, [0xa3] = OK | M, [0xa4] = OK | M | I8, [0xa5] = OK | M,
	[0xab] = OK | M | LK, [0xac] = OK | M | I8, [0xad] = OK | M,
	[0xae] = OK | M | G,			/* fences, ldmxcsr, stmxcsr */
	[0xaf] = OK | M,
	[0xb0 ... 0xb1] = OK | M | LK, [0xb3] = OK | M | LK,
	[0xb6 ... 0xb7] = OK | M,
	[0xb8] = OK | M | SSE, [0xba] = OK | M | I8 | G | LK,
	[0xbb] = OK | M | LK, [0xbc ... 0xbd] = OK | M | SSE,
	[0xbe ... 0xbf] = OK | M,
	[0xc0 ... 0xc1] = OK | M | LK,
	[0xc2] = OK | M | I8 | SSE, [0xc3] = OK | M | MO,
	[0xc4] = OK | M | I8 | SSE, [0xc5] = OK | M | I8 | SSE | RO,
	[0xc6] = OK | M | I8 | SSE,
	[0xc8 ... 0xcf] = OK,
	[0xd0 ... 0xd6] = OK | M | SSE, [0xd7] = OK | M | SSE | RO,
	[0xd8 ... 0xe6] = OK | M | SSE, [0xe7] = OK | M | SSE | MO,
	[0xe8 ... 0xef] = OK | M | SSE, [0xf0] = OK | M | SSE | MO,
	[0xf1 ... 0xf6] = OK | M | SSE, [0xf7] = OK | M | SSE | RO,
	[0xf8 ... 0xfe] = OK | M | SSE,
};

/* Which mandatory prefix each SSE-class 0F opcode accepts: bit 0 none,
 * bit 1 66, bit 2 F3, bit 3 F2.  A prefix outside the set: ask capstone. */
enum { PN = 1, P6 = 2, PS = 4, PD = 8, PALL = 15 };
static const uint8_t sse_prefixes[256] = {
	[0x10 ... 0x11] = PALL, [0x12] = PN | PS | PD, [0x13] = PN | P6,
	[0x14 ... 0x15] = PN | P6, [0x16] = PN | P6 | PS, [0x17] = PN | P6,
	[0x28 ... 0x29] = PN | P6, [0x2a] = PALL, [0x2b] = PN | P6,
	[0x2c ... 0x2d] = PALL, [0x2e ... 0x2f] = PN | P6,
	[0x50] = PN | P6, [0x51] = PALL, [0x52 ... 0x53] = PN | PS,
	[0x54 ... 0x57] = PN | P6, [0x58 ... 0x59] = PALL, [0x5a] = PALL,
	[0x5b] = PN | P6 | PS, [0x5c ... 0x5f] = PALL,
	[0x60 ... 0x6b] = PN | P6, [0x6c ... 0x6d] = P6,
	[0x6e] = PN | P6, [0x6f] = PN | P6 | PS,
	[0x70] = PALL, [0x71 ... 0x73] = PN | P6, [0x74 ... 0x76] = PN | P6,
	[0x7e] = PN | P6 | PS, [0x7f] = PN | P6 | PS,
	[0xb8] = PS, [0xbc ... 0xbd] = PN | P6 | PS,
	[0xc2] = PALL, [0xc4 ... 0xc6] = PN | P6,
	[0xd0] = P6 | PD, [0xd1 ... 0xd5] = PN | P6, [0xd6] = P6,
	[0xd7 ... 0xdf] = PN | P6, [0xe0 ... 0xe5] = PN | P6,
	[0xe6] = P6 | PS | PD, [0xe7 ... 0xef] = PN | P6,
	[0xf0] = PD, [0xf1 ... 0xfe] = PN | P6,
};

/* Legacy prefixes seen (bits), for operand/address size and SSE. */
enum {
	PFX_66 = 1, PFX_67 = 2, PFX_F3 = 4, PFX_F2 = 8, PFX_SEG = 16,
	PFX_LOCK = 32,
};

/* What the prefixes said. */
struct prefixes {
	unsigned pfx;		/* PFX_* */
	unsigned count;		/* legacy prefix bytes */
	bool rex, rexw, rexr;	/* REX; its W (64-bit operand), R (ModRM.reg) */
};

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

/* Encodings of the one-byte map whose validity (or immediate) depends on
 * ModRM.reg or ModRM.mod.  *imm gets an extra immediate size. */
static bool group1_ok(uint8_t op, uint8_t modrm, bool rexr, unsigned *imm,
		      unsigned iz)
{
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7;

	switch (op) {
	case 0x8c: return reg <= 5 && !rexr;
	case 0x8d: return mod != 3;		/* lea needs memory */
	case 0x8e: return reg <= 5 && reg != 1 && !rexr; /* no mov to cs */
	case 0x8f: return reg == 0;		/* else XOP */
	case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
		return reg != 6;
	case 0xc6: case 0xc7: return reg == 0;	/* else xabort/xbegin */
	case 0xf6: case 0xf7:
		if (reg == 0)
			*imm = op == 0xf6 ? 1 : iz;
		return reg != 1;
	case 0xfe: return reg <= 1;
	case 0xff:
		if (reg == 3 || reg == 5)	/* far call/jmp need memory */
			return mod != 3;
		return reg != 7;
	default:
		return false;
	}
}

/* The same for the 0F map. */
static bool group2_ok(uint8_t op, uint8_t modrm, const struct prefixes *p)
{
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, pfx = p->pfx;

	switch (op) {
	case 0x18: return reg <= 3;		/* prefetchnta/t0/t1/t2 */
	case 0x1e:				/* F3 0F 1E FA/FB: endbr */
		return pfx == PFX_F3 && p->count == 1 && !p->rex &&
		       (modrm == 0xfa || modrm == 0xfb);
	case 0x71: case 0x72:			/* psrl/psra/psll by imm8 */
		return reg == 2 || reg == 4 || reg == 6;
	case 0x73:				/* psrlq/psllq; 66: psrldq/pslldq */
		return reg == 2 || reg == 6 ||
		       ((pfx & PFX_66) && (reg == 3 || reg == 7));
	case 0xae:		/* ldmxcsr, stmxcsr; lfence, mfence, sfence */
		if (mod != 3)
			return reg == 2 || reg == 3;
		return modrm == 0xe8 || modrm == 0xf0 || modrm == 0xf8;
	case 0xba: return reg >= 4;		/* bt/bts/btr/btc imm8 */
	default:
		return false;
	}
}

/* x87 (D8-DF): the memory forms by ModRM.reg (bit r set: valid), the
 * register forms by ModRM & 0x3f (Intel SDM vol. 2, tables ). */
static const uint8_t x87_mem[8] = {
	0xff, 0xfd, 0xff, 0xaf, 0xff, 0xdf, 0xff, 0xff,
};
static const uint64_t x87_reg[8] = {
	[0] = ~0ull, /* D8: fadd ... fdivr st(i) */
	[1] = (0xffffffff0000ffffull | 1ull << 0x10) & ~(0x3ull << 34) &
	      ~(0x3ull << 38) & ~(0x1ull << 47), /* D9: fld, fxch, fnop ... */
	[5] = 0x0000ffffffff00ffull, /* DD: ffree, fst, fstp, fucom(p) */
	/* DE: C0-C7 faddp, C8-CF fmulp, D9 fcompp, E0-FF fsub(r)p, fdiv(r)p */
	[6] = 0xffffffff0200ffffull,
	[7] = 0x00ffff0100000000ull, /* DF: fnstsw ax, fucomip, fcomip */
};

static bool x87_ok(uint8_t op, uint8_t modrm)
{
	unsigned e = op - 0xd8u;

	if (modrm < 0xc0)
		return x87_mem[e] >> ((modrm >> 3) & 7) & 1;
	return x87_reg[e] >> (modrm & 0x3f) & 1;
}

/* lock: read-modify-write instructions with a memory destination. */
static bool lock_ok(uint16_t f, bool twobyte, uint8_t op, uint8_t modrm)
{
	unsigned reg = (modrm >> 3) & 7;

	if (!(f & LK) || modrm >= 0xc0)
		return false;
	if (twobyte)
		return op != 0xba || reg >= 5;	/* bt does not write */
	switch (op) {
	case 0x80: case 0x81: case 0x83: return reg != 7;	/* not cmp */
	case 0xf6: case 0xf7: return reg == 2 || reg == 3;	/* not, neg */
	case 0xfe: case 0xff: return reg <= 1;			/* inc, dec */
	default: return true;
	}
}

/* ModRM, SIB and displacement bytes from code[0] (the ModRM byte). */
static unsigned modrm_len(const uint8_t *code, size_t avail)
{
	unsigned mod = code[0] >> 6, rm = code[0] & 7, n = 1;

	if (mod == 3)
		return n;
	if (rm == 4) {			/* SIB */
		if (avail < 2)
			return 0;
		n++;
		if (mod == 0 && (code[1] & 7) == 5)
			return n + 4;	/* no base: disp32 */
	}
	if (mod == 1)
		return n + 1;
	if (mod == 2 || rm == 5)	/* mod 0, rm 5: [rip + disp32] */
		return n + 4;
	return n;
}

static bool sse_prefix_ok(uint8_t op, unsigned pfx)
{
	unsigned rep = pfx & (PFX_F3 | PFX_F2), want;

	if (rep == (PFX_F3 | PFX_F2) || (rep && (pfx & PFX_66)))
		return false;		/* which one wins: ask capstone */
	if ((pfx & (PFX_66 | PFX_F3 | PFX_F2)) && (pfx & (PFX_67 | PFX_SEG)))
		return false;		/* capstone rejects some of these */
	want = rep == PFX_F3 ? PS : rep == PFX_F2 ? PD :
	       (pfx & PFX_66) ? P6 : PN;
	return sse_prefixes[op] & want;
}

/* The immediate's size from the table flags. */
static unsigned imm_len(uint16_t f, unsigned pfx, bool rexw)
{
	unsigned n = 0, z = (pfx & PFX_66) && !rexw ? 2 : 4;

	if (f & I8)
		n += 1;
	if (f & I16)
		n += 2;
	if (f & IZ)
		n += z;
	if (f & IV)
		n += rexw ? 8 : z;
	if (f & MOFFS)
		n += (pfx & PFX_67) ? 4 : 8;
	if (f & REL32)
		n += 4;
	return n;
}

/* Legacy prefixes, then REX.  Returns the offset of the opcode (0F
 * included), or -1 when capstone should decide. */
static int read_prefixes(const uint8_t *code, size_t avail,
			 struct prefixes *p)
{
	size_t i = 0;

	for (; i < avail && is_legacy_prefix(code[i]); i++) {
		switch (code[i]) {
		case 0x66: p->pfx |= PFX_66; break;
		case 0x67: p->pfx |= PFX_67; break;
		case 0xf3: p->pfx |= PFX_F3; break;
		case 0xf2: p->pfx |= PFX_F2; break;
		case 0xf0: p->pfx |= PFX_LOCK; break;
		default: p->pfx |= PFX_SEG; break;
		}
	}
	p->count = (unsigned)i;
	if (i < avail && (code[i] & 0xf0) == 0x40) {
		p->rex = true;
		p->rexw = code[i] & 8;
		p->rexr = code[i] & 4;
		i++;
		if (i < avail && (is_legacy_prefix(code[i]) ||
				  (code[i] & 0xf0) == 0x40))
			return -1;		/* REX not last: ignored or not */
	}
	return i < 15 ? (int)i : -1;
}

/* Whether the prefixes fit an opcode the tables model. */
static bool prefixes_fit(uint16_t f, bool twobyte, uint8_t op, unsigned pfx)
{
	if (((f & REL32) && (pfx & (PFX_66 | PFX_67))) ||
	    ((f & NO66) && (pfx & (PFX_66 | PFX_67))))
		return false;
	if ((pfx & PFX_LOCK) && !(f & LK))
		return false;
	if (twobyte && (f & SSE))
		return sse_prefix_ok(op, pfx);
	return !(pfx & (PFX_F3 | PFX_F2)) || (f & REP);
}

/* ModRM and what hangs off it, from code[0]; *imm gets a group's extra
 * immediate.  0: capstone should decide. */
static unsigned modrm_part(const uint8_t *code, size_t avail, uint16_t f,
			   bool twobyte, uint8_t op, const struct prefixes *p,
			   unsigned *imm)
{
	if (avail == 0)
		return 0;
	if (((f & MO) && code[0] >= 0xc0) || ((f & RO) && code[0] < 0xc0))
		return 0;
	if ((f & X87) && !x87_ok(op, code[0]))
		return 0;
	if ((p->pfx & PFX_LOCK) && !lock_ok(f, twobyte, op, code[0]))
		return 0;
	if ((f & G) && !(twobyte ? group2_ok(op, code[0], p) :
			 group1_ok(op, code[0], p->rexr, imm,
				   (p->pfx & PFX_66) && !p->rexw ? 2 : 4)))
		return 0;
	return modrm_len(code, avail);
}

unsigned x86len(const uint8_t *code, size_t avail)
{
	struct prefixes p = { 0 };
	int start = read_prefixes(code, avail, &p);
	size_t i;
	unsigned imm = 0;
	bool twobyte;
	uint16_t f;
	uint8_t op;

	if (start < 0)
		return 0;
	i = (size_t)start;
	twobyte = i < avail && code[i] == 0x0f;
	i += twobyte;
	if (i >= avail)
		return 0;
	op = code[i++];
	f = twobyte ? map2[op] : map1[op];
	if (!(f & OK) || !prefixes_fit(f, twobyte, op, p.pfx))
		return 0;
	if (f & M) {
		unsigned n = modrm_part(code + i, avail - i, f, twobyte, op,
					&p, &imm);

		if (n == 0)
			return 0;
		i += n;
	}
	i += imm + imm_len(f, p.pfx, p.rexw);
	return i <= avail && i <= 15 ? (unsigned)i : 0;
}
