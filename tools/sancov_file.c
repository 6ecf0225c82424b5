/*
 * tools/sancov_file.c -- read and write LLVM .sancov files.
 */
#include "sancov_file.h"

#include <stdlib.h>
#include <string.h>

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

int sancov_parse(const void *buf, size_t len, struct pcvec *pcs, int *bits,
		 size_t *trailing, char err[ERRLEN])
{
	const unsigned char *p = buf;
	uint32_t lo;
	size_t w;

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
	w = (size_t)*bits / 8;
	*trailing = (len - 8) % w;
	for (size_t off = 8; off + w <= len; off += w)
		pcvec_push(pcs, w == 8 ? load_u64(p + off) : load_u32(p + off));
	return 0;
}

struct load_arg {
	struct pcvec *pcs;
	int *bits;
	size_t trailing;
};

static int parse_cb(const char *buf, size_t len, void *arg, char *err)
{
	struct load_arg *la = arg;

	return sancov_parse(buf, len, la->pcs, la->bits, &la->trailing, err);
}

int sancov_load(const char *path, struct pcvec *pcs, int *bits)
{
	struct load_arg la = { pcs, bits, 0 };

	if (load_parsed(path, parse_cb, &la) < 0)
		return -1;
	if (la.trailing)
		msg_warn("%s: ignoring %zu trailing bytes (truncated file?)",
			 path, la.trailing);
	return 0;
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
