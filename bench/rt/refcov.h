/*
 * bench/rt/refcov.h -- the reference append runtime ("ref-append"), the
 * yardstick for ukcov's recording path.  See refcov.c.
 */
#ifndef BENCH_REFCOV_H
#define BENCH_REFCOV_H

#include <stddef.h>
#include <stdint.h>

/* Same values as Linux's KCOV_TRACE_PC / KCOV_TRACE_CMP. */
#define REFCOV_PC  0
#define REFCOV_CMP 1

/* Make the calling thread record into AREA (WORDS 8-byte words, word 0 the
 * count) in MODE; AREA NULL stops it. */
void refcov_attach(uint64_t *area, size_t words, int mode);

/* Environment read by the constructor: the launcher (kcovrun -k ref) puts
 * the shared buffer's memfd, its size in words and the mode here. */
#define REFCOV_ENV_FD    "REFCOV_FD"
#define REFCOV_ENV_WORDS "REFCOV_WORDS"
#define REFCOV_ENV_MODE  "REFCOV_MODE"

#endif
