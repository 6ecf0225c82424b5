/*
 * tools/json.c -- strict JSON parser and llvm-compatible string quoting.
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NEST 64

struct parser {
	const char *p, *end;
	struct strtab *strs;
	struct strbuf tmp;
	size_t line;
	char *err;
};

static int fail(struct parser *ps, const char *what)
{
	if (!ps->err[0])
		snprintf(ps->err, ERRLEN, "invalid JSON at line %zu: %s",
			 ps->line, what);
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '\n')
			ps->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
		ps->p++;
	}
}

static void put_utf8(struct strbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6), n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12), n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18), n = 4;
	}
	for (size_t i = 1; i < n; i++)
		b[i] = (char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
	sb_add(sb, b, n);
}

static int hex4(struct parser *ps, uint32_t *v)
{
	*v = 0;
	if (ps->end - ps->p < 4)
		return fail(ps, "bad \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*v |= (uint32_t)((c | 0x20) - 'a' + 10);
		else
			return fail(ps, "bad \\u escape");
	}
	return 0;
}

static int parse_escape(struct parser *ps)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	uint32_t cp, lo;

	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	k = strchr(from, *ps->p);
	if (k && *ps->p) {
		sb_add(&ps->tmp, &to[k - from], 1);
		ps->p++;
		return 0;
	}
	if (*ps->p++ != 'u' || hex4(ps, &cp) < 0)
		return fail(ps, "bad escape");
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return fail(ps, "lone surrogate");
		ps->p += 2;
		if (hex4(ps, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
			return fail(ps, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return fail(ps, "lone surrogate");
	}
	if (cp == 0)
		return fail(ps, "NUL character in string");
	put_utf8(&ps->tmp, cp);
	return 0;
}

/* Length of the valid UTF-8 sequence at s (max n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static int parse_string(struct parser *ps, const char **out)
{
	ps->tmp.n = 0;
	sb_add(&ps->tmp, "", 0);
	ps->p++;	/* opening quote */
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		size_t l;

		if (c == '\\') {
			ps->p++;
			if (parse_escape(ps) < 0)
				return -1;
			continue;
		}
		if (c < 0x20)
			return fail(ps, "control character in string");
		l = utf8_len((const unsigned char *)ps->p,
			     (size_t)(ps->end - ps->p));
		if (!l)
			return fail(ps, "invalid UTF-8 in string");
		sb_add(&ps->tmp, ps->p, l);
		ps->p += l;
	}
	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	ps->p++;
	*out = strtab_intern(ps->strs, ps->tmp.s, ps->tmp.n);
	return 0;
}

static int parse_value(struct parser *ps, struct json *v, int depth);

static int parse_items(struct parser *ps, struct json *v, int depth,
		       bool obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;

	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 4;
			v->items = xrealloc(v->items, cap * sizeof(*v->items));
			if (obj)
				v->keys = xrealloc(v->keys,
						   cap * sizeof(*v->keys));
		}
		skip_ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a string key");
			if (parse_string(ps, &v->keys[v->n]) < 0)
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p++ != ':')
				return fail(ps, "expected ':'");
		}
		memset(&v->items[v->n], 0, sizeof(*v->items));
		if (parse_value(ps, &v->items[v->n++], depth + 1) < 0)
			return -1;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		return fail(ps, obj ? "expected ',' or '}'"
				    : "expected ',' or ']'");
	}
}

static int parse_number(struct parser *ps, struct json *v)
{
	const char *s = ps->p;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		return fail(ps, "unexpected character");
	while (ps->p < ps->end &&
	       ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.' ||
		*ps->p == 'e' || *ps->p == 'E' || *ps->p == '+' ||
		*ps->p == '-'))
		ps->p++;
	v->type = J_NUM;
	v->str = strtab_intern(ps->strs, s, (size_t)(ps->p - s));
	return 0;
}

static int parse_word(struct parser *ps, struct json *v, const char *w,
		      enum json_type t)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
		return fail(ps, "unexpected character");
	ps->p += n;
	v->type = t;
	v->str = strtab_add(ps->strs, w);
	return 0;
}

static int parse_value(struct parser *ps, struct json *v, int depth)
{
	if (depth > MAX_NEST)
		return fail(ps, "nested too deeply");
	skip_ws(ps);
	v->line = ps->line;
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of input");
	switch (*ps->p) {
	case '{':
		v->type = J_OBJ;
		return parse_items(ps, v, depth, true);
	case '[':
		v->type = J_ARR;
		return parse_items(ps, v, depth, false);
	case '"':
		v->type = J_STR;
		return parse_string(ps, &v->str);
	case 't':
		return parse_word(ps, v, "true", J_BOOL);
	case 'f':
		return parse_word(ps, v, "false", J_BOOL);
	case 'n':
		return parse_word(ps, v, "null", J_NULL);
	default:
		return parse_number(ps, v);
	}
}

static void free_items(struct json *j)
{
	for (size_t i = 0; i < j->n; i++)
		free_items(&j->items[i]);
	free(j->items);
	free(j->keys);
}

void json_free(struct json *j)
{
	if (!j)
		return;
	free_items(j);
	free(j);
}

struct json *json_parse(const char *buf, size_t len, struct strtab *strs,
			char err[ERRLEN])
{
	struct parser ps = { buf, buf + len, strs, { 0 }, 1, err };
	struct json *root = xcalloc(1, sizeof(*root));

	err[0] = '\0';
	if (parse_value(&ps, root, 0) == 0) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			fail(&ps, "trailing data after the top-level value");
	}
	sb_free(&ps.tmp);
	if (err[0]) {
		json_free(root);
		return NULL;
	}
	return root;
}

/* Length of the run at p that needs no escaping (printable ASCII). */
static size_t plain_run(const unsigned char *p)
{
	size_t n = 0;

	while (p[n] >= 0x20 && p[n] < 0x80 && p[n] != '"' && p[n] != '\\')
		n++;
	return n;
}

void json_quote(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	sb_add(sb, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t l = plain_run(p + i);

		if (l) {	/* the common case, in one copy */
			sb_add(sb, (const char *)p + i, l);
			i += l;
			continue;
		}
		l = utf8_len(p + i, n - i);
		if (l == 0) {
			sb_add(sb, "\xef\xbf\xbd", 3);
			i++;
		} else if (l > 1) {
			sb_add(sb, (const char *)p + i, l);
			i += l;
		} else if (c == '"' || c == '\\') {
			sb_add(sb, "\\", 1);
			sb_add(sb, (const char *)&c, 1);
			i++;
		} else {
			if (c == '\t' || c == '\n' || c == '\r')
				sb_puts(sb, c == '\t' ? "\\t" :
					    c == '\n' ? "\\n" : "\\r");
			else
				sb_printf(sb, "\\u%04x", c);
			i++;
		}
	}
	sb_add(sb, "\"", 1);
}
