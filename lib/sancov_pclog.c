/*
 * lib/sancov_pclog.c -- coverage_direct=1 for trace-pc builds (gcc's
 * and clang's -fsanitize-coverage=trace-pc), which have no guards.
 *
 * The guard version maps the guard table itself as <pid>.sancov.raw
 * (sancov.c).  A trace-pc build has no numbering to index a table by,
 * so its PCs go to an append-only log, <pid>.pc.sancov.raw, with
 * <pid>.pc.sancov.map beside it ("ukcov rawunpack" reads the pair as it
 * reads sancov.py's):
 *
 *   trace_pc -> PC set (sancov.c, the same process-wide set coverage=1
 *               keeps) -> the thread whose compare-and-swap inserted a
 *               new PC appends it here: one atomic add claims a word,
 *               one store writes it into the MAP_SHARED log.
 *
 * So each distinct PC is written once, as it is first seen, and it is
 * in the page cache when the store retires: SIGKILL loses nothing.  The
 * log is mapped at setup for PCLOG_WORDS words (the PC set's size: every
 * PC the set can hold fits) over a file that starts empty and grows
 * PCLOG_CHUNK words at a time.  Growing is the one system call on this
 * path, once per PCLOG_CHUNK new PCs: a one-byte pwrite(2) of 0 at the
 * last byte of the new size.  pwrite beyond the end extends the file
 * and never shrinks it, so threads growing at once need no lock; the
 * byte is the top byte of a word, which is 0 in every user-space PC, so
 * a word already stored there is left as it was.  Nothing here takes a
 * lock or calls into libc beyond that pwrite: it runs inside callbacks,
 * signal handlers included.
 *
 * The map lists every loaded module (trace-pc PCs can be anywhere): it
 * is written at setup and again at exit.  A trace-pc library that
 * dlopen loads later is in the map only from exit on: after SIGKILL
 * its PCs are "outside of any known mapping" for rawunpack
 * (ukcov_sancov(7), BUGS).
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "sancov.h"
#include "textline.h"

#define PCLOG_WORDS ((uint64_t)1 << 21)	/* = the PC set's slots */
#define PCLOG_CHUNK 8192		/* words per growth (64 KiB) */
#define PCLOG_MAP_MAX ((size_t)256 * 1024)	/* bytes of map text kept */

static struct {
	int fd;			/* [S] the raw file, -1: off */
	uint64_t *base;		/* [S] its MAP_SHARED mapping */
	uint64_t next;		/* [A] next word to claim */
	uint64_t size;		/* [A] words the file holds (grows only) */
	char *map;		/* [S] the last map text written */
	size_t maplen;
	int map_ok;		/* [S] the map file is ours: rewrite it */
} pclog = { .fd = -1 };

/* Names "<pid>.pc.sancov.raw" and ".map" of this process. */
static void pclog_name(struct line *l, const char *ext)
{
	l->n = 0;
	put_dec(l, (unsigned)getpid());
	put(l, ".pc.sancov.", 11);
	put(l, ext, strlen(ext));
	l->buf[l->n] = '\0';
}

struct map_text {
	char *buf;
	size_t len;
};

/* One "start end base path" line per loaded module with code. */
static int map_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct map_text *m = arg;
	char exe[PATH_MAX];
	const char *path = object_path(info, exe, sizeof(exe));
	uint64_t lo = UINT64_MAX, hi = 0, s, e;
	struct line l = { .n = 0 };

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (exec_segment(info, i, &s, &e)) {
			lo = s < lo ? s : lo;
			hi = e > hi ? e : hi;
		}
	if (!path || !path[0] || lo >= hi)
		return 0;
	put_hex(&l, lo);
	put(&l, " ", 1);
	put_hex(&l, hi);
	put(&l, " ", 1);
	put_hex(&l, info->dlpi_addr);
	put(&l, " ", 1);
	put(&l, path, strlen(path));
	put(&l, "\n", 1);
	if (m->len + l.n <= PCLOG_MAP_MAX) {
		memcpy(m->buf + m->len, l.buf, l.n);
		m->len += l.n;
	}
	return 0;
}

/* Snapshot the loaded modules into pclog.map (not in a signal handler:
 * dl_iterate_phdr takes the loader's lock). */
static void pclog_snapshot_map(void)
{
	struct map_text m = { .buf = pclog.map, .len = 3 };

	memcpy(m.buf, "64\n", 3);
	dl_iterate_phdr(map_module, &m);
	pclog.maplen = m.len;
}

/* A map file the first write refused (another's file at the name) is
 * left alone from then on: refused once, said once. */
static void pclog_write_map(void)
{
	struct line name;

	pclog_name(&name, "map");
	pclog.map_ok = ukcov__sancov_write_named(name.buf, pclog.map,
						 pclog.maplen, "", 0) == 0;
}

/* Make word i part of the file: 0, or -1 if the file cannot grow. */
static int pclog_cover(uint64_t i)
{
	uint64_t size = __atomic_load_n(&pclog.size, __ATOMIC_ACQUIRE), want;

	if (i < size)
		return 0;
	want = (i / PCLOG_CHUNK + 1) * PCLOG_CHUNK;
	if (pwrite(pclog.fd, "", 1, (off_t)(want * 8 - 1)) != 1)
		return -1;
	while (size < want &&
	       !__atomic_compare_exchange_n(&pclog.size, &size, want, 1,
					    __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE))
		;
	return 0;
}

/* A PC (return address - 1) the PC set has just taken for the first
 * time.  A PC that cannot be written is counted as the set's lost. */
int ukcov__pclog_append(uint64_t pc)
{
	uint64_t i;

	if (__atomic_load_n(&pclog.fd, __ATOMIC_ACQUIRE) < 0)
		return 0;
	i = __atomic_fetch_add(&pclog.next, 1, __ATOMIC_RELAXED);
	if (i >= PCLOG_WORDS || pclog_cover(i) != 0)
		return -1;
	__atomic_store_n(&pclog.base[i], pc, __ATOMIC_RELAXED);
	return 0;
}

/* At exit: the map again (libraries dlopen'ed since setup); a log that
 * got no PC (a guard-only program) is removed with its map -- the files
 * this process created, never one whose name it found taken. */
static void pclog_at_exit(void)
{
	struct line name;

	if (pclog.fd < 0)
		return;
	if (__atomic_load_n(&pclog.next, __ATOMIC_RELAXED) != 0) {
		if (pclog.map_ok) {
			pclog_snapshot_map();
			pclog_write_map();
		}
		return;
	}
	for (int k = 0; k < 2; k++) {
		pclog_name(&name, k ? "map" : "raw");
		ukcov__sancov_unlink_own(name.buf);
	}
}

/* From sancov_setup with coverage_direct=1: create the log and its map.
 * 1 if trace-pc PCs will be logged (failures are reported). */
int ukcov__pclog_setup(void)
{
	void *p;
	int fd;

	pclog.map = ukcov__real_mmap(NULL, PCLOG_MAP_MAX,
				     PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pclog.map == MAP_FAILED)
		return 0;
	fd = ukcov__sancov_create_direct("pc.sancov.raw");
	if (fd < 0)
		return 0;
	/* Beyond the end of the (empty) file: pclog_cover makes each word
	 * part of it before it is stored. */
	p = ukcov__real_mmap(NULL, PCLOG_WORDS * 8, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ukcov__sancov_msg("ukcov: coverage_direct: cannot map the "
				  "trace-pc log", "", 0, "\n");
		ukcov__real_close(fd);
		return 0;
	}
	pclog.base = p;
	pclog_snapshot_map();
	pclog_write_map();
	__atomic_store_n(&pclog.fd, fd, __ATOMIC_RELEASE);
	atexit(pclog_at_exit);
	return 1;
}

/* fork: the child gets its own <pid>.pc.sancov.raw, starting with what
 * the parent had logged, mapped where the parent's was (writing through
 * the parent's MAP_SHARED mapping would change the parent's file).  On
 * failure the child logs nothing (its PC set still works). */
void ukcov__pclog_after_fork_child(void)
{
	uint64_t words = __atomic_load_n(&pclog.size, __ATOMIC_RELAXED);
	int fd;

	if (pclog.fd < 0)
		return;
	ukcov__real_close(pclog.fd);
	pclog.fd = -1;
	fd = ukcov__sancov_child_direct("pc.sancov.raw", pclog.base,
					words * 8, PCLOG_WORDS * 8);
	if (fd >= 0) {
		pclog_write_map();	/* the parent's modules */
		__atomic_store_n(&pclog.fd, fd, __ATOMIC_RELEASE);
	}
}

/* coverage_bitset=1 and coverage_counters=1 count guards
 * (trace-pc-guard); trace-pc code has none.  Said once, at the first
 * trace-pc PC, when the program is known to have such code. */
void ukcov__pclog_first_pc(void)
{
	static int said;	/* [A] */

	if ((ukcov__sancov_opts.bitset || ukcov__sancov_opts.counters) &&
	    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		ukcov__sancov_msg("ukcov: coverage_bitset and "
				  "coverage_counters count trace-pc-guard "
				  "guards; trace-pc code has none and is "
				  "left out of them", "", 0,
				  " (ukcov_sancov(7))\n");
}
