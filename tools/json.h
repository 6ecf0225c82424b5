/*
 * tools/json.h -- a small strict JSON (RFC 8259) parser into a tree, for
 * reading .symcov files, and the string quoting llvm::json uses.
 * Limits against hostile input: nesting depth 64; strings must be valid
 * UTF-8 without NUL (\u0000 is refused).
 */
#ifndef UKCOV_TOOLS_JSON_H
#define UKCOV_TOOLS_JSON_H

#include "util.h"
#include "strtab.h"

enum json_type { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	enum json_type type;
	const char *str;	/* J_STR value / J_NUM text / J_BOOL text */
	size_t n;		/* J_ARR, J_OBJ: number of items */
	struct json *items;	/* J_ARR, J_OBJ values */
	const char **keys;	/* J_OBJ keys (interned) */
	size_t line;		/* where the value starts, for messages */
};

/* Parse buf; strings are interned in strs.  NULL with err on failure. */
struct json *json_parse(const char *buf, size_t len, struct strtab *strs,
			char err[ERRLEN]);
void json_free(struct json *j);

/* Append s quoted as llvm::json::OStream does (invalid UTF-8 bytes become
 * U+FFFD, like llvm::json::fixUTF8). */
void json_quote(struct strbuf *sb, const char *s);

#endif
