/*
 * tools/binmatch.h -- the binary that a dump module's PCs belong to
 * (docs/FORMATS.md §3): a binary with the module's build-id, given on the
 * command line or found at the recorded path; a module recorded without
 * a build-id goes by its file name.  Shared by the symbolizing commands
 * and the symbolized printer, so both say the same when it is missing.
 */
#ifndef UKCOV_TOOLS_BINMATCH_H
#define UKCOV_TOOLS_BINMATCH_H

#include "dump.h"
#include "elfpoints.h"

/* A binary that may hold a module: its ELF facts are read on demand. */
struct bin_candidate {
	const char *path;
	struct elf_info info;
	bool info_read;
};

/* True if c is m's binary: equal build-ids, or, for a module recorded
 * without one, the same file name. */
bool bin_matches(const struct dump_module *m, struct bin_candidate *c);

enum bin_verdict {
	BIN_FOUND,	/* the recorded path is m's binary */
	BIN_MISSING,	/* nothing readable at the recorded path */
	BIN_MISMATCH,	/* another build sits there (other build-id) */
};

/* Is the file at m's recorded path m's binary?  rec gets its facts. */
enum bin_verdict bin_check_recorded(const struct dump_module *m,
				    struct bin_candidate *rec);

/*
 * "SRC: no binary with build-id X for module P[ (P is another build:
 * build-id Y)]; pass it on the command line (its N PCs CONSEQUENCE)".
 */
void bin_warn(const char *src, const struct dump_module *m,
	      enum bin_verdict v, const struct bin_candidate *rec, size_t npcs,
	      const char *consequence);

#endif
