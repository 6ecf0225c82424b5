/*
 * tools/dump.c -- ukcov dumps, module snapshots and raw/map pairs.
 */
#include "dump.h"
#include "elfpoints.h"

#include <stdlib.h>
#include <string.h>

#include "sancov_file.h"
#include "strtab.h"

static void index_free(struct dump_index *x);

void dump_free(struct dump *d)
{
	for (size_t i = 0; i < d->nmods; i++) {
		free(d->mods[i].path);
		pcvec_free(&d->mods[i].pcs);
	}
	for (size_t i = 0; i < d->ninfo; i++)
		free(d->info[i]);
	free(d->mods);
	free(d->cmps);
	free(d->info);
	index_free(d->index);
	memset(d, 0, sizeof(*d));
}

bool dump_looks_like(const void *buf, size_t len)
{
	return len >= strlen(DUMP_MAGIC) &&
	       memcmp(buf, DUMP_MAGIC, strlen(DUMP_MAGIC)) == 0;
}

void build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hx[] = "0123456789abcdef";

	if (!len) {
		memcpy(buf, "-", 2);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hx[id[i] >> 4];
		buf[2 * i + 1] = hx[id[i] & 15];
	}
	buf[2 * len] = '\0';
}

size_t dump_add_module(struct dump *d, const char *path, const uint8_t *id,
		       size_t idlen, uint64_t bias, uint64_t lo, uint64_t hi)
{
	struct dump_module *m;

	if (d->nmods == d->capmods) {
		d->capmods = d->capmods ? d->capmods * 2 : 16;
		d->mods = xrealloc(d->mods, d->capmods * sizeof(*d->mods));
	}
	m = &d->mods[d->nmods];
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(path);
	if (idlen > sizeof(m->build_id))
		idlen = sizeof(m->build_id);
	if (idlen)	/* id may be NULL (raw/map modules) */
		memcpy(m->build_id, id, idlen);
	m->build_id_len = idlen;
	m->bias = bias, m->lo = lo, m->hi = hi;
	return d->nmods++;
}

void dump_add_info(struct dump *d, const char *key, const char *value)
{
	d->info = xrealloc(d->info, (d->ninfo + 1) * sizeof(*d->info));
	d->info[d->ninfo++] = xasprintf("%s %s", key, value);
}

void dump_add_cmp(struct dump *d, const struct cmp_rec *c)
{
	if (d->ncmps == d->capcmps) {
		d->capcmps = d->capcmps ? d->capcmps * 2 : 256;
		d->cmps = xrealloc(d->cmps, d->capcmps * sizeof(*d->cmps));
	}
	d->cmps[d->ncmps++] = *c;
}

/* ---- writer ---- */

/* Paths are written raw except '\\' and bytes < 0x20 (\xHH). */
static void put_path(struct strbuf *sb, const char *p)
{
	for (; *p; p++) {
		if (*p == '\\')
			sb_puts(sb, "\\\\");
		else if ((unsigned char)*p < 0x20)
			sb_printf(sb, "\\x%02x", (unsigned char)*p);
		else
			sb_add(sb, p, 1);
	}
}

void dump_serialize(const struct dump *d, struct strbuf *sb)
{
	char hx[17], id[129];

	sb_puts(sb, DUMP_MAGIC);
	sb_printf(sb, "mode %s\n", d->cmp ? "cmp" : "pc");
	for (size_t i = 0; i < d->ninfo; i++)
		sb_printf(sb, "info %s\n", d->info[i]);
	for (size_t i = 0; i < d->nmods; i++) {
		const struct dump_module *m = &d->mods[i];

		build_id_hex(m->build_id, m->build_id_len, id);
		sb_printf(sb, "module %zu %s %llx %llx %llx ", i, id,
			  (unsigned long long)m->bias,
			  (unsigned long long)m->lo, (unsigned long long)m->hi);
		put_path(sb, m->path);
		sb_puts(sb, "\n");
	}
	for (size_t i = 0; i < d->nmods; i++) {
		const struct pcvec *pv = &d->mods[i].pcs;

		if (!pv->n)
			continue;
		sb_printf(sb, "pcs %zu %zu\n", i, pv->n);
		for (size_t k = 0; k < pv->n; k++) {
			int n = hex_u64(hx, pv->v[k]);

			hx[n] = '\n';
			sb_add(sb, hx, (size_t)n + 1);
		}
	}
	for (size_t i = 0; i < d->ncmps; i++) {
		const struct cmp_rec *c = &d->cmps[i];

		if (c->module < 0)
			sb_puts(sb, "cmp -");
		else
			sb_printf(sb, "cmp %d", c->module);
		sb_printf(sb, " %llx %llx %llx %llx\n",
			  (unsigned long long)c->off,
			  (unsigned long long)c->type,
			  (unsigned long long)c->arg1,
			  (unsigned long long)c->arg2);
	}
	sb_puts(sb, "end\n");
}

/* ---- reader ---- */

struct lines {
	const char *p, *end;
	size_t no;
	char *line;		/* current line, NUL-terminated copy */
	size_t cap;
};

/* Next line without its '\n'; false at the end of input. */
static bool next_line(struct lines *ls)
{
	const char *nl;
	size_t n;

	if (ls->p >= ls->end)
		return false;
	nl = memchr(ls->p, '\n', (size_t)(ls->end - ls->p));
	n = nl ? (size_t)(nl - ls->p) : (size_t)(ls->end - ls->p);
	if (n >= ls->cap) {
		ls->cap = n + 1;
		ls->line = xrealloc(ls->line, ls->cap);
	}
	memcpy(ls->line, ls->p, n);
	ls->line[n] = '\0';
	ls->p += n + (nl != NULL);
	ls->no++;
	return true;
}

/* Split off the next space-separated field of *s. */
static char *field(char **s)
{
	char *f = *s, *sp;

	if (!f || !*f)
		return NULL;
	sp = strchr(f, ' ');
	if (sp) {
		*sp = '\0';
		*s = sp + 1;
	} else {
		*s = NULL;
	}
	return f;
}

static bool hex_field(char **s, uint64_t *v)
{
	char *f = field(s);

	return f && parse_hex_u64(f, strlen(f), v);
}

static bool dec_field(char **s, size_t *v)
{
	char *f = field(s), *end;
	unsigned long long x;

	if (!f || *f < '0' || *f > '9')
		return false;
	x = strtoull(f, &end, 10);
	*v = (size_t)x;
	return *end == '\0' && x < ((size_t)1 << 40);
}

static bool parse_build_id(const char *f, uint8_t *id, size_t *len)
{
	size_t n = strlen(f);

	*len = 0;
	if (!strcmp(f, "-"))
		return true;
	if (n == 0 || n % 2 || n / 2 > 64)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t b;

		if (!parse_hex_u64(f + 2 * i, 2, &b) || f[2 * i] == 'x' ||
		    f[2 * i + 1] == 'x' || f[2 * i + 1] == 'X')
			return false;
		id[i] = (uint8_t)b;
	}
	*len = n / 2;
	return true;
}

static bool unescape_path(const char *s, char **out)
{
	struct strbuf sb = { 0 };

	sb_add(&sb, "", 0);
	for (; *s; s++) {
		uint64_t b;

		if (*s != '\\') {
			sb_add(&sb, s, 1);
			continue;
		}
		if (s[1] == '\\') {
			sb_add(&sb, "\\", 1);
			s++;
		} else if (s[1] == 'x' && s[2] && s[3] &&
			   parse_hex_u64(s + 2, 2, &b) && b != 0) {
			char c = (char)b;

			sb_add(&sb, &c, 1);
			s += 3;
		} else {
			sb_free(&sb);
			return false;
		}
	}
	*out = sb.s;
	return true;
}

/* "<build-id|-> <bias> <lo> <hi> <path>", shared by dump module lines
 * and snapshot lines.  m->path is malloc'd on success. */
static bool module_fields(char *rest, struct dump_module *m)
{
	char *idf = field(&rest);

	memset(m, 0, sizeof(*m));
	return idf && parse_build_id(idf, m->build_id, &m->build_id_len) &&
	       hex_field(&rest, &m->bias) && hex_field(&rest, &m->lo) &&
	       hex_field(&rest, &m->hi) && rest && m->lo <= m->hi &&
	       unescape_path(rest, &m->path);
}

/* "module <idx> <build-id> <bias> <lo> <hi> <path>" */
static int parse_module(struct dump *d, char *rest, char err[ERRLEN],
			size_t no)
{
	struct dump_module m;
	size_t idx;

	if (!dec_field(&rest, &idx) || !module_fields(rest, &m)) {
		snprintf(err, ERRLEN, "line %zu: malformed module line", no);
		return -1;
	}
	if (idx != d->nmods) {
		snprintf(err, ERRLEN, "line %zu: module %zu out of order", no,
			 idx);
		free(m.path);
		return -1;
	}
	dump_add_module(d, m.path, m.build_id, m.build_id_len, m.bias, m.lo,
			m.hi);
	free(m.path);
	return 0;
}

/* "pcs <idx> <count>" and count lines of hex offsets. */
static int parse_pcs(struct dump *d, struct lines *ls, char *rest,
		     char err[ERRLEN])
{
	size_t idx, count, no = ls->no;
	struct pcvec *pv;

	if (!dec_field(&rest, &idx) || !dec_field(&rest, &count) || rest) {
		snprintf(err, ERRLEN, "line %zu: malformed pcs line", no);
		return -1;
	}
	if (count > SANCOV_MAX_POINTS) {
		snprintf(err, ERRLEN, "line %zu: %zu PCs, more than the %llu "
			 "coverage points a module can hold (docs/FORMATS.md "
			 "§1)", no, count, (unsigned long long)SANCOV_MAX_POINTS);
		return -1;
	}
	if (idx >= d->nmods || d->mods[idx].pcs.n) {
		snprintf(err, ERRLEN, "line %zu: pcs for unknown or repeated "
			 "module %zu", no, idx);
		return -1;
	}
	pv = &d->mods[idx].pcs;
	for (size_t i = 0; i < count; i++) {
		uint64_t v;

		if (!next_line(ls)) {
			snprintf(err, ERRLEN, "truncated: module %zu announces "
				 "%zu PCs, the file ends after %zu", idx, count,
				 i);
			return -1;
		}
		if (!parse_hex_u64(ls->line, strlen(ls->line), &v)) {
			snprintf(err, ERRLEN, "line %zu: expected a hex PC "
				 "offset", ls->no);
			return -1;
		}
		pcvec_push(pv, v);
	}
	return 0;
}

/* "cmp <idx|-> <off> <type> <arg1> <arg2>" */
static int parse_cmp(struct dump *d, char *rest, char err[ERRLEN], size_t no)
{
	struct cmp_rec c;
	char *m = field(&rest);
	size_t idx = 0;

	if (m && strcmp(m, "-") != 0) {
		char *mm = m;

		if (!dec_field(&mm, &idx) || idx >= d->nmods)
			m = NULL;
	}
	if (!m || !hex_field(&rest, &c.off) || !hex_field(&rest, &c.type) ||
	    !hex_field(&rest, &c.arg1) || !hex_field(&rest, &c.arg2) || rest) {
		snprintf(err, ERRLEN, "line %zu: malformed cmp line", no);
		return -1;
	}
	c.module = strcmp(m, "-") == 0 ? -1 : (int)idx;
	dump_add_cmp(d, &c);
	return 0;
}

static int parse_line(struct dump *d, struct lines *ls, char err[ERRLEN])
{
	char *rest = ls->line, *kw = field(&rest);

	if (!kw || kw[0] == '#')
		return 0;
	if (!strcmp(kw, "mode") && rest &&
	    (!strcmp(rest, "pc") || !strcmp(rest, "cmp"))) {
		d->cmp = rest[1] == 'm';
		return 0;
	}
	if (!strcmp(kw, "info")) {
		d->info = xrealloc(d->info, (d->ninfo + 1) * sizeof(*d->info));
		d->info[d->ninfo++] = xstrdup(rest ? rest : "");
		return 0;
	}
	if (!strcmp(kw, "module"))
		return parse_module(d, rest, err, ls->no);
	if (!strcmp(kw, "pcs"))
		return parse_pcs(d, ls, rest, err);
	if (!strcmp(kw, "cmp"))
		return parse_cmp(d, rest, err, ls->no);
	snprintf(err, ERRLEN, "line %zu: unknown keyword '%.40s'", ls->no, kw);
	return -1;
}

int dump_parse(const char *buf, size_t len, struct dump *d, char err[ERRLEN])
{
	struct lines ls = { buf, buf + len, 0, NULL, 0 };
	bool ended = false;
	int r = 0;

	memset(d, 0, sizeof(*d));
	if (!dump_looks_like(buf, len)) {
		snprintf(err, ERRLEN, "not a ukcov dump (no '%.12s' header)",
			 DUMP_MAGIC);
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, ERRLEN, "not a ukcov dump: NUL bytes in a text "
			 "format");
		return -1;
	}
	next_line(&ls);
	while (r == 0 && !ended && next_line(&ls)) {
		if (!strcmp(ls.line, "end"))
			ended = true;
		else
			r = parse_line(d, &ls, err);
	}
	if (r == 0 && !ended) {
		snprintf(err, ERRLEN, "truncated: no 'end' line");
		r = -1;
	}
	free(ls.line);
	if (r < 0)
		dump_free(d);
	return r;
}

static int parse_cb(const char *buf, size_t len, void *d, char *err)
{
	return dump_parse(buf, len, d, err);
}

int dump_load(const char *path, struct dump *d)
{
	return load_parsed(path, "ukcov dump", parse_cb, d);
}

/* ---- union ---- */

/*
 * dump_union's lookup tables over dst's modules.  A module m matches a
 * module t of dst when both have build-ids and they are equal, or when
 * either has none and the paths are equal; m joins the first match in
 * dst's order.  So the candidates are:
 *   m with an id: the module with that id (ids in dst are unique: a
 *     second one would have matched the first) and the id-less module
 *     with m's path (unique too: one is added only while no module has
 *     that path);
 *   m without: every module with m's path -- the lowest index wins.
 * Joining may replace an id'd module's path by a smaller one (cmp_desc),
 * never by a larger one, so a path's heap drops stale entries lazily.
 */
struct idx_heap {
	size_t *v;
	size_t n, cap;
};

struct dump_index {
	struct strtab strs;	/* interned paths and hex build-ids */
	struct ptrmap by_id;	/* hex build-id -> index + 1 */
	struct ptrmap noid;	/* path -> index + 1 of its id-less module */
	struct ptrmap by_path;	/* path -> struct idx_heap of indices */
	const char **path;	/* interned current path of each module */
	size_t cap;
};

static void heap_push(struct idx_heap *h, size_t x)
{
	size_t i;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 4;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	for (i = h->n++; i && h->v[(i - 1) / 2] > x; i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = x;
}

static void heap_pop(struct idx_heap *h)
{
	size_t x = h->v[--h->n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
}

static const void *as_val(size_t i)
{
	return (const void *)(uintptr_t)(i + 1);
}

static bool index_get(const struct ptrmap *m, const char *key, size_t *i)
{
	const void *v;

	if (!ptrmap_get(m, key, &v))
		return false;
	*i = (size_t)(uintptr_t)v - 1;
	return true;
}

static const char *intern_id(struct dump_index *x, const struct dump_module *m)
{
	char id[129];

	build_id_hex(m->build_id, m->build_id_len, id);
	return strtab_add(&x->strs, id);
}

/* Record that module i now has the (interned) path p. */
static void index_set_path(struct dump_index *x, size_t i, const char *p)
{
	const void *v;
	struct idx_heap *h;

	if (!ptrmap_get(&x->by_path, p, &v)) {
		v = xcalloc(1, sizeof(*h));
		ptrmap_put(&x->by_path, p, v);
	}
	h = (struct idx_heap *)v;
	heap_push(h, i);
	x->path[i] = p;
}

/* The lowest index whose current path is p. */
static bool index_first_with_path(struct dump_index *x, const char *p,
				  size_t *i)
{
	const void *v;
	struct idx_heap *h;

	if (!ptrmap_get(&x->by_path, p, &v))
		return false;
	h = (struct idx_heap *)v;
	while (h->n && x->path[h->v[0]] != p)
		heap_pop(h);
	if (!h->n)
		return false;
	*i = h->v[0];
	return true;
}

static void index_add(struct dump_index *x, const struct dump_module *m,
		      size_t i)
{
	if (i >= x->cap) {
		x->cap = x->cap ? x->cap * 2 : 64;
		x->path = xrealloc(x->path, x->cap * sizeof(*x->path));
	}
	index_set_path(x, i, strtab_add(&x->strs, m->path));
	size_t first;
	const char *id = m->build_id_len ? intern_id(x, m) : NULL;

	/* Only the first: later equal keys are matched, never added. */
	if (id && !index_get(&x->by_id, id, &first))
		ptrmap_put(&x->by_id, id, as_val(i));
	else if (!id && !index_get(&x->noid, x->path[i], &first))
		ptrmap_put(&x->noid, x->path[i], as_val(i));
}

static void index_free(struct dump_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->by_path.cap; i++)
		if (x->by_path.keys[i]) {
			struct idx_heap *h = (struct idx_heap *)x->by_path.vals[i];

			free(h->v);
			free(h);
		}
	ptrmap_free(&x->by_path);
	ptrmap_free(&x->by_id);
	ptrmap_free(&x->noid);
	strtab_free(&x->strs);
	free(x->path);
	free(x);
}

/* The first module of dst that m matches (see struct dump_index). */
static bool index_match(struct dump_index *x, const struct dump_module *m,
			size_t *i)
{
	const char *p = strtab_add(&x->strs, m->path);
	size_t a, b;
	bool has_a, has_b;

	if (!m->build_id_len)
		return index_first_with_path(x, p, i);
	has_a = index_get(&x->by_id, intern_id(x, m), &a);
	has_b = index_get(&x->noid, p, &b);
	if (has_a && has_b)
		*i = a < b ? a : b;
	else if (has_a || has_b)
		*i = has_a ? a : b;
	return has_a || has_b;
}

/* The smaller of two descriptions of one module, so a union does not
 * depend on the order of its inputs. */
static int cmp_desc(const struct dump_module *a, const struct dump_module *b)
{
	int c = strcmp(a->path, b->path);

	if (c)
		return c;
	if (a->bias != b->bias)
		return a->bias < b->bias ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* m's index in dst; its PCs are appended, unsorted. */
static size_t union_module(struct dump *dst, const struct dump_module *m)
{
	struct dump_index *x = dst->index;
	size_t i;

	if (!index_match(x, m, &i)) {
		i = dump_add_module(dst, m->path, m->build_id, m->build_id_len,
				    m->bias, m->lo, m->hi);
		index_add(x, m, i);
	} else if (cmp_desc(m, &dst->mods[i]) < 0) {
		struct dump_module *t = &dst->mods[i];

		if (strcmp(t->path, m->path) != 0) {
			free(t->path);
			t->path = xstrdup(m->path);
			index_set_path(x, i, strtab_add(&x->strs, m->path));
		}
		t->bias = m->bias, t->lo = m->lo, t->hi = m->hi;
	}
	pcvec_append(&dst->mods[i].pcs, &m->pcs);
	return i;
}

void dump_union(struct dump *dst, const struct dump *src)
{
	size_t *map = xmalloc((src->nmods + 1) * sizeof(*map));
	bool *grown;

	if (!dst->index) {
		size_t n = dst->nmods;

		/* A dst built otherwise: index it as if united one by one. */
		dst->index = xcalloc(1, sizeof(*dst->index));
		for (size_t i = 0; i < n; i++)
			index_add(dst->index, &dst->mods[i], i);
	}
	dst->cmp |= src->cmp;
	for (size_t i = 0; i < src->nmods; i++)
		map[i] = union_module(dst, &src->mods[i]);
	/* Sort each grown module once, not once per module joining it. */
	grown = xcalloc(dst->nmods + 1, sizeof(*grown));
	for (size_t i = 0; i < src->nmods; i++)
		if (!grown[map[i]]) {
			grown[map[i]] = true;
			pcvec_sort_unique(&dst->mods[map[i]].pcs, false);
		}
	free(grown);
	for (size_t i = 0; i < src->ncmps; i++) {
		struct cmp_rec c = src->cmps[i];

		if (c.module >= 0)
			c.module = (int)map[c.module];
		dump_add_cmp(dst, &c);
	}
	free(map);
}

static int cmp_module(const void *a, const void *b)
{
	const struct dump_module *x = a, *y = b;
	size_t n = x->build_id_len < y->build_id_len ? x->build_id_len
						     : y->build_id_len;
	int c = memcmp(x->build_id, y->build_id, n);

	if (c)
		return c;
	if (x->build_id_len != y->build_id_len)
		return x->build_id_len < y->build_id_len ? -1 : 1;
	return cmp_desc(x, y);
}

static int cmp_cmprec(const void *a, const void *b)
{
	const struct cmp_rec *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->arg1 != y->arg1)
		return x->arg1 < y->arg1 ? -1 : 1;
	return x->arg2 < y->arg2 ? -1 : x->arg2 > y->arg2;
}

void dump_canonicalize(struct dump *d)
{
	size_t *rank = xmalloc((d->nmods + 1) * sizeof(*rank)), o = 0;
	struct dump_module *sorted = xmalloc((d->nmods + 1) * sizeof(*sorted));
	struct ptrmap where = { 0 };

	if (d->nmods)	/* d->mods is NULL in a dump without modules */
		memcpy(sorted, d->mods, d->nmods * sizeof(*sorted));
	if (d->nmods > 1)
		qsort(sorted, d->nmods, sizeof(*sorted), cmp_module);
	/* Each module owns its path string: the pointer names it. */
	for (size_t k = 0; k < d->nmods; k++)
		ptrmap_put(&where, sorted[k].path, as_val(k));
	for (size_t i = 0; i < d->nmods; i++)
		index_get(&where, d->mods[i].path, &rank[i]);
	ptrmap_free(&where);
	index_free(d->index);
	d->index = NULL;
	for (size_t i = 0; i < d->ncmps; i++)
		if (d->cmps[i].module >= 0)
			d->cmps[i].module = (int)rank[d->cmps[i].module];
	free(d->mods);
	d->mods = sorted;
	d->capmods = d->nmods + 1;
	for (size_t i = 0; i < d->nmods; i++)
		pcvec_sort_unique(&d->mods[i].pcs, false);
	if (d->ncmps > 1)
		qsort(d->cmps, d->ncmps, sizeof(*d->cmps), cmp_cmprec);
	for (size_t i = 0; i < d->ncmps; i++)
		if (!o || cmp_cmprec(&d->cmps[o - 1], &d->cmps[i]) != 0)
			d->cmps[o++] = d->cmps[i];
	d->ncmps = o;
	free(rank);
}

/* The module whose [lo,hi) holds an absolute pc, or -1. */
static int dump_find_module(const struct dump *d, uint64_t pc)
{
	for (size_t i = 0; i < d->nmods; i++)
		if (pc >= d->mods[i].lo && pc < d->mods[i].hi)
			return (int)i;
	return -1;
}

void dump_read_machines(struct dump *d)
{
	for (size_t i = 0; i < d->nmods; i++) {
		struct elf_info info;
		char err[ERRLEN];

		if (elf_read_info(d->mods[i].path, &info, err) == 0)
			d->mods[i].machine = info.machine;
	}
}

uint64_t dump_record_point(const struct dump *d, uint64_t pc, int *m)
{
	/* The call's last byte (pc - 1) lies in the caller's module on
	 * every machine; pc itself may be one past its end. */
	uint64_t point;

	*m = dump_find_module(d, pc - 1);
	if (*m < 0)
		return pc_to_point(0, pc);
	point = pc_to_point(d->mods[*m].machine, pc);
	return point - d->mods[*m].bias;
}

/* ---- module snapshots (UKCOV_MODULES) ---- */

static int snapshot_line(struct dump *d, char *rest, long pid,
			 char err[ERRLEN], size_t no)
{
	struct dump_module s;
	size_t p;

	if (!dec_field(&rest, &p) || !module_fields(rest, &s)) {
		snprintf(err, ERRLEN, "line %zu: malformed module line", no);
		return -1;
	}
	for (size_t i = 0; i < d->nmods && (pid <= 0 || (long)p == pid); i++) {
		struct dump_module *m = &d->mods[i];

		if (m->bias == s.bias && !strcmp(m->path, s.path)) {
			m->lo = s.lo < m->lo ? s.lo : m->lo;
			m->hi = s.hi > m->hi ? s.hi : m->hi;
			free(s.path);
			return 0;
		}
	}
	if (pid <= 0 || (long)p == pid)
		dump_add_module(d, s.path, s.build_id, s.build_id_len, s.bias,
				s.lo, s.hi);
	free(s.path);
	return 0;
}

int modules_parse(const char *buf, size_t len, long pid, struct dump *d,
		  char err[ERRLEN])
{
	struct lines ls = { buf, buf + len, 0, NULL, 0 };
	int r = 0;

	if (memchr(buf, '\0', len)) {
		snprintf(err, ERRLEN, "not a module table: NUL bytes");
		return -1;
	}
	while (r == 0 && next_line(&ls)) {
		char *rest = ls.line, *kw = field(&rest);

		if (!kw || kw[0] == '#')
			continue;
		if (strcmp(kw, "M") != 0) {
			snprintf(err, ERRLEN, "line %zu: expected 'M <pid> "
				 "<build-id> <bias> <lo> <hi> <path>'", ls.no);
			r = -1;
		} else {
			r = snapshot_line(d, rest, pid, err, ls.no);
		}
	}
	free(ls.line);
	return r;
}

/* ---- sancov.py raw/map ---- */

static int map_line(struct dump *d, char *line, size_t no, char err[ERRLEN])
{
	uint64_t start, end, base;
	char *s = line, *f[3];

	for (int i = 0; i < 3; i++) {
		while (*s == ' ' || *s == '\t')
			s++;
		f[i] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*f[2] || !*s || !parse_hex_u64(f[0], strlen(f[0]), &start) ||
	    !parse_hex_u64(f[1], strlen(f[1]), &end) ||
	    !parse_hex_u64(f[2], strlen(f[2]), &base) || start > end) {
		snprintf(err, ERRLEN, "line %zu: expected 'start end base "
			 "path' (hex)", no);
		return -1;
	}
	dump_add_module(d, s, NULL, 0, base, start, end);
	return 0;
}

static int parse_map(const char *map, size_t maplen, struct dump *d,
		     int *bits, char err[ERRLEN])
{
	struct lines ls = { map, map + maplen, 0, NULL, 0 };
	int r = 0;

	if (memchr(map, '\0', maplen) || !next_line(&ls) ||
	    (strcmp(ls.line, "32") != 0 && strcmp(ls.line, "64") != 0)) {
		snprintf(err, ERRLEN, "not a .sancov.map: the first line must "
			 "be the bitness, 32 or 64");
		free(ls.line);
		return -1;
	}
	*bits = atoi(ls.line);
	while (r == 0 && next_line(&ls)) {
		size_t n = strlen(ls.line);

		while (n && (ls.line[n - 1] == '\r' || ls.line[n - 1] == ' '))
			ls.line[--n] = '\0';
		if (n)
			r = map_line(d, ls.line, ls.no, err);
	}
	free(ls.line);
	return r;
}

/*
 * The most words a .sancov.raw of the map's modules can hold: one PC per
 * coverage point, i.e. per 5 bytes of each mapping, plus the zero-filled
 * tail of the runtime's last 64 Ki-word extension (docs/FORMATS.md §5).
 */
#define RAW_SLACK_WORDS (UINT64_C(1) << 16)
static uint64_t rawmap_max_words(const struct dump *d)
{
	uint64_t max = RAW_SLACK_WORDS;

	for (size_t i = 0; i < d->nmods; i++) {
		uint64_t pts = (d->mods[i].hi - d->mods[i].lo) / 5;

		max += pts < SANCOV_MAX_POINTS ? pts : SANCOV_MAX_POINTS;
	}
	return max;
}

int rawmap_check_size(const struct dump *d, int bits, uint64_t rawlen,
		      char err[ERRLEN])
{
	uint64_t words = rawlen / ((unsigned)bits / 8);

	if (words <= rawmap_max_words(d))
		return 0;
	snprintf(err, ERRLEN, "too large: %llu %d-bit PCs, more than the %llu "
		 "coverage points the map's modules can hold (docs/FORMATS.md "
		 "§5)", (unsigned long long)words, bits,
		 (unsigned long long)rawmap_max_words(d));
	return -1;
}

int rawmap_read_map(const char *map, size_t maplen, struct dump *d, int *bits,
		    char err[ERRLEN])
{
	memset(d, 0, sizeof(*d));
	if (parse_map(map, maplen, d, bits, err) < 0) {
		dump_free(d);
		return -1;
	}
	return 0;
}

int rawmap_add_pcs(const char *raw, size_t rawlen, struct dump *d, int bits,
		   size_t *outside, char err[ERRLEN])
{
	size_t w = (size_t)bits / 8;

	*outside = 0;
	if (rawmap_check_size(d, bits, rawlen, err) < 0)
		return -1;
	for (size_t off = 0; off + w <= rawlen; off += w) {
		uint64_t pc = 0;
		int m;

		memcpy(&pc, raw + off, w);	/* little-endian host */
		if (pc == 0)
			continue;
		m = dump_find_module(d, pc);
		if (m < 0) {
			++*outside;
			continue;
		}
		pcvec_push(&d->mods[m].pcs, pc - d->mods[m].bias);
	}
	for (size_t i = 0; i < d->nmods; i++)
		pcvec_sort_unique(&d->mods[i].pcs, false);
	return 0;
}

int rawmap_parse(const char *raw, size_t rawlen, const char *map,
		 size_t maplen, struct dump *d, int *bits, size_t *outside,
		 char err[ERRLEN])
{
	if (rawmap_read_map(map, maplen, d, bits, err) < 0)
		return -1;
	if (rawmap_add_pcs(raw, rawlen, d, *bits, outside, err) < 0) {
		dump_free(d);
		return -1;
	}
	return 0;
}
