/*
 * tools/coverage.h -- from binaries and covered PCs to symbolized
 * coverage (sancov.cpp symbolize/getCoveragePoints), union of symbolized
 * coverages, and the derived views (function lists, stats).
 */
#ifndef UKCOV_TOOLS_COVERAGE_H
#define UKCOV_TOOLS_COVERAGE_H

#include "ignorelist.h"
#include "symcov.h"

struct cov_opts {
	bool demangle;		/* default on, as sancov */
	bool skip_dead;		/* skip-dead-files, default on */
	struct ignorelist *dflt;	/* NULL: -use_default_ignorelist=0 */
	struct ignorelist *user;	/* -ignorelist= */
	const char *strip_prefix;	/* applied once (sancov: twice) */
	bool need_hash;		/* SHA-1 the binary ("binary-hash") */
	bool model;		/* also build the source model (lines.h) */
};

/*
 * Symbolize every coverage point of binary; covered (sorted, unique, no
 * zeros) must be a subset of them.  cov_name names the coverage input in
 * messages.  Returns 0, or -1 after printing why.
 */
int symcov_from_binary(const char *binary, const struct pcvec *covered,
		       const char *cov_name, const struct cov_opts *o,
		       struct symcov *out);

/*
 * Union of symbolized coverages, associative and order-independent:
 * inputs with the same non-empty binary-hash describe the same binary,
 * so their covered ids and points are united.  If several binaries
 * remain, each id is qualified as "<first 16 hash digits>:<id>" and the
 * hash is emptied; inputs whose hash is already empty are taken as they
 * are (already qualified, or of unknown origin).
 */
void symcov_union(struct symcov **in, size_t n, struct symcov *out);

/* sancov's -covered-functions / -not-covered-functions lines. */
void symcov_print_functions(const struct symcov *sc, bool covered,
			    struct strbuf *out);

struct cov_stats {
	size_t all_points, cov_points, all_fns, cov_fns;
};

void symcov_stats(const struct symcov *sc, struct cov_stats *st);

#endif
