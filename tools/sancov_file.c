/*
 * tools/sancov_file.c -- read and write LLVM .sancov files.
 *
 * Files are read in chunks, never whole: the size is checked against the
 * most offsets a module can have before anything is read, zeros (which
 * no runtime writes) are dropped as they come, and a file that ends in
 * the middle of an offset is an error that names the byte offset.
 */
#include "sancov_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)64 * 1024)

static uint32_t load_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t load_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

bool sancov_has_magic(const void *buf, size_t len)
{
	return len >= 8 && load_u32((const unsigned char *)buf + 4) ==
				   SANCOV_MAGIC_HI;
}

/* The 8-byte header: magic and bitness; sets *bits. */
static int parse_header(const unsigned char *p, size_t len, int *bits,
			char err[ERRLEN])
{
	uint32_t lo;

	if (len < 8) {
		snprintf(err, ERRLEN,
			 "not a .sancov file: too small (%zu bytes, the magic "
			 "alone is 8)", len);
		return -1;
	}
	if (!sancov_has_magic(p, len)) {
		snprintf(err, ERRLEN,
			 "not a .sancov file: wrong magic 0x%08x%08x",
			 load_u32(p + 4), load_u32(p));
		return -1;
	}
	lo = load_u32(p);
	if (lo != SANCOV_BITS64 && lo != SANCOV_BITS32) {
		snprintf(err, ERRLEN, "unsupported bitness word 0x%08x "
			 "(expected 0xffffff64 or 0xffffff32)", lo);
		return -1;
	}
	*bits = lo == SANCOV_BITS64 ? 64 : 32;
	return 0;
}

/* The offsets after the header, fed in pieces of any length. */
struct offsets {
	struct pcvec *pcs;
	size_t width;		/* 4 or 8 */
	uint64_t words;		/* whole offsets seen, zeros included */
	unsigned char part[8];	/* an offset split between two pieces */
	size_t npart;
};

static void take_word(struct offsets *o, const unsigned char *p)
{
	uint64_t v = o->width == 8 ? load_u64(p) : load_u32(p);

	o->words++;
	if (v)		/* tolerated like sancov, never written */
		pcvec_push(o->pcs, v);
}

static void feed(struct offsets *o, const unsigned char *p, size_t n)
{
	while (o->npart && n) {
		o->part[o->npart++] = *p++, n--;
		if (o->npart == o->width) {
			take_word(o, o->part);
			o->npart = 0;
		}
	}
	for (; n >= o->width; p += o->width, n -= o->width)
		take_word(o, p);
	memcpy(o->part, p, n);
	o->npart = n;
}

/* A partial offset at the end is a truncated file (FORMATS.md §1). */
static int finish(const struct offsets *o, char err[ERRLEN])
{
	if (!o->npart)
		return 0;
	snprintf(err, ERRLEN, "truncated: %zu byte%s at byte offset %llu do "
		 "not make a whole %zu-bit offset", o->npart,
		 o->npart == 1 ? "" : "s",
		 8 + (unsigned long long)o->words * o->width, o->width * 8);
	return -1;
}

int sancov_parse(const void *buf, size_t len, struct pcvec *pcs, int *bits,
		 char err[ERRLEN])
{
	const unsigned char *p = buf;
	struct offsets o = { .pcs = pcs };

	if (parse_header(p, len, bits, err) < 0)
		return -1;
	o.width = (size_t)*bits / 8;
	feed(&o, p + 8, len - 8);
	return finish(&o, err);
}

static int too_many(uint64_t words, uint64_t max, const char *module,
		    int bits, char err[ERRLEN])
{
	if (module)
		snprintf(err, ERRLEN, "too large: %llu %d-bit offsets, more "
			 "than the %llu coverage points %s can hold (one "
			 "5-byte call each; docs/FORMATS.md §1)",
			 (unsigned long long)words, bits,
			 (unsigned long long)max, module);
	else
		snprintf(err, ERRLEN, "too large: %llu %d-bit offsets, more "
			 "than the %llu coverage points a module can hold "
			 "(docs/FORMATS.md §1)", (unsigned long long)words,
			 bits, (unsigned long long)max);
	return -1;
}

/* Stream fd into pcs; the size is checked before the offsets are read
 * (regular files) or while they are (pipes). */
static int read_offsets(int fd, struct pcvec *pcs, int *bits, uint64_t max,
			const char *module, char err[ERRLEN])
{
	unsigned char head[8], *chunk;
	struct offsets o = { .pcs = pcs };
	struct stat st;
	ssize_t n = read_full(fd, head, sizeof(head));
	int r = 0;

	if (n < 0 || fstat(fd, &st) < 0) {
		snprintf(err, ERRLEN, "%s", strerror(errno));
		return -1;
	}
	if (parse_header(head, (size_t)n, bits, err) < 0)
		return -1;
	o.width = (size_t)*bits / 8;
	if (S_ISREG(st.st_mode) &&
	    (uint64_t)(st.st_size - 8) / o.width > max)
		return too_many((uint64_t)(st.st_size - 8) / o.width, max,
				module, *bits, err);
	chunk = xmalloc(CHUNK);
	while (r == 0 && (n = read_full(fd, chunk, CHUNK)) > 0) {
		feed(&o, chunk, (size_t)n);
		if (o.words > max)
			r = too_many(o.words, max, module, *bits, err);
	}
	if (n < 0 && r == 0) {
		snprintf(err, ERRLEN, "%s", strerror(errno));
		r = -1;
	}
	free(chunk);
	return r < 0 ? r : finish(&o, err);
}

int sancov_load_max(const char *path, struct pcvec *pcs, int *bits,
		    uint64_t max, const char *module)
{
	char err[ERRLEN];
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		fd = -1;
	}
	if (fd < 0) {
		msg_error("%s: %s", path, strerror(errno));
		return -1;
	}
	r = read_offsets(fd, pcs, bits, max, module, err);
	close(fd);
	if (r < 0)
		msg_error("%s: %s", path, err);
	return r;
}

int sancov_load(const char *path, struct pcvec *pcs, int *bits)
{
	return sancov_load_max(path, pcs, bits, SANCOV_MAX_POINTS, NULL);
}

void sancov_serialize(struct strbuf *sb, const struct pcvec *pcs, int bits)
{
	uint32_t magic[2] = { bits == 64 ? SANCOV_BITS64 : SANCOV_BITS32,
			      SANCOV_MAGIC_HI };

	sb_add(sb, (const char *)magic, sizeof(magic));
	for (size_t i = 0; i < pcs->n; i++) {
		if (bits == 64) {
			sb_add(sb, (const char *)&pcs->v[i], 8);
		} else {
			uint32_t v = (uint32_t)pcs->v[i];

			sb_add(sb, (const char *)&v, 4);
		}
	}
}

char *sancov_module_name(const char *path)
{
	const char *name = path_basename(path);
	size_t n = strlen(name);

	/* Greedy (.*): the last ".<digits>.sancov" wins (sancov.cpp
	 * SancovFileRegex, unanchored). */
	for (size_t i = n; i-- > 0;) {
		size_t j = i + 1;

		if (name[i] != '.')
			continue;
		while (j < n && name[j] >= '0' && name[j] <= '9')
			j++;
		if (j > i + 1 && strncmp(name + j, ".sancov", 7) == 0) {
			char *m = xmalloc(i + 1);

			memcpy(m, name, i);
			m[i] = '\0';
			return m;
		}
	}
	return NULL;
}
