/*
 * demo/parse.c -- the instrumented code of the demo: a small parser of
 * "key=value; key=value" settings.  Built with -fsanitize-coverage.
 */
#include <string.h>

#include "parse.h"

static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || c == '_';
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

/* Parse one "key=value" into set; returns the end, or NULL on error. */
static const char *parse_pair(const char *s, struct settings *set)
{
	const char *key = s;
	size_t klen;
	long value = 0;

	while (is_key_char(*s))
		s++;
	klen = (size_t)(s - key);
	if (klen == 0 || *s != '=')
		return NULL;
	for (s++; *s >= '0' && *s <= '9'; s++)
		value = value * 10 + (*s - '0');
	if (klen == 5 && memcmp(key, "level", 5) == 0)
		set->level = (int)value;
	else if (klen == 7 && memcmp(key, "retries", 7) == 0)
		set->retries = (int)value;
	else
		set->unknown++;
	return s;
}

int parse_settings(const char *s, struct settings *set)
{
	memset(set, 0, sizeof(*set));
	for (s = skip_spaces(s); *s; s = skip_spaces(s)) {
		s = parse_pair(s, set);
		if (!s)
			return -1;
		if (*s == ';')
			s++;
	}
	return 0;
}
