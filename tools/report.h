/*
 * tools/report.h -- coverage by source file, line and function, shared
 * by the lcov, Cobertura and HTML renderers.
 */
#ifndef UKCOV_TOOLS_REPORT_H
#define UKCOV_TOOLS_REPORT_H

#include "ukcov.h"

struct rep_line {
	uint32_t line, points, covered;
};

struct rep_fn {
	const char *name;
	uint32_t line, points, covered;
};

struct rep_file {
	const char *path;
	struct rep_line *lines;
	size_t nlines;
	struct rep_fn *fns;
	size_t nfns;
	uint32_t lines_hit, fns_hit;
};

struct report {
	struct rep_file *files;
	size_t nfiles;
};

void report_build(const struct symcov *sc, struct report *r);
void report_free(struct report *r);

typedef int (*report_render_fn)(const struct options *o,
				const struct report *rep, struct strbuf *sb);
/* Symbolize the inputs of o, build the report, render it, write it. */
int with_report(struct options *o, report_render_fn render);

/* Where a source file is read (and what lcov's SF: says). */
char *source_path(const struct options *o, const char *path);
/* HTML/XML text escaping. */
void put_escaped(struct strbuf *sb, const char *s);
double rate(size_t hit, size_t all);
/* SOURCE_DATE_EPOCH if set (reproducible reports), else now. */
long long report_time(void);

#endif
