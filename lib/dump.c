/*
 * lib/dump.c -- ukcov_dump(): a kcov buffer written as a ukcov dump
 * (docs/FORMATS.md §3), the module table of this process plus the
 * records as module offsets, so that the ukcov tool can symbolize it
 * here or on another machine (modules are matched by build-id).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "textline.h"

struct module {
	char line[LINE_MAX_BYTES];	/* "<build-id> <bias> <lo> <hi> <path>" */
	size_t len;
	uint64_t lo, hi, bias;
};

struct module_set {
	struct module *m;
	size_t n, cap;
};

static struct module *module_add(struct module_set *set)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 16;
		struct module *nm = realloc(set->m, cap * sizeof(*nm));

		if (!nm)
			return NULL;
		set->m = nm;
		set->cap = cap;
	}
	return &set->m[set->n++];
}

/* One module per loaded object: the hull of its executable segments. */
static int collect_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct module_set *set = arg;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct line l = { .n = 0 };
	struct module *m;
	char exe[4096];

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		uint64_t start, end;

		if (!exec_segment(info, i, &start, &end))
			continue;
		lo = start < lo ? start : lo;
		hi = end > hi ? end : hi;
	}
	if (lo >= hi)
		return 0;
	put_build_id(&l, info);
	put(&l, " ", 1);
	put_hex(&l, info->dlpi_addr);
	put(&l, " ", 1);
	put_hex(&l, lo);
	put(&l, " ", 1);
	put_hex(&l, hi);
	put(&l, " ", 1);
	put_path(&l, object_path(info, exe, sizeof(exe)));
	if (l.n >= sizeof(l.buf))
		return 0;	/* a path too long to describe */
	m = module_add(set);
	if (!m)
		return 1;
	memcpy(m->line, l.buf, l.n);
	m->len = l.n;
	m->lo = lo;
	m->hi = hi;
	m->bias = info->dlpi_addr;
	return 0;
}

/* ---- the module tables of the processes that fed this one ---- */

/* A lowercase hex field of at most 16 digits and the space after it. */
static int hex_word(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	*v = 0;
	for (; s < end && *s != ' '; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0 || digits == 16)
			return 0;
		*v = *v << 4 | (uint64_t)d;
	}
	if (!digits || s == end)
		return 0;
	*p = s + 1;
	return 1;
}

/* The build-id field: hex digits or "-", and the space after it. */
static int build_id_word(const char **p, const char *end)
{
	const char *s = *p;

	if (s < end && *s == '-') {
		s++;
	} else {
		for (; s < end && ((*s >= '0' && *s <= '9') ||
				   (*s >= 'a' && *s <= 'f')); s++)
			;
		if (s == *p || (s - *p) % 2)
			return 0;
	}
	if (s == end || *s != ' ')
		return 0;
	*p = s + 1;
	return 1;
}

/* Already described: the same object (build-id and load bias) with a
 * range covering lo..hi.  The caller's own modules are the hulls of
 * their segments; a fork child feeds the same segments again.  Objects
 * without a build-id compare by their whole line. */
static int module_known(const struct module_set *set, const char *line,
			size_t idlen, size_t len, uint64_t bias, uint64_t lo,
			uint64_t hi)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct module *m = &set->m[i];

		if (line[0] == '-' ? m->len == len &&
				     memcmp(m->line, line, len) == 0
				   : m->bias == bias && lo >= m->lo &&
				     hi <= m->hi && m->len > idlen &&
				     memcmp(m->line, line, idlen + 1) == 0)
			return 1;
	}
	return 0;
}

/* One "M <pid> <build-id|-> <bias> <start> <end> <path>" line
 * (docs/FORMATS.md §4) as a module, unless known.  The lines come from
 * other processes of the user: one that does not parse is skipped. */
static int feeder_line(struct module_set *set, const char *s, const char *end)
{
	const char *line, *id_end;
	uint64_t pid, bias, lo, hi;
	struct module *m;
	size_t len;

	if (end - s < 2 || s[0] != 'M' || s[1] != ' ')
		return 0;
	s += 2;
	for (pid = 0; s < end && *s >= '0' && *s <= '9'; s++)
		pid = pid * 10 + (uint64_t)(*s - '0');
	if (s == end || *s++ != ' ')
		return 0;
	line = s;
	if (!build_id_word(&s, end))
		return 0;
	id_end = s - 1;
	if (!hex_word(&s, end, &bias) || !hex_word(&s, end, &lo) ||
	    !hex_word(&s, end, &hi) || lo >= hi || s == end)
		return 0;
	for (const char *c = s; c < end; c++)
		if ((unsigned char)*c < 0x20)
			return 0;
	len = (size_t)(end - line);
	if (len >= LINE_MAX_BYTES ||
	    module_known(set, line, (size_t)(id_end - line), len, bias, lo, hi))
		return 0;
	m = module_add(set);
	if (!m)
		return -1;
	memcpy(m->line, line, len);
	m->len = len;
	m->bias = bias;
	m->lo = lo;
	m->hi = hi;
	return 0;
}

/* After the caller's own modules: every module of the processes that
 * fed its remote collections (lib/feeders.c), each object once. */
static int collect_feeders(struct module_set *set)
{
	char *buf, *s, *nl;
	size_t len;
	int rc = 0;

	if (ukcov__feeders_read(&buf, &len) != 0)
		return -1;
	for (s = buf; s && s < buf + len && rc == 0; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(buf + len - s));
		if (!nl)
			break;	/* a line still being written */
		rc = feeder_line(set, s, nl);
	}
	free(buf);
	return rc;
}

/* The first module that holds addr: the caller's own before the
 * feeders', whose address spaces may overlap it. */
static int module_of(const struct module_set *set, uint64_t addr)
{
	for (size_t i = 0; i < set->n; i++)
		if (addr >= set->m[i].lo && addr < set->m[i].hi)
			return (int)i;
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int write_text(struct line *l, const char *s)
{
	l->n = 0;
	put(l, s, strlen(s));
	return put_end(l);
}

static int write_modules(struct line *l, const struct module_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		l->n = 0;
		put(l, "module ", 7);
		put_dec(l, (unsigned)i);
		put(l, " ", 1);
		put(l, set->m[i].line, set->m[i].len);
		if (put_end(l) < 0)
			return -1;
	}
	return 0;
}

/* pc belongs to module m: the first one that holds it. */
static int pc_of_module(const struct module_set *set, size_t m, uint64_t pc)
{
	return pc >= set->m[m].lo && pc < set->m[m].hi &&
	       module_of(set, pc) == (int)m;
}

/* PCs are return addresses; the dump holds return address - 1 as
 * module offsets, as a set per module. */
static int write_pcs(struct line *l, const struct module_set *set,
		     const uint64_t *buf, uint64_t n)
{
	uint64_t *pcs = malloc((n ? n : 1) * sizeof(*pcs));
	uint64_t i, k, u;
	int rc = 0;

	if (!pcs)
		return -1;
	for (i = 0; i < n; i++)
		pcs[i] = UKCOV_PREV_PC(buf[1 + i]);
	qsort(pcs, n, sizeof(*pcs), cmp_u64);
	for (u = 0, i = 0; i < n; i++)
		if (u == 0 || pcs[i] != pcs[u - 1])
			pcs[u++] = pcs[i];
	for (size_t m = 0; m < set->n && rc == 0; m++) {
		uint64_t count = 0;

		for (k = 0; k < u; k++)
			count += (uint64_t)pc_of_module(set, m, pcs[k]);
		if (!count)
			continue;
		l->n = 0;
		put(l, "pcs ", 4);
		put_dec(l, (unsigned)m);
		put(l, " ", 1);
		put_dec(l, (unsigned)count);
		rc = put_end(l);
		for (k = 0; k < u && rc == 0; k++) {
			if (!pc_of_module(set, m, pcs[k]))
				continue;
			l->n = 0;
			put_hex(l, pcs[k] - set->m[m].bias);
			rc = put_end(l);
		}
	}
	free(pcs);
	return rc;
}

static int write_cmps(struct line *l, const struct module_set *set,
		      const uint64_t *buf, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t *r = &buf[1 + 4 * i];
		uint64_t pc = UKCOV_PREV_PC(r[3]);
		int m = module_of(set, pc);

		l->n = 0;
		put(l, "cmp ", 4);
		if (m < 0) {
			put(l, "- ", 2);
			put_hex(l, pc);
		} else {
			put_dec(l, (unsigned)m);
			put(l, " ", 1);
			put_hex(l, pc - set->m[m].bias);
		}
		for (int f = 0; f < 3; f++) {
			put(l, " ", 1);
			put_hex(l, r[f]);
		}
		if (put_end(l) < 0)
			return -1;
	}
	return 0;
}

UKCOV_EXPORT int ukcov_dump(int out_fd, const uint64_t *buffer,
			    uint64_t entries, int mode)
{
	struct module_set set = { 0 };
	struct line l = { .n = 0, .fd = out_fd };
	uint64_t n, cap;
	int rc;

	if (!buffer || entries < 1 ||
	    (mode != UKCOV_DUMP_PC && mode != UKCOV_DUMP_CMP)) {
		errno = EINVAL;
		return -1;
	}
	/* Bound the count by the caller's size, never trust word 0. */
	cap = mode == UKCOV_DUMP_PC ? entries - 1 : (entries - 1) / 4;
	n = __atomic_load_n(&buffer[0], __ATOMIC_ACQUIRE);
	n = n < cap ? n : cap;
	if (dl_iterate_phdr(collect_module, &set) != 0 ||
	    collect_feeders(&set) != 0) {
		free(set.m);
		errno = ENOMEM;
		return -1;
	}
	rc = write_text(&l, "ukcov-dump 1");
	if (rc == 0)
		rc = write_text(&l, mode == UKCOV_DUMP_PC ? "mode pc" : "mode cmp");
	if (rc == 0)
		rc = write_modules(&l, &set);
	if (rc == 0)
		rc = mode == UKCOV_DUMP_PC ? write_pcs(&l, &set, buffer, n)
					   : write_cmps(&l, &set, buffer, n);
	if (rc == 0)
		rc = write_text(&l, "end");
	free(set.m);
	return rc == 0 ? 0 : -1;
}
