/*
 * tools/report_html.c -- one self-contained HTML page: a summary table,
 * then per file its functions and the annotated source.  Line classes
 * follow sancov's old -html-report: covered (all points on the line hit),
 * notcovered (none), mixed (some).
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include <ukcov/kcov.h>

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em}"
	"table{border-collapse:collapse}td,th{padding:2px 8px;"
	"border-bottom:1px solid #ddd;text-align:left}"
	"td.n{text-align:right}pre{line-height:1.25}"
	".covered{background:#7f7}.notcovered{background:#f77}"
	".mixed{background:#ff7}.ln{color:#888}.nopoints{color:#777}";

static void summary_row(struct strbuf *sb, size_t i, const struct rep_file *f)
{
	sb_printf(sb, "<tr><td><a href=\"#f%zu\">", i);
	put_escaped(sb, f->path);
	sb_printf(sb, "</a></td><td class=n>%.1f%%</td><td class=n>%u/%zu"
		  "</td><td class=n>%u/%zu</td><td class=n>%u/%u</td></tr>\n",
		  100.0 * rate(f->lines_hit, f->nlines), f->lines_hit,
		  f->nlines, f->fns_hit, f->nfns, f->points_hit, f->points);
}

static void function_table(struct strbuf *sb, const struct rep_file *f)
{
	sb_puts(sb, "<table><tr><th>function</th><th>line</th>"
		"<th>points hit</th></tr>\n");
	for (size_t k = 0; k < f->nfns; k++) {
		const struct rep_fn *fn = &f->fns[k];

		sb_printf(sb, "<tr class=\"%s\"><td>",
			  !fn->points		      ? "nopoints"
			  : !fn->covered	      ? "notcovered"
			  : fn->covered == fn->points ? "covered"
						      : "mixed");
		put_escaped(sb, fn->name);
		sb_printf(sb, "</td><td class=n>%u</td>", fn->line);
		if (fn->points)
			sb_printf(sb, "<td class=n>%u/%u</td></tr>\n",
				  fn->covered, fn->points);
		else	/* no block of known state: not "never ran" */
			sb_puts(sb, "<td class=n>no points</td></tr>\n");
	}
	sb_puts(sb, "</table>\n");
}

static const struct rep_line *line_info(const struct rep_file *f, uint32_t n)
{
	size_t lo = 0, hi = f->nlines;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->lines[mid].line < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nlines && f->lines[lo].line == n ? &f->lines[lo]
							 : NULL;
}

static void annotated_source(struct strbuf *sb, const struct rep_file *f,
			     const char *text)
{
	uint32_t n = 1;

	sb_puts(sb, "<pre>");
	for (const char *p = text; *p; n++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const struct rep_line *l = line_info(f, n);
		char *line = xmalloc(len + 1);

		memcpy(line, p, len);
		line[len] = '\0';
		if (l)
			sb_printf(sb, "<span class=\"%s\">",
				  !l->covered		    ? "notcovered"
				  : l->covered == l->points ? "covered"
							    : "mixed");
		sb_printf(sb, "<span class=ln>%6u</span> ", n);
		put_escaped(sb, line);
		sb_puts(sb, l ? "</span>\n" : "\n");
		free(line);
		p += len + (nl != NULL);
	}
	sb_puts(sb, "</pre>\n");
}

static int file_section(const struct report_opts *o, struct strbuf *sb, size_t i,
			const struct rep_file *f)
{
	char *src = source_path(o, f->path), *text = NULL;
	size_t len;
	const char *why = NULL;
	enum source_verdict v = source_text(o, f->path, src, &text, &len,
					    &why);

	sb_printf(sb, "<h2 id=\"f%zu\">", i);
	put_escaped(sb, f->path);
	sb_puts(sb, "</h2>\n");
	function_table(sb, f);
	if (v == SOURCE_READ) {
		annotated_source(sb, f, text);
	} else if (!o->allow_missing_sources) {
		msg_error("%s: cannot read the source of %s for the report: %s "
			  "(use --source-root DIR, --strip-path-prefix, or "
			  "--allow-missing-sources)", src, f->path, why);
		free(src);
		free(text);
		return EXIT_DATA;
	} else {
		sb_puts(sb, "<p>source not available: ");
		put_escaped(sb, src);
		sb_puts(sb, " (");
		put_escaped(sb, why);
		sb_puts(sb, ")</p>\n");
	}
	free(src);
	free(text);
	return 0;
}

int render_html_page(const struct report_opts *o, const struct report *rep,
		       struct strbuf *sb)
{
	const char *title = o->title ? o->title : "ukcov coverage report";

	sb_puts(sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		"<title>");
	put_escaped(sb, title);
	sb_printf(sb, "</title><style>%s</style></head><body>\n<h1>", style);
	put_escaped(sb, title);
	sb_printf(sb, "</h1>\n<p>ukcov %s. Lines: covered lines / %s. "
		  "Points: covered / all coverage points located on the "
		  "file's lines.</p>\n<table><tr><th>file</th>"
		  "<th>lines</th><th></th><th>functions</th><th>points</th>"
		  "</tr>\n", UKCOV_VERSION_STRING,
		  rep->blocks ? "lines in basic blocks known to have run or not"
			      : "lines with coverage points");
	for (size_t i = 0; i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i]))
			summary_row(sb, i, &rep->files[i]);
	sb_puts(sb, "</table>\n");
	for (size_t i = 0; i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i]) &&
		    file_section(o, sb, i, &rep->files[i]))
			return EXIT_DATA;
	sb_puts(sb, "</body></html>\n");
	return 0;
}
