/*
 * tools/fuzz.h -- "ukcov fuzz": a libFuzzer-style fuzzer driven by the
 * kcov records of the harness (unique PCs for novelty, CMP operands for
 * hints).  fuzz.c runs the loop, fuzz_run.c the executor process,
 * fuzz_mut.c the mutators, the dictionary and the hints.
 */
#ifndef UKCOV_TOOLS_FUZZ_H
#define UKCOV_TOOLS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/fuzz_proto.h"

int cmd_fuzz_main(int argc, char **argv);

/* ---- fuzz_run.c: the harness process and its executor ---- */
enum fz_outcome { FZ_OK, FZ_CRASH, FZ_TIMEOUT, FZ_ERROR };

struct fz_crash {
	int sig;		/* fatal signal, or 0 */
	int exit_code;		/* the harness exited: its code */
	uint64_t pc;		/* stable PC of the fault */
	uint64_t npcs;
	uint64_t pcs[UKFZ_CRASH_PCS];
};

struct fz_exec {
	char **argv;
	unsigned timeout_ms;
	int ctl, st;			/* our ends of the pipes */
	int shm_fd;
	struct ukfz_shm *shm;
	size_t shm_len;
	uint64_t in_max, out_words;
	const uint64_t *out;		/* count, then records */
	uint64_t *rtn_count;		/* routine operands: calls, */
	const struct ukfz_rtn *rtn;	/* then records (hostile bytes) */
	uint64_t rtn_max;
	pid_t pid;			/* 0: not running */
	uint64_t execs;			/* harness executions */
	uint64_t restarts;
};

int fz_exec_init(struct fz_exec *e, char **argv, uint64_t max_len,
		 unsigned timeout_ms);
/* Run one input in mode UKFZ_CMD_PC or _CMP; FZ_OK leaves the records
 * in e->out (clamped to out_words). */
enum fz_outcome fz_exec_run(struct fz_exec *e, const uint8_t *data,
			    size_t len, int mode, struct fz_crash *crash);
void fz_exec_stop(struct fz_exec *e);
/* The routine records of the last FZ_OK CMP run, bounded by the block. */
uint64_t fz_exec_rtn_count(const struct fz_exec *e);
/* The records of the last FZ_OK run: count bounded by the block. */
uint64_t fz_exec_count(const struct fz_exec *e, unsigned words_per_rec);

/* ---- fuzz_mut.c ---- */
struct fz_rng {
	uint64_t s;
};
/* A uniform number below n (n > 0). */
uint64_t fz_below(struct fz_rng *r, uint64_t n);

struct fz_bytes {
	uint8_t *p;
	size_t n;
};

struct fz_dict {
	struct fz_bytes *w;
	size_t n;
};
/* AFL/libFuzzer dictionary: name="value" or "value" lines, # comments,
 * \\ \" \xNN escapes.  0, or -1 with a one-line message in err. */
int fz_dict_load(const char *path, struct fz_dict *d, char *err, size_t errlen);

/* Mutate buf (len bytes, room for max) with 1..5 stacked mutators;
 * other: an input to splice with (may be empty).  Returns the new
 * length; names the mutators applied in ms (libFuzzer's "MS:"). */
size_t fz_mutate(struct fz_rng *r, uint8_t *buf, size_t len, size_t max,
		 const struct fz_bytes *other, const struct fz_dict *dict,
		 char *ms, size_t mslen);

/* A stable comparison: when the input holds `op` (of `size` bytes),
 * `repl` is what the comparison wanted (syzkaller prog/hints.go). */
struct fz_hint {
	uint64_t op, repl;
	unsigned size;
};
struct fz_hints {
	struct fz_hint *h;
	size_t n, cap;
};
/* The hints of one CMP trace (records: type, arg1, arg2, pc). */
void fz_hints_from_cmp(struct fz_hints *out, const uint64_t *recs,
		       uint64_t n);
/* Keep only the hints also in other (stable across two runs). */
void fz_hints_intersect(struct fz_hints *h, const struct fz_hints *other);
/* Every mutant of in that splices a hint's replacement over a place
 * that holds its operand (1/2/4/8 bytes, little and big endian, sign-
 * or zero-extended); each distinct mutant once, at most max_mutants. */
void fz_hints_mutants(const struct fz_hints *h, const uint8_t *in, size_t len,
		      struct fz_bytes **out, size_t *nout, size_t max_mutants);
void fz_hints_free(struct fz_hints *h);

/* A compare routine's operands, stable across two runs: where the input
 * holds op (or its start), repl is what the routine compared it with. */
struct fz_rtn_hint {
	uint8_t op[UKFZ_RTN_BYTES], repl[UKFZ_RTN_BYTES];
	uint8_t lop, lrepl;
	uint8_t flags;		/* UKFZ_RTN_*, of op as A, repl as B */
};
struct fz_rtn_hints {
	struct fz_rtn_hint *h;
	size_t n, cap;
};
/* The hints of one CMP run's routine records (validated: lengths past
 * UKFZ_RTN_BYTES drop the record), both directions. */
void fz_rtn_from(struct fz_rtn_hints *out, const struct ukfz_rtn *recs,
		 uint64_t n);
void fz_rtn_intersect(struct fz_rtn_hints *h, const struct fz_rtn_hints *o);
/* Every mutant of in that writes a hint's repl where in holds its op
 * (all of it, or its start up to the input's end); each distinct mutant
 * once, appended to out, at most max_mutants in out. */
void fz_rtn_mutants(const struct fz_rtn_hints *h, const uint8_t *in, size_t len,
		    size_t max_len, struct fz_bytes **out, size_t *nout,
		    size_t max_mutants);
void fz_rtn_free(struct fz_rtn_hints *h);

#endif
