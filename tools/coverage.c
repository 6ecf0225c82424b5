/*
 * tools/coverage.c -- symbolized coverage from binaries, unions, views.
 */
#include "coverage.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "elfpoints.h"
#include "lines.h"
#include "sha1.h"
#include "symbolize.h"

/* llvm::sys::path::remove_dots(path, true), then the prefix strip. */
static char *normalize_path(const char *path, const char *strip_prefix)
{
	size_t n = strlen(path), ncomp = 0;
	const char **comp = xmalloc((n / 2 + 2) * sizeof(*comp));
	size_t *clen = xmalloc((n / 2 + 2) * sizeof(*clen));
	bool abs = path[0] == '/';
	struct strbuf sb = { 0 };
	const char *p = path, *hit;

	while (*p) {
		const char *s;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && *p != '/')
			p++;
		if (p - s == 1 && s[0] == '.')
			continue;
		if (p - s == 2 && s[0] == '.' && s[1] == '.') {
			if (ncomp && !(clen[ncomp - 1] == 2 &&
				       memcmp(comp[ncomp - 1], "..", 2) == 0)) {
				ncomp--;
				continue;
			}
			if (abs)
				continue;
		}
		comp[ncomp] = s;
		clen[ncomp++] = (size_t)(p - s);
	}
	sb_add(&sb, "", 0);
	if (abs)
		sb_add(&sb, "/", 1);
	for (size_t i = 0; i < ncomp; i++) {
		if (i)
			sb_add(&sb, "/", 1);
		sb_add(&sb, comp[i], clen[i]);
	}
	free(comp);
	free(clen);
	/* sancov stripPathPrefix: drop through the first occurrence. */
	if (strip_prefix && *strip_prefix &&
	    (hit = strstr(sb.s, strip_prefix))) {
		char *r = xstrdup(hit + strlen(strip_prefix));

		sb_free(&sb);
		return r;
	}
	return sb.s;
}

/* ---- from a binary ---- */

struct builder {
	const struct cov_opts *o;
	struct symcov *sc;
	struct ptrmap norm;	/* raw file -> normalized (interned) */
	struct ptrmap live;	/* raw files of covered points (skip-dead) */
};

static const char *normalized(struct builder *b, const char *raw)
{
	const void *v;
	char *s;
	const char *r;

	if (ptrmap_get(&b->norm, raw, &v))
		return v;
	s = normalize_path(raw, b->o->strip_prefix);
	r = strtab_add(b->sc->strs, s);
	free(s);
	ptrmap_put(&b->norm, raw, r);
	return r;
}

/* sancov Ignorelists::isIgnorelisted: default list, then the user's. */
static bool ignored(const struct cov_opts *o, const char *file,
		    const char *func)
{
	return ignorelist_match(o->dflt, "fun", func) ||
	       ignorelist_match(o->dflt, "src", file) ||
	       ignorelist_match(o->user, "fun", func) ||
	       ignorelist_match(o->user, "src", file);
}

/*
 * sancov's skip-dead-files drops the points of files where nothing ran.
 * The source model (reports, `ukcov stats`) lists every file, so it keeps
 * their points too: a file at 0% shows how many points it has, and the
 * point totals are the same whichever files a run happened to reach.
 */
static bool is_dead(struct builder *b, const char *raw_file)
{
	const void *v;

	return b->o->skip_dead && !b->o->model &&
	       !ptrmap_get(&b->live, raw_file, &v);
}

static bool has_loc(const struct symcov *sc, const struct sc_loc *l)
{
	const struct sc_point *p = &sc->points[sc->npoints - 1];

	for (size_t i = p->first; i < p->first + p->n; i++)
		if (sc->locs[i].file == l->file && sc->locs[i].func == l->func &&
		    sc->locs[i].line == l->line && sc->locs[i].col == l->col)
			return true;
	return false;
}

/* One location of a point: dead, ignored, duplicate, or added. */
static bool add_loc(struct builder *b, const struct sym_frame *f)
{
	struct sc_loc l = { NULL, f->func, f->line, f->col };

	if (is_dead(b, f->file))
		return false;
	l.file = normalized(b, f->file);
	if (ignored(b->o, l.file, l.func))
		return false;
	if (!has_loc(b->sc, &l))
		symcov_add_loc(b->sc, &l);
	return true;
}

/*
 * sancov getCoveragePoints for one point.  Its first location is what
 * LLVMSymbolizer::symbolizeCode returns: the line-table location with the
 * name of the outermost function (the subprogram, not the inlined
 * callee); if that one is dead or ignored the whole point is dropped.
 * Then every inlined frame (symbolizeInlinedCode), one by one.
 */
static void add_point(struct builder *b, const char *id,
		      const struct sym_frame *f, size_t nf)
{
	struct sym_frame first = f[0];

	first.func = f[nf - 1].func;
	symcov_add_point(b->sc, id);
	if (!add_loc(b, &first)) {
		b->sc->npoints--;
		return;
	}
	for (size_t i = 0; i < nf; i++)
		add_loc(b, &f[i]);
}

/* Frames of every point, kept so each address is symbolized once. */
struct frames {
	struct sym_frame *f;
	size_t *first;		/* per point, index into f; +1 sentinel */
	size_t n, cap;
};

static void symbolize_points(struct sym_module *m, const struct pcvec *pts,
			     struct frames *fr)
{
	fr->first = xmalloc((pts->n + 1) * sizeof(*fr->first));
	for (size_t i = 0; i < pts->n; i++) {
		const struct sym_frame *f;
		size_t nf = sym_lookup(m, pts->v[i], &f);

		/* sym_lookup always gives a frame: add_point reads f[0]. */
		assert(nf > 0);
		fr->first[i] = fr->n;
		if (fr->n + nf > fr->cap) {
			fr->cap = (fr->n + nf) * 2;
			fr->f = xrealloc(fr->f, fr->cap * sizeof(*fr->f));
		}
		memcpy(fr->f + fr->n, f, nf * sizeof(*f));
		fr->n += nf;
	}
	fr->first[pts->n] = fr->n;
}

static int check_subset(const struct pcvec *covered, const struct pcvec *pts,
			const char *binary, const char *cov_name)
{
	size_t bad = 0, tail;
	uint64_t first_bad = 0;

	for (size_t i = 0; i < covered->n; i++)
		if (!pcvec_contains(pts, covered->v[i]) && !bad++)
			first_bad = covered->v[i];
	if (!bad)
		return 0;
	msg_error("coverage points in binary and coverage file do not match: "
		  "%zu of %zu PCs of %s (first 0x%llx) are not coverage points "
		  "of %s (another build of it?)", bad, covered->n, cov_name,
		  (unsigned long long)first_bad, binary);
	tail = elfpoints_tail_calls(binary);
	if (tail)
		msg_note("%s has %zu tail calls (jmp) to the coverage callback: "
			 "gcc < 14 at -O2 records the caller's return address "
			 "there (GCC PR 90746); rebuild with "
			 "-fno-optimize-sibling-calls (ukcov-cc adds it)",
			 binary, tail);
	return -1;
}

static void build(struct builder *b, const struct pcvec *pts,
		  const struct pcvec *covered, const struct frames *fr)
{
	char id[17];

	/* sancov symbolize(): covered ids unless the raw first frame is
	 * ignored; skip-dead-files: files of all frames of covered points. */
	for (size_t i = 0, c = 0; i < pts->n && c < covered->n; i++) {
		const struct sym_frame *f = fr->f + fr->first[i];

		if (pts->v[i] != covered->v[c])
			continue;
		c++;
		size_t nf = fr->first[i + 1] - fr->first[i];

		if (!ignored(b->o, f[0].file, f[nf - 1].func)) {
			hex_u64(id, pts->v[i]);
			symcov_add_covered(b->sc, strtab_add(b->sc->strs, id));
		}
		for (size_t k = fr->first[i]; k < fr->first[i + 1]; k++)
			ptrmap_put(&b->live, fr->f[k].file, "");
	}
	for (size_t i = 0; i < pts->n; i++) {
		hex_u64(id, pts->v[i]);
		add_point(b, strtab_add(b->sc->strs, id), fr->f + fr->first[i],
			  fr->first[i + 1] - fr->first[i]);
	}
	symcov_finish(b->sc);
}

/* ---- the source model (lines.h) ---- */

static const char *model_file(void *arg, const char *raw)
{
	return normalized(arg, raw);
}

/* Files and functions the ignorelists exclude stay out of the model, as
 * their points stay out of the symcov. */
static bool model_keep(void *arg, const char *file, const char *func)
{
	const struct cov_opts *o = ((struct builder *)arg)->o;

	return !ignorelist_match(o->dflt, "src", file) &&
	       !ignorelist_match(o->user, "src", file) &&
	       !(func && (ignorelist_match(o->dflt, "fun", func) ||
			  ignorelist_match(o->user, "fun", func)));
}

/* The model of one binary; without one (no DWARF, a machine whose code
 * is not decoded) the report keeps the point model. */
static void build_model(struct builder *b, struct sym_module *m,
			const char *binary, const struct pcvec *pts,
			const struct pcvec *covered)
{
	struct sm_hooks h = { model_file, model_keep, b };
	struct srcmodel *sm = xcalloc(1, sizeof(*sm));

	if (srcmodel_build(m, pts, covered, &h, sm) < 0) {
		free(sm);
		return;
	}
	if (sm->truncated)
		msg_warn("%s: its DWARF claims the same code many times over: "
			 "its lines and functions are incomplete", binary);
	if (sm->undecoded)
		msg_warn("%s: %zu function%s with bytes that are no x86-64 "
			 "instruction: %s lines are not reported",
			 binary, sm->undecoded, sm->undecoded == 1 ? "" : "s",
			 sm->undecoded == 1 ? "its" : "their");
	b->sc->model = sm;
}

/* Finding the points (a disassembly), hashing the file and opening the
 * symbolizer (a DWARF index) are independent: do them on three threads. */
struct points_job {
	const char *binary;
	struct pcvec pts;
	int r;
};

static void *points_thread(void *arg)
{
	struct points_job *j = arg;

	j->r = elfpoints_load(j->binary, &j->pts);
	return NULL;
}

struct hash_job {
	const char *binary;
	char hash[41];
	int r;
};

static void *hash_thread(void *arg)
{
	struct hash_job *j = arg;

	j->r = sha1_file_hex_upper(j->binary, j->hash);
	return NULL;
}

static struct sym_module *open_symbolizer(const char *binary,
					  const struct cov_opts *o,
					  struct symcov *out)
{
	struct hash_job hj = { binary, "", 0 };
	char err[ERRLEN];
	struct sym_module *m;
	pthread_t t;
	bool threaded = o->need_hash &&
			pthread_create(&t, NULL, hash_thread, &hj) == 0;

	if (o->need_hash && !threaded)
		hash_thread(&hj);
	m = sym_open(binary, out->strs, o->demangle, err);
	if (threaded)
		pthread_join(t, NULL);
	if (hj.r < 0 || !m) {
		msg_error("%s: %s", binary, hj.r < 0 ? strerror(-hj.r) : err);
		sym_close(m);
		return NULL;
	}
	out->hash = strtab_add(out->strs, hj.hash);
	return m;
}

int symcov_from_binary(const char *binary, const struct pcvec *covered,
		       const char *cov_name, const struct cov_opts *o,
		       struct symcov *out)
{
	struct points_job job = { binary, { 0 }, -1 };
	struct builder b = { .o = o, .sc = out };
	struct frames fr = { 0 };
	struct sym_module *m;
	pthread_t t;
	bool threaded = pthread_create(&t, NULL, points_thread, &job) == 0;

	if (!threaded)
		points_thread(&job);
	m = open_symbolizer(binary, o, out);
	if (threaded)
		pthread_join(t, NULL);
	if (!m || job.r < 0 ||
	    check_subset(covered, &job.pts, binary, cov_name) < 0) {
		sym_close(m);
		pcvec_free(&job.pts);
		return -1;
	}
	if (sym_missing_debug(m))
		msg_warn("%s", sym_missing_debug(m));
	symbolize_points(m, &job.pts, &fr);
	build(&b, &job.pts, covered, &fr);
	if (o->model)
		build_model(&b, m, binary, &job.pts, covered);
	sym_close(m);
	free(fr.f);
	free(fr.first);
	ptrmap_free(&b.norm);
	ptrmap_free(&b.live);
	pcvec_free(&job.pts);
	return 0;
}

/* ---- union ---- */

struct qpoint {
	const char *qid;	/* qualified id */
	size_t input, point;
};

static int cmp_qpoint(const void *a, const void *b)
{
	const struct qpoint *x = a, *y = b;
	int c = strcmp(x->qid, y->qid);

	if (c)
		return c;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

/* The common non-empty hash of all inputs, or NULL if they differ. */
static const char *common_hash(struct symcov **in, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(in[i]->hash, in[0]->hash) != 0)
			return NULL;
	return in[0]->hash;
}

static const char *qualify(struct strtab *strs, const char *hash,
			   bool qualify_ids, const char *id)
{
	char *s;
	const char *r;

	if (!qualify_ids || !hash || !hash[0])
		return strtab_add(strs, id);
	s = xasprintf("%.16s:%s", hash, id);
	r = strtab_add(strs, s);
	free(s);
	return r;
}

static void copy_locs(struct symcov *out, const struct symcov *src,
		      const struct sc_point *p, bool dedupe)
{
	for (size_t i = p->first; i < p->first + p->n; i++) {
		struct sc_loc l = src->locs[i];

		l.file = strtab_add(out->strs, l.file);
		l.func = strtab_add(out->strs, l.func);
		if (!dedupe || !has_loc(out, &l))
			symcov_add_loc(out, &l);
	}
}

static const char *intern(void *arg, const char *s)
{
	return strtab_add(arg, s);
}

/* The union of the inputs' source models, if every input has one. */
static void union_models(struct symcov **in, size_t n, struct symcov *out)
{
	for (size_t i = 0; i < n; i++)
		if (!in[i]->model)
			return;
	out->model = xcalloc(1, sizeof(*out->model));
	for (size_t i = 0; i < n; i++)
		srcmodel_append(out->model, in[i]->model, intern, out->strs);
}

void symcov_union(struct symcov **in, size_t n, struct symcov *out)
{
	const char *hash = n ? common_hash(in, n) : "";
	bool q = hash == NULL;
	struct qpoint *qp;
	size_t nq = 0, tot = 0;

	out->hash = strtab_add(out->strs, q ? "" : hash);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < in[i]->ncovered; k++)
			symcov_add_covered(out, qualify(out->strs, in[i]->hash,
							q, in[i]->covered[k]));
		tot += in[i]->npoints;
	}
	qp = xmalloc((tot + 1) * sizeof(*qp));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < in[i]->npoints; k++)
			qp[nq++] = (struct qpoint){
				qualify(out->strs, in[i]->hash, q,
					in[i]->points[k].id), i, k };
	/* One input keeps its point order (address order when freshly
	 * symbolized, as sancov); a union is in id order, as sancov's
	 * reader, so the result does not depend on the input order. */
	if (n > 1 && nq > 1)
		qsort(qp, nq, sizeof(*qp), cmp_qpoint);
	for (size_t i = 0; i < nq; i++) {
		bool again = i && qp[i - 1].qid == qp[i].qid;

		if (!again)
			symcov_add_point(out, qp[i].qid);
		copy_locs(out, in[qp[i].input],
			  &in[qp[i].input]->points[qp[i].point], again);
	}
	free(qp);
	symcov_finish(out);
	union_models(in, n, out);
}

/* ---- function lists and stats (sancov computeFunctions & co.) ---- */

struct fnloc {
	const char *file, *func;
	uint32_t line, col;
	bool covered;
};

static int cmp_fnloc(const void *a, const void *b)
{
	const struct fnloc *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	if ((c = x->func == y->func ? 0 : strcmp(x->func, y->func)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* All locations sorted by (file, function, line, column). */
static struct fnloc *sorted_fnlocs(const struct symcov *sc)
{
	struct fnloc *v = xmalloc((sc->nlocs + 1) * sizeof(*v));
	size_t k = 0;

	for (size_t p = 0; p < sc->npoints; p++) {
		bool cov = symcov_is_covered(sc, sc->points[p].id);

		for (size_t i = sc->points[p].first;
		     i < sc->points[p].first + sc->points[p].n; i++)
			v[k++] = (struct fnloc){ sc->locs[i].file,
						 sc->locs[i].func,
						 sc->locs[i].line,
						 sc->locs[i].col, cov };
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_fnloc);
	return v;
}

/* Walk the (file, function) groups: first entry = minimum (line, col). */
static void each_function(const struct symcov *sc,
			  void (*fn)(const struct fnloc *first, bool covered,
				     void *arg),
			  void *arg)
{
	struct fnloc *v = sorted_fnlocs(sc);

	for (size_t i = 0; i < sc->nlocs;) {
		size_t j = i;
		bool cov = false;

		for (; j < sc->nlocs && v[j].file == v[i].file &&
		       v[j].func == v[i].func; j++)
			cov |= v[j].covered;
		fn(&v[i], cov, arg);
		i = j;
	}
	free(v);
}

struct print_fn {
	bool want_covered;
	struct strbuf *out;
};

static void print_one(const struct fnloc *f, bool covered, void *arg)
{
	struct print_fn *pf = arg;

	if (covered == pf->want_covered)
		sb_printf(pf->out, "%s:%u %s\n", f->file, f->line, f->func);
}

void symcov_print_functions(const struct symcov *sc, bool covered,
			    struct strbuf *out)
{
	struct print_fn pf = { covered, out };

	each_function(sc, print_one, &pf);
}

static void count_one(const struct fnloc *f, bool covered, void *arg)
{
	struct cov_stats *st = arg;

	(void)f;
	st->all_fns++;
	st->cov_fns += covered;
}

void symcov_stats(const struct symcov *sc, struct cov_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->all_points = sc->npoints;
	st->cov_points = sc->ncovered;
	each_function(sc, count_one, st);
}
