/*
 * tools/fuzz_mut.c -- what "ukcov fuzz" changes in an input: libFuzzer's
 * byte mutators (FuzzerMutate.cpp), an AFL/libFuzzer dictionary, and
 * comparison hints as syzkaller makes them (prog/hints.go).
 */
#include "fuzz.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ukcov/linux/kcov.h>

#include "util.h"

static uint64_t fz_rand(struct fz_rng *r)
{
	/* xorshift64* (Vigna): fast, and the same sequence for one -seed. */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return fz_rand(r) % n;
}

/* ---- the dictionary ---- */

#define DICT_MAX_BYTES ((size_t)16 << 20)

static int hexval(char ch)
{
	int c = (unsigned char)ch;

	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* The quoted value of one line into w: 0, or -1 if malformed. */
static int dict_value(const char *s, struct fz_bytes *w)
{
	const char *q = strchr(s, '"');
	size_t n = 0;

	if (!q)
		return -1;
	w->p = xmalloc(strlen(q) + 1);
	for (q++; *q && *q != '"'; q++) {
		int c = (unsigned char)*q;

		if (c == '\\') {
			q++;
			if (*q == '\\' || *q == '"') {
				c = (unsigned char)*q;
			} else if (*q == 'x' && hexval(q[1]) >= 0 &&
				   hexval(q[2]) >= 0) {
				c = hexval(q[1]) * 16 + hexval(q[2]);
				q += 2;
			} else {
				return -1;
			}
		}
		w->p[n++] = (uint8_t)c;
	}
	w->n = n;
	if (*q != '"' || n == 0)
		return -1;
	for (q++; *q; q++)
		if (!isspace((unsigned char)*q))
			return -1;
	return 0;
}

int fz_dict_load(const char *path, struct fz_dict *d, char *err, size_t errlen)
{
	char *buf, *line, *save = NULL;
	size_t len, lineno = 0;
	const char *why;

	/* A dictionary is a few kilobytes; a device or a huge file is a
	 * mistake, refused before anything is read. */
	if (read_regular_file(path, DICT_MAX_BYTES, &buf, &len, &why)) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	buf = xrealloc(buf, len + 1);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *s = line;
		struct fz_bytes w = { 0 };

		lineno++;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		if (dict_value(s, &w)) {
			free(w.p);
			snprintf(err, errlen, "%s:%zu: not name=\"value\"",
				 path, lineno);
			free(buf);
			return -1;
		}
		d->w = xrealloc(d->w, (d->n + 1) * sizeof(*d->w));
		d->w[d->n++] = w;
	}
	free(buf);
	return 0;
}

/* ---- byte mutators, after libFuzzer's MutationDispatcher ---- */

struct mut_ctx {
	struct fz_rng *r;
	uint8_t *b;
	size_t len, max;
	const struct fz_bytes *other;
	const struct fz_dict *dict;
};

typedef size_t (*mutator_fn)(struct mut_ctx *m);

static size_t m_erase(struct mut_ctx *m)
{
	size_t n, at;

	if (m->len <= 1)
		return 0;
	n = 1 + fz_below(m->r, m->len / 2);
	at = fz_below(m->r, m->len - n + 1);
	memmove(m->b + at, m->b + at + n, m->len - at - n);
	return m->len - n;
}

static size_t m_insert(struct mut_ctx *m)
{
	size_t at;

	if (m->len >= m->max)
		return 0;
	at = fz_below(m->r, m->len + 1);
	memmove(m->b + at + 1, m->b + at, m->len - at);
	m->b[at] = (uint8_t)fz_rand(m->r);
	return m->len + 1;
}

static size_t m_insert_repeated(struct mut_ctx *m)
{
	size_t n = 3 + fz_below(m->r, 126), at;
	uint8_t v = fz_below(m->r, 2) ? (uint8_t)fz_rand(m->r) : 0;

	if (m->len + n > m->max)
		n = m->max - m->len;
	if (n == 0)
		return 0;
	at = fz_below(m->r, m->len + 1);
	memmove(m->b + at + n, m->b + at, m->len - at);
	memset(m->b + at, v, n);
	return m->len + n;
}

static size_t m_change_byte(struct mut_ctx *m)
{
	if (!m->len)
		return 0;
	m->b[fz_below(m->r, m->len)] = (uint8_t)fz_rand(m->r);
	return m->len;
}

static size_t m_change_bit(struct mut_ctx *m)
{
	if (!m->len)
		return 0;
	m->b[fz_below(m->r, m->len)] ^= (uint8_t)(1u << fz_below(m->r, 8));
	return m->len;
}

static size_t m_shuffle(struct mut_ctx *m)
{
	size_t n, at;

	if (m->len < 2)
		return 0;
	n = 1 + fz_below(m->r, m->len < 8 ? m->len : 8);
	at = fz_below(m->r, m->len - n + 1);
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = fz_below(m->r, i + 1);
		uint8_t t = m->b[at + i];

		m->b[at + i] = m->b[at + j];
		m->b[at + j] = t;
	}
	return m->len;
}

/* AFL's interesting values (config.h INTERESTING_8/16/32), written
 * in either byte order, as libFuzzer's ChangeBinaryInteger adds. */
static size_t m_interesting(struct mut_ctx *m)
{
	static const int64_t vals[] = {
		-128, -1, 0, 1, 16, 32, 64, 100, 127, -32768, -129, 128, 255,
		256, 512, 1000, 1024, 4096, 32767, -2147483648LL, -100663046,
		-32769, 32768, 65535, 65536, 100663045, 2147483647,
	};
	static const unsigned widths[] = { 1, 2, 4, 8 };
	unsigned w = widths[fz_below(m->r, 4)];
	uint64_t v = (uint64_t)vals[fz_below(m->r, sizeof(vals) /
						    sizeof(*vals))];
	bool be = fz_below(m->r, 2);
	size_t at;

	if (m->len < w)
		return 0;
	at = fz_below(m->r, m->len - w + 1);
	for (unsigned i = 0; i < w; i++)
		m->b[at + (be ? w - 1 - i : i)] = (uint8_t)(v >> (8 * i));
	return m->len;
}

static size_t m_copy_part(struct mut_ctx *m)
{
	size_t n, from, to;

	if (m->len < 2)
		return 0;
	n = 1 + fz_below(m->r, m->len - 1);
	from = fz_below(m->r, m->len - n + 1);
	to = fz_below(m->r, m->len - n + 1);
	memmove(m->b + to, m->b + from, n);
	return m->len;
}

/* Insert or overwrite with bytes from elsewhere (a dictionary word or
 * a part of another input). */
static size_t put_bytes(struct mut_ctx *m, const uint8_t *p, size_t n)
{
	size_t at;

	if (!n || n > m->max)
		return 0;
	if (fz_below(m->r, 2) && m->len + n <= m->max) {
		at = fz_below(m->r, m->len + 1);
		memmove(m->b + at + n, m->b + at, m->len - at);
		memcpy(m->b + at, p, n);
		return m->len + n;
	}
	if (m->len < n)
		return 0;
	at = fz_below(m->r, m->len - n + 1);
	memcpy(m->b + at, p, n);
	return m->len;
}

static size_t m_dict(struct mut_ctx *m)
{
	const struct fz_bytes *w;

	if (!m->dict || !m->dict->n)
		return 0;
	w = &m->dict->w[fz_below(m->r, m->dict->n)];
	return put_bytes(m, w->p, w->n);
}

static size_t m_splice(struct mut_ctx *m)
{
	size_t n, from;

	if (!m->other || !m->other->n)
		return 0;
	n = 1 + fz_below(m->r, m->other->n);
	from = fz_below(m->r, m->other->n - n + 1);
	return put_bytes(m, m->other->p + from, n);
}

static const struct {
	mutator_fn fn;
	const char *name;	/* libFuzzer's, for "MS:" */
} mutators[] = {
	{ m_erase, "EraseBytes" },
	{ m_insert, "InsertByte" },
	{ m_insert_repeated, "InsertRepeatedBytes" },
	{ m_change_byte, "ChangeByte" },
	{ m_change_bit, "ChangeBit" },
	{ m_shuffle, "ShuffleBytes" },
	{ m_interesting, "ChangeBinInt" },
	{ m_copy_part, "CopyPart" },
	{ m_splice, "CrossOver" },
	{ m_dict, "ManualDict" },
};

#define NMUTATORS (sizeof(mutators) / sizeof(*mutators))

size_t fz_mutate(struct fz_rng *r, uint8_t *buf, size_t len, size_t max,
		 const struct fz_bytes *other, const struct fz_dict *dict,
		 char *ms, size_t mslen)
{
	struct mut_ctx m = { r, buf, len, max, other, dict };
	unsigned depth = 1 + (unsigned)fz_below(r, 5), done = 0;
	size_t used = 0;

	ms[0] = '\0';
	/* A mutator that cannot apply (nothing to erase, no dictionary)
	 * is retried with another, as libFuzzer's MutateImpl does. */
	for (unsigned tries = 0; done < depth && tries < 100; tries++) {
		size_t k = fz_below(r, NMUTATORS);
		size_t n = mutators[k].fn(&m);

		if (!n)
			continue;
		m.len = n;
		done++;
		if (used < mslen)
			used += (size_t)snprintf(ms + used, mslen - used,
						 "%s-", mutators[k].name);
	}
	return m.len;
}

/* ---- comparison hints (syzkaller prog/hints.go) ---- */

static uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

static uint64_t sext(uint64_t v, unsigned width)
{
	unsigned sh = 64 - 8 * width;

	return width >= 8 ? v : (uint64_t)((int64_t)(v << sh) >> sh);
}

static void hint_add(struct fz_hints *hs, uint64_t op, uint64_t repl,
		     unsigned size)
{
	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i].op == op && hs->h[i].repl == repl &&
		    hs->h[i].size == size)
			return;
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? 2 * hs->cap : 64;
		hs->h = xrealloc(hs->h, hs->cap * sizeof(*hs->h));
	}
	hs->h[hs->n++] = (struct fz_hint){ op, repl, size };
}

/* Only comparisons with a compile-time constant (KCOV_CMP_CONST) give
 * hints, in both directions since the record does not say which of
 * the two the constant is; equal operands give nothing to learn.  At
 * most 4096 hints a run: the job's cost (quadratic in them) stays
 * bounded whatever the harness compares. */
void fz_hints_from_cmp(struct fz_hints *out, const uint64_t *recs,
		       uint64_t n)
{
	for (uint64_t i = 0; i < n && out->n < 4096; i++) {
		uint64_t type = recs[4 * i], a = recs[4 * i + 1],
			 b = recs[4 * i + 2];
		unsigned size = 1u << ((type & KCOV_CMP_MASK) >> 1);

		if (!(type & KCOV_CMP_CONST) || type > KCOV_CMP_MASK + 1)
			continue;
		a &= size_mask(size);
		b &= size_mask(size);
		if (a == b)
			continue;
		hint_add(out, b, a, size);
		hint_add(out, a, b, size);
	}
}

void fz_hints_intersect(struct fz_hints *h, const struct fz_hints *other)
{
	size_t k = 0;

	for (size_t i = 0; i < h->n; i++) {
		bool in = false;

		for (size_t j = 0; j < other->n && !in; j++)
			in = other->h[j].op == h->h[i].op &&
			     other->h[j].repl == h->h[i].repl &&
			     other->h[j].size == h->h[i].size;
		if (in)
			h->h[k++] = h->h[i];
	}
	h->n = k;
}

void fz_hints_free(struct fz_hints *h)
{
	free(h->h);
	memset(h, 0, sizeof(*h));
}

static uint64_t load_bytes(const uint8_t *p, unsigned w, bool be)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < w; i++)
		v |= (uint64_t)p[be ? w - 1 - i : i] << (8 * i);
	return v;
}

static void store_bytes(uint8_t *p, unsigned w, bool be, uint64_t v)
{
	for (unsigned i = 0; i < w; i++)
		p[be ? w - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* prog/hints.go shrinkExpand: w input bytes, read as x, match an
 * operand compared at `size` bytes if x zero- or sign-extended to that
 * size is the operand; the replacement must fit in w bytes the same
 * way, or the comparison could not have seen it there. */
static bool hint_fits(const struct fz_hint *h, uint64_t x, unsigned w)
{
	uint64_t m = size_mask(h->size);

	if (w > h->size)
		return false;
	if (x != h->op && (sext(x, w) & m) != h->op)
		return false;
	return (h->repl & ~size_mask(w)) == 0 ||
	       (sext(h->repl & size_mask(w), w) & m) == h->repl;
}

/* The mutants made so far, by what they change: a mutant differs from
 * the input only in the bytes a hint wrote, so (first and last byte
 * that changed, their new value) names it; comparing whole inputs
 * would cost the input's length per candidate. */
struct mutant_set {
	uint64_t *key;
	size_t cap;
};

static bool mutant_seen(struct mutant_set *ms, uint64_t k)
{
	size_t i = (size_t)(k * 0x9e3779b97f4a7c15ULL >> 40) & (ms->cap - 1);

	for (; ms->key[i]; i = (i + 1) & (ms->cap - 1))
		if (ms->key[i] == k)
			return true;
	ms->key[i] = k;
	return false;
}

/* The key of writing w bytes at pos; 0 if nothing would change. */
static uint64_t mutant_key(const uint8_t *in, const uint8_t *now, size_t pos,
			   unsigned w)
{
	unsigned lo = 0, hi = w;
	uint64_t v = 0;

	while (lo < w && in[pos + lo] == now[pos + lo])
		lo++;
	if (lo == w)
		return 0;
	while (in[pos + hi - 1] == now[pos + hi - 1])
		hi--;
	for (unsigned i = lo; i < hi; i++)
		v = v << 8 | now[pos + i];
	/* The bytes (at most 8), their place and count, mixed. */
	v ^= ((uint64_t)(pos + lo) << 4 | (hi - lo)) * 0xff51afd7ed558ccdULL;
	return v ? v : 1;
}

static void add_mutant(struct fz_bytes **out, size_t *nout, const uint8_t *p,
		       size_t len)
{
	*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
	(*out)[*nout].p = xmalloc(len);
	memcpy((*out)[*nout].p, p, len);
	(*out)[(*nout)++].n = len;
}

/* Mutants are copies of the input: at most this many bytes of them. */
#define MUTANT_BYTES ((size_t)64 << 20)

void fz_hints_mutants(const struct fz_hints *h, const uint8_t *in, size_t len,
		      struct fz_bytes **out, size_t *nout, size_t max_mutants)
{
	static const unsigned widths[] = { 1, 2, 4, 8 };
	struct mutant_set seen;
	uint8_t *tmp = xmalloc(len ? len : 1);

	if (len && max_mutants > MUTANT_BYTES / len)
		max_mutants = MUTANT_BYTES / len;
	seen.cap = 2;
	while (seen.cap < 2 * max_mutants)
		seen.cap *= 2;
	seen.key = xcalloc(seen.cap, sizeof(*seen.key));
	memcpy(tmp, in, len);
	for (size_t pos = 0; pos < len && *nout < max_mutants; pos++)
		for (unsigned wi = 0; wi < 4; wi++)
			for (int be = 0; be < (widths[wi] > 1 ? 2 : 1); be++) {
				unsigned w = widths[wi];
				uint64_t x;

				if (pos + w > len)
					continue;
				x = load_bytes(in + pos, w, be);
				for (size_t k = 0; k < h->n; k++) {
					uint64_t key;

					if (*nout >= max_mutants ||
					    !hint_fits(&h->h[k], x, w))
						continue;
					store_bytes(tmp + pos, w, be,
						    h->h[k].repl);
					key = mutant_key(in, tmp, pos, w);
					if (key && !mutant_seen(&seen, key))
						add_mutant(out, nout, tmp, len);
					memcpy(tmp + pos, in + pos, w);
				}
			}
	free(seen.key);
	free(tmp);
}

/* ---- routine operands (libFuzzer FuzzerTracePC.cpp's TORC and
 * MemMemTable, syzkaller's hints for data compared by the kernel's
 * memcmp) ---- */

/* At most this many distinct hints a run, and mutants a job: the cost
 * of a job stays bounded whatever the harness compares. */
#define RTN_HINTS 256
#define RTN_MUTANTS 256

static bool rtn_same(const struct fz_rtn_hint *x, const struct fz_rtn_hint *y)
{
	return x->lop == y->lop && x->lrepl == y->lrepl &&
	       x->flags == y->flags && !memcmp(x->op, y->op, x->lop) &&
	       !memcmp(x->repl, y->repl, x->lrepl);
}

static void rtn_add(struct fz_rtn_hints *hs, const uint8_t *op, unsigned lop,
		    const uint8_t *repl, unsigned lrepl, unsigned flags)
{
	struct fz_rtn_hint h;

	memset(&h, 0, sizeof(h));
	memcpy(h.op, op, lop);
	memcpy(h.repl, repl, lrepl);
	h.lop = (uint8_t)lop;
	h.lrepl = (uint8_t)lrepl;
	h.flags = (uint8_t)flags;
	for (size_t i = 0; i < hs->n; i++)
		if (rtn_same(&hs->h[i], &h))
			return;
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? 2 * hs->cap : 16;
		hs->h = xrealloc(hs->h, hs->cap * sizeof(*hs->h));
	}
	hs->h[hs->n++] = h;
}

/* The record's bytes are the harness's to write: a length past the
 * operand's room drops the record, unknown flags are cleared.  Equal
 * operands give nothing to learn.  The reversed hint swaps the END
 * flags with the operands. */
void fz_rtn_from(struct fz_rtn_hints *out, const struct ukfz_rtn *recs,
		 uint64_t n)
{
	for (uint64_t i = 0; i < n && out->n < RTN_HINTS; i++) {
		struct ukfz_rtn r = recs[i];	/* one read of shared bytes */
		unsigned f = r.flags & (UKFZ_RTN_STR | UKFZ_RTN_CASE);
		unsigned ends = r.flags & (UKFZ_RTN_A_END | UKFZ_RTN_B_END);
		/* A_END is 4, B_END 8: the reversed hint's are swapped. */
		unsigned swapped = ((ends << 1) | (ends >> 1)) &
				   (UKFZ_RTN_A_END | UKFZ_RTN_B_END);

		if (r.len_a > UKFZ_RTN_BYTES || r.len_b > UKFZ_RTN_BYTES)
			continue;
		if (r.len_a == r.len_b && !memcmp(r.a, r.b, r.len_a) &&
		    !(r.flags & UKFZ_RTN_A_END) == !(r.flags & UKFZ_RTN_B_END))
			continue;
		rtn_add(out, r.a, r.len_a, r.b, r.len_b, f | ends);
		rtn_add(out, r.b, r.len_b, r.a, r.len_a, f | swapped);
	}
}

void fz_rtn_intersect(struct fz_rtn_hints *h, const struct fz_rtn_hints *o)
{
	size_t k = 0;

	for (size_t i = 0; i < h->n; i++) {
		bool in = false;

		for (size_t j = 0; j < o->n && !in; j++)
			in = rtn_same(&h->h[i], &o->h[j]);
		if (in)
			h->h[k++] = h->h[i];
	}
	h->n = k;
}

void fz_rtn_free(struct fz_rtn_hints *h)
{
	free(h->h);
	memset(h, 0, sizeof(*h));
}

static uint8_t ascii_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c - 'A' + 'a') : c;
}

/* How many bytes at in[0..n) match op's start (ignoring case if the
 * routine did). */
static size_t rtn_match(const struct fz_rtn_hint *h, const uint8_t *in,
			size_t n)
{
	bool icase = h->flags & UKFZ_RTN_CASE;
	size_t m = 0;

	while (m < h->lop && m < n &&
	       (in[m] == h->op[m] ||
		(icase && ascii_lower(in[m]) == ascii_lower(h->op[m]))))
		m++;
	return m;
}

/* The bytes of in at p that the hint replaces, or -1 if op is not
 * there: all of op, or its start where the input ends inside it.  An
 * empty string is where the input's string ends (its end or a NUL). */
static long rtn_replaces(const struct fz_rtn_hint *h, const uint8_t *in,
			 size_t len, size_t p)
{
	size_t m;

	if (!h->lop) {
		bool at_end = p == len || in[p] == 0;

		return (h->flags & UKFZ_RTN_A_END) && at_end ? 0 : -1;
	}
	if (p == len)
		return -1;
	m = rtn_match(h, in + p, len - p);
	return m == h->lop || (m && p + m == len) ? (long)m : -1;
}

static bool mutant_dup(struct fz_bytes *out, size_t from, size_t to,
		       const uint8_t *p, size_t n)
{
	for (size_t i = from; i < to; i++)
		if (out[i].n == n && !memcmp(out[i].p, p, n))
			return true;
	return false;
}

/* in[0..p) repl [NUL] in[p+cut..len): a string repl ends with its NUL
 * where nothing after it would end it, so that a string compare sees
 * it end there too. */
static size_t rtn_splice(const struct fz_rtn_hint *h, const uint8_t *in,
			 size_t len, size_t p, size_t cut, bool nul,
			 uint8_t *tmp, size_t max_len)
{
	size_t n = p, rest = len - p - cut;

	if (p + h->lrepl + nul > max_len)
		return 0;
	memcpy(tmp, in, p);
	memcpy(tmp + n, h->repl, h->lrepl);
	n += h->lrepl;
	if (nul)
		tmp[n++] = 0;
	if (rest > max_len - n)
		rest = max_len - n;
	memcpy(tmp + n, in + p + cut, rest);
	return n + rest;
}

/* How many bytes a string's replacement covers when it overwrites
 * rather than replaces the operand: its own bytes and NUL, as far as
 * the input goes. */
static size_t rtn_over(const struct fz_rtn_hint *h, size_t len, size_t p,
		       size_t cut)
{
	size_t w = h->lrepl + ((h->flags & UKFZ_RTN_B_END) ? 1 : 0);

	if (w < cut)
		w = cut;
	return w < len - p ? w : len - p;
}

static void rtn_variant(const struct fz_rtn_hint *h, const uint8_t *in,
			size_t len, size_t p, size_t cut, bool nul,
			uint8_t *tmp, size_t max_len, struct fz_bytes **out,
			size_t *nout, size_t first)
{
	size_t n = rtn_splice(h, in, len, p, cut, nul, tmp, max_len);

	if (n && (n != len || memcmp(tmp, in, n) != 0) &&
	    !mutant_dup(*out, first, *nout, tmp, n))
		add_mutant(out, nout, tmp, n);
}

void fz_rtn_mutants(const struct fz_rtn_hints *h, const uint8_t *in, size_t len,
		    size_t max_len, struct fz_bytes **out, size_t *nout,
		    size_t max_mutants)
{
	size_t first = *nout, limit = first + RTN_MUTANTS;
	uint8_t *tmp = xmalloc(max_len ? max_len : 1);

	if (limit > max_mutants)
		limit = max_mutants;
	for (size_t k = 0; k < h->n; k++)
		for (size_t p = 0; p <= len && *nout < limit; p++) {
			const struct fz_rtn_hint *x = &h->h[k];
			long cut = rtn_replaces(x, in, len, p);
			bool str = x->flags & UKFZ_RTN_STR,
			     end = x->flags & UKFZ_RTN_B_END;

			if (cut < 0)
				continue;

			rtn_variant(x, in, len, p, (size_t)cut,
				    str && end && !(x->flags & UKFZ_RTN_A_END),
				    tmp, max_len, out, nout, first);
			/* A string of another length: also written over
			 * the bytes after it, for a harness that bounds
			 * the input's length. */
			if (str && *nout < limit)
				rtn_variant(x, in, len, p,
					    rtn_over(x, len, p, (size_t)cut),
					    end, tmp, max_len, out, nout,
					    first);
		}
	free(tmp);
}
