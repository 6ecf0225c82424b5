/*
 * tools/inputs.h -- the inputs of the symbolizing commands: binaries,
 * .sancov files (matched to binaries by sancov's name rule), dumps
 * (matched by build-id) and .symcov files, told apart by content.
 */
#ifndef UKCOV_TOOLS_INPUTS_H
#define UKCOV_TOOLS_INPUTS_H

#include "coverage.h"

/*
 * Classify paths, symbolize every binary that has coverage and unite the
 * results (and the .symcov files) into out.  opts->need_hash asks for
 * the binaries' SHA-1 even where the union does not need it.  Returns 0,
 * or EXIT_DATA after printing why.
 */
int symbolize_inputs(char *const *paths, size_t npaths,
		     const struct cov_opts *opts, struct symcov *out,
		     struct strtab *strs);

#endif
