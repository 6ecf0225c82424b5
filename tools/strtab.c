/*
 * tools/strtab.c -- string interning with an FNV-1a hashed open table.
 */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CHUNK ((size_t)64 * 1024)

static uint64_t fnv1a(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static char *arena_copy(struct strtab *t, const char *s, size_t len)
{
	char *p;

	if (len + 1 > t->arena_left) {
		size_t sz = len + 1 > CHUNK ? len + 1 : CHUNK;

		t->chunks = xrealloc(t->chunks,
				     (t->nchunks + 1) * sizeof(*t->chunks));
		t->arena = t->chunks[t->nchunks++] = xmalloc(sz);
		t->arena_left = sz;
	}
	p = t->arena;
	memcpy(p, s, len);
	p[len] = '\0';
	t->arena += len + 1;
	t->arena_left -= len + 1;
	return p;
}

static void grow(struct strtab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024;
	const char **ns = xcalloc(ncap, sizeof(*ns));

	for (size_t i = 0; i < t->cap; i++) {
		const char *s = t->slots[i];
		size_t j;

		if (!s)
			continue;
		j = fnv1a(s, strlen(s)) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = s;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
}

const char *strtab_intern(struct strtab *t, const char *s, size_t len)
{
	size_t j;

	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	j = fnv1a(s, len) & (t->cap - 1);
	for (; t->slots[j]; j = (j + 1) & (t->cap - 1)) {
		const char *c = t->slots[j];

		if (strncmp(c, s, len) == 0 && c[len] == '\0')
			return c;
	}
	t->n++;
	return t->slots[j] = arena_copy(t, s, len);
}

const char *strtab_add(struct strtab *t, const char *s)
{
	return strtab_intern(t, s, strlen(s));
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static size_t ptr_slot(const struct ptrmap *m, const void *key)
{
	return (size_t)(((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ull) &
	       (m->cap - 1);
}

bool ptrmap_get(const struct ptrmap *m, const void *key, const void **val)
{
	if (!m->cap)
		return false;
	for (size_t j = ptr_slot(m, key); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			*val = m->vals[j];
			return true;
		}
	return false;
}

void ptrmap_put(struct ptrmap *m, const void *key, const void *val)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {
		struct ptrmap old = *m;

		m->cap = old.cap ? old.cap * 2 : 256;
		m->keys = xcalloc(m->cap, sizeof(*m->keys));
		m->vals = xcalloc(m->cap, sizeof(*m->vals));
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				ptrmap_put(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	for (j = ptr_slot(m, key); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			m->vals[j] = val;
			return;
		}
	m->keys[j] = key;
	m->vals[j] = val;
	m->n++;
}

void ptrmap_free(struct ptrmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
