/*
 * tools/ignorelist.h -- sancov's ignorelists (LLVM SpecialCaseList as of
 * LLVM 14): "[section]" headers, "fun:PATTERN" and "src:PATTERN" lines,
 * "#" comments.  A pattern is a literal or a POSIX ERE in which "*" stands
 * for ".*", matched against the whole string.  Only entries of sections
 * matching "sancov" (and of the implicit "*" section) with no "=category"
 * apply.
 */
#ifndef UKCOV_TOOLS_IGNORELIST_H
#define UKCOV_TOOLS_IGNORELIST_H

#include "util.h"
#include "strtab.h"

struct ignorelist;

/* sancov's default list: fun:__sanitizer_.*, src:/usr/include/.*,
 * src:.*\/libc\+\+/.* */
struct ignorelist *ignorelist_default(void);
/* Load a file; prints "FILE: problem" and returns NULL on failure. */
struct ignorelist *ignorelist_load(const char *path);
/* kind is "fun" or "src".  Results are cached per (interned) string. */
bool ignorelist_match(struct ignorelist *il, const char *kind,
		      const char *s);
void ignorelist_free(struct ignorelist *il);

#endif
