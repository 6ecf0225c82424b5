/*
 * lib/sancov_opts.c -- UKCOV_OPTIONS, in the syntax of the sanitizers'
 * *SAN_OPTIONS (compiler-rt sanitizer_flag_parser.cpp): name=value
 * pairs separated by spaces, tabs, newlines, commas or colons; a value
 * may be quoted with ' or " to hold separators.  Booleans are 0/1,
 * false/true or no/yes.
 *
 * Unlike the sanitizers, which warn per flag and keep the rest, a
 * malformed string (unknown name, missing '=', bad value, unterminated
 * quote) gets one warning naming the offending part, and all the
 * defaults: a half-applied configuration would write files the user
 * did not ask for, or not write the ones asked for, without saying
 * which.  Runs once, at the runtime's setup (possibly in a module
 * constructor before main): no stdio, no malloc.
 */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "sancov.h"

static int is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ',' || c == ':';
}

static int parse_bool(const char *v, size_t n, int *out)
{
	static const struct { const char *s; int v; } words[] = {
		{ "0", 0 }, { "1", 1 }, { "false", 0 }, { "true", 1 },
		{ "no", 0 }, { "yes", 1 },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].s) == n && memcmp(words[i].s, v, n) == 0) {
			*out = words[i].v;
			return 0;
		}
	return -1;
}

static int parse_uint(const char *v, size_t n, unsigned long *out)
{
	unsigned long x = 0;

	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (unsigned long)(v[i] - '0');
	}
	*out = x;
	return 0;
}

/* The boolean options, by name. */
static int *bool_option(struct ukcov_sancov_opts *o, const char *name,
			size_t n)
{
	static const struct { const char *name; size_t off; } flags[] = {
		{ "coverage", offsetof(struct ukcov_sancov_opts, coverage) },
		{ "coverage_bitset", offsetof(struct ukcov_sancov_opts, bitset) },
		{ "coverage_counters", offsetof(struct ukcov_sancov_opts, counters) },
		{ "coverage_direct", offsetof(struct ukcov_sancov_opts, direct) },
		{ "coverage_caller_callee",
		  offsetof(struct ukcov_sancov_opts, caller_callee) },
		{ "coverage_trace_bb", offsetof(struct ukcov_sancov_opts, trace_bb) },
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strlen(flags[i].name) == n && memcmp(flags[i].name, name, n) == 0)
			return (int *)(void *)((char *)o + flags[i].off);
	return NULL;
}

static int name_is(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(want, name, n) == 0;
}

/* One name=value pair; 0, or -1 if it is not one we understand. */
static int apply(struct ukcov_sancov_opts *o, const char *name, size_t nn,
		 const char *val, size_t vn)
{
	int *b = bool_option(o, name, nn);
	unsigned long u;

	if (b)
		return parse_bool(val, vn, b);
	if (name_is(name, nn, "coverage_dir")) {
		if (vn == 0 || vn >= sizeof(o->dir))
			return -1;
		memcpy(o->dir, val, vn);
		o->dir[vn] = '\0';
		return 0;
	}
	if (name_is(name, nn, "coverage_trace_max_events"))
		return parse_uint(val, vn, &o->trace_max_events);
	if (name_is(name, nn, "verbosity")) {
		if (parse_uint(val, vn, &u) != 0)
			return -1;
		o->verbosity = (int)u;
		return 0;
	}
	return -1;
}

static void opts_default(struct ukcov_sancov_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dir[0] = '.';
	o->trace_max_events = 1UL << 24;
}

static void warn_malformed(const char *s, size_t n)
{
	static const char a[] = "ukcov: UKCOV_OPTIONS: cannot use '";
	static const char b[] = "'; using the defaults\n";

	if (n > 200)
		n = 200;
	ukcov__sancov_msg(a, s, n, b);
}

/* Parse s into *o; on any error, warn once and leave the defaults. */
void ukcov__sancov_opts_parse(struct ukcov_sancov_opts *o, const char *s)
{
	struct ukcov_sancov_opts tmp;
	const char *p = s;

	opts_default(o);
	if (!s)
		return;
	opts_default(&tmp);
	for (;;) {
		const char *tok, *name, *val, *eq;
		size_t nn, vn;

		while (*p && is_sep(*p))
			p++;
		if (!*p)
			break;
		tok = name = p;
		while (*p && *p != '=' && !is_sep(*p))
			p++;
		eq = p;
		if (*eq != '=') {
			warn_malformed(tok, (size_t)(p - tok));
			return;
		}
		nn = (size_t)(eq - name);
		p++;
		if (*p == '\'' || *p == '"') {
			char q = *p++;

			val = p;
			while (*p && *p != q)
				p++;
			if (*p != q) {
				warn_malformed(tok, strlen(tok));
				return;
			}
			vn = (size_t)(p - val);
			p++;
		} else {
			val = p;
			while (*p && !is_sep(*p))
				p++;
			vn = (size_t)(p - val);
		}
		if (apply(&tmp, name, nn, val, vn) != 0) {
			warn_malformed(tok, (size_t)(p - tok));
			return;
		}
	}
	*o = tmp;
}
