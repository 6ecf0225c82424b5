/*
 * tools/symcov.c -- the .symcov model, its sancov-identical JSON writer
 * and a reader.
 */
#include "symcov.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lines.h"

void symcov_init(struct symcov *sc, struct strtab *strs)
{
	memset(sc, 0, sizeof(*sc));
	sc->strs = strs;
	sc->hash = strtab_add(strs, "");
}

void symcov_free(struct symcov *sc)
{
	free(sc->covered);
	free(sc->points);
	free(sc->locs);
	if (sc->model) {
		srcmodel_free(sc->model);
		free(sc->model);
	}
	memset(sc, 0, sizeof(*sc));
}

void symcov_add_covered(struct symcov *sc, const char *id)
{
	if (sc->ncovered == sc->capcovered) {
		sc->capcovered = sc->capcovered ? sc->capcovered * 2 : 64;
		sc->covered = xrealloc(sc->covered,
				       sc->capcovered * sizeof(*sc->covered));
	}
	sc->covered[sc->ncovered++] = id;
}

void symcov_add_point(struct symcov *sc, const char *id)
{
	if (sc->npoints == sc->cappoints) {
		sc->cappoints = sc->cappoints ? sc->cappoints * 2 : 64;
		sc->points = xrealloc(sc->points,
				      sc->cappoints * sizeof(*sc->points));
	}
	sc->points[sc->npoints++] = (struct sc_point){ id, sc->nlocs, 0 };
}

void symcov_add_loc(struct symcov *sc, const struct sc_loc *loc)
{
	if (sc->nlocs == sc->caplocs) {
		sc->caplocs = sc->caplocs ? sc->caplocs * 2 : 64;
		sc->locs = xrealloc(sc->locs, sc->caplocs * sizeof(*sc->locs));
	}
	sc->locs[sc->nlocs++] = *loc;
	sc->points[sc->npoints - 1].n++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void symcov_finish(struct symcov *sc)
{
	size_t o = 0;

	if (sc->ncovered > 1)
		qsort(sc->covered, sc->ncovered, sizeof(*sc->covered), cmp_str);
	for (size_t i = 0; i < sc->ncovered; i++)
		if (!o || sc->covered[o - 1] != sc->covered[i])
			sc->covered[o++] = sc->covered[i];
	sc->ncovered = o;
}

bool symcov_is_covered(const struct symcov *sc, const char *id)
{
	return sc->ncovered &&
	       bsearch(&id, sc->covered, sc->ncovered, sizeof(*sc->covered),
		       cmp_str) != NULL;
}

/* ---- writer ---- */

/*
 * sancov's JSON writer groups points by file, then (for the points having
 * a location in that file) by the function names of *all* their
 * locations, so an inlined callee from another file shows up as an empty
 * object under the caller's file.  Each (file, function) lists its
 * points in point order with the first matching location.  One row per
 * (point, file, function) of that cross product reproduces it.
 */
struct row {
	uint32_t file, func;	/* ranks in byte order */
	size_t point;
	ptrdiff_t loc;		/* first matching location, or -1 */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

/* A name not seen before goes to names[]. */
static void add_name(const char *s, struct ptrmap *rank, const char **names,
		     size_t *k)
{
	const void *seen;

	if (!ptrmap_get(rank, s, &seen)) {
		ptrmap_put(rank, s, NULL);
		names[(*k)++] = s;
	}
}

/* Ranks of all file and function names in strcmp order.  Names are
 * interned (one pointer per string), so the duplicates go first, by
 * pointer: sorting the 2 x 50,000 names of the sqlite benchmark with
 * strcmp cost 9% of `ukcov symbolize`; its 2,400 distinct ones cost
 * nothing. */
static const char **rank_names(const struct symcov *sc, struct ptrmap *rank,
			       size_t *n)
{
	const char **names = xmalloc((2 * sc->nlocs + 1) * sizeof(*names));
	size_t k = 0;

	for (size_t i = 0; i < sc->nlocs; i++) {
		add_name(sc->locs[i].file, rank, names, &k);
		add_name(sc->locs[i].func, rank, names, &k);
	}
	qsort(names, k, sizeof(*names), cmp_str);
	for (size_t i = 0; i < k; i++)
		ptrmap_put(rank, names[i], (void *)(uintptr_t)i);
	*n = k;
	return names;
}

static uint32_t rank_of(const struct ptrmap *rank, const char *s)
{
	const void *v = NULL;

	ptrmap_get(rank, s, &v);
	return (uint32_t)(uintptr_t)v;
}

static void add_point_rows(const struct symcov *sc, size_t p,
			   const struct ptrmap *rank, struct row **rows,
			   size_t *n, size_t *cap)
{
	const struct sc_point *pt = &sc->points[p];
	const struct sc_loc *l = sc->locs + pt->first;

	for (size_t i = 0; i < pt->n; i++) {
		bool seen_file = false;

		for (size_t k = 0; k < i && !seen_file; k++)
			seen_file = l[k].file == l[i].file;
		for (size_t j = 0; j < pt->n && !seen_file; j++) {
			bool seen_func = false;
			ptrdiff_t first = -1;

			for (size_t k = 0; k < j && !seen_func; k++)
				seen_func = l[k].func == l[j].func;
			if (seen_func)
				continue;
			for (size_t k = 0; k < pt->n && first < 0; k++)
				if (l[k].file == l[i].file &&
				    l[k].func == l[j].func)
					first = (ptrdiff_t)(pt->first + k);
			if (*n == *cap) {
				*cap = *cap ? *cap * 2 : 256;
				*rows = xrealloc(*rows, *cap * sizeof(**rows));
			}
			(*rows)[(*n)++] = (struct row){
				rank_of(rank, l[i].file),
				rank_of(rank, l[j].func), p, first };
		}
	}
}

/* ': "line:col"' without printf (it is the writer's hottest line). */
static void put_line_col(struct strbuf *o, uint32_t line, uint32_t col)
{
	char buf[32], *p = buf + sizeof(buf);

	*--p = '"';
	do
		*--p = (char)('0' + col % 10);
	while (col /= 10);
	*--p = ':';
	do
		*--p = (char)('0' + line % 10);
	while (line /= 10);
	*--p = '"';
	*--p = ' ';
	*--p = ':';
	sb_add(o, p, (size_t)(buf + sizeof(buf) - p));
}

static void write_point_info(const struct symcov *sc, struct strbuf *o)
{
	struct ptrmap rank = { 0 };
	size_t nnames, nrows = 0, cap = 0;
	const char **names = rank_names(sc, &rank, &nnames);
	struct row *rows = NULL;

	for (size_t p = 0; p < sc->npoints; p++)
		add_point_rows(sc, p, &rank, &rows, &nrows, &cap);
	if (nrows > 1)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
	if (nrows == 0)
		sb_puts(o, "{}");
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		bool new_file = i == 0 || rows[i - 1].file != r->file;
		bool new_func = new_file || rows[i - 1].func != r->func;
		bool func_empty = true;

		if (new_file) {
			sb_puts(o, i == 0 ? "{\n    " : "\n    },\n    ");
			json_quote(o, names[r->file]);
			sb_puts(o, ": {");
		} else if (new_func) {
			sb_puts(o, ",");
		}
		if (!new_func)
			continue;
		sb_puts(o, "\n      ");
		json_quote(o, names[r->func]);
		sb_puts(o, ": {");
		/* All rows of this (file, func): the points, in order. */
		for (size_t k = i; k < nrows && rows[k].file == r->file &&
				   rows[k].func == r->func; k++) {
			const struct sc_loc *l;

			if (rows[k].loc < 0 ||
			    (k > i && rows[k - 1].point == rows[k].point))
				continue;
			l = &sc->locs[rows[k].loc];
			sb_puts(o, func_empty ? "\n        " : ",\n        ");
			json_quote(o, sc->points[rows[k].point].id);
			put_line_col(o, l->line, l->col);
			func_empty = false;
		}
		sb_puts(o, func_empty ? "}" : "\n      }");
	}
	if (nrows)
		sb_puts(o, "\n    }\n  }");
	free(rows);
	free(names);
	ptrmap_free(&rank);
}

void symcov_write_json(const struct symcov *sc, struct strbuf *o)
{
	sb_puts(o, "{\n  \"covered-points\": ");
	if (sc->ncovered == 0)
		sb_puts(o, "[]");
	for (size_t i = 0; i < sc->ncovered; i++) {
		sb_puts(o, i ? ",\n    " : "[\n    ");
		json_quote(o, sc->covered[i]);
		if (i + 1 == sc->ncovered)
			sb_puts(o, "\n  ]");
	}
	sb_puts(o, ",\n  \"binary-hash\": ");
	json_quote(o, sc->hash);
	sb_puts(o, ",\n  \"point-symbol-info\": ");
	write_point_info(sc, o);
	sb_puts(o, "\n}");
}

/* ---- reader ---- */

struct idloc {
	const char *id;
	size_t seq;
	struct sc_loc loc;
};

static int cmp_idloc(const void *a, const void *b)
{
	const struct idloc *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool is_scalar(const struct json *j)
{
	return j->type != J_ARR && j->type != J_OBJ;
}

/* "line:col" parsed like sancov (strtoul on both halves). */
static int parse_loc(const char *s, struct sc_loc *loc)
{
	const char *colon = strchr(s, ':');
	char *line;

	if (!colon)
		return -1;
	line = xmalloc((size_t)(colon - s) + 1);
	memcpy(line, s, (size_t)(colon - s));
	line[colon - s] = '\0';
	loc->line = (uint32_t)strtoul(line, NULL, 10);
	loc->col = (uint32_t)strtoul(colon + 1, NULL, 10);
	free(line);
	return 0;
}

struct reader {
	struct idloc *v;
	size_t n, cap;
	char *err;
};

static int read_function(struct reader *rd, const char *file,
			 const char *func, const struct json *pts)
{
	if (pts->type != J_OBJ) {
		snprintf(rd->err, ERRLEN, "line %zu: expected an object of "
			 "points for function %s", pts->line, func);
		return -1;
	}
	for (size_t i = 0; i < pts->n; i++) {
		struct idloc il = { pts->keys[i], rd->n, { file, func, 0, 0 } };

		if (!is_scalar(&pts->items[i]) ||
		    parse_loc(pts->items[i].str, &il.loc) < 0) {
			snprintf(rd->err, ERRLEN, "line %zu: expected "
				 "\"line:column\" for point %s",
				 pts->items[i].line, pts->keys[i]);
			return -1;
		}
		if (rd->n == rd->cap) {
			rd->cap = rd->cap ? rd->cap * 2 : 256;
			rd->v = xrealloc(rd->v, rd->cap * sizeof(*rd->v));
		}
		rd->v[rd->n++] = il;
	}
	return 0;
}

static int read_point_info(struct reader *rd, const struct json *psi)
{
	if (psi->type != J_OBJ) {
		snprintf(rd->err, ERRLEN, "line %zu: \"point-symbol-info\" "
			 "must be an object", psi->line);
		return -1;
	}
	for (size_t f = 0; f < psi->n; f++) {
		const struct json *fns = &psi->items[f];

		if (fns->type != J_OBJ) {
			snprintf(rd->err, ERRLEN, "line %zu: expected an object"
				 " of functions for file %s", fns->line,
				 psi->keys[f]);
			return -1;
		}
		for (size_t g = 0; g < fns->n; g++)
			if (read_function(rd, psi->keys[f], fns->keys[g],
					  &fns->items[g]) < 0)
				return -1;
	}
	return 0;
}

static int read_covered(struct symcov *sc, const struct json *arr,
			char err[ERRLEN])
{
	if (arr->type != J_ARR) {
		snprintf(err, ERRLEN, "line %zu: \"covered-points\" must be an "
			 "array", arr->line);
		return -1;
	}
	for (size_t i = 0; i < arr->n; i++) {
		if (!is_scalar(&arr->items[i])) {
			snprintf(err, ERRLEN, "line %zu: covered point must be "
				 "a string", arr->items[i].line);
			return -1;
		}
		symcov_add_covered(sc, arr->items[i].str);
	}
	return 0;
}

static int read_top(struct symcov *sc, const struct json *root,
		    struct reader *rd, const char *path, bool quiet)
{
	if (root->type != J_OBJ) {
		snprintf(rd->err, ERRLEN, "not a .symcov file: the top level "
			 "is not a JSON object");
		return -1;
	}
	for (size_t i = 0; i < root->n; i++) {
		const char *k = root->keys[i];
		const struct json *v = &root->items[i];

		if (strcmp(k, "covered-points") == 0) {
			if (read_covered(sc, v, rd->err) < 0)
				return -1;
		} else if (strcmp(k, "binary-hash") == 0) {
			if (!is_scalar(v)) {
				snprintf(rd->err, ERRLEN, "line %zu: "
					 "\"binary-hash\" must be a string",
					 v->line);
				return -1;
			}
			sc->hash = v->str;
		} else if (strcmp(k, "point-symbol-info") == 0) {
			if (read_point_info(rd, v) < 0)
				return -1;
		} else if (!quiet) {
			msg_warn("%s: ignoring unknown key: %s", path, k);
		}
	}
	return 0;
}

int symcov_parse(const char *buf, size_t len, struct symcov *sc,
		 const char *path, bool quiet, char err[ERRLEN])
{
	struct json *root = json_parse(buf, len, sc->strs, err);
	struct reader rd = { .err = err };
	int r;

	if (!root)
		return -1;
	r = read_top(sc, root, &rd, path, quiet);
	json_free(root);
	if (r == 0) {
		/* sancov keeps points in a std::map<std::string, ...>. */
		if (rd.n > 1)
			qsort(rd.v, rd.n, sizeof(*rd.v), cmp_idloc);
		for (size_t i = 0; i < rd.n; i++) {
			if (i == 0 || rd.v[i - 1].id != rd.v[i].id)
				symcov_add_point(sc, rd.v[i].id);
			symcov_add_loc(sc, &rd.v[i].loc);
		}
		symcov_finish(sc);
	}
	free(rd.v);
	return r;
}

bool symcov_looks_like(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '{')
			return true;
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
		    buf[i] != '\r')
			return false;
	}
	return false;
}

struct load_arg {
	struct symcov *sc;
	const char *path;
};

static int parse_cb(const char *buf, size_t len, void *arg, char *err)
{
	struct load_arg *la = arg;

	return symcov_parse(buf, len, la->sc, la->path, false, err);
}

int symcov_load(const char *path, struct symcov *sc)
{
	struct load_arg la = { sc, path };

	return load_parsed(path, ".symcov", parse_cb, &la);
}
