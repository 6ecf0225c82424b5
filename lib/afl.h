/*
 * lib/afl.h -- what lib/afl.c (AFL++'s fork server and coverage map)
 * and lib/afl_cmplog.c (its CmpLog map) share.  The byte layouts are
 * AFL++ 4.04c's (include/types.h, include/config.h, include/cmplog.h)
 * and are described in docs/FORMATS.md, "AFL++ maps" (5c).
 */
#ifndef UKCOV_AFL_H
#define UKCOV_AFL_H

#include <stddef.h>
#include <stdint.h>

/* The fork server's pipes (AFL++ config.h FORKSRV_FD): afl-fuzz writes
 * on 198, reads on 199. */
#define AFL_CTL_FD 198
#define AFL_ST_FD  199

/* The 4.04c hello (types.h FS_OPT_*): options in one word. */
#define AFL_OPT_ENABLED    0x80000001u
#define AFL_OPT_MAPSIZE    0x40000000u
#define AFL_OPT_SHDMEM     0x01000000u
#define AFL_OPT_NEWCMPLOG  0x02000000u
#define AFL_OPT_MAX_MAP    (1u << 23)
#define AFL_OPT_SET_MAP(x) (((x) - 1) << 1)

/* The version-1 handshake of AFL++ 4.20 and later (afl-forkserver.c):
 * "AFL" and the version, its complement back, then options, their
 * parameters and the version again. */
#define AFL_V1_MAGIC       0x41464c01u
#define AFL_V1_OPT_MAPSIZE 0x00000001u
#define AFL_V1_OPT_SHDMEM  0x00000002u

/* Shared-memory test cases (config.h MAX_FILE): a u32 length, then at
 * most 1 MiB of data. */
#define AFL_SHM_INPUT_MAX (1u << 20)

/* The edge map: 16 bytes per coverage point, a power of two from 256
 * bytes to AFL++'s MAP_SIZE (config.h MAP_SIZE_POW2 16), which is
 * also the size where the points cannot be counted. */
#define AFL_MAP_MIN_BITS 8
#define AFL_MAP_MAX_BITS 16

/* CmpLog (cmplog.h, 4.04c): 65536 headers of 8 bytes, then per header
 * 32 operand slots of 32 bytes; a routine uses the slots in pairs. */
#define AFL_CMP_W       65536u
#define AFL_CMP_H       32u
#define AFL_CMP_RTN_H   (AFL_CMP_H / 4)
#define AFL_CMP_TYPE_INS 1u
#define AFL_CMP_TYPE_RTN 2u

struct afl_cmp_header {
	unsigned hits : 24;
	unsigned id : 24;
	unsigned shape : 5;	/* operand bytes - 1 */
	unsigned type : 2;
	unsigned attribute : 4;
	unsigned overflow : 1;
	unsigned reserved : 4;
} __attribute__((packed));

struct afl_cmp_operands {
	uint64_t v0, v1, v0_128, v1_128;
} __attribute__((packed));

struct afl_cmpfn_operands {
	uint8_t v0[31];
	uint8_t v0_len;
	uint8_t v1[31];
	uint8_t v1_len;
} __attribute__((packed));

struct afl_cmp_map {
	struct afl_cmp_header headers[AFL_CMP_W];
	struct afl_cmp_operands log[AFL_CMP_W][AFL_CMP_H];
};

_Static_assert(sizeof(struct afl_cmp_header) == 8, "cmp_header is 8 bytes");
_Static_assert(sizeof(struct afl_cmpfn_operands) * AFL_CMP_RTN_H <=
	       sizeof(struct afl_cmp_operands) * AFL_CMP_H,
	       "routine slots fit in a header's operand slots");

/* ---- afl_cmplog.c ---- */
/* The CmpLog map named by __AFL_CMPLOG_SHM_ID, or NULL: routines log
 * only while it is set and the calling thread runs the input. */
extern struct afl_cmp_map *ukcov__afl_cmp;
int ukcov__afl_cmp_attach(void);
void ukcov__afl_cmp_from_trace(const uint64_t *area, uint64_t entries);
/* The thread that runs the input, while one does (0 otherwise). */
extern unsigned long ukcov__afl_input_thread;

void *ukcov__afl_shm(const char *name, size_t need);
/* Non-zero while a routine's operands have a listener: the CmpLog map
 * or the executor of "ukcov fuzz"; the wrappers of lib/afl_rtn.c load
 * only this on their path that does not log. */
extern int ukcov__rtn_on;
/* A routine's operands, from those wrappers, to every listener; icase:
 * compared ignoring case. */
void ukcov__rtn_mem(uint64_t pc, const void *a, const void *b, size_t n);
void ukcov__rtn_str(uint64_t pc, const char *a, const char *b, size_t n,
		    int icase);
/* lib/fuzz_exec.c: the routine's operands for the tool, if the calling
 * thread runs an input's CMP execution. */
void ukcov__fuzz_rtn(uint64_t pc, const void *a, size_t la, const void *b,
		     size_t lb, unsigned flags);

#endif
