/*
 * lib/afl_cmplog.c -- AFL++'s CmpLog map filled from kcov CMP records
 * and from the compare routines (memcmp, strcmp, ...) the program
 * calls, so that `afl-fuzz -c 0` finds its operands in the one binary
 * that also gives coverage (docs/DESIGN.md, "AFL++").
 *
 * afl-fuzz puts __AFL_CMPLOG_SHM_ID only in the environment of the
 * CmpLog fork server (afl-forkserver.c), whose child records in CMP
 * mode (lib/afl.c).  Each record goes to the header its PC hashes to,
 * the way afl-compiler-rt.o.c's __cmplog_ins_hook* and
 * __cmplog_rtn_hook* fill them (layout: lib/afl.h).
 */
#include <string.h>

#include "internal.h"
#include "afl.h"
#include <ukcov/linux/kcov.h>
#include "fuzz_proto.h"

struct afl_cmp_map *ukcov__afl_cmp;
int ukcov__rtn_on;

int ukcov__afl_cmp_attach(void)
{
	if (!ukcov__env("__AFL_CMPLOG_SHM_ID"))
		return 0;
	ukcov__afl_cmp = ukcov__afl_shm("__AFL_CMPLOG_SHM_ID",
					sizeof(struct afl_cmp_map));
	if (ukcov__afl_cmp)
		__atomic_store_n(&ukcov__rtn_on, 1, __ATOMIC_RELAXED);
	return ukcov__afl_cmp ? 1 : -1;
}

static inline uint32_t cmp_slot(uint64_t pc)
{
	return (uint32_t)((pc * UKCOV_PCSET_HASH) >> 48);
}

/* The header of pc's slot, now of type; *hits: the previous hits, as
 * the index of the operand slot to write. */
static struct afl_cmp_header *cmp_header(uint64_t pc, unsigned type,
					 unsigned shape, uint32_t *hits)
{
	struct afl_cmp_header *h = &ukcov__afl_cmp->headers[cmp_slot(pc)];

	if (h->type != type) {
		h->type = type;
		h->hits = 1;
		h->shape = shape;
		*hits = 0;
	} else {
		*hits = h->hits;
		h->hits = *hits + 1;
		if (h->shape < shape)
			h->shape = shape;
	}
	h->attribute = 0;
	return h;
}

/* One compare of two integers of `bytes` bytes (1, 2, 4, 8). */
static void cmp_ins(uint64_t pc, uint64_t a, uint64_t b, unsigned bytes)
{
	struct afl_cmp_header *h;
	struct afl_cmp_operands *o;
	uint32_t hits;

	/* afl-compiler-rt.o.c skips equal operands: nothing to learn. */
	if (a == b)
		return;
	h = cmp_header(pc, AFL_CMP_TYPE_INS, bytes - 1, &hits);
	o = &ukcov__afl_cmp->log[h - ukcov__afl_cmp->headers]
				[hits & (AFL_CMP_H - 1)];
	o->v0 = a;
	o->v1 = b;
	o->v0_128 = 0;
	o->v1_128 = 0;
}

/*
 * A CMP-mode trace (Linux kcov: word 0 the count, then records of
 * type, arg1, arg2, PC) into the map.  entries bounds the buffer; the
 * count is read once and clamped to it.
 */
void ukcov__afl_cmp_from_trace(const uint64_t *area, uint64_t entries)
{
	uint64_t n = __atomic_load_n(&area[0], __ATOMIC_ACQUIRE);
	uint64_t cap = (entries - 1) / 4;

	if (!ukcov__afl_cmp)
		return;
	if (n > cap)
		n = cap;
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t *r = &area[1 + 4 * i];
		unsigned bytes = 1u << ((r[0] & KCOV_CMP_MASK) >> 1);

		cmp_ins(r[3], r[1], r[2], bytes);
	}
}

/* A routine's operands: each `len0`/`len1` bytes (at most 31), and
 * their length byte, with 0x80 for strings as afl-compiler-rt.o.c's
 * __cmplog_rtn_hook_str* write it. */
static void cmp_rtn(uint64_t pc, const void *a, size_t len0, const void *b,
		    size_t len1, int str)
{
	struct afl_cmp_header *h;
	struct afl_cmpfn_operands *f;
	size_t l = len0 > len1 ? len0 : len1;
	uint32_t hits;

	if (l < 2)
		return;
	h = cmp_header(pc, AFL_CMP_TYPE_RTN, (unsigned)l - 1, &hits);
	f = (struct afl_cmpfn_operands *)
		ukcov__afl_cmp->log[h - ukcov__afl_cmp->headers];
	f += hits & (AFL_CMP_RTN_H - 1);
	f->v0_len = (uint8_t)(str ? 0x80 | l : l);
	f->v1_len = f->v0_len;
	memcpy(f->v0, a, len0);
	memcpy(f->v1, b, len1);
}

/* Only the thread running the input logs (lib/afl.c). */
static int rtn_logging(void)
{
	return ukcov__afl_cmp && ukcov__afl_input_thread &&
	       ukcov__afl_input_thread == (unsigned long)pthread_self();
}

void ukcov__rtn_mem(uint64_t pc, const void *a, const void *b, size_t n)
{
	size_t l = n < UKFZ_RTN_BYTES ? n : UKFZ_RTN_BYTES;

	if (!n)
		return;
	ukcov__fuzz_rtn(pc, a, l, b, l, 0);
	if (!rtn_logging())
		return;
	n = n < 31 ? n : 31;
	cmp_rtn(pc, a, n, b, n, 0);
}

/* Strings, with their NUL when it fits; n bounds both as strncmp's.
 * The executor gets up to 32 bytes of each without the NUL, and
 * whether the string ended there. */
void ukcov__rtn_str(uint64_t pc, const char *a, const char *b, size_t n,
		    int icase)
{
	size_t la, lb, max = n < 30 ? n : 30;
	size_t fmax = n < UKFZ_RTN_BYTES ? n : UKFZ_RTN_BYTES;
	unsigned flags = UKFZ_RTN_STR | (icase ? UKFZ_RTN_CASE : 0);

	if (!a || !b)
		return;
	la = strnlen(a, fmax);
	lb = strnlen(b, fmax);
	flags |= (la < fmax ? UKFZ_RTN_A_END : 0) |
		 (lb < fmax ? UKFZ_RTN_B_END : 0);
	ukcov__fuzz_rtn(pc, a, la, b, lb, flags);
	if (!rtn_logging())
		return;
	la = strnlen(a, max);
	lb = strnlen(b, max);
	cmp_rtn(pc, a, la + (la < n), b, lb + (lb < n), 1);
}
