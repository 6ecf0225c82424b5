/*
 * lib/fuzz_proto.h -- what "ukcov fuzz" (tools/fuzz_run.c) and the
 * executor in the harness (lib/fuzz_exec.c) share: one memfd and two
 * pipes, named in $UKCOV_FUZZ as "CTL,STATUS,SHM" (decimal fds).
 *
 * The executor checks everything here as hostile input: the fds must be
 * a pipe, a pipe and a regular file (memfd) whose size is sealed
 * (F_SEAL_SHRINK, F_SEAL_GROW) and is the header's size field, and
 * every length is read once and bounded by the sizes it checked at
 * start.  docs/FORMATS.md §4e has the layout.
 *
 * Per input the tool writes the input at UKFZ_IN_OFF, its length into
 * in_len, then one 32-bit command on CTL (UKFZ_CMD_*).  The executor
 * runs LLVMFuzzerTestOneInput once on its own thread in that mode,
 * writes the records at out_off (word 0 = count, then records: one word
 * per PC, four per CMP record as in a kcov CMP trace; the serving
 * thread's, then its threads' common-handle sections') and answers one
 * 32-bit UKFZ_ST_DONE on STATUS.  A crash is seen by the tool as the
 * executor's death; before dying, the executor's handler fills the
 * crash fields.  During a CMP execution the compare routines that
 * ukcov-cc wraps (memcmp, strcmp and the others of lib/afl_rtn.c) also
 * leave their operands at rtn_off: word 0 = how many calls there were
 * (may exceed rtn_max: the rest did not fit), then struct ukfz_rtn
 * records.  PCs are "stable PCs": (module index + 1) << 40 | offset
 * in the module, so that they mean the same after a restart under ASLR.
 */
#ifndef UKCOV_FUZZ_PROTO_H
#define UKCOV_FUZZ_PROTO_H

#include <stdint.h>

#define UKFZ_ENV       "UKCOV_FUZZ"
#define UKFZ_MAGIC 0x32657a7a75666b75ULL	/* "ukfuzze2" */
#define UKFZ_HELLO     0x554b4631U		/* "UKF1": the executor serves */
#define UKFZ_IN_OFF    4096ULL
#define UKFZ_CRASH_PCS 8
/* A routine's operand: its first bytes, as many as AFL++'s CmpLog logs
 * (afl-compiler-rt.o.c, __cmplog_rtn_hook: 32). */
#define UKFZ_RTN_BYTES 32
#define UKFZ_RTN_MAX 4096	/* records a block may have room for */

enum ukfz_cmd {
	UKFZ_CMD_PC = 1,	/* unique PC coverage: each point once */
	UKFZ_CMD_CMP = 2,	/* a CMP trace (every comparison, in order) */
};

enum ukfz_status {
	UKFZ_ST_DONE = 1,
};

struct ukfz_shm {
	uint64_t magic;		/* UKFZ_MAGIC */
	uint64_t size;		/* bytes of the whole memfd */
	uint64_t in_max;	/* input bytes at UKFZ_IN_OFF */
	uint64_t out_off;	/* records: after the input, page-aligned */
	uint64_t out_words;	/* words there, count word included */
	uint64_t in_len;	/* tool: this input's length */
	uint64_t dropped;	/* executor: records that did not fit */
	/* Written by the executor's fatal-signal handler. */
	uint64_t crash_sig;
	uint64_t crash_pc;	/* stable PC of the faulting instruction */
	uint64_t crash_npcs;
	uint64_t crash_pcs[UKFZ_CRASH_PCS];	/* the trace's last points */
	uint64_t rtn_off;	/* routine operands: after the records */
	uint64_t rtn_max;	/* records there, count word excluded */
};

enum ukfz_rtn_flags {
	UKFZ_RTN_STR = 1,	/* strings: the lengths exclude the NUL */
	UKFZ_RTN_CASE = 2,	/* compared ignoring ASCII case */
	UKFZ_RTN_A_END = 4,	/* a's string ended after len_a bytes */
	UKFZ_RTN_B_END = 8,
};

/* One call of a compare routine: the operands' first bytes (for
 * strstr and memmem the haystack is a, the needle b). */
struct ukfz_rtn {
	uint64_t pc;		/* stable PC of the call */
	uint8_t len_a, len_b;	/* <= UKFZ_RTN_BYTES */
	uint8_t flags;		/* enum ukfz_rtn_flags */
	uint8_t pad[5];
	uint8_t a[UKFZ_RTN_BYTES], b[UKFZ_RTN_BYTES];
};

#define UKFZ_MODULE_SHIFT 40

#endif
