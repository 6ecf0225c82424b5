/*
 * tools/lines.h -- the source model of a binary's coverage: which lines
 * ran (from basic blocks, tools/blocks.c) and which functions ran (from
 * DWARF subprograms and their inlined instances).  `ukcov report`,
 * `lcov`, `cobertura` and the line totals of `stats` use it; the
 * sancov-compatible commands keep sancov's model (symcov.h).
 */
#ifndef UKCOV_TOOLS_LINES_H
#define UKCOV_TOOLS_LINES_H

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct sym_module;

/* A line (or a function) and the blocks that hold it: blocks whose
 * state is known or inferred, and how many of them ran. */
struct sm_line {
	const char *file;	/* interned, normalized */
	uint32_t line, blocks, ran;
	uint32_t unknown;	/* blocks of unknown state holding it: with
				 * none that ran, the line is not reported,
				 * whatever other binaries say */
};

/* One instance (out-of-line copy or inlined) of a function, filed under
 * the file and line of its definition. */
struct sm_fn {
	const char *file, *name;
	uint32_t line, blocks, ran;
};

struct srcmodel {
	struct sm_line *lines;	/* may repeat (file, line): merge */
	size_t nlines, caplines;
	struct sm_fn *fns;	/* one per instance: merge by key */
	size_t nfns, capfns;
	const char **files;	/* files with line-table rows in code */
	size_t nfiles, capfiles;
	size_t undecoded;	/* functions whose code was not decoded */
	bool truncated;		/* the DWARF claimed the same code over
				 * and over: the work bound cut it short */
};

/* How the model names files, and what it leaves out. */
struct sm_hooks {
	/* Normalized, interned name of an absolute file name. */
	const char *(*file)(void *arg, const char *raw);
	/* False for what the ignorelists exclude (func may be NULL). */
	bool (*keep)(void *arg, const char *file, const char *func);
	void *arg;
};

/*
 * Build the model of the module m (ELF addresses): points every coverage
 * point (sorted), covered those hit (sorted).  Returns 0 (an empty model
 * without DWARF), or -1 when the machine's code cannot be decoded (not
 * x86-64): the caller keeps the point model.
 */
int srcmodel_build(struct sym_module *m, const struct pcvec *points,
		   const struct pcvec *covered, const struct sm_hooks *h,
		   struct srcmodel *out);
/* Append a copy of src to dst, strings re-interned with add(arg, s). */
void srcmodel_append(struct srcmodel *dst, const struct srcmodel *src,
		     const char *(*add)(void *arg, const char *s), void *arg);
static inline void srcmodel_free(struct srcmodel *sm)
{
	free(sm->lines);
	free(sm->fns);
	free(sm->files);
	memset(sm, 0, sizeof(*sm));
}

#endif
