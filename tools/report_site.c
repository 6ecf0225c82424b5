/*
 * tools/report_site.c -- the multi-page HTML report: an index (totals,
 * then directories, then files, the common path prefix removed) and one
 * page per source file (line numbers, covered / partly covered /
 * uncovered lines, points per line and how many were hit, a function
 * table, a jump from each uncovered region to the next).
 *
 * Pages are rendered into memory (struct site) so that `ukcov report -o
 * DIR` writes them and `ukcov serve` serves them from the same bytes.
 * Rendering is one pass over the report and one over each source text:
 * linear in the inputs.  Output is deterministic: the order is the
 * report's (file paths by strcmp), the date is report_time().
 *
 * Page layout (docs/FORMATS.md, "HTML report"):
 *   index.html            totals, directories, files (sortable tables)
 *   f/<n>-<basename>.html one per source file, n = its index row
 * Element ids the tests read: lines-hit, lines-all, functions-hit,
 * functions-all, points-hit, points-all (totals of the page), L<n>
 * (source line n), u<k> (k-th uncovered region, from 1).
 */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ukcov/kcov.h>

static const char site_style[] =
	"body{font-family:system-ui,sans-serif;margin:0;color:#222}"
	"header,main,footer{padding:.4em 1.5em}"
	"header{background:#2b3a4a;color:#fff}header a{color:#cde}"
	"h1{font-size:1.3em;margin:.3em 0}h2{font-size:1.1em}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{padding:2px 10px;border-bottom:1px solid #ddd;"
	"text-align:left;white-space:nowrap}"
	"th{background:#eef}td.n,th.n{text-align:right;"
	"font-variant-numeric:tabular-nums}"
	"table.sortable th{cursor:pointer}"
	".bar{float:left;width:80px;height:.8em;background:#e55;"
	"margin:.3em 8px 0 0}"
	".bar span{display:block;height:100%;background:#3b3}"
	".hi{background:#dfd}.mid{background:#ffd}.lo{background:#fdd}"
	"pre.src{font-size:13px;line-height:1.35;tab-size:8;margin:0}"
	"pre.src a{color:#888;text-decoration:none}"
	"pre.src>span{display:inline-block;min-width:100%}"
	"pre.src .h{color:#555}pre.src a.nx{color:#c00;font-weight:bold}"
	".c{background:#cfc}.p{background:#ffc}.u{background:#fcc}"
	".np{color:#777}"
	"footer{color:#555;font-size:.85em;border-top:1px solid #ccc;"
	"margin-top:1em}footer ul{margin:.2em 0}"
	".note{background:#ffe;border:1px solid #cc9;padding:.4em}";

/* Sorting without a server: click a header; numeric cells carry data-v.
 * With scripts off the tables read in path order.  Served pages
 * (data-gen != 0) poll version.json twice a second and reload when the coverage
 * changed. */
static const char site_script[] =
	"<script>\n"
	"document.querySelectorAll('table.sortable').forEach(function(t){\n"
	" t.querySelectorAll('th').forEach(function(th,i){\n"
	"  th.title='sort';th.addEventListener('click',function(){\n"
	"   var rows=Array.prototype.slice.call(t.tBodies[0].rows);\n"
	"   var up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';\n"
	"   function key(r){var c=r.cells[i];return c.dataset.v!==undefined?"
	"parseFloat(c.dataset.v):c.textContent;}\n"
	"   rows.sort(function(a,b){var x=key(a),y=key(b);"
	"return (x<y?-1:x>y?1:0)*(up?1:-1);});\n"
	"   rows.forEach(function(r){t.tBodies[0].appendChild(r);});});});});\n"
	"(function(){var g=document.body.dataset.gen;if(!g||g==='0')return;\n"
	" var u=document.body.dataset.root+'version.json';\n"
	" setInterval(function(){fetch(u,{cache:'no-store'}).then(function(r)"
	"{return r.json();}).then(function(j){if(String(j.version)!==g)"
	"location.reload();}).catch(function(){});},500);})();\n"
	"</script>\n";

/* ---- small pieces ---- */

static void put_date(struct strbuf *sb, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	if (gmtime_r(&tt, &tm) &&
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm))
		sb_puts(sb, buf);
	else
		sb_printf(sb, "%lld", t);
}

static const char *level(size_t hit, size_t all)
{
	double r = rate(hit, all);

	return !all ? "" : r >= 0.9 ? "hi" : r >= 0.5 ? "mid" : "lo";
}

/* "<td data-v=rate>hit / all</td>" cells: numbers sort, text reads. */
static void fraction_cell(struct strbuf *sb, size_t hit, size_t all)
{
	sb_printf(sb, "<td class=\"n %s\" data-v=\"%.6f\">%zu / %zu</td>",
		  level(hit, all), rate(hit, all), hit, all);
}

static void percent_cell(struct strbuf *sb, size_t hit, size_t all)
{
	double p = 100.0 * rate(hit, all);

	sb_printf(sb, "<td class=n data-v=\"%.6f\"><span class=bar><span "
		  "style=\"width:%.0f%%\"></span></span>%.1f%%</td>",
		  rate(hit, all), p, p);
}

struct counts {
	size_t lines, lines_hit, fns, fns_hit, points, points_hit;
};

static void counts_add(struct counts *c, const struct rep_file *f)
{
	c->lines += f->nlines;
	c->lines_hit += f->lines_hit;
	c->fns += f->nfns;
	c->fns_hit += f->fns_hit;
	c->points += f->points;
	c->points_hit += f->points_hit;
}

static void totals_row(struct strbuf *sb, const char *what, size_t hit,
		       size_t all)
{
	sb_printf(sb, "<tr><th>%s</th><td class=n id=\"%s-hit\">%zu</td>"
		  "<td class=n id=\"%s-all\">%zu</td>", what, what, hit, what,
		  all);
	percent_cell(sb, hit, all);
	sb_puts(sb, "</tr>\n");
}

static void totals_table(struct strbuf *sb, const struct counts *c)
{
	sb_puts(sb, "<table class=totals><thead><tr><th></th><th class=n>"
		"covered</th><th class=n>all</th><th class=n>coverage</th>"
		"</tr></thead><tbody>\n");
	totals_row(sb, "lines", c->lines_hit, c->lines);
	totals_row(sb, "functions", c->fns_hit, c->fns);
	totals_row(sb, "points", c->points_hit, c->points);
	sb_puts(sb, "</tbody></table>\n");
}

static void page_head(struct strbuf *sb, const struct report_opts *o,
		      const char *root, const char *what)
{
	const char *title = o->title ? o->title : "ukcov coverage report";

	sb_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
		"charset=\"utf-8\"><meta name=\"viewport\" content=\"width="
		"device-width\"><title>");
	if (what) {
		put_escaped(sb, what);
		sb_puts(sb, " - ");
	}
	put_escaped(sb, title);
	sb_printf(sb, "</title><style>%s</style></head>\n<body id=top "
		  "data-gen=\"%lu\" data-root=\"%s\">\n<header><h1><a href=\""
		  "%sindex.html\">", site_style, o->generation, root, root);
	put_escaped(sb, title);
	sb_puts(sb, "</a></h1>");
}

/* Every page names its inputs, the date and the ukcov version. */
#define POINTS_NOTE "Lines: lines with coverage points, covered if one " \
	"of their points was hit."
#define BLOCKS_NOTE "Lines: lines of code in basic blocks known to have " \
	"run or not (hit/all: blocks that ran / blocks), covered if one ran, " \
	"partly covered if some did.  Functions: where they are defined, " \
	"ran if one of their copies (inlined ones too) holds a block that " \
	"ran; \"no points\" when none holds a block known to have run or not."

static void page_foot(struct strbuf *sb, const struct report_opts *o,
		      bool blocks)
{
	sb_puts(sb, "<footer>Inputs:<ul>\n");
	for (size_t i = 0; i < o->ninputs; i++) {
		sb_puts(sb, "<li>");
		put_escaped(sb, o->inputs[i]);
		sb_puts(sb, "</li>\n");
	}
	sb_puts(sb, "</ul>Generated ");
	put_date(sb, o->date);
	sb_printf(sb, " by ukcov %s.  %s  Points: SanitizerCoverage points "
		  "(edges or blocks).</footer>\n%s</body></html>\n",
		  UKCOV_VERSION_STRING, blocks ? BLOCKS_NOTE : POINTS_NOTE,
		  site_script);
}

/* ---- the site's page list ---- */

static struct site_page *add_page(struct site *s, char *path)
{
	struct site_page *p;

	s->pages = xrealloc(s->pages, (s->npages + 1) * sizeof(*s->pages));
	p = &s->pages[s->npages++];
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->mime = "text/html; charset=utf-8";
	return p;
}

static void finish_page(struct site_page *p, struct strbuf *sb)
{
	p->body = sb->s ? sb->s : xstrdup("");
	p->len = sb->n;
	memset(sb, 0, sizeof(*sb));
}

/* "f/<n>-<basename>.html"; the basename reduced to [A-Za-z0-9._-]. */
static char *file_page_name(size_t n, const char *path)
{
	char *s = xasprintf("f/%zu-%s.html", n, path_basename(path));

	for (char *p = s + 2; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '.' && *p != '-')
			*p = '_';
	return s;
}

/* ---- index ---- */

struct dir_row {
	char *name;		/* relative, "." for the common root */
	struct counts c;
};

static int cmp_dir_row(const void *a, const void *b)
{
	return strcmp(((const struct dir_row *)a)->name,
		      ((const struct dir_row *)b)->name);
}

static char *dir_of(const char *rel)
{
	const char *s = strrchr(rel, '/');

	if (!s)
		return xstrdup(".");
	return xasprintf("%.*s", (int)(s - rel), rel);
}

/* Directory rollups: sorted names, counts summed by binary search. */
static struct dir_row *collect_dirs(const struct report *rep, size_t root,
				    size_t *n)
{
	struct dir_row *d = xcalloc(rep->nfiles + 1, sizeof(*d));
	size_t k = 0;

	for (size_t i = 0; i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i]))
			d[k++].name = dir_of(rep->files[i].path + root);
	qsort(d, k, sizeof(*d), cmp_dir_row);
	*n = 0;
	for (size_t i = 0; i < k; i++) {
		if (*n && !strcmp(d[*n - 1].name, d[i].name)) {
			free(d[i].name);
			continue;
		}
		d[(*n)++] = d[i];
	}
	for (size_t i = 0; i < rep->nfiles; i++) {
		const struct rep_file *f = &rep->files[i];
		struct dir_row key = { 0 }, *hit;

		if (report_no_source(f))
			continue;
		key.name = dir_of(f->path + root);
		hit = bsearch(&key, d, *n, sizeof(*d), cmp_dir_row);
		counts_add(&hit->c, f);
		free(key.name);
	}
	return d;
}

static void table_head(struct strbuf *sb, const char *first)
{
	sb_printf(sb, "<table class=sortable><thead><tr><th>%s</th><th "
		  "class=n>line coverage</th><th class=n>lines</th><th "
		  "class=n>functions</th><th class=n>points</th></tr></thead>"
		  "<tbody>\n", first);
}

static void count_cells(struct strbuf *sb, const struct counts *c)
{
	percent_cell(sb, c->lines_hit, c->lines);
	fraction_cell(sb, c->lines_hit, c->lines);
	fraction_cell(sb, c->fns_hit, c->fns);
	fraction_cell(sb, c->points_hit, c->points);
	sb_puts(sb, "</tr>\n");
}

static void dirs_table(struct strbuf *sb, const struct report *rep,
		       size_t root)
{
	size_t n;
	struct dir_row *d = collect_dirs(rep, root, &n);

	sb_puts(sb, "<h2>Directories</h2>\n");
	table_head(sb, "directory");
	for (size_t i = 0; i < n; i++) {
		sb_puts(sb, "<tr><td>");
		put_escaped(sb, d[i].name);
		sb_puts(sb, "</td>");
		count_cells(sb, &d[i].c);
		free(d[i].name);
	}
	sb_puts(sb, "</tbody></table>\n");
	free(d);
}

static void files_table(struct strbuf *sb, const struct report *rep,
			size_t root, char **names)
{
	sb_puts(sb, "<h2>Files</h2>\n");
	table_head(sb, "file");
	for (size_t i = 0; i < rep->nfiles; i++) {
		const struct rep_file *f = &rep->files[i];
		struct counts c = { 0 };

		if (report_no_source(f))
			continue;
		counts_add(&c, f);
		sb_printf(sb, "<tr><td><a href=\"%s\">", names[i]);
		put_escaped(sb, f->path + root);
		sb_puts(sb, "</a></td>");
		count_cells(sb, &c);
	}
	sb_puts(sb, "</tbody></table>\n");
}

/* Points without a source line: the binary (or part) has no DWARF. */
static void no_debug_note(struct strbuf *sb, const struct report *rep)
{
	for (size_t i = 0; i < rep->nfiles; i++) {
		const struct rep_file *f = &rep->files[i];

		if (report_no_source(f))
			sb_printf(sb, "<p class=note>%u coverage points (%u "
				  "covered) in %zu functions have no source "
				  "line: no DWARF debug info for them (build "
				  "with -g).</p>\n", f->points, f->points_hit,
				  f->nfns);
	}
}

static void render_index(const struct report_opts *o,
			 const struct report *rep, size_t root, char **names,
			 struct site *s)
{
	struct strbuf sb = { 0 };
	struct counts c = { 0 };

	for (size_t i = 0; i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i]))
			counts_add(&c, &rep->files[i]);
	/* Without blocks, functions as `ukcov stats` counts them
	 * (points without debug info and inlined copies included). */
	if (!rep->blocks) {
		c.fns = rep->totals.all_fns;
		c.fns_hit = rep->totals.cov_fns;
	}
	c.points = rep->totals.all_points;
	c.points_hit = rep->totals.cov_points;
	page_head(&sb, o, "", NULL);
	sb_puts(&sb, "</header>\n<main>\n");
	totals_table(&sb, &c);
	no_debug_note(&sb, rep);
	if (root) {
		sb_puts(&sb, "<p>Paths below are relative to <code>");
		for (size_t i = 0; i < rep->nfiles; i++)
			if (!report_no_source(&rep->files[i])) {
				put_escaped_n(&sb, rep->files[i].path, root);
				break;
			}
		sb_puts(&sb, "</code>.</p>\n");
	}
	dirs_table(&sb, rep, root);
	files_table(&sb, rep, root, names);
	sb_puts(&sb, "</main>\n");
	page_foot(&sb, o, rep->blocks);
	finish_page(add_page(s, xstrdup("index.html")), &sb);
}

/* ---- file pages ---- */

static const char *line_class(const struct rep_line *l)
{
	return !l->covered ? "u" : l->covered == l->points ? "c" : "p";
}

static void function_table(struct strbuf *sb, const struct rep_file *f,
			   bool blocks)
{
	sb_printf(sb, "<h2>Functions</h2>\n<table class=sortable><thead><tr>"
		  "<th>function</th><th class=n>line</th><th class=n>%s"
		  "</th></tr></thead><tbody>\n",
		  blocks ? "blocks ran" : "points hit");
	for (size_t k = 0; k < f->nfns; k++) {
		const struct rep_fn *fn = &f->fns[k];
		const char *cls = !fn->points		   ? "np"
				  : !fn->covered	   ? "u"
				  : fn->covered == fn->points ? "c"
							     : "p";

		/* Line 0: no point of the function has a line (no DWARF
		 * line for it): nothing to link to. */
		if (fn->line)
			sb_printf(sb, "<tr class=%s><td><a href=\"#L%u\">",
				  cls, fn->line);
		else
			sb_printf(sb, "<tr class=%s><td><a>", cls);
		put_escaped(sb, fn->name);
		if (fn->line)
			sb_printf(sb, "</a></td><td class=n data-v=%u>%u</td>",
				  fn->line, fn->line);
		else
			sb_puts(sb, "</a></td><td class=n data-v=0>-</td>");
		if (fn->points)
			fraction_cell(sb, fn->covered, fn->points);
		else	/* no block of known state: not "never ran" */
			sb_puts(sb, "<td class=n data-v=-1>no points</td>");
		sb_puts(sb, "</tr>\n");
	}
	sb_puts(sb, "</tbody></table>\n");
}

/* Uncovered regions: maximal runs of uncovered lines among the lines
 * with points (lines without points do not interrupt a run). */
static bool region_starts(const struct rep_file *f, size_t k)
{
	return !f->lines[k].covered && (k == 0 || f->lines[k - 1].covered);
}

static size_t count_regions(const struct rep_file *f)
{
	size_t n = 0;

	for (size_t k = 0; k < f->nlines; k++)
		n += region_starts(f, k);
	return n;
}

/* One source line: number, "hit/points", the jump to the next uncovered
 * region where one starts, the text. */
static void source_line(struct strbuf *sb, uint32_t n,
			const struct rep_line *l, size_t region,
			size_t nregions, const char *text, size_t len)
{
	if (l)
		sb_printf(sb, "<span class=%s>", line_class(l));
	sb_printf(sb, "<a id=L%u href=\"#L%u\">%6u</a> ", n, n, n);
	if (l)
		sb_printf(sb, "<span class=h>%4u/%-4u</span>", l->covered,
			  l->points);
	else
		sb_puts(sb, "         ");
	if (region && region < nregions)
		sb_printf(sb, "<a class=nx id=u%zu href=\"#u%zu\" title=\"next "
			  "uncovered region\">&#9660;</a> ", region,
			  region + 1);
	else if (region)
		sb_printf(sb, "<a class=nx id=u%zu href=\"#top\" title=\"last "
			  "uncovered region; to the top\">&#9650;</a> ",
			  region);
	else
		sb_puts(sb, "  ");
	put_escaped_n(sb, text, len);
	sb_puts(sb, l ? "</span>\n" : "\n");
}

/* The text with its annotations: lines and f->lines walked together. */
static void annotated_source(struct strbuf *sb, const struct rep_file *f,
			     const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t k = 0, region = 0, nregions = count_regions(f);
	uint32_t n = 1;

	sb_puts(sb, "<h2>Source</h2>\n<pre class=src>");
	for (; p < end; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const struct rep_line *l = NULL;
		size_t here = 0;

		while (k < f->nlines && f->lines[k].line < n)
			k++;
		if (k < f->nlines && f->lines[k].line == n) {
			l = &f->lines[k];
			if (region_starts(f, k))
				here = ++region;
		}
		source_line(sb, n, l, here, nregions, p, ll);
		p += ll + (nl != NULL);
	}
	sb_puts(sb, "</pre>\n");
	if (k < f->nlines && f->lines[f->nlines - 1].line >= n)
		sb_printf(sb, "<p class=note>The coverage names line %u; the "
			  "source has %u lines: it is not the source the "
			  "binary was built from.</p>\n",
			  f->lines[f->nlines - 1].line, n - 1);
}

/* No text: the lines with points, still with their numbers. */
static void lines_without_source(struct strbuf *sb, const struct rep_file *f,
				 const char *src, const char *why)
{
	sb_puts(sb, "<p class=note>Source not available: <code>");
	put_escaped(sb, src);
	sb_puts(sb, "</code> (");
	put_escaped(sb, why);
	sb_puts(sb, "; use --source-root DIR or --strip-path-prefix P).  "
		"The lines with coverage points:</p>\n<pre class=src>");
	for (size_t k = 0; k < f->nlines; k++)
		source_line(sb, f->lines[k].line, &f->lines[k], 0, 0, "", 0);
	sb_puts(sb, "</pre>\n");
}

/* Returns how the source text was looked for. */
static enum source_verdict render_file(const struct report_opts *o,
				       const struct report *rep,
				       const struct rep_file *f, size_t root,
				       char *name, struct site *s)
{
	struct strbuf sb = { 0 };
	struct counts c = { 0 };
	char *src = source_path(o, f->path), *text = NULL;
	size_t len = 0, nregions = count_regions(f);
	const char *why = NULL;
	enum source_verdict v = source_text(o, f->path, src, &text, &len,
					    &why);

	counts_add(&c, f);
	page_head(&sb, o, "../", path_basename(f->path));
	sb_puts(&sb, "<div><a href=\"../index.html\">index</a> / ");
	put_escaped(&sb, f->path + root);
	sb_puts(&sb, "</div></header>\n<main>\n");
	totals_table(&sb, &c);
	if (nregions)
		sb_printf(&sb, "<p>%zu uncovered region%s: <a href=\"#u1\">"
			  "first</a>, then &#9660; jumps to the next.</p>\n",
			  nregions, nregions > 1 ? "s" : "");
	function_table(&sb, f, rep->blocks);
	if (v == SOURCE_READ)
		annotated_source(&sb, f, text, len);
	else
		lines_without_source(&sb, f, src, why);
	sb_puts(&sb, "</main>\n");
	page_foot(&sb, o, rep->blocks);
	finish_page(add_page(s, name), &sb);
	free(src);
	free(text);
	return v;
}

static int cmp_page(const void *a, const void *b)
{
	return strcmp(((const struct site_page *)a)->path,
		      ((const struct site_page *)b)->path);
}

void site_build(const struct report_opts *o, const struct report *rep,
		struct site *s)
{
	size_t root = report_common_dir(rep);
	char **names = xcalloc(rep->nfiles + 1, sizeof(*names));
	size_t row = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i]))
			names[i] = file_page_name(++row, rep->files[i].path);
	render_index(o, rep, root, names, s);
	for (size_t i = 0; i < rep->nfiles; i++) {
		enum source_verdict v;

		if (!names[i])
			continue;
		v = render_file(o, rep, &rep->files[i], root, names[i], s);
		s->missing_sources += v != SOURCE_READ;
		s->refused_sources += v == SOURCE_REFUSED;
	}
	free(names);	/* the pages own the names now */
	qsort(s->pages, s->npages, sizeof(*s->pages), cmp_page);
}

void site_free(struct site *s)
{
	for (size_t i = 0; i < s->npages; i++) {
		free(s->pages[i].path);
		free(s->pages[i].body);
	}
	free(s->pages);
	memset(s, 0, sizeof(*s));
}

const struct site_page *site_find(const struct site *s, const char *path)
{
	struct site_page key = { 0 };

	key.path = (char *)path;
	return bsearch(&key, s->pages, s->npages, sizeof(*s->pages), cmp_page);
}

static int make_dir(const char *dir)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return 0;
	msg_error("%s: cannot create the report directory: %s", dir,
		  strerror(errno));
	return -1;
}

/* Pages of an earlier report in DIR/f that this one does not have: left
 * there, they would be linked from nowhere and stale. */
static void remove_stale_pages(const struct site *s, const char *sub)
{
	DIR *d = opendir(sub);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *page, *path;

		if (e->d_type != DT_REG || n < 5 ||
		    strcmp(e->d_name + n - 5, ".html") != 0)
			continue;
		page = xasprintf("f/%s", e->d_name);
		path = xasprintf("%s/%s", sub, e->d_name);
		if (!site_find(s, page) && unlink(path) < 0)
			msg_warn("%s: %s", path, strerror(errno));
		free(page);
		free(path);
	}
	closedir(d);
}

int site_write(const struct site *s, const char *dir)
{
	char *sub = xasprintf("%s/f", dir);
	int r = make_dir(dir) < 0 || make_dir(sub) < 0 ? -1 : 0;

	for (size_t i = 0; !r && i < s->npages; i++) {
		char *path = xasprintf("%s/%s", dir, s->pages[i].path);
		int e = write_output(path, s->pages[i].body, s->pages[i].len);

		if (e < 0) {
			msg_error("%s: %s", path, strerror(-e));
			r = -1;
		}
		free(path);
	}
	if (!r)
		remove_stale_pages(s, sub);
	free(sub);
	return r;
}
