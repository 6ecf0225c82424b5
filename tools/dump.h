/*
 * tools/dump.h -- the ukcov dump (docs/FORMATS.md §3): a self-contained
 * text file with a module table (path, build-id, load bias, text range)
 * and module-relative PCs or CMP records, so coverage collected on one
 * machine is symbolized on another.  Also the runtime's module snapshot
 * file (UKCOV_MODULES, §4) and sancov.py's raw/map pair (§5).
 */
#ifndef UKCOV_TOOLS_DUMP_H
#define UKCOV_TOOLS_DUMP_H

#include "util.h"

#define DUMP_MAGIC "ukcov-dump 1\n"

struct dump_module {
	char *path;
	uint8_t build_id[64];
	size_t build_id_len;		/* 0: none recorded */
	uint64_t bias, lo, hi;		/* load bias, [lo, hi) absolute */
	unsigned machine;		/* e_machine of path, 0: unknown */
	struct pcvec pcs;		/* offsets (point - bias) */
};

struct cmp_rec {
	int module;			/* index, -1: no module (absolute) */
	uint64_t off;			/* point offset (pc_to_point) */
	uint64_t type, arg1, arg2;	/* as in the kcov buffer */
};

struct dump_index;

struct dump {
	bool cmp;			/* mode cmp */
	struct dump_module *mods;
	size_t nmods, capmods;
	struct cmp_rec *cmps;
	size_t ncmps, capcmps;
	char **info;			/* "info" lines, kept verbatim */
	size_t ninfo;
	struct dump_index *index;	/* dump_union's lookup tables */
};

void dump_free(struct dump *d);
bool dump_looks_like(const void *buf, size_t len);
int dump_parse(const char *buf, size_t len, struct dump *d, char err[ERRLEN]);
int dump_load(const char *path, struct dump *d);
void dump_serialize(const struct dump *d, struct strbuf *sb);

/* Add a module, returning its index (no de-duplication). */
size_t dump_add_module(struct dump *d, const char *path, const uint8_t *id,
		       size_t idlen, uint64_t bias, uint64_t lo, uint64_t hi);
void dump_add_info(struct dump *d, const char *key, const char *value);
/* Append a CMP record; the array grows geometrically. */
void dump_add_cmp(struct dump *d, const struct cmp_rec *c);

/* Union src into dst: modules matched by build-id (by path when either
 * has none), the first match of dst's table in its order; PCs united,
 * CMP records united.  Hash lookups keep a union of n modules
 * O(n log n); the tables live in dst until dump_canonicalize or
 * dump_free, so change dst's modules only through dump_union between. */
void dump_union(struct dump *dst, const struct dump *src);
/* Sort modules by (build-id, path) and their PCs; canonical output. */
void dump_canonicalize(struct dump *d);

/* Hex build-id into buf (>= 2*len+1), "-" if none. */
void build_id_hex(const uint8_t *id, size_t len, char *buf);

/*
 * The runtime's UKCOV_MODULES file: lines
 *   "M <pid> <build-id|-> <bias> <lo> <hi> <path>"
 * one per executable segment.  Parsed into a dump's module table (one
 * module per object, [lo,hi) the hull of its segments).  With pid > 0
 * only that process's lines are used.
 */
int modules_parse(const char *buf, size_t len, long pid, struct dump *d,
		  char err[ERRLEN]);


/* Read each module's ELF machine from its file (0 where it cannot be
 * read): a kcov record's point depends on it (pc_to_point). */
void dump_read_machines(struct dump *d);

/* The point of a kcov record's PC (a return address) and, in *m, its
 * module (-1: none, the point absolute; else module-relative). */
uint64_t dump_record_point(const struct dump *d, uint64_t pc, int *m);

/*
 * sancov.py's old coverage_direct pair: FILE.sancov.raw (absolute PCs,
 * native words of the map's bitness) and FILE.sancov.map (first line 32
 * or 64, then "start end base path" in hex).  Produces modules with
 * bias = base and the PCs as offsets.  Zero PCs are skipped; PCs outside
 * every mapping are counted in *outside.
 */
int rawmap_parse(const char *raw, size_t rawlen, const char *map,
		 size_t maplen, struct dump *d, int *bits, size_t *outside,
		 char err[ERRLEN]);

/* The same in steps, so the raw file's size is checked before it is
 * read: the map alone, then the PCs of the raw image. */
int rawmap_read_map(const char *map, size_t maplen, struct dump *d, int *bits,
		    char err[ERRLEN]);
int rawmap_add_pcs(const char *raw, size_t rawlen, struct dump *d, int bits,
		   size_t *outside, char err[ERRLEN]);

/* 0 if a raw image of rawlen bytes fits the bound (docs/FORMATS.md §5),
 * else -1 with err. */
int rawmap_check_size(const struct dump *d, int bits, uint64_t rawlen,
		      char err[ERRLEN]);

#endif
