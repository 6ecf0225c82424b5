/*
 * tools/inputs.h -- the inputs of the symbolizing commands: binaries,
 * .sancov files (matched to binaries by sancov's name rule), dumps
 * (matched by build-id) and .symcov files, told apart by content.
 */
#ifndef UKCOV_TOOLS_INPUTS_H
#define UKCOV_TOOLS_INPUTS_H

#include "coverage.h"

/*
 * What an input file is, by its first bytes (never by its name): every
 * command recognises its inputs with input_kind().  The formats' magics
 * exclude each other (ELF "\177ELF", the .sancov magic, the dump's
 * header line, a .symcov's JSON object), so the order does not matter.
 */
enum input_kind {
	INPUT_UNKNOWN,		/* empty, or none of these */
	INPUT_ELF,		/* a binary */
	INPUT_SANCOV,		/* a .sancov file (docs/FORMATS.md §1) */
	INPUT_DUMP,		/* a ukcov dump (docs/FORMATS.md §3) */
	INPUT_SYMCOV,		/* a .symcov file (JSON) */
};
/* How many first bytes input_kind reads. */
#define INPUT_HEAD 64
/* path's kind into *k: 0, or -errno when it cannot be read (a directory
 * is -EISDIR; *k is then INPUT_UNKNOWN).  Prints nothing: each command says what it cannot use. */
int input_kind(const char *path, enum input_kind *k);

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
