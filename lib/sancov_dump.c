/*
 * lib/sancov_dump.c -- writing <module>.<pid>.sancov files, the way
 * compiler-rt's SanitizerDumpCoverage writes them
 * (sanitizer_coverage_libcdep_new.cpp): per module, the magic
 * 0xC0BFFFFFFFFFFF64 and the module-relative offsets (PC - load bias)
 * of every covered point, each a return address minus one, sorted.
 * Unlike compiler-rt, the offsets are also unique, a module that was
 * dlclose'd is still written (under the name and bias it had), and the
 * file is never written through a symlink nor over a file this process
 * did not create.
 *
 * Everything here may run in a fatal-signal handler: no malloc, no
 * stdio, no locks; memory comes from mmap, text from textline.h, the
 * module table from the last snapshot.
 *
 * Safe creation: the offsets go to "<final>.tmp" (O_CREAT|O_EXCL|
 * O_NOFOLLOW), which then becomes the final name by link(2), which
 * fails on any existing name (a planted file or symlink, another
 * process's file) -- or, when this process wrote that final file
 * itself before (same device and inode as recorded), by rename(2).
 * A write error (a full disk) removes the temporary file and leaves the
 * previous file as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "sancov.h"
#include "textline.h"

#define SANCOV_MAGIC64 0xC0BFFFFFFFFFFF64ULL

/* ---- messages ---- */

void ukcov__sancov_msg(const char *a, const char *b, size_t bn,
		       const char *c)
{
	struct line l = { .n = 0, .fd = 2 };

	put(&l, a, strlen(a));
	put(&l, b, bn);
	put(&l, c, strlen(c));
	if (l.n < sizeof(l.buf))
		(void)!write(2, l.buf, l.n);
}

/* strerror is not async-signal-safe; the errors a file write meets. */
static const char *errno_text(int e)
{
	switch (e) {
	case ENOENT: return "No such file or directory";
	case EACCES: return "Permission denied";
	case EPERM: return "Operation not permitted";
	case EROFS: return "Read-only file system";
	case ENOSPC: return "No space left on device";
	case EDQUOT: return "Disk quota exceeded";
	case ENOTDIR: return "Not a directory";
	case EEXIST: return "File exists";
	case ELOOP: return "Too many levels of symbolic links";
	case ENAMETOOLONG: return "File name too long";
	case EIO: return "Input/output error";
	case EMFILE: return "Too many open files";
	case ENOMEM: return "Cannot allocate memory";
	default: return "error";
	}
}

static void report(const char *path, const char *what)
{
	ukcov__sancov_msg("ukcov: cannot write ", path, strlen(path), what);
}

static void report_errno(const char *path, int e, const char *tail)
{
	struct line l = { .n = 0 };

	put(&l, ": ", 2);
	put(&l, errno_text(e), strlen(errno_text(e)));
	put(&l, tail, strlen(tail));
	put(&l, "", 1);
	l.buf[sizeof(l.buf) - 1] = '\0';
	report(path, l.buf);
}

/* ---- the files this process created: [D] under the dump flag ---- */

#define MAX_OWN 512
static struct { dev_t dev; ino_t ino; } own[MAX_OWN];
static int nown;
static int dumping;		/* [A] one dump at a time */

static int is_own(const struct stat *st)
{
	for (int i = 0; i < nown; i++)
		if (own[i].dev == st->st_dev && own[i].ino == st->st_ino)
			return 1;
	return 0;
}

static void remember_own(const struct stat *st)
{
	if (nown < MAX_OWN && !is_own(st)) {
		own[nown].dev = st->st_dev;
		own[nown].ino = st->st_ino;
		nown++;
	}
}

static int refuse_foreign(const char *path)
{
	report(path, ": exists and is not this process's file; "
		     "not overwritten\n");
	return -1;
}

/* Make tmp the file `path`, never replacing a file we did not write. */
static int install(const char *tmp, const char *path, const struct stat *mine)
{
	struct stat st;

	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode) || !is_own(&st))
			return refuse_foreign(path);
		if (rename(tmp, path) != 0) {
			report_errno(path, errno, "\n");
			return -1;
		}
		remember_own(mine);
		return 0;
	}
	if (link(tmp, path) != 0) {
		int e = errno;

		if (e == EEXIST)
			return refuse_foreign(path);
		/* A file system without hard links: rename, which the lstat
		 * above found nothing to replace. */
		if (rename(tmp, path) != 0) {
			report_errno(path, e, "\n");
			return -1;
		}
		remember_own(mine);
		return 0;
	}
	unlink(tmp);
	remember_own(mine);
	return 0;
}

/* Create a fresh temporary file next to path; its name goes to tmp. */
static int open_tmp(const struct line *path, struct line *tmp)
{
	int fd = -1;

	for (unsigned k = 0; k < 10 && fd < 0; k++) {
		tmp->n = 0;
		put(tmp, path->buf, path->n);
		put(tmp, ".tmp", 4);
		if (k)
			put_dec(tmp, k);
		tmp->buf[tmp->n] = '\0';
		fd = ukcov__real_open(tmp->buf,
				      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					      O_CLOEXEC,
				      0660);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

/* The directory is the problem: say which one. */
static void report_open(const char *dir, const char *name,
			const char *path, int e)
{
	struct line l = { .n = 0 };

	if (e != ENOENT && e != EACCES && e != EROFS && e != ENOTDIR &&
	    e != EPERM) {
		report_errno(path, e, "\n");
		return;
	}
	put(&l, "': ", 3);
	put(&l, errno_text(e), strlen(errno_text(e)));
	put(&l, "; ", 2);
	put(&l, name, strlen(name));
	put(&l, " not written\n", 14);
	l.buf[sizeof(l.buf) - 1] = '\0';
	ukcov__sancov_msg("ukcov: coverage_dir '", dir, strlen(dir), l.buf);
}

/* Write header + data as the file dir/name; 0 or -1 (reported). */
static int write_file(const char *name, const void *hdr, size_t hn,
		      const void *data, size_t dn)
{
	const char *dir = ukcov__sancov_opts.dir;
	struct line path = { .n = 0 }, tmp = { .n = 0 };
	struct stat st;
	int fd, e;

	put(&path, dir, strlen(dir));
	put(&path, "/", 1);
	put(&path, name, strlen(name));
	if (path.n + 8 >= sizeof(path.buf)) {
		ukcov__sancov_msg("ukcov: coverage file name too long in ", dir,
				  strlen(dir), "\n");
		return -1;
	}
	path.buf[path.n] = '\0';
	fd = open_tmp(&path, &tmp);
	if (fd < 0) {
		report_open(dir, name, path.buf, errno);
		return -1;
	}
	e = ukcov__write_all(fd, hdr, hn);
	if (e == 0)
		e = ukcov__write_all(fd, data, dn);
	if (e == 0 && fstat(fd, &st) != 0)
		e = errno;
	if (ukcov__real_close(fd) != 0 && e == 0)
		e = errno;
	if (e != 0) {
		unlink(tmp.buf);
		report_errno(path.buf, e, " (an earlier file is kept)\n");
		return -1;
	}
	if (install(tmp.buf, path.buf, &st) != 0) {
		unlink(tmp.buf);
		return -1;
	}
	return 0;
}

int ukcov__sancov_write_named(const char *name, const void *hdr, size_t hn,
			      const void *data, size_t dn)
{
	return write_file(name, hdr, hn, data, dn);
}

/* Remove dir/name if it is a file this process wrote or created, and
 * only then: a file found there that is not ours (one a write refused
 * as foreign) stays as it is. */
void ukcov__sancov_unlink_own(const char *name)
{
	const char *dir = ukcov__sancov_opts.dir;
	struct line path = { .n = 0 };
	struct stat st;

	put(&path, dir, strlen(dir));
	put(&path, "/", 1);
	put(&path, name, strlen(name));
	if (path.n >= sizeof(path.buf))
		return;
	path.buf[path.n] = '\0';
	if (lstat(path.buf, &st) == 0 && S_ISREG(st.st_mode) && is_own(&st))
		(void)unlink(path.buf);
}

/* ---- module snapshot ---- */

struct modtab {
	size_t n, cap;
	struct ukcov_modsnap m[];
};
static struct modtab *modules;		/* [A] published whole */

static struct modtab *modtab_new(size_t cap)
{
	size_t bytes = sizeof(struct modtab) + cap * sizeof(struct ukcov_modsnap);
	struct modtab *t = ukcov__real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->n = 0;
	t->cap = cap;
	return t;
}

static int snap_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct modtab *t = arg;
	struct ukcov_modsnap *m;
	uint64_t lo = UINT64_MAX, hi = 0;
	char exe[PATH_MAX];

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		uint64_t s, e;

		if (exec_segment(info, i, &s, &e)) {
			lo = s < lo ? s : lo;
			hi = e > hi ? e : hi;
		}
	}
	if (lo >= hi || t->n >= t->cap)
		return 0;
	m = &t->m[t->n++];
	m->lo = lo;
	m->hi = hi;
	m->bias = info->dlpi_addr;
	strncpy(m->path, object_path(info, exe, sizeof(exe)), sizeof(m->path) - 1);
	m->path[sizeof(m->path) - 1] = '\0';
	return 0;
}

/* Not in a signal handler: dl_iterate_phdr takes the loader's lock.
 * The previous table is kept (a dump in a signal handler may be
 * reading it); tables are small and refreshed only at dumps. */
void ukcov__sancov_modules_refresh(void)
{
	struct modtab *t = modtab_new(1024);

	if (!t)
		return;
	dl_iterate_phdr(snap_module, t);
	t = __atomic_exchange_n(&modules, t, __ATOMIC_ACQ_REL);
	(void)t;	/* see above: not freed */
}

static const struct ukcov_modsnap *module_of_pc(const struct modtab *t,
						 uint64_t pc)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (pc >= t->m[i].lo && pc < t->m[i].hi)
			return &t->m[i];
	return NULL;
}

const struct ukcov_modsnap *ukcov__sancov_module_of(uint64_t pc)
{
	return module_of_pc(__atomic_load_n(&modules, __ATOMIC_ACQUIRE), pc);
}

/* ---- collecting (module, offset) pairs ---- */

/* Distinct module paths of one dump; an entry's module is an index. */
#define MAX_NAMES 4096
struct dumpset {
	uint64_t *ent;			/* pairs: name index, offset */
	size_t n, cap;
	const char *names[MAX_NAMES];
	size_t nnames;
	uint64_t unknown;		/* PCs in no known module */
	size_t bytes;			/* of the mapping */
};

static long name_index(struct dumpset *d, const char *path)
{
	for (size_t i = 0; i < d->nnames; i++)
		if (strcmp(d->names[i], path) == 0)
			return (long)i;
	if (d->nnames == MAX_NAMES || !path[0])
		return -1;
	d->names[d->nnames] = path;
	return (long)d->nnames++;
}

static void add(struct dumpset *d, const char *path, uint64_t off)
{
	long k = name_index(d, path);

	if (k < 0 || d->n >= d->cap) {
		d->unknown++;
		return;
	}
	d->ent[2 * d->n] = (uint64_t)k;
	d->ent[2 * d->n + 1] = off;
	d->n++;
}

static int dumpset_init(struct dumpset *d, size_t cap)
{
	memset(d, 0, offsetof(struct dumpset, names));
	d->nnames = 0;
	d->unknown = 0;
	d->cap = cap ? cap : 1;
	d->bytes = d->cap * 2 * sizeof(uint64_t);
	d->ent = ukcov__real_mmap(NULL, d->bytes, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				  -1, 0);
	return d->ent == MAP_FAILED ? -1 : 0;
}

static void add_pc(struct dumpset *d, const struct modtab *t, uint64_t pc)
{
	const struct ukcov_modsnap *m = module_of_pc(t, pc);

	if (m)
		add(d, m->path, pc - m->bias);
	else
		d->unknown++;
}

/* The guards' first PCs, region by region, with the module each region
 * had when it was initialised. */
static void collect_guards(struct dumpset *d)
{
	const uint64_t *pcs = __ukcov_sancov.guard_pcs;
	uint32_t n = ukcov__sancov_nregions();

	if (!pcs)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const struct ukcov_region *r = ukcov__sancov_region(i);

		if (r->kind != 0)
			continue;
		for (uint32_t k = 0; k < r->count; k++) {
			uint64_t pc = __atomic_load_n(&pcs[r->first + k],
						      __ATOMIC_RELAXED);

			if (pc)
				add(d, r->path, pc - r->bias);
		}
	}
}

static void collect_pcset(struct dumpset *d, const struct modtab *t)
{
	const uint64_t *set = __ukcov_sancov.pcset;
	uint64_t n = ukcov__sancov_pcset_slots();

	for (uint64_t i = 0; set && i < n; i++) {
		uint64_t pc = __atomic_load_n(&set[i], __ATOMIC_RELAXED);

		if (pc)
			add_pc(d, t, pc);
	}
}

/* ---- sorting: heapsort of the pairs, no allocation ---- */

static int pair_less(const uint64_t *e, size_t a, size_t b)
{
	if (e[2 * a] != e[2 * b])
		return e[2 * a] < e[2 * b];
	return e[2 * a + 1] < e[2 * b + 1];
}

static void pair_swap(uint64_t *e, size_t a, size_t b)
{
	uint64_t k = e[2 * a], o = e[2 * a + 1];

	e[2 * a] = e[2 * b];
	e[2 * a + 1] = e[2 * b + 1];
	e[2 * b] = k;
	e[2 * b + 1] = o;
}

static void sift_down(uint64_t *e, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && pair_less(e, c, c + 1))
			c++;
		if (!pair_less(e, i, c))
			return;
		pair_swap(e, i, c);
		i = c;
	}
}

void ukcov__sort_u64_pairs(uint64_t *e, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(e, i, n);
	for (size_t end = n; end-- > 1;) {
		pair_swap(e, 0, end);
		sift_down(e, 0, end);
	}
}

/* ---- writing ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void write_module(struct dumpset *d, size_t k, size_t i, size_t j)
{
	static const uint64_t magic = SANCOV_MAGIC64;
	uint64_t *out = &d->ent[2 * i];	/* compacted in place */
	struct line name = { .n = 0 };
	size_t u = 0;

	for (size_t x = i; x < j; x++) {
		uint64_t off = d->ent[2 * x + 1];

		if (u == 0 || out[u - 1] != off)
			out[u++] = off;
	}
	put(&name, base_name(d->names[k]), strlen(base_name(d->names[k])));
	put(&name, ".", 1);
	put_dec(&name, (unsigned)getpid());
	put(&name, ".sancov", 8);
	name.buf[sizeof(name.buf) - 1] = '\0';
	if (write_file(name.buf, &magic, sizeof(magic), out, u * sizeof(*out)) == 0 &&
	    ukcov__sancov_opts.verbosity > 0) {
		struct line l = { .n = 0 };

		put(&l, ": ", 2);
		put_dec(&l, (unsigned)u);
		put(&l, " PCs written\n", 13);
		ukcov__sancov_msg("ukcov: ", name.buf, strlen(name.buf), l.buf);
	}
}

static void write_all_modules(struct dumpset *d)
{
	size_t i = 0;

	ukcov__sort_u64_pairs(d->ent, d->n);
	while (i < d->n) {
		size_t j = i;

		while (j < d->n && d->ent[2 * j] == d->ent[2 * i])
			j++;
		write_module(d, (size_t)d->ent[2 * i], i, j);
		i = j;
	}
	if (d->unknown) {
		struct line l = { .n = 0 };

		put_dec(&l, (unsigned)d->unknown);
		put(&l, "", 1);
		ukcov__sancov_msg("ukcov: coverage: ", l.buf, strlen(l.buf),
				  " PCs in no known module were not written\n");
	}
}

static void report_lost(void)
{
	uint64_t lost = ukcov__sancov_pcset_lost();
	struct line l = { .n = 0 };

	if (!lost)
		return;
	put_dec(&l, (unsigned)lost);
	put(&l, "", 1);
	ukcov__sancov_msg("ukcov: coverage: the PC table was full; ", l.buf,
			  strlen(l.buf), " distinct PCs were not kept\n");
}

/* coverage_bitset / coverage_counters: one byte per guard of a module,
 * in guard order; a module reloaded after dlclose has its instances one
 * after the other. */
enum per_guard { BITSET, COUNTERS };

static uint8_t guard_byte(enum per_guard what, uint32_t g)
{
	if (what == BITSET)
		return __atomic_load_n(&__ukcov_sancov.guard_pcs[g],
				       __ATOMIC_RELAXED) ? '1' : '0';
	return ukcov__counter_bucket(__ukcov_sancov.counters[g]);
}

static void write_per_guard(enum per_guard what, const char *ext)
{
	uint32_t n = ukcov__sancov_nregions();

	for (uint32_t i = 0; i < n; i++) {
		const struct ukcov_region *r = ukcov__sancov_region(i), *q;
		struct line name = { .n = 0 };
		size_t total = 0, k = 0, bytes;
		uint8_t *buf;
		uint32_t j;

		if (r->kind != 0 || !r->path[0])
			continue;
		for (j = 0; j < i; j++) {	/* written with an earlier one */
			q = ukcov__sancov_region(j);
			if (q->kind == 0 && strcmp(q->path, r->path) == 0)
				break;
		}
		if (j < i)
			continue;
		for (j = i; j < n; j++) {
			q = ukcov__sancov_region(j);
			if (q->kind == 0 && strcmp(q->path, r->path) == 0)
				total += q->count;
		}
		bytes = total ? total : 1;
		buf = ukcov__real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			continue;
		for (j = i; j < n; j++) {
			q = ukcov__sancov_region(j);
			if (q->kind != 0 || strcmp(q->path, r->path) != 0)
				continue;
			for (uint32_t g = 0; g < q->count; g++)
				buf[k++] = guard_byte(what, q->first + g);
		}
		put(&name, base_name(r->path), strlen(base_name(r->path)));
		put(&name, ".", 1);
		put_dec(&name, (unsigned)getpid());
		put(&name, ext, strlen(ext) + 1);
		name.buf[sizeof(name.buf) - 1] = '\0';
		(void)write_file(name.buf, "", 0, buf, total);
		munmap(buf, bytes);
	}
}

void ukcov__sancov_dump(int in_signal)
{
	struct dumpset d;
	const struct modtab *t;
	size_t cap;
	int files = ukcov__sancov_opts.coverage &&
		((__atomic_load_n(&__ukcov_sancov.on, __ATOMIC_RELAXED) &
		  UKCOV_SANCOV_PCS) ||
		 (__atomic_load_n(&__ukcov_sancov.pc_on, __ATOMIC_RELAXED) &
		  UKCOV_SANCOV_PCSET));

	if (!files && !ukcov__sancov_trace_wanted())
		return;
	if (__atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE))
		return;		/* another thread, or a crash inside a dump */
	if (!in_signal)
		ukcov__sancov_modules_refresh();
	ukcov__sancov_trace_dump();	/* caller-callee, trace-* */
	if (!files) {
		__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
		return;
	}
	t = __atomic_load_n(&modules, __ATOMIC_ACQUIRE);
	cap = (size_t)ukcov__sancov_nguards() + ukcov__sancov_pcset_slots();
	if (dumpset_init(&d, cap) == 0) {
		collect_guards(&d);
		collect_pcset(&d, t);
		write_all_modules(&d);
		munmap(d.ent, d.bytes);
		report_lost();
	}
	if (ukcov__sancov_opts.bitset && __ukcov_sancov.guard_pcs)
		write_per_guard(BITSET, ".bitset-sancov");
	if (ukcov__sancov_opts.counters && __ukcov_sancov.counters)
		write_per_guard(COUNTERS, ".counters-sancov");
	__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
}

/* __sanitizer_dump_coverage: PCs the program collected (return
 * addresses minus one, as compiler-rt's), written per module. */
void ukcov__sancov_dump_pcs(const uintptr_t *pcs, uintptr_t len)
{
	struct dumpset d;

	if (!pcs || !len)
		return;
	if (__atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE))
		return;
	ukcov__sancov_modules_refresh();
	if (dumpset_init(&d, len) == 0) {
		const struct modtab *t = __atomic_load_n(&modules, __ATOMIC_ACQUIRE);

		for (uintptr_t i = 0; i < len; i++)
			if (pcs[i])
				add_pc(&d, t, pcs[i]);
		write_all_modules(&d);
		munmap(d.ent, d.bytes);
	}
	__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
}

/* The child of fork writes its own files (its pid differs): it owns
 * none yet.  A dump the parent was running is not the child's. */
void ukcov__sancov_dump_after_fork_child(void)
{
	nown = 0;
	__atomic_store_n(&dumping, 0, __ATOMIC_RELAXED);
}

/* ---- coverage_direct=1 ---- */

int ukcov__sancov_create_direct(const char *suffix)
{
	const char *dir = ukcov__sancov_opts.dir;
	struct line name = { .n = 0 }, path = { .n = 0 };
	struct stat st;
	int fd;

	put_dec(&name, (unsigned)getpid());
	put(&name, ".", 1);
	put(&name, suffix, strlen(suffix));
	name.buf[name.n] = '\0';
	put(&path, dir, strlen(dir));
	put(&path, "/", 1);
	put(&path, name.buf, name.n);
	if (path.n >= sizeof(path.buf) - 1) {
		ukcov__sancov_msg("ukcov: coverage file name too long in ", dir,
				  strlen(dir), "\n");
		return -1;
	}
	path.buf[path.n] = '\0';
	fd = ukcov__real_open(path.buf,
			      O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				      O_CLOEXEC,
			      0660);
	if (fd < 0) {
		if (errno == EEXIST)
			report(path.buf, ": exists and is not this process's "
					 "file; not overwritten\n");
		else
			report_open(dir, name.buf, path.buf, errno);
	} else if (fstat(fd, &st) == 0) {
		remember_own(&st);	/* for ukcov__sancov_unlink_own */
	}
	return fd;
}

/* In a fork child: the child's own <pid>.<suffix>, holding the first
 * copy bytes of the parent's file (mapped at base), and base's len bytes
 * remapped MAP_SHARED onto it, for the parent's MAP_SHARED mapping would
 * write into the parent's file.  On failure the range is remapped
 * private (recording goes on, nothing of the child's is written) and -1
 * returned; a file that cannot be created is reported. */
int ukcov__sancov_child_direct(const char *suffix, void *base, size_t copy,
			       size_t len)
{
	int fd = ukcov__sancov_create_direct(suffix);

	if (fd >= 0 && ukcov__write_all(fd, base, copy) == 0 &&
	    ukcov__real_mmap(base, len, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED)
		return fd;
	if (fd >= 0)
		ukcov__real_close(fd);
	if (ukcov__real_mmap(base, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			     0) == MAP_FAILED)
		ukcov__sancov_msg("ukcov: coverage_direct: cannot remap", "",
				  0, " in the child\n");
	return -1;
}

/* "64", then "start end base path" (hex) per module instance that has
 * guards, for "ukcov rawunpack" (sancov.py's .sancov.map). */
void ukcov__sancov_write_direct_map(void)
{
	uint32_t n = ukcov__sancov_nregions();
	size_t cap = (size_t)(n + 1) * (PATH_MAX + 64), len;
	char *buf = ukcov__real_mmap(NULL, cap, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct line name = { .n = 0 }, l;

	if (buf == MAP_FAILED)
		return;
	buf[0] = '6';
	buf[1] = '4';
	buf[2] = '\n';
	len = 3;
	for (uint32_t i = 0; i < n; i++) {
		const struct ukcov_region *r = ukcov__sancov_region(i);

		if (r->kind != 0 || !r->path[0] || r->lo >= r->hi)
			continue;
		l.n = 0;
		put_hex(&l, r->lo);
		put(&l, " ", 1);
		put_hex(&l, r->hi);
		put(&l, " ", 1);
		put_hex(&l, r->bias);
		put(&l, " ", 1);
		put(&l, r->path, strlen(r->path));
		put(&l, "\n", 1);
		memcpy(buf + len, l.buf, l.n);
		len += l.n;
	}
	put_dec(&name, (unsigned)getpid());
	put(&name, ".sancov.map", 12);
	name.buf[sizeof(name.buf) - 1] = '\0';
	(void)write_file(name.buf, buf, len, "", 0);
	munmap(buf, cap);
}
