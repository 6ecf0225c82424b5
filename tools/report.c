/*
 * tools/report.c -- coverage by source file and line, and its three
 * renderings: an lcov tracefile, Cobertura XML and a self-contained HTML
 * page (what sancov's -html-report was before LLVM removed it).
 *
 * A line's count is the number of covered coverage points located on it
 * (a point counts on every line its locations name, inlined frames
 * included); a line with points but none covered has count 0.  sancov
 * points are edges, not gcov branches, so no branch data is claimed.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ukcov/kcov.h>

#include "lines.h"

/* One (file, function, line, point) fact; sorted to build the report. */
struct fact {
	const char *file, *func;
	uint32_t line;
	size_t point;
	bool covered;
};

static int cmp_fact_line(const void *a, const void *b)
{
	const struct fact *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

static int cmp_fact_func(const void *a, const void *b)
{
	const struct fact *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	if ((c = x->func == y->func ? 0 : strcmp(x->func, y->func)))
		return c;
	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static struct fact *collect_facts(const struct symcov *sc, size_t *n)
{
	struct fact *f = xmalloc((sc->nlocs + 1) * sizeof(*f));

	*n = 0;
	for (size_t p = 0; p < sc->npoints; p++) {
		const struct sc_point *pt = &sc->points[p];
		bool cov = symcov_is_covered(sc, pt->id);

		for (size_t i = pt->first; i < pt->first + pt->n; i++)
			f[(*n)++] = (struct fact){ sc->locs[i].file,
						   sc->locs[i].func,
						   sc->locs[i].line, p, cov };
	}
	return f;
}

/* Grow *v (of *cap elements of size sz) to hold n + 1: doubling keeps
 * building linear in the number of facts. */
static void *grow(void *v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 16;
	return xrealloc(v, *cap * sz);
}

/* The file named path (interned or not), by binary search; files are
 * sorted by strcmp; NULL if there is none. */
static struct rep_file *report_file(const struct report *r,
				    const char *path)
{
	size_t lo = 0, hi = r->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->files[mid].path, path);

		if (!c)
			return &r->files[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct rep_file *file_for(struct report *r, const char *path)
{
	if (r->nfiles && r->files[r->nfiles - 1].path == path)
		return &r->files[r->nfiles - 1];
	r->files = grow(r->files, &r->capfiles, r->nfiles, sizeof(*r->files));
	memset(&r->files[r->nfiles], 0, sizeof(*r->files));
	r->files[r->nfiles].path = path;
	return &r->files[r->nfiles++];
}

/* Lines: facts sorted by (file, line, point); line 0 is no line. */
static void build_lines(struct report *r, struct fact *f, size_t n)
{
	qsort(f, n, sizeof(*f), cmp_fact_line);
	for (size_t i = 0; i < n; i++) {
		struct rep_file *rf = file_for(r, f[i].file);
		struct rep_line *l;
		bool same_point = i && f[i - 1].file == f[i].file &&
				  f[i - 1].line == f[i].line &&
				  f[i - 1].point == f[i].point;

		if (f[i].line == 0 || same_point)
			continue;
		if (!rf->nlines || rf->lines[rf->nlines - 1].line != f[i].line) {
			rf->lines = grow(rf->lines, &rf->caplines, rf->nlines,
					 sizeof(*rf->lines));
			rf->lines[rf->nlines++] = (struct rep_line){ f[i].line,
								     0, 0 };
		}
		l = &rf->lines[rf->nlines - 1];
		l->points++;
		l->covered += f[i].covered;
		if (l->covered == 1 && f[i].covered)
			rf->lines_hit++;
	}
}

/* Functions: facts sorted by (file, function, point). */
static void build_functions(struct report *r, struct fact *f, size_t n)
{
	size_t fi = 0;

	qsort(f, n, sizeof(*f), cmp_fact_func);
	for (size_t i = 0; i < n; i++) {
		struct rep_file *rf;
		struct rep_fn *fn;

		while (fi < r->nfiles &&
		       strcmp(r->files[fi].path, f[i].file) != 0)
			fi++;
		if (fi == r->nfiles)
			break;
		rf = &r->files[fi];
		if (!rf->nfns || rf->fns[rf->nfns - 1].name != f[i].func) {
			rf->fns = grow(rf->fns, &rf->capfns, rf->nfns,
				       sizeof(*rf->fns));
			rf->fns[rf->nfns++] = (struct rep_fn){ f[i].func,
							       f[i].line, 0, 0 };
		}
		fn = &rf->fns[rf->nfns - 1];
		if (f[i].line && (!fn->line || f[i].line < fn->line))
			fn->line = f[i].line;
		if (i && f[i - 1].file == f[i].file &&
		    f[i - 1].func == f[i].func && f[i - 1].point == f[i].point)
			continue;
		fn->points++;
		fn->covered += f[i].covered;
		if (fn->covered == 1 && f[i].covered)
			rf->fns_hit++;
	}
}

/* Points per file: each point counts once, in the file of its first
 * location (its line-table row), so the files' points add up to the
 * total. */
static void count_file_points(struct report *r, const struct symcov *sc)
{
	for (size_t p = 0; p < sc->npoints; p++) {
		const struct sc_point *pt = &sc->points[p];
		struct rep_file *f;

		if (!pt->n)
			continue;
		f = report_file(r, sc->locs[pt->first].file);
		if (!f)
			continue;
		f->points++;
		f->points_hit += symcov_is_covered(sc, pt->id);
	}
}

/* ---- from the source model (lines.h) ---- */

static int cmp_str(const void *a, const void *b);

static int cmp_sm_line(const void *a, const void *b)
{
	const struct sm_line *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_sm_fn(const void *a, const void *b)
{
	const struct sm_fn *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	if ((c = x->name == y->name ? 0 : strcmp(x->name, y->name)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Every file: of the model (lines, functions, line tables) and of the
 * points, sorted by strcmp, each once. */
static void model_files(struct report *r, const struct symcov *sc,
			const struct srcmodel *sm)
{
	size_t n = 0, cap = sm->nfiles + sm->nlines + sm->nfns + sc->npoints;
	const char **v = xmalloc((cap + 1) * sizeof(*v));

	for (size_t i = 0; i < sm->nfiles; i++)
		v[n++] = sm->files[i];
	for (size_t i = 0; i < sm->nlines; i++)
		if (!i || sm->lines[i - 1].file != sm->lines[i].file)
			v[n++] = sm->lines[i].file;
	for (size_t i = 0; i < sm->nfns; i++)
		v[n++] = sm->fns[i].file;
	for (size_t p = 0; p < sc->npoints; p++)
		if (sc->points[p].n)
			v[n++] = sc->locs[sc->points[p].first].file;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(v[i - 1], v[i]) != 0)
			file_for(r, v[i]);
	free(v);
}

/* A line is covered if a block holding it ran (in any binary), not
 * covered if every block holding it is known not to have run; where none
 * ran and one is of unknown state it is not reported. */
static void model_line(struct rep_file *f, const struct sm_line *l, size_t n)
{
	struct rep_line rl = { l[0].line, 0, 0 };
	uint32_t unknown = 0;

	for (size_t k = 0; k < n; k++) {
		rl.points += l[k].blocks;
		rl.covered += l[k].ran;
		unknown += l[k].unknown;
	}
	if (!rl.points || (unknown && !rl.covered))
		return;
	f->lines = grow(f->lines, &f->caplines, f->nlines, sizeof(*f->lines));
	f->lines[f->nlines++] = rl;
	f->lines_hit += rl.covered > 0;
}

static void model_lines(struct report *r, struct sm_line *l, size_t n)
{
	qsort(l, n, sizeof(*l), cmp_sm_line);
	for (size_t i = 0, j; i < n; i = j) {
		struct rep_file *f = report_file(r, l[i].file);

		for (j = i + 1; j < n && !cmp_sm_line(&l[i], &l[j]); j++)
			;
		if (f)
			model_line(f, &l[i], j - i);
	}
}

static void model_fns(struct report *r, struct sm_fn *fn, size_t n)
{
	qsort(fn, n, sizeof(*fn), cmp_sm_fn);
	for (size_t i = 0; i < n; i++) {
		struct rep_file *f = report_file(r, fn[i].file);
		struct rep_fn *rf;

		if (!f)
			continue;
		if (!f->nfns || f->fns[f->nfns - 1].name != fn[i].name ||
		    f->fns[f->nfns - 1].line != fn[i].line) {
			f->fns = grow(f->fns, &f->capfns, f->nfns,
				      sizeof(*f->fns));
			f->fns[f->nfns++] = (struct rep_fn){ fn[i].name,
							     fn[i].line, 0, 0 };
		}
		rf = &f->fns[f->nfns - 1];
		if (!rf->covered && fn[i].ran)
			f->fns_hit++;
		rf->points += fn[i].blocks;
		rf->covered += fn[i].ran;
	}
}

/* The model's arrays are sorted in place: copies, the symcov is const. */
static void build_from_model(struct report *r, const struct symcov *sc)
{
	const struct srcmodel *sm = sc->model;
	struct sm_line *l = xmalloc((sm->nlines + 1) * sizeof(*l));
	struct sm_fn *fn = xmalloc((sm->nfns + 1) * sizeof(*fn));

	memcpy(l, sm->lines, sm->nlines * sizeof(*l));
	memcpy(fn, sm->fns, sm->nfns * sizeof(*fn));
	r->blocks = true;
	model_files(r, sc, sm);
	model_lines(r, l, sm->nlines);
	model_fns(r, fn, sm->nfns);
	free(l);
	free(fn);
}

void report_build(const struct symcov *sc, struct report *r)
{
	memset(r, 0, sizeof(*r));
	if (sc->model) {
		build_from_model(r, sc);
	} else {
		size_t n;
		struct fact *f = collect_facts(sc, &n);

		build_lines(r, f, n);
		build_functions(r, f, n);
		free(f);
	}
	count_file_points(r, sc);
	symcov_stats(sc, &r->totals);
}

/* The totals of every file of a report: what its index shows. */
struct report_sums {
	size_t lines, lines_hit, fns, fns_hit;
	size_t fns_no_points;	/* functions with no block of known state */
};

static void report_sums(const struct report *r, struct report_sums *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct rep_file *f = &r->files[i];

		s->lines += f->nlines;
		s->lines_hit += f->lines_hit;
		s->fns += f->nfns;
		s->fns_hit += f->fns_hit;
		for (size_t k = 0; k < f->nfns; k++)
			s->fns_no_points += !f->fns[k].points;
	}
}

void report_print_totals(const struct symcov *sc, struct strbuf *sb)
{
	struct report r;
	struct report_sums s;

	report_build(sc, &r);
	report_sums(&r, &s);
	sb_printf(sb, "all-lines: %zu\ncov-lines: %zu\nall-source-functions: "
		  "%zu\ncov-source-functions: %zu\nno-points-functions: %zu\n",
		  s.lines, s.lines_hit, s.fns, s.fns_hit, s.fns_no_points);
	report_free(&r);
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].lines);
		free(r->files[i].fns);
	}
	free(r->files);
}

/* Where a report reads (and lcov names) a source file. */
char *source_path(const struct report_opts *o, const char *path)
{
	if (o->source_root && path[0] != '/')
		return xasprintf("%s/%s", o->source_root, path);
	if (o->source_root && o->strip_prefix)
		return xasprintf("%s%s", o->source_root, path);
	return xstrdup(path);
}

/* Is the real path "real" at or under the real directory "root"?  A
 * root of "/" holds every absolute path; "/a/root2/x" is not under
 * "/a/root". */
bool path_under(const char *real, const char *root)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return real[0] == '/';
	return !strncmp(real, root, n) && real[n] == '/';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Which file a page may embed, decided before it is opened: under
 * --source-root by real path (the root confines even absolute paths a
 * coverage input names), else, when the report has a trusted list
 * (serve with watched directories), only a path on it.
 */
static enum source_verdict source_allowed(const struct report_opts *o,
					  const char *path, const char *src,
					  char **open_path, const char **why)
{
	char *root;

	*open_path = NULL;
	if (o->source_root) {
		if (!(*open_path = realpath(src, NULL))) {
			*why = strerror(errno);
			return SOURCE_MISSING;
		}
		root = realpath(o->source_root, NULL);
		if (!root || !path_under(*open_path, root)) {
			free(root);
			*why = "outside --source-root";
			return SOURCE_REFUSED;
		}
		free(root);
		return SOURCE_READ;
	}
	if (o->trusted && !bsearch(&path, o->trusted, o->ntrusted,
				   sizeof(*o->trusted), cmp_str)) {
		*why = "not named by the debug info of a binary on the "
		       "command line";
		return SOURCE_REFUSED;
	}
	*open_path = xstrdup(src);
	return SOURCE_READ;
}

enum source_verdict source_text(const struct report_opts *o,
				const char *path, const char *src,
				char **text, size_t *len, const char **why)
{
	char *open_path;
	enum source_verdict v = source_allowed(o, path, src, &open_path, why);

	*text = NULL;
	*len = 0;
	if (v == SOURCE_READ && read_regular_file(open_path, SOURCE_MAX_BYTES,
						  text, len, why) < 0)
		v = SOURCE_MISSING;
	if (v == SOURCE_READ && memchr(*text, '\0', *len)) {
		*why = "a binary file";
		v = SOURCE_MISSING;
	}
	if (v != SOURCE_READ) {
		free(*text);
		*text = NULL;
	}
	free(open_path);
	return v;
}

bool report_no_source(const struct rep_file *f)
{
	return !strcmp(f->path, "<invalid>");
}

/* ---- lcov ---- */

/* A function with no points (no block of known state in any instance)
 * is left out: lcov has no "unknown", and FNDA:0 would say it never
 * ran. */
static bool lcov_listed(const struct report *rep, const struct rep_fn *fn)
{
	return !rep->blocks || fn->points;
}

/* A count for lcov and Cobertura.  Blocks carry no execution counts: a
 * line or function that ran is 1 (partly covered lines too: lcov has no
 * partial line); with points, the number of points hit. */
static uint32_t hits(const struct report *rep, uint32_t covered)
{
	return rep->blocks && covered ? 1 : covered;
}

static void lcov_functions(struct strbuf *sb, const struct report *rep,
			   const struct rep_file *f)
{
	size_t n = 0;

	for (size_t k = 0; k < f->nfns; k++)
		if (lcov_listed(rep, &f->fns[k]))
			sb_printf(sb, "FN:%u,%s\n", f->fns[k].line,
				  f->fns[k].name);
	for (size_t k = 0; k < f->nfns; k++)
		if (lcov_listed(rep, &f->fns[k])) {
			sb_printf(sb, "FNDA:%u,%s\n",
				  hits(rep, f->fns[k].covered), f->fns[k].name);
			n++;
		}
	sb_printf(sb, "FNF:%zu\nFNH:%u\n", n, f->fns_hit);
}

int render_lcov(const struct report_opts *o, const struct report *rep,
		       struct strbuf *sb)
{
	for (size_t i = 0; i < rep->nfiles; i++) {
		const struct rep_file *f = &rep->files[i];
		char *src;

		if (report_no_source(f))
			continue;	/* no debug info: no source file */
		src = source_path(o, f->path);
		sb_printf(sb, "TN:%s\nSF:%s\n", o->test_name ? o->test_name : "",
			  src);
		free(src);
		lcov_functions(sb, rep, f);
		for (size_t k = 0; k < f->nlines; k++)
			sb_printf(sb, "DA:%u,%u\n", f->lines[k].line,
				  hits(rep, f->lines[k].covered));
		sb_printf(sb, "LF:%zu\nLH:%u\nend_of_record\n", f->nlines,
			  f->lines_hit);
	}
	return 0;
}


/* ---- markup helpers ---- */

void put_escaped(struct strbuf *sb, const char *s)
{
	put_escaped_n(sb, s, strlen(s));
}

void put_escaped_n(struct strbuf *sb, const char *s, size_t n)
{
	const char *run = s;

	/* Copy runs of plain bytes at once: source pages are mostly text. */
	for (const char *e = s + n; s < e; s++) {
		const char *rep;
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			rep = c < 0x20 && c != '\t' && c != '\n' ? "?" : NULL;
		}
		if (!rep)
			continue;
		sb_add(sb, run, (size_t)(s - run));
		sb_puts(sb, rep);
		run = s + 1;
	}
	sb_add(sb, run, (size_t)(s - run));
}

double rate(size_t hit, size_t all)
{
	return all ? (double)hit / (double)all : 0.0;
}

/* ---- Cobertura ---- */

/* Length of the longest common directory prefix (with its '/') of all
 * files: Cobertura's <source>, class file names are relative to it. */
size_t report_common_dir(const struct report *rep)
{
	const char *first = NULL;
	size_t n = 0;

	for (size_t i = 0; i < rep->nfiles; i++) {
		const char *p = rep->files[i].path;
		size_t k = 0;

		if (report_no_source(&rep->files[i]))
			continue;
		if (!first) {
			first = p;
			n = strlen(p);
			continue;
		}

		while (k < n && p[k] == first[k])
			k++;
		n = k;
	}
	while (n > 0 && first[n - 1] != '/')
		n--;
	return n;
}

static void cobertura_class(struct strbuf *sb, const struct report *rep,
			    const struct rep_file *f, size_t root)
{
	const char *rel = f->path + root, *base = path_basename(f->path);

	sb_puts(sb, "        <class name=\"");
	put_escaped(sb, base);
	sb_puts(sb, "\" filename=\"");
	put_escaped(sb, rel);
	sb_printf(sb, "\" line-rate=\"%.4f\" branch-rate=\"0.0\" "
		  "complexity=\"0.0\">\n          <methods>\n",
		  rate(f->lines_hit, f->nlines));
	for (size_t k = 0; k < f->nfns; k++) {
		sb_puts(sb, "            <method name=\"");
		put_escaped(sb, f->fns[k].name);
		sb_printf(sb, "\" signature=\"\" line-rate=\"%.4f\" "
			  "branch-rate=\"0.0\" complexity=\"0.0\"><lines>"
			  "<line number=\"%u\" hits=\"%u\"/></lines></method>\n",
			  rate(f->fns[k].covered, f->fns[k].points),
			  f->fns[k].line, hits(rep, f->fns[k].covered));
	}
	sb_puts(sb, "          </methods>\n          <lines>\n");
	for (size_t k = 0; k < f->nlines; k++)
		sb_printf(sb, "            <line number=\"%u\" hits=\"%u\" "
			  "branch=\"false\"/>\n", f->lines[k].line,
			  hits(rep, f->lines[k].covered));
	sb_puts(sb, "          </lines>\n        </class>\n");
}

long long report_time(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");

	return e ? atoll(e) : (long long)time(NULL);
}

int render_cobertura(const struct report_opts *o,
			    const struct report *rep, struct strbuf *sb)
{
	size_t valid = 0, hit = 0, root = report_common_dir(rep);

	(void)o;
	for (size_t i = 0; i < rep->nfiles; i++) {
		valid += rep->files[i].nlines;
		hit += rep->files[i].lines_hit;
	}
	sb_printf(sb, "<?xml version=\"1.0\" ?>\n<!DOCTYPE coverage SYSTEM "
		  "'http://cobertura.sourceforge.net/xml/coverage-04.dtd'>\n"
		  "<coverage line-rate=\"%.4f\" branch-rate=\"0.0\" "
		  "lines-covered=\"%zu\" lines-valid=\"%zu\" "
		  "branches-covered=\"0\" branches-valid=\"0\" "
		  "complexity=\"0.0\" timestamp=\"%lld\" version=\"ukcov "
		  "%s\">\n  <sources>\n    <source>", rate(hit, valid), hit,
		  valid, report_time(), UKCOV_VERSION_STRING);
	for (size_t i = 0; root > 1 && i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i])) {
			sb_add(sb, rep->files[i].path, root - 1);
			break;
		}
	sb_puts(sb, root == 1 ? "/" : root == 0 ? "." : "");
	sb_puts(sb, "</source>\n  </sources>\n  <packages>\n");
	sb_printf(sb, "    <package name=\"ukcov\" line-rate=\"%.4f\" "
		  "branch-rate=\"0.0\" complexity=\"0.0\">\n      <classes>\n",
		  rate(hit, valid));
	for (size_t i = 0; i < rep->nfiles; i++)
		if (!report_no_source(&rep->files[i]))
			cobertura_class(sb, rep, &rep->files[i], root);
	sb_puts(sb, "      </classes>\n    </package>\n  </packages>\n"
		"</coverage>\n");
	return 0;
}

