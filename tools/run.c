/*
 * tools/run.c -- `ukcov run` (the kcovtrace of user space) and `ukcov
 * cmp` (decode a CMP buffer).
 *
 * run: open a Linux-flavor descriptor, KCOV_INIT_TRACE, mmap it, fork;
 * the child enables it and execs PROG.  By default in unique mode
 * (KCOV_UNIQUE_ENABLE: a bitmap at the head of the buffer, then a trace
 * that holds each point once, so no run overflows it); --mode pc and
 * cmp are the plain traces, cmp-unique is UKCOV_IOC_UNIQUE_ENABLE_CMP.
 * PROG,
 * whose libukcov takes the enabled descriptor over before main and keeps
 * recording into the same buffer; it also appends its module table to
 * $UKCOV_MODULES.  After waitpid the parent reads the buffer (count word
 * with acquire), maps each record to a module and prints or saves it.
 *
 * The buffer holds kcov's return addresses; like .sancov files, dumps and
 * printed offsets use the coverage point inside the call instruction:
 * return address - 1 on x86-64, - 4 on aarch64 (pc_to_point, per module).
 */
#include "ukcov.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/linux/kcov.h>

#include "dump.h"
#include "elfpoints.h"
#include "inputs.h"
#include "printer.h"
#include "run_tree.h"
#include "../lib/threadblock.h"

/* ---- cmp ---- */

/* The largest Linux kcov buffer: KCOV_INIT_TRACE refuses more than
 * INT_MAX / sizeof(unsigned long) words (Linux kernel/kcov.c
 * kcov_ioctl), i.e. (words - 1) / 4 CMP records. */
#define KCOV_MAX_WORDS ((uint64_t)INT_MAX / 8)
#define CMP_MAX_RECORDS ((KCOV_MAX_WORDS - 1) / 4)

/* One {type, arg1, arg2, ip} record; -1 with err if it cannot be one. */
static int cmp_record(const uint64_t r[4], size_t i, const struct dump *mods,
		      struct cmp_rec *c, char err[ERRLEN])
{
	uint64_t off;
	int m;

	if (r[0] & ~(uint64_t)7) {
		snprintf(err, ERRLEN, "record %zu: 0x%llx is not a CMP type (a "
			 "PC-mode buffer?)", i, (unsigned long long)r[0]);
		return -1;
	}
	if (r[3] == 0) {
		snprintf(err, ERRLEN, "record %zu: PC 0 is not a return "
			 "address (not a CMP buffer?)", i);
		return -1;
	}
	/* Every PC ukcov shows is the coverage point, inside a module or
	 * not (docs/FORMATS.md, PC conventions; lib/dump.c). */
	off = dump_record_point(mods, r[3], &m);
	*c = (struct cmp_rec){ m, off, r[0], r[1], r[2] };
	return 0;
}

/* The count word; the file must hold that many records (its size says
 * so before anything else is read), and no more than a kcov buffer can. */
static int cmp_count(int fd, uint64_t *count, char err[ERRLEN])
{
	struct stat st;
	ssize_t n = read_full(fd, count, 8);
	uint64_t have;

	if (n < 0 || fstat(fd, &st) < 0) {
		snprintf(err, ERRLEN, "%s", strerror(errno));
		return -1;
	}
	if (n < 8) {
		snprintf(err, ERRLEN, "not a CMP buffer: too small (%zd bytes)",
			 n);
		return -1;
	}
	have = S_ISREG(st.st_mode) ? (uint64_t)(st.st_size - 8) / 32
				   : CMP_MAX_RECORDS;
	if (*count > have) {
		snprintf(err, ERRLEN, "truncated: the count word says %llu "
			 "records, the file holds %llu",
			 (unsigned long long)*count, (unsigned long long)have);
		return -1;
	}
	if (*count > CMP_MAX_RECORDS) {
		snprintf(err, ERRLEN, "too large: the count word says %llu "
			 "records, a kcov buffer holds at most %llu",
			 (unsigned long long)*count,
			 (unsigned long long)CMP_MAX_RECORDS);
		return -1;
	}
	return 0;
}

/* A raw kcov CMP buffer, streamed: count word, then {type, arg1, arg2,
 * ip} records; the unused rest of the buffer is not read. */
static int read_cmp_buffer(int fd, struct dump *d, const struct dump *mods,
			   char err[ERRLEN])
{
	enum { BATCH = 2048 };
	uint64_t count, (*recs)[4];
	int r = cmp_count(fd, &count, err);

	if (r < 0)
		return -1;
	recs = xmalloc(BATCH * sizeof(*recs));
	for (uint64_t i = 0; r == 0 && i < count;) {
		size_t want = count - i < BATCH ? (size_t)(count - i) : BATCH;
		ssize_t n = read_full(fd, recs, want * sizeof(*recs));

		if (n < (ssize_t)(want * sizeof(*recs))) {
			snprintf(err, ERRLEN, "truncated: the count word says "
				 "%llu records, the file holds %zu",
				 (unsigned long long)count,
				 i + (n > 0 ? (size_t)n / 32 : 0));
			r = -1;
		}
		for (size_t k = 0; r == 0 && k < want; k++, i++) {
			struct cmp_rec c;

			r = cmp_record(recs[k], (size_t)i, mods, &c, err);
			if (r == 0)
				dump_add_cmp(d, &c);
		}
	}
	free(recs);
	return r;
}

static int load_modules_file(const char *path, long pid, struct dump *d)
{
	char *buf, err[ERRLEN];
	size_t len, nul;
	int r = read_text_file(path, &buf, &len, &nul);

	if (r < 0) {
		msg_error("%s: %s", path, strerror(-r));
		return -1;
	}
	if (nul != SIZE_MAX) {
		snprintf(err, ERRLEN, "not a module table: NUL byte at byte "
			 "offset %zu (a text format)", nul);
		r = -1;
	} else {
		r = modules_parse(buf, len, pid, d, err);
	}
	free(buf);
	if (r < 0)
		msg_error("%s: %s", path, err);
	else
		dump_read_machines(d);
	return r;
}

static void copy_modules(struct dump *dst, const struct dump *src)
{
	for (size_t i = 0; i < src->nmods; i++) {
		const struct dump_module *m = &src->mods[i];

		dump_add_module(dst, m->path, m->build_id, m->build_id_len,
				m->bias, m->lo, m->hi);
	}
}

/* A cmp dump, or a raw CMP buffer decoded with the module table mods. */
static int load_cmp_input(const char *path, const struct dump *mods,
			  struct dump *d)
{
	char err[ERRLEN];
	enum input_kind k;
	int fd, r = input_kind(path, &k);

	if (r == 0 && k == INPUT_DUMP) {
		if (dump_load(path, d) < 0)
			return -1;
		if (d->cmp)
			return 0;
		msg_error("%s: a PC dump, not a cmp dump", path);
		return -1;
	}
	fd = r < 0 ? r : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		msg_error("%s: %s", path, strerror(r < 0 ? -r : errno));
		return -1;
	}
	copy_modules(d, mods);
	r = read_cmp_buffer(fd, d, mods, err);
	close(fd);
	if (r < 0)
		msg_error("%s: %s", path, err);
	return r;
}

int cmd_cmp(struct options *o)
{
	struct dump d = { 0 }, mods = { 0 };
	struct strbuf sb = { 0 };
	int r;

	if (o->nargs != 1) {
		msg_error("cmp takes one CMP buffer or cmp dump");
		return EXIT_USAGE;
	}
	if (o->modules && load_modules_file(o->modules, 0, &mods) < 0)
		return EXIT_DATA;
	r = load_cmp_input(o->args[0], &mods, &d);
	dump_free(&mods);
	if (r < 0) {
		dump_free(&d);
		return EXIT_DATA;
	}
	print_symbolized(&d, NULL, o->args[0], NULL, 0, o, &sb);
	r = emit(o, &sb);
	sb_free(&sb);
	dump_free(&d);
	return r;
}

/* ---- run ---- */

struct runtime {
	int (*open)(int flavor);
	int (*ioctl)(int fd, unsigned long req, ...);
	int (*execvp)(const char *file, char *const argv[]);
};

/* libukcov.so.0 next to the tool (build tree), in ../lib (installed),
 * or wherever $UKCOV_LIB says; the tool itself never links it. */
static int load_runtime(struct runtime *rt)
{
	char exe[PATH_MAX], *cands[4] = { 0 };
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void *h = NULL;
	int k = 0;

	if (getenv("UKCOV_LIB"))
		cands[k++] = xstrdup(getenv("UKCOV_LIB"));
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		cands[k++] = xasprintf("%s/libukcov.so.0", exe);
		cands[k++] = xasprintf("%s/../lib/libukcov.so.0", exe);
	}
	cands[k++] = xstrdup("libukcov.so.0");
	for (int i = 0; i < k && !h; i++)
		h = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		msg_error("cannot load the runtime libukcov.so.0 (looked at "
			  "$UKCOV_LIB, %s, %s and the library path): %s",
			  cands[k - 3 >= 0 ? k - 3 : 0], cands[k - 2 >= 0 ? k - 2 : 0],
			  dlerror());
	for (int i = 0; i < k; i++)
		free(cands[i]);
	if (!h)
		return -1;
	*(void **)&rt->open = dlsym(h, "ukcov_open");
	*(void **)&rt->ioctl = dlsym(h, "ukcov_ioctl");
	/* The runtime's exec wrapper marks the exec for the takeover. */
	*(void **)&rt->execvp = dlsym(h, "execvp");
	if (!rt->execvp)
		rt->execvp = execvp;
	if (!rt->open || !rt->ioctl) {
		msg_error("libukcov.so.0 lacks ukcov_open/ukcov_ioctl");
		return -1;
	}
	return 0;
}

struct session {
	struct runtime rt;
	int fd;
	uint64_t *area;		/* the mapped buffer */
	size_t words;
	uint64_t bitmap;	/* bitmap words of a unique mode, or 0 */
	bool text_bits; /* the bitmap is the default's: see tree_setenv */
	bool cmp;
	bool all_threads;	/* --threads all */
	char modules[PATH_MAX];	/* the UKCOV_MODULES file */
	char threads[PATH_MAX];	/* the UKCOV_THREADS_OUT file */
	char *tbuf;		/* its content */
	struct thread_block *blocks;
	size_t nblocks;
	bool followed;		/* the runtime wrote its setup block */
	pid_t pid;
	int status;
	uint64_t dropped;
	uint64_t handles[KCOV_REMOTE_MAX_HANDLES];	/* --remote */
	uint64_t common;	/* --common: the client's common handle */
	uint32_t nhandles;
	bool remote;		/* --remote: a KCOV_REMOTE_ENABLE collection */
	bool follow;		/* the whole process tree (not --no-follow) */
	char tree[PATH_MAX];	/* its directory (lib/tree.c) */
	struct tree_stats ts;
};

/* One thread's records from the UKCOV_THREADS_OUT file (lib/follow.c). */
struct thread_block {
	uint64_t tid;
	const uint64_t *recs;
	size_t count;
};

static int open_descriptor(struct session *s, unsigned long size)
{
	if (size < 2 || size > (1UL << 31)) {
		msg_error("--size %lu: need 2 .. 2^31 words", size);
		return EXIT_USAGE;
	}
	if (s->bitmap && s->bitmap >= size - 1) {
		msg_error("--bitmap %llu: must leave at least 2 of the %lu "
			  "words for the trace", (unsigned long long)s->bitmap,
			  size);
		return EXIT_USAGE;
	}
	s->fd = s->rt.open(UKCOV_LINUX);
	if (s->fd < 0 || s->rt.ioctl(s->fd, KCOV_INIT_TRACE, size) < 0) {
		msg_error("cannot set up a kcov descriptor: %s",
			  strerror(errno));
		return EXIT_DATA;
	}
	s->words = size;
	s->area = mmap(NULL, size * 8, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->fd, 0);
	if (s->area == MAP_FAILED) {
		msg_error("cannot map the kcov buffer: %s", strerror(errno));
		return EXIT_DATA;
	}
	return 0;
}

static int enable(struct session *s)
{
	if (s->bitmap)
		return s->rt.ioctl(s->fd, s->cmp ? UKCOV_IOC_UNIQUE_ENABLE_CMP
						 : KCOV_UNIQUE_ENABLE,
				   (unsigned long)s->bitmap);
	return s->rt.ioctl(s->fd, KCOV_ENABLE,
			   s->cmp ? KCOV_TRACE_CMP : KCOV_TRACE_PC);
}

/* UKCOV_TREE=MODE,ENTRIES,BITMAP_WORDS,THREADS,DIR: what every other
 * process of the tree records, and where (lib/tree.c).  The numbers
 * are zero-padded to a fixed width, so that the environment, and with
 * it the stack the program starts on, has the same size whatever the
 * mode and sizes: two runs compared point for point (unique against a
 * full trace) must run the same program in the same layout.
 *
 * The default bitmap of the unique PC mode is "+" and its base (9
 * digits): each process adds a bit per byte of its own executable's
 * text, as default_bitmap does for the traced program.  The traced
 * program is often a shell or make, whose text is not the tests':
 * with its bitmap, a larger program of the tree (jq 1.6's text is 3.2
 * times make's) has no direct bits and every point it runs takes the
 * hashed path (lib/unique.c, "Direct bits"): jq's `make check` ran
 * 1.9 times as long. */
static void tree_setenv(const struct session *s)
{
	char bitmap[16], *v;

	if (s->text_bits)
		snprintf(bitmap, sizeof(bitmap), "+%09u",
			 UKCOV_DEFAULT_BITMAP_BASE);
	else
		snprintf(bitmap, sizeof(bitmap), "%010llu",
			 (unsigned long long)s->bitmap);
	if (asprintf(&v, "%d,%010zu,%s,%d,%s", s->cmp ? 2 : 1, s->words, bitmap,
		     s->all_threads ? 1 : 0, s->tree) < 0)
		return;
	setenv("UKCOV_TREE", v, 1);
	free(v);
}

static void child(struct session *s, char **argv)
{
	children_restore();
	setenv("UKCOV_MODULES", s->modules, 1);
	if (s->remote) {
		char v[32];

		/* The collector is the tool; the client only feeds it,
		 * with the common handle across its exec. */
		unsetenv("UKCOV_REMOTE_MODULES");
		snprintf(v, sizeof(v), "0x%llx", (unsigned long long)s->common);
		if (s->common)
			setenv("UKCOV_COMMON_HANDLE", v, 1);
		s->rt.execvp(argv[0], argv);
		fprintf(stderr, "ukcov: error: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (s->all_threads)
		setenv("UKCOV_THREADS_OUT", s->threads, 1);
	else
		unsetenv("UKCOV_THREADS_OUT");
	if (s->follow)
		tree_setenv(s);
	else
		unsetenv("UKCOV_TREE");
	if (enable(s) < 0) {
		fprintf(stderr, "ukcov: error: %s: %s\n",
			s->bitmap ? "KCOV_UNIQUE_ENABLE" : "KCOV_ENABLE",
			strerror(errno));
		_exit(127);
	}
	s->rt.execvp(argv[0], argv);
	fprintf(stderr, "ukcov: error: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * Where the tree's buffers go: $TMPDIR if set, else /dev/shm when it
 * has 1 GiB free, else /tmp.  Each process of the tree creates, sizes
 * and maps a file there (lib/tree.c): on tmpfs that costs 0.6 ms a
 * process, on this machine's ext4 /tmp 3-6 ms (300 runs of a small
 * program: 0.90 s against 1.33 s; the core suite's 1252 processes:
 * 5.3 s against 12.4 s).  A small /dev/shm (a container's 64 MB) would
 * refuse buffers of processes that run at once.
 */
static const char *tree_base(void)
{
	const char *tmp = getenv("TMPDIR");
	struct statvfs vfs;

	if (tmp && *tmp)
		return tmp;
	if (statvfs("/dev/shm", &vfs) == 0 && access("/dev/shm", W_OK) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize >= (1ULL << 30))
		return "/dev/shm";
	return "/tmp";
}

/* The directory the tree's processes write their buffers to. */
static int make_tree_dir(struct session *s)
{
	const char *base = tree_base();
	int n = snprintf(s->tree, sizeof(s->tree), "%s/ukcov-tree-XXXXXX",
			 base);

	if (n < 0 || (size_t)n >= sizeof(s->tree)) {
		/* Only $TMPDIR can be that long (tree_base). */
		msg_error("$TMPDIR is too long (%zu bytes): the process "
			  "tree's directory in it needs more than %zu bytes",
			  strlen(base), sizeof(s->tree) - 1);
		s->tree[0] = '\0';
		return EXIT_DATA;
	}
	if (!mkdtemp(s->tree)) {
		msg_error("%s: %s", s->tree, strerror(errno));
		s->tree[0] = '\0';
		return EXIT_DATA;
	}
	return 0;
}

/* An empty temporary file for the child to append to, in $TMPDIR or
 * /tmp.  A directory too long for a path is an error: cutting it would
 * name another directory, where the files would land. */
static int make_temp(char *path, size_t size, const char *what)
{
	const char *tmp = getenv("TMPDIR");
	int n, fd;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(path, size, "%s/ukcov-%s-XXXXXX", tmp, what);
	if (n < 0 || (size_t)n >= size) {
		msg_error("$TMPDIR is too long (%zu bytes): a temporary file "
			  "in it needs more than %zu bytes", strlen(tmp),
			  size - 1);
		path[0] = '\0';
		return EXIT_DATA;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		msg_error("%s: %s", path, strerror(errno));
		path[0] = '\0';
		return EXIT_DATA;
	}
	close(fd);
	return 0;
}

/* The runtime keeps UKCOV_REMOTE_MODULES in the control block's
 * remote_modules[256] and ignores a longer path (lib/internal.h,
 * lib/remote.c remote_modules_path). */
#define REMOTE_MODULES_MAX 256

/* --remote: this process collects (Linux KCOV_REMOTE_ENABLE), and
 * the processes that feed it append their module tables to the same
 * file as the client (UKCOV_REMOTE_MODULES, lib/remote.c). */
static int remote_enable(struct session *s)
{
	struct kcov_remote_arg *ra;
	int r = 0;

	if (strlen(s->modules) >= REMOTE_MODULES_MAX) {
		msg_error("--remote: the module table's path in $TMPDIR has "
			  "%zu bytes, more than the runtime's %d",
			  strlen(s->modules), REMOTE_MODULES_MAX - 1);
		return EXIT_DATA;
	}
	ra = xcalloc(1, sizeof(*ra) + s->nhandles * sizeof(uint64_t));
	ra->trace_mode = s->cmp ? KCOV_TRACE_CMP : KCOV_TRACE_PC;
	ra->area_size = (uint32_t)s->words;
	ra->num_handles = s->nhandles;
	ra->common_handle = s->common;
	memcpy(ra->handles, s->handles, s->nhandles * sizeof(uint64_t));
	setenv("UKCOV_REMOTE_MODULES", s->modules, 1);
	if (s->rt.ioctl(s->fd, KCOV_REMOTE_ENABLE, ra) < 0) {
		msg_error("KCOV_REMOTE_ENABLE: %s%s", strerror(errno),
			  errno == EEXIST ? " (a handle is collected by "
					    "another process)" : "");
		r = EXIT_DATA;
	}
	free(ra);
	return r;
}

static int launch(struct session *s, char **argv)
{
	if (make_temp(s->modules, sizeof(s->modules), "mod") ||
	    (s->all_threads &&
	     make_temp(s->threads, sizeof(s->threads), "thr")))
		return EXIT_DATA;
	if (s->remote && remote_enable(s))
		return EXIT_DATA;
	if (s->follow && make_tree_dir(s))
		return EXIT_DATA;
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		msg_error("fork: %s", strerror(errno));
		return EXIT_DATA;
	}
	if (s->pid == 0)
		child(s, argv);
	while (waitpid(s->pid, &s->status, 0) < 0)
		if (errno != EINTR) {
			msg_error("waitpid: %s", strerror(errno));
			return EXIT_DATA;
		}
	s->rt.ioctl(s->fd, UKCOV_IOC_DROPPED, &s->dropped);
	return 0;
}

/* The thread blocks lib/follow.c appended: a 6-word header {magic,
 * tid, mode, count, dropped, 0} and count records.  The first block
 * (tid 0, no records) says the runtime followed the threads: only
 * libukcov.a linked without --wrap=pthread_create writes none. */
static int load_thread_blocks(struct session *s)
{
	size_t len, off = 0, rec = s->cmp ? 4 : 1;
	int r = read_whole_file(s->threads, &s->tbuf, &len);

	if (r < 0) {
		msg_error("%s: %s", s->threads, strerror(-r));
		return -1;
	}
	while (len - off >= 48) {
		const uint64_t *h = (const void *)(s->tbuf + off);
		size_t bytes;

		if (h[UKCOV_TB_MAGIC] != UKCOV_THREADBLOCK_MAGIC || h[2] != (s->cmp ? 2u : 1u) ||
		    h[3] > (len - off - 48) / (rec * 8)) {
			msg_error("%s: corrupt thread block at byte %zu",
				  s->threads, off);
			return -1;
		}
		bytes = 48 + h[3] * rec * 8;
		if (h[1] == 0) {
			s->followed = true;
		} else {
			s->blocks = xrealloc(s->blocks, (s->nblocks + 1) *
					     sizeof(*s->blocks));
			s->blocks[s->nblocks++] = (struct thread_block){
				h[1], h + 6, h[3] };
			s->dropped += h[4];
		}
		off += bytes;
	}
	if (off != len) {
		msg_error("%s: truncated thread block at byte %zu", s->threads,
			  off);
		return -1;
	}
	return 0;
}

/* --threads all, but the program's runtime wrote no setup block: say
 * so if it recorded anything (a program without libukcov, such as the
 * shell of a tree, has no threads to follow). */
static void warn_unfollowed(const struct session *s, size_t count)
{
	if (!s->all_threads || s->followed || count == 0)
		return;
	msg_warn("the program's runtime did not follow its threads: "
		 "only the main thread was traced (a program linked "
		 "with libukcov.a sees pthread_create only through "
		 "the linker's wrap: link it with "
		 "$(pkg-config --static --libs ukcov) or "
		 "-Wl,--wrap=pthread_create)");
}

/* Records -> dump: PCs (unique, per module) or CMP records (in order). */
static void add_records(const struct session *s, struct dump *d,
			struct pcvec *unknown, const uint64_t *recs,
			size_t count)
{
	size_t rec = s->cmp ? 4 : 1;

	for (size_t i = 0; i < count; i++) {
		const uint64_t *r = &recs[i * rec];
		int m;
		uint64_t off = dump_record_point(d, s->cmp ? r[3] : r[0], &m);

		if (s->cmp) {
			struct cmp_rec c = { m, off, r[0], r[1], r[2] };

			dump_add_cmp(d, &c);
		} else if (m < 0) {
			pcvec_push(unknown, off);
		} else {
			pcvec_push(&d->mods[m].pcs, off);
		}
	}
}

/* The trace of the main thread's buffer (after the bitmap in a unique
 * mode): its records and their count, bounded by the capacity (the
 * program may scribble on the buffer). */
static const uint64_t *main_trace(const struct session *s, size_t *count)
{
	const uint64_t *tr = s->area + s->bitmap;
	uint64_t n = __atomic_load_n(&tr[0], __ATOMIC_ACQUIRE);
	size_t max = (s->words - s->bitmap - 1) / (s->cmp ? 4 : 1);

	*count = n < max ? (size_t)n : max;
	return tr + 1;
}

/* The main thread's buffer, then every followed thread's records. */
static size_t collect_records(struct session *s, struct dump *d,
			      struct pcvec *unknown)
{
	size_t count, total;
	const uint64_t *recs = main_trace(s, &count);

	add_records(s, d, unknown, recs, count);
	total = count;
	for (size_t b = 0; b < s->nblocks; b++) {
		add_records(s, d, unknown, s->blocks[b].recs,
			    s->blocks[b].count);
		total += s->blocks[b].count;
	}
	for (size_t i = 0; i < d->nmods; i++)
		pcvec_sort_unique(&d->mods[i].pcs, false);
	pcvec_sort_unique(unknown, false);
	return total;
}

static void print_raw_records(const struct session *s, const uint64_t *recs,
			      size_t count, struct strbuf *sb)
{
	for (size_t i = 0; i < count; i++) {
		const uint64_t *r = &recs[i * (s->cmp ? 4 : 1)];

		if (s->cmp)
			sb_printf(sb, "0x%llx 0x%llx 0x%llx 0x%llx\n",
				  (unsigned long long)r[0],
				  (unsigned long long)r[1],
				  (unsigned long long)r[2],
				  (unsigned long long)r[3]);
		else
			sb_printf(sb, "0x%llx\n", (unsigned long long)r[0]);
	}
}

/* The raw trace: the main thread's records, then each followed
 * thread's under a "# thread TID" line. */
static void print_raw(const struct session *s, struct strbuf *sb)
{
	size_t count;
	const uint64_t *recs = main_trace(s, &count);

	print_raw_records(s, recs, count, sb);
	for (size_t b = 0; b < s->nblocks; b++) {
		sb_printf(sb, "# thread %llu\n",
			  (unsigned long long)s->blocks[b].tid);
		print_raw_records(s, s->blocks[b].recs, s->blocks[b].count, sb);
	}
}

/* What the other processes of the tree gave (tree_report collected it). */
static void tree_note(const struct session *s)
{
	const struct tree_stats *t = &s->ts;

	if (t->processes)
		msg_note("%zu more process%s of its tree: %zu records, %llu "
			 "dropped", t->processes, t->processes == 1 ? "" : "es",
			 t->records, (unsigned long long)t->dropped);
}

static int child_status(const struct session *s, const char *prog,
			size_t count, const struct pcvec *unknown)
{
	int code = WIFEXITED(s->status) ? WEXITSTATUS(s->status)
					: 128 + WTERMSIG(s->status);

	/* With a tree, say the count is the program's alone: "make ...; 0
	 * records" read as a failure when its children recorded plenty. */
	const char *own = s->ts.processes ? " of its own" : "";
	unsigned long long own_dropped = s->dropped - s->ts.dropped;

	if (WIFSIGNALED(s->status))
		msg_note("%s killed by signal %d (%s); %zu records%s, %llu "
			 "dropped", prog, WTERMSIG(s->status),
			 strsignal(WTERMSIG(s->status)), count, own,
			 own_dropped);
	else
		msg_note("%s exited with status %d; %zu records%s, %llu "
			 "dropped", prog, code, count, own, own_dropped);
	tree_note(s);
	if (s->dropped && s->bitmap)
		msg_warn("coverage is incomplete: a larger --bitmap (now %llu "
			 "words) or --size would keep every point",
			 (unsigned long long)s->bitmap);
	else if (s->dropped)
		msg_warn("coverage is incomplete: the trace overflowed; "
			 "--mode unique records each point once");
	if (unknown->n)
		msg_warn("%zu PCs are outside every module of %s's table "
			 "(a dump keeps module offsets only: --raw shows "
			 "them)", unknown->n, prog);
	return code;
}

/* The file execvp would run for prog, into path (PATH searched as the
 * shell does); 0 if found. */
static int find_program(const char *prog, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *p, *e;

	if (strchr(prog, '/'))
		return snprintf(path, len, "%s", prog) < (int)len ? 0 : -1;
	for (p = dirs ? dirs : "/usr/bin:/bin"; p; p = *e ? e + 1 : NULL) {
		e = strchrnul(p, ':');
		if (snprintf(path, len, "%.*s%s%s", (int)(e - p), p,
			     e > p ? "/" : "", prog) < (int)len &&
		    access(path, X_OK) == 0)
			return 0;
	}
	return -1;
}

/*
 * Unique modes' default bitmap: 4096 words are 2^18 hashed slots,
 * several times the points of sqlite or Lua, plus, for the unique PC
 * mode, a bit per byte of the program's executable text (libukcov
 * gives its PCs a bit each, with no hash: lib/unique.c, "Direct bits";
 * 44 KiB more of bitmap for Lua's 350 KiB of text), all in a quarter of the
 * buffer at most (docs/DESIGN.md, Unique coverage).
 */
static uint64_t default_bitmap(unsigned long size, const char *prog,
			       int cmp)
{
	uint64_t w = UKCOV_DEFAULT_BITMAP_BASE, q = size / 4;
	char path[4096], err[ERRLEN];
	struct elf_info info;

	if (!cmp && find_program(prog, path, sizeof(path)) == 0 &&
	    elf_read_info(path, &info, err) == 0 && info.text_span)
		w += info.text_span / 64 + 2;
	return w > q ? (q ? q : 1) : w;
}

/* --remote 0x100000000000001,0x200000000000005: Linux handles, the
 * kernel's checks left to KCOV_REMOTE_ENABLE.  --mode pc (the default
 * here) or cmp: remote sections have no unique mode. */
static int remote_checks(const struct options *o, struct session *s)
{
	const char *p = o->remote;
	char *end;

	if (!p || !*p) {
		msg_error("run: --common goes with --remote HANDLE[,HANDLE...]");
		return EXIT_USAGE;
	}
	if (strcmp(o->mode, "unique") != 0 && strcmp(o->mode, "pc") != 0 &&
	    strcmp(o->mode, "cmp") != 0) {
		msg_error("run: --remote collects --mode pc or cmp");
		return EXIT_USAGE;
	}
	if (o->bitmap || strcmp(o->threads, "main") != 0) {
		msg_error("run: --remote goes with neither --bitmap nor "
			  "--threads");
		return EXIT_USAGE;
	}
	for (;;) {
		if (s->nhandles == KCOV_REMOTE_MAX_HANDLES) {
			msg_error("run: --remote: at most %d handles",
				  KCOV_REMOTE_MAX_HANDLES);
			return EXIT_USAGE;
		}
		errno = 0;
		s->handles[s->nhandles++] = strtoull(p, &end, 0);
		if (end == p || errno || (*end && *end != ',')) {
			msg_error("run: --remote %s: not a list of handles",
				  o->remote);
			return EXIT_USAGE;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	s->remote = true;
	s->cmp = strcmp(o->mode, "cmp") == 0;
	s->bitmap = 0;
	/* As kcov.rst suggests for several processes: the pid as the
	 * common handle's instance. */
	if (o->common)
		s->common = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON,
					       (uint64_t)getpid());
	return 0;
}

static int run_checks(const struct options *o, struct session *s)
{
	bool unique = !strcmp(o->mode, "unique") ||
		      !strcmp(o->mode, "cmp-unique");

	if ((strcmp(o->threads, "main") != 0 && strcmp(o->threads, "all") != 0) ||
	    (!unique && strcmp(o->mode, "pc") != 0 && strcmp(o->mode, "cmp") != 0)) {
		msg_error("run: --mode unique|pc|cmp|cmp-unique and --threads "
			  "main|all");
		return EXIT_USAGE;
	}
	if (o->bitmap && !unique) {
		msg_error("run: --bitmap goes with --mode unique or cmp-unique");
		return EXIT_USAGE;
	}
	if (o->nargs < 1) {
		msg_error("run: missing the program (ukcov run -- PROG ARGS)");
		return EXIT_USAGE;
	}
	if (o->remote || o->common)
		return remote_checks(o, s);
	s->cmp = !strncmp(o->mode, "cmp", 3);
	s->bitmap = !unique ? 0 : o->bitmap ? o->bitmap
			 : default_bitmap(o->size, o->args[0], s->cmp);
	s->text_bits = unique && !o->bitmap && !s->cmp;
	return 0;
}

/* The other processes of the tree, united into d, and a note saying
 * what they gave. */
static int tree_report(struct session *s, struct dump *d)
{
	struct tree_stats *t = &s->ts;

	if (tree_collect(s->tree, s->cmp, d, t) < 0)
		return EXIT_DATA;
	s->dropped += t->dropped;
	if (t->bad)
		msg_warn("%zu files of the tree's processes were corrupt or "
			 "truncated and were skipped", t->bad);
	if (t->outside)
		msg_warn("%zu PCs of the tree's processes are outside their "
			 "module tables (dropped)", t->outside);
	return 0;
}

/* Did processes other than pid append module tables to the file?  The
 * traced program's children inherit UKCOV_MODULES, not the descriptor. */
static bool others_wrote_modules(const char *path, pid_t pid)
{
	char *buf;
	const char *p;
	size_t len;
	bool found = false;

	if (read_whole_file(path, &buf, &len) < 0)
		return false;
	/* buf is NUL-terminated (read_whole_file). */
	for (p = buf; p && !found; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		long q;

		found = sscanf(p, "M %ld ", &q) == 1 && q != (long)pid;
	}
	free(buf);
	return found;
}

/* A run that recorded nothing says why: the program did not load the
 * runtime, or ran no instrumented code; with --no-follow, its children,
 * which may have, were not traced (the kcov descriptor is the traced
 * process's, as with kcovtrace). */
static void explain_no_records(const struct session *s, const char *prog,
			       const struct dump *d)
{
	bool children = !s->follow && others_wrote_modules(s->modules, s->pid);

	if (s->ts.processes)
		msg_warn("0 records: neither %s nor the %zu processes of its "
			 "tree that load libukcov ran instrumented code", prog,
			 s->ts.processes);
	else if (children)
		msg_warn("0 records: %s ran no instrumented code itself; its "
			 "child processes did, but --no-follow traces only the "
			 "process it starts", prog);
	else if (!d->nmods)
		msg_warn("0 records: %s ran no instrumented code (it did not "
			 "load libukcov: build it with ukcov-cc)", prog);
	else
		msg_warn("0 records: %s ran none of its instrumented code",
			 prog);
}

/* The dump of a run, saying how it was collected. */
static void serialize_run(const struct session *s, struct dump *d,
			  struct strbuf *sb)
{
	char v[64];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->dropped);
	dump_add_info(d, "dropped", v);
	snprintf(v, sizeof(v), "%d", s->status);
	dump_add_info(d, "wait-status", v);
	dump_add_info(d, "collection", s->remote ? "remote" :
			  s->bitmap ? "unique" : "trace");
	if (s->bitmap) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)s->bitmap);
		dump_add_info(d, "bitmap-words", v);
	}
	dump_serialize(d, sb);
}

/*
 * Without -o the output goes to a new file ukcov.<pid>.dump (.raw with
 * --raw) in the current directory, never to standard output: that is
 * the program's too, and a reader of it could not tell the two apart.
 * So does sancov (<binary>.<pid>.sancov) and perf record (perf.data).
 * "-o -" asks for standard output.  An existing file is not replaced.
 */
static int write_run(const struct options *o, const struct session *s,
		     const struct strbuf *sb)
{
	char name[64];
	FILE *f = NULL;
	int fd, e = 0;

	if (o->output)
		return emit(o, sb);
	snprintf(name, sizeof(name), "ukcov.%ld.%s", (long)s->pid,
		 o->raw ? "raw" : "dump");
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "wb")))
		e = errno;
	else if ((sb->n && fwrite(sb->s, 1, sb->n, f) != sb->n) || fflush(f))
		e = errno ? errno : EIO;
	if (f && fclose(f) != 0 && !e)
		e = errno;
	else if (!f && fd >= 0)
		close(fd);
	if (e) {
		if (fd >= 0)	/* ours (O_EXCL): no half-written dump */
			unlink(name);
		msg_error("%s: %s%s", name, strerror(e), e == EEXIST ?
			  " (not replaced: name the output with -o)" : "");
		return EXIT_DATA;
	}
	if (o->raw)
		msg_note("records saved to %s", name);
	else
		msg_note("points saved to %s (ukcov print --lines %s lists "
			 "them)", name, name);
	return 0;
}

static int report_run(struct options *o, struct session *s)
{
	struct dump d = { 0 };
	struct pcvec unknown = { 0 };
	struct strbuf sb = { 0 };
	size_t count;
	int r = 0, code;

	/* A remote collection holds PCs of every process that fed it:
	 * all their tables. */
	if (load_modules_file(s->modules, s->remote ? 0 : s->pid, &d) < 0 ||
	    (s->all_threads && load_thread_blocks(s) < 0))
		r = EXIT_DATA;
	d.cmp = s->cmp;
	count = collect_records(s, &d, &unknown);
	warn_unfollowed(s, count);
	if (!r && s->follow)
		r = tree_report(s, &d);
	code = child_status(s, o->args[0], count, &unknown);
	if (!r && !count && !s->dropped && !s->remote && !s->ts.records)
		explain_no_records(s, o->args[0], &d);
	if (!r) {
		if (o->raw)
			print_raw(s, &sb);
		else
			serialize_run(s, &d, &sb);
		r = write_run(o, s, &sb);
	}
	sb_free(&sb);
	pcvec_free(&unknown);
	dump_free(&d);
	return r ? r : code;
}

int cmd_run(struct options *o)
{
	struct session s = { .fd = -1 };
	int r = run_checks(o, &s);

	s.all_threads = !r && !strcmp(o->threads, "all");
	s.follow = !r && o->follow && !s.remote;
	if (!r && load_runtime(&s.rt) < 0)
		r = EXIT_DATA;
	if (!r)
		r = open_descriptor(&s, o->size);
	if (!r)
		r = launch(&s, o->args);
	if (!r)
		r = report_run(o, &s);
	if (s.modules[0])
		unlink(s.modules);
	if (s.threads[0])
		unlink(s.threads);
	if (s.tree[0])
		tree_remove(s.tree);
	free(s.tbuf);
	free(s.blocks);
	return r;
}
