/*
 * tools/run_tree.c -- `ukcov run` over a process tree: read the buffers
 * that the other processes of the traced program's tree left in the
 * run's directory (lib/tree.c; docs/FORMATS.md §4b) and unite their
 * points into the run's dump, each process's PCs mapped through its own
 * module table, modules matched by build-id (dump_union).
 *
 * The directory is the tool's own (mkdtemp), but the files in it are
 * written by the traced programs: every header field is checked
 * against the file's name and size before it is used.
 */
#include "ukcov.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "run_tree.h"
#include "../lib/threadblock.h"

/* One buffer file's records: the header checked against its name
 * (pid, image, tid) and the file's size; records bounded by both the
 * count word, the buffer's capacity and what the file holds. */
struct tree_buf {
	uint64_t hdr[UKCOV_TR_HEADER_WORDS];
	uint64_t *recs;
	size_t count;
};

/* name in dfd, opened only if it is a regular file (no link, FIFO or
 * device), with its stat; the descriptor or -1. */
static int open_regular(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tree_buf_read(int dfd, const char *name, long pid, long image,
			 long tid, bool cmp, struct tree_buf *b)
{
	size_t per = cmp ? 4 : 1;
	uint64_t words, entries, cap, n, have, head;
	struct stat st;
	int fd = open_regular(dfd, name, &st);
	int r = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, b->hdr, sizeof(b->hdr), 0) != (ssize_t)sizeof(b->hdr))
		goto out;
	entries = b->hdr[UKCOV_TR_ENTRIES];
	words = b->hdr[UKCOV_TR_BITMAP];
	if (b->hdr[UKCOV_TR_MAGIC] != UKCOV_TREEBUF_MAGIC ||
	    b->hdr[UKCOV_TR_PID] != (uint64_t)pid ||
	    b->hdr[UKCOV_TR_IMAGE] != (uint64_t)image ||
	    b->hdr[UKCOV_TR_TID] != (uint64_t)tid ||
	    b->hdr[UKCOV_TR_MODE] != (cmp ? 2u : 1u) || entries < 2 ||
	    entries > (1ULL << 31) || words >= entries - 1)
		goto out;
	head = UKCOV_TREEBUF_HEADER_BYTES + (words + 1) * 8;
	if ((uint64_t)st.st_size < head ||
	    pread(fd, &n, 8, (off_t)(head - 8)) != 8)
		goto out;
	cap = (entries - words - 1) / per;
	have = ((uint64_t)st.st_size - head) / (per * 8);
	n = n < cap ? n : cap;
	n = n < have ? n : have;
	b->recs = xmalloc(n ? (size_t)n * per * 8 : 1);
	if (n && pread(fd, b->recs, (size_t)n * per * 8, (off_t)head) !=
			 (ssize_t)(n * per * 8)) {
		free(b->recs);
		goto out;
	}
	b->count = (size_t)n;
	r = 0;
out:
	close(fd);
	return r;
}

/* The records of one buffer into d, through d's module table. */
static void tree_add_records(struct dump *d, const struct tree_buf *b,
			     bool cmp, size_t *outside)
{
	size_t per = cmp ? 4 : 1;

	for (size_t i = 0; i < b->count; i++) {
		const uint64_t *r = &b->recs[i * per];
		int m;
		uint64_t off = dump_record_point(d, cmp ? r[3] : r[0], &m);

		if (m < 0) {
			(*outside)++;
			continue;
		}
		if (cmp) {
			struct cmp_rec c = { m, off, r[0], r[1], r[2] };

			dump_add_cmp(d, &c);
		} else {
			pcvec_push(&d->mods[m].pcs, off);
		}
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory's names, sorted (a stable order of processes). */
static char **tree_names(DIR *dir, size_t *n)
{
	char **names = NULL;
	size_t cap = 0;
	struct dirent *e;

	*n = 0;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[(*n)++] = xstrdup(e->d_name);
	}
	if (*n)
		qsort(names, *n, sizeof(*names), name_cmp);
	return names;
}

/* The first of the n sorted names not before key: the buffers of one
 * image share a prefix, so they follow it, and each image finds its
 * own in log n steps instead of a pass over every file of the tree. */
static size_t names_lower_bound(char **names, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(names[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A module table file of the tree: a regular file of at most 64 MiB
 * with no NUL byte, parsed for pid's lines. */
static int tree_modules_read(int dfd, const char *name, long pid,
			     struct dump *d)
{
	char *buf = NULL, err[ERRLEN];
	struct stat st;
	int fd = open_regular(dfd, name, &st);
	int r = -1;

	if (fd < 0)
		return -1;
	if (st.st_size < (64 << 20)) {
		size_t len = (size_t)st.st_size;

		buf = xmalloc(len + 1);
		if (read_full(fd, buf, len) == (ssize_t)len &&
		    memchr(buf, 0, len) == NULL) {
			buf[len] = '\0';
			r = modules_parse(buf, len, pid, d, err);
			if (r == 0)
				dump_read_machines(d);
		}
	}
	free(buf);
	close(fd);
	return r;
}

/* Image (pid, n): its module table, then every buffer of it, into d. */
static void tree_add_image(int dfd, char **names, size_t nnames,
			   const char *img, bool cmp, struct dump *into,
			   struct tree_stats *st)
{
	long pid, image;
	char prefix[64];
	size_t plen;
	struct dump d = { .cmp = cmp };

	if (sscanf(img, "img.%ld.%ld", &pid, &image) != 2)
		return;
	if (tree_modules_read(dfd, img, pid, &d) < 0) {
		st->bad++;
		dump_free(&d);
		return;
	}
	st->images++;
	plen = (size_t)snprintf(prefix, sizeof(prefix), "buf.%ld.%ld.", pid,
				image);
	for (size_t i = names_lower_bound(names, nnames, prefix);
	     i < nnames && strncmp(names[i], prefix, plen) == 0; i++) {
		struct tree_buf b = { 0 };
		char *end;
		long tid;

		tid = strtol(names[i] + plen, &end, 10);
		if (*end || tid <= 0 ||
		    tree_buf_read(dfd, names[i], pid, image, tid, cmp, &b) < 0) {
			st->bad++;
			continue;
		}
		st->buffers++;
		st->records += b.count;
		st->dropped += b.hdr[UKCOV_TR_DROPPED];
		tree_add_records(&d, &b, cmp, &st->outside);
		free(b.recs);
	}
	for (size_t i = 0; i < d.nmods; i++)
		pcvec_sort_unique(&d.mods[i].pcs, false);
	dump_union(into, &d);
	dump_free(&d);
}

int tree_collect(const char *dir, bool cmp, struct dump *into,
		 struct tree_stats *st)
{
	DIR *dp = opendir(dir);
	char **names;
	size_t n;
	long last_pid = -1;

	memset(st, 0, sizeof(*st));
	if (!dp) {
		msg_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	names = tree_names(dp, &n);
	for (size_t i = 0; i < n; i++) {
		long pid, image;

		if (sscanf(names[i], "img.%ld.%ld", &pid, &image) != 2)
			continue;
		if (pid != last_pid)
			st->processes++;
		last_pid = pid;
		tree_add_image(dirfd(dp), names, n, names[i], cmp, into, st);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dp);
	return 0;
}

/* Remove the run's directory: the files lib/tree.c makes, flat. */
void tree_remove(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;

	if (!dp)
		return;
	while ((e = readdir(dp)) != NULL)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(dp), e->d_name, 0);
	closedir(dp);
	rmdir(dir);
}
