/*
 * tools/strtab.h -- string interning: equal strings get one stable
 * pointer, so symbolized locations compare by pointer and cost one copy.
 */
#ifndef UKCOV_TOOLS_STRTAB_H
#define UKCOV_TOOLS_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strtab {
	const char **slots;	/* open addressing, NULL = empty */
	size_t cap, n;
	char *arena;		/* current chunk for the copies */
	size_t arena_left;
	void **chunks;		/* every chunk, for strtab_free */
	size_t nchunks;
};

const char *strtab_intern(struct strtab *t, const char *s, size_t len);
const char *strtab_add(struct strtab *t, const char *s);
void strtab_free(struct strtab *t);

/* A map keyed by pointer identity (interned strings, DWARF strings):
 * caches of per-string results. */
struct ptrmap {
	const void **keys;
	const void **vals;
	size_t cap, n;
};

/* Returns true and sets *val if key is present. */
bool ptrmap_get(const struct ptrmap *m, const void *key, const void **val);
void ptrmap_put(struct ptrmap *m, const void *key, const void *val);
void ptrmap_free(struct ptrmap *m);

#endif
