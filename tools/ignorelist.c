/*
 * tools/ignorelist.c -- SpecialCaseList-compatible ignorelists.
 */
#include "ignorelist.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct il_entry {
	bool fun;		/* fun: (else src:) */
	char *literal;		/* exact string, or NULL when re is used */
	regex_t re;
};

struct ignorelist {
	struct il_entry *e;
	size_t n;
	struct ptrmap cache[2];	/* [fun] string -> (void *)1 or 2 */
};

static const char default_list[] = "fun:__sanitizer_.*\n"
				   "src:/usr/include/.*\n"
				   "src:.*/libc\\+\\+/.*\n";

/* llvm Regex::isLiteralERE */
static bool is_literal(const char *s)
{
	return strpbrk(s, "()^$|*+?.[]\\{}") == NULL;
}

/* "*" -> ".*", anchored: SpecialCaseList::Matcher::insert (LLVM 14). */
static int compile(regex_t *re, const char *pat)
{
	struct strbuf sb = { 0 };
	int r;

	sb_puts(&sb, "^(");
	for (const char *p = pat; *p; p++)
		sb_puts(&sb, *p == '*' ? ".*" : (char[]){ *p, 0 });
	sb_puts(&sb, ")$");
	r = regcomp(re, sb.s, REG_EXTENDED | REG_NOSUB);
	sb_free(&sb);
	return r;
}

static bool section_matches(const char *sec)
{
	regex_t re;
	bool m;

	if (is_literal(sec))
		return strcmp(sec, "sancov") == 0;
	if (compile(&re, sec) != 0)
		return false;
	m = regexec(&re, "sancov", 0, NULL, 0) == 0;
	regfree(&re);
	return m;
}

static int add_entry(struct ignorelist *il, char *line, size_t lineno,
		     char err[ERRLEN])
{
	char *colon = strchr(line, ':'), *eq;
	struct il_entry e = { 0 };

	if (!colon || colon[1] == '\0') {
		snprintf(err, ERRLEN, "malformed line %zu: '%s'", lineno, line);
		return -1;
	}
	*colon = '\0';
	eq = strchr(colon + 1, '=');
	if (eq) {
		*eq = '\0';
		if (eq[1] != '\0')	/* categorised entries never match */
			return 0;
	}
	if (strcmp(line, "fun") != 0 && strcmp(line, "src") != 0)
		return 0;	/* other prefixes (global:, type:) */
	e.fun = line[0] == 'f';
	if (is_literal(colon + 1)) {
		e.literal = xstrdup(colon + 1);
	} else if (compile(&e.re, colon + 1) != 0) {
		snprintf(err, ERRLEN, "line %zu: malformed regex '%s'", lineno,
			 colon + 1);
		return -1;
	}
	il->e = xrealloc(il->e, (il->n + 1) * sizeof(*il->e));
	il->e[il->n++] = e;
	return 0;
}

/* Parse text; NULL with err "line N: ..." on a malformed line. */
static struct ignorelist *ignorelist_parse(const char *text, char err[ERRLEN])
{
	struct ignorelist *il = xcalloc(1, sizeof(*il));
	char *copy = xstrdup(text);
	bool in_sancov = true;	/* the implicit "*" section */
	size_t lineno = 0;

	for (char *line = copy, *nl; line; line = nl ? nl + 1 : NULL) {
		size_t len;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		len = strlen(line);
		while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (line[0] == '[') {
			if (line[len - 1] != ']') {
				snprintf(err, ERRLEN, "malformed section header"
					 " on line %zu: %s", lineno, line);
				goto fail;
			}
			line[len - 1] = '\0';
			in_sancov = section_matches(line + 1);
			continue;
		}
		if (in_sancov && add_entry(il, line, lineno, err) < 0)
			goto fail;
	}
	free(copy);
	return il;
fail:
	free(copy);
	ignorelist_free(il);
	return NULL;
}

struct ignorelist *ignorelist_default(void)
{
	char err[ERRLEN];

	return ignorelist_parse(default_list, err);
}

struct ignorelist *ignorelist_load(const char *path)
{
	char *buf, err[ERRLEN];
	size_t len;
	int r = read_whole_file(path, &buf, &len);
	struct ignorelist *il;

	if (r < 0) {
		msg_error("%s: %s", path, strerror(-r));
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		msg_error("%s: not an ignorelist (binary data)", path);
		free(buf);
		return NULL;
	}
	il = ignorelist_parse(buf, err);
	free(buf);
	if (!il)
		msg_error("%s: %s", path, err);
	return il;
}

bool ignorelist_match(struct ignorelist *il, const char *kind, const char *s)
{
	bool fun = kind[0] == 'f', hit = false;
	const void *v;

	if (!il || il->n == 0)
		return false;
	if (ptrmap_get(&il->cache[fun], s, &v))
		return v == (void *)2;
	for (size_t i = 0; i < il->n && !hit; i++) {
		struct il_entry *e = &il->e[i];

		if (e->fun != fun)
			continue;
		hit = e->literal ? strcmp(e->literal, s) == 0
				 : regexec(&e->re, s, 0, NULL, 0) == 0;
	}
	ptrmap_put(&il->cache[fun], s, (void *)(uintptr_t)(hit ? 2 : 1));
	return hit;
}

void ignorelist_free(struct ignorelist *il)
{
	if (!il)
		return;
	for (size_t i = 0; i < il->n; i++) {
		if (il->e[i].literal)
			free(il->e[i].literal);
		else
			regfree(&il->e[i].re);
	}
	free(il->e);
	ptrmap_free(&il->cache[0]);
	ptrmap_free(&il->cache[1]);
	free(il);
}
