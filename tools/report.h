/*
 * tools/report.h -- coverage by source file, line and function, shared
 * by the lcov, Cobertura and HTML renderers, and the multi-page HTML
 * report ("site") that `ukcov report -o DIR` writes and `ukcov serve`
 * serves from memory.  Nothing here knows the command line: the CLI
 * fills a struct report_opts.
 */
#ifndef UKCOV_TOOLS_REPORT_H
#define UKCOV_TOOLS_REPORT_H

#include "coverage.h"

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
	size_t nlines, caplines;
	struct rep_fn *fns;
	size_t nfns, capfns;
	uint32_t lines_hit, fns_hit;
	uint32_t points, points_hit;	/* distinct points located here */
};

struct report {
	struct rep_file *files;
	size_t nfiles, capfiles;
	struct cov_stats totals;	/* as `ukcov stats` counts them */
	bool blocks;		/* lines and functions from basic blocks
				 * (lines.h): a line's "points" are the
				 * blocks holding it, "covered" those that
				 * ran; else from the points on it */
};

void report_build(const struct symcov *sc, struct report *r);
void report_free(struct report *r);

/* `ukcov stats`' lines for the report's totals (sc has a model). */
void report_print_totals(const struct symcov *sc, struct strbuf *sb);

/* How reports read sources and what they say about their origin. */
struct report_opts {
	const char *title;		/* NULL: "ukcov coverage report" */
	const char *source_root;	/* where sources are read, or NULL */
	const char *strip_prefix;	/* --strip-path-prefix given */
	const char *test_name;		/* lcov TN: */
	bool allow_missing_sources;	/* single page: render without text */
	const char *const *inputs;	/* one description per input */
	size_t ninputs;
	long long date;			/* report_time() */
	unsigned long generation;	/* serve: page version, 0 static */
	/* Without source_root: if set, the only source paths (as the
	 * report names them, sorted by strcmp) whose text is read. */
	const char *const *trusted;
	size_t ntrusted;
};

/* Where a report reads (and lcov names) a source file; malloc'd. */
char *source_path(const struct report_opts *o, const char *path);
/* Is the real path real at or under the real directory root ("/"
 * holds every absolute path)? */
bool path_under(const char *real, const char *root);
enum source_verdict {
	SOURCE_READ,	/* *text holds the source */
	SOURCE_MISSING,	/* unreadable, not a regular file, too large */
	SOURCE_REFUSED,	/* outside --source-root, or not trusted */
};
/* The text of the source that path (as the report names it) is read
 * from, src = source_path(o, path); else NULL and *why says why. */
enum source_verdict source_text(const struct report_opts *o,
				const char *path, const char *src,
				char **text, size_t *len, const char **why);
/* HTML/XML text escaping. */
void put_escaped(struct strbuf *sb, const char *s);
void put_escaped_n(struct strbuf *sb, const char *s, size_t n);
double rate(size_t hit, size_t all);
/* SOURCE_DATE_EPOCH if set (reproducible reports), else now. */
long long report_time(void);
/* Length of the longest common directory prefix (with its '/') of the
 * report's real source files. */
size_t report_common_dir(const struct report *rep);
/* True for the pseudo file of points without debug info. */
bool report_no_source(const struct rep_file *f);

typedef int (*report_render_fn)(const struct report_opts *o,
				const struct report *rep, struct strbuf *sb);
int render_lcov(const struct report_opts *o, const struct report *rep,
		struct strbuf *sb);
int render_cobertura(const struct report_opts *o, const struct report *rep,
		     struct strbuf *sb);
/* The single self-contained page (`report -o FILE.html`, stdout). */
int render_html_page(const struct report_opts *o, const struct report *rep,
		     struct strbuf *sb);

/* ---- the multi-page report ---- */

struct site_page {
	char *path;		/* "index.html", "f/3-lua.c.html" */
	char *body;
	size_t len;
	const char *mime;
};

struct site {
	struct site_page *pages;	/* sorted by path */
	size_t npages;
	size_t missing_sources;		/* file pages without their text */
	size_t refused_sources;		/* of which outside --source-root
					 * or not trusted */
};

/* Render every page into memory.  Files whose source cannot be read get
 * a page saying so (counted in missing_sources). */
void site_build(const struct report_opts *o, const struct report *rep,
		struct site *s);
void site_free(struct site *s);
/* The page at path (no leading '/'), or NULL. */
const struct site_page *site_find(const struct site *s, const char *path);
/* Write every page under dir (created if needed); 0 or -1 after a
 * message naming the file. */
int site_write(const struct site *s, const char *dir);

#endif
