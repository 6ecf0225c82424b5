/*
 * tools/symcov.h -- symbolized coverage, the model behind LLVM's .symcov
 * JSON (sancov.cpp SymbolizedCoverage): a set of covered point ids, the
 * binary's SHA-1, and every point with its source locations.
 */
#ifndef UKCOV_TOOLS_SYMCOV_H
#define UKCOV_TOOLS_SYMCOV_H

#include "util.h"
#include "strtab.h"

struct srcmodel;

struct sc_loc {
	const char *file, *func;	/* interned */
	uint32_t line, col;
};

struct sc_point {
	const char *id;		/* lowercase hex address, interned */
	size_t first, n;	/* locs[first .. first+n) */
};

struct symcov {
	struct strtab *strs;	/* shared, owned by the caller */
	const char **covered;	/* sorted by strcmp after symcov_finish */
	size_t ncovered, capcovered;
	const char *hash;	/* "" when unknown or mixed */
	struct sc_point *points;
	size_t npoints, cappoints;
	struct sc_loc *locs;
	size_t nlocs, caplocs;
	/* Lines and functions from basic blocks and DWARF (lines.h), when
	 * asked for and every input has one; NULL: the point model. */
	struct srcmodel *model;
};

void symcov_init(struct symcov *sc, struct strtab *strs);
void symcov_free(struct symcov *sc);
void symcov_add_covered(struct symcov *sc, const char *id);
/* Start a new point; later symcov_add_loc calls attach to it. */
void symcov_add_point(struct symcov *sc, const char *id);
void symcov_add_loc(struct symcov *sc, const struct sc_loc *loc);
/* Sort and de-duplicate the covered ids. */
void symcov_finish(struct symcov *sc);
bool symcov_is_covered(const struct symcov *sc, const char *id);

/* Serialize exactly like sancov-14 (llvm::json::OStream, indent 2, no
 * trailing newline). */
void symcov_write_json(const struct symcov *sc, struct strbuf *out);

/*
 * Parse a .symcov.  Like sancov's reader, points come out sorted by id
 * string and unknown top-level keys are skipped (with a warning naming
 * path unless quiet).  Returns 0, or -1 with err.
 */
int symcov_parse(const char *buf, size_t len, struct symcov *sc,
		 const char *path, bool quiet, char err[ERRLEN]);
int symcov_load(const char *path, struct symcov *sc);

/* True if buf looks like JSON (first non-blank byte is '{'). */
bool symcov_looks_like(const char *buf, size_t len);

#endif
