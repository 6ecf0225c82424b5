/*
 * tests/core/t_registry.c -- the machine's remote registry against
 * hostile or dead peers and tests that catch the bugs they
 * name: a registry truncated under a running collector and
 * feeder, a SIGKILLed collector's registration reclaimed at the first
 * lookup, deleted slots reused and probed past, one process's exit
 * leaving the others' registrations, a table full of dead collectors'
 * registrations swept by the next insert, the location rule for root, and
 * area and drop counts of Linux CMP sections and NetBSD re-enables.
 *
 * The registry's bytes are read as docs/FORMATS.md "Remote registry"
 * describes them, never through lib/.  Every test makes a registry of
 * its own (UKCOV_REGISTRY) and removes it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* NetBSD's KCOV_CMP_* differ from Linux's: the CMP test uses Linux's. */
#include <ukcov/netbsd/kcov.h>
#undef KCOV_CMP_CONST
#undef KCOV_CMP_SIZE
#undef KCOV_CMP_MASK
#include <ukcov/linux/kcov.h>

#include "kc.h"
#include "tests.h"

#define USB(n) (KCOV_SUBSYSTEM_USB | (uint64_t)(n))

/* docs/FORMATS.md "Remote registry": a 64-byte header, then 1024 slots
 * of 40 bytes; a slot's handle ~0 is a deleted one. */
#define RF_SLOTS 1024
#define RF_DELETED (~0ULL)
struct rf_header {
	uint64_t magic;
	uint32_t layout, nslots;
	uint64_t used, maxprobe, seq, pad[3];
};
struct rf_slot {
	uint64_t handle;
	int32_t pid, fd;
	uint64_t start, ino, gen;
};

static unsigned rf_home(uint64_t h)
{
	return (unsigned)((h * 0x9e3779b97f4a7c15ULL) >> 54) & (RF_SLOTS - 1);
}

/* ---- a registry per test ---- */

static char rdir[64], rpath[128];

static void registry_private(void)
{
	snprintf(rdir, sizeof(rdir), "/tmp/ukcov-treg.XXXXXX");
	CHECK(mkdtemp(rdir) != NULL);
	snprintf(rpath, sizeof(rpath), "%s/registry", rdir);
	setenv("UKCOV_REGISTRY", rpath, 1);
}

static void registry_gone(void)
{
	unlink(rpath);
	rmdir(rdir);
}

static void rf_read(void *dst, size_t len, off_t off)
{
	int fd = open(rpath, O_RDONLY);

	CHECK(fd >= 0);
	CHECK_EQ(pread(fd, dst, len, off), len);
	close(fd);
}

static struct rf_header rf_header(void)
{
	struct rf_header h;

	rf_read(&h, sizeof(h), 0);
	return h;
}

static struct rf_slot rf_slot(unsigned i)
{
	struct rf_slot s;

	rf_read(&s, sizeof(s), (off_t)(sizeof(struct rf_header) + i * sizeof(s)));
	return s;
}

/* ---- Linux collectors and sections ---- */

struct enable_op {
	const struct kc *k;
	int fd;
	uint32_t n;
	const uint64_t *handles;
};

static long op_enable_handles(void *p)
{
	const struct enable_op *o = p;

	return kc_remote_enable(o->k, o->fd, KCOV_TRACE_PC, KC_ENTRIES, 0, o->n,
				o->handles);
}

static void sections(uint64_t h, void (*fn)(void), unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		ukcov_remote_start(h);
		fn();
		ukcov_remote_stop();
	}
}

/* n sections of fn for h in a fork child, which must exit 0. */
static void sections_in_child(uint64_t h, void (*fn)(void), unsigned n)
{
	struct peer p;

	if (peer_fork(&p) == 0) {
		sections(h, fn, n);
		_exit(0);
	}
	expect_exit0(p.pid);
}

/* stderr of this (child) process into path. */
static void stderr_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(9);
	close(fd);
}

/* How many lines of the file at path hold needle. */
static unsigned count_in_file(const char *path, const char *needle)
{
	char line[4096];
	unsigned n = 0;
	FILE *f = fopen(path, "r");

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* ---- the registry truncated under a collector and a feeder ---- */

/* ": > registry" while collector C (handles h and USB(2)) and feeder
 * F run: neither dies of SIGBUS, each says once that cross-process
 * coverage is off, and nothing more crosses (before, F's section and
 * C's disable touched a mapping of the shrunk file: status 135).  F's
 * first lookup after the truncation is of a registered handle it never
 * looked up, so it reads the file (its thread's cached lookup of h may
 * stand for up to 100 ms: lib/registry.c "hint"). */
static void t_truncated_live(const struct kc *k)
{
	char cerr[160], ferr[160];
	uint64_t *buf, h = USB(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer c, f;

	registry_private();
	snprintf(cerr, sizeof(cerr), "%s/c.err", rdir);
	snprintf(ferr, sizeof(ferr), "%s/f.err", rdir);
	if (peer_fork(&c) == 0) {
		stderr_to(cerr);
		if (kc_remote_enable(k, fd, KCOV_TRACE_PC, KC_ENTRIES, 0, 2,
				     (uint64_t[]){ h, USB(2) }) != 0)
			_exit(2);
		peer_tell(&c);
		peer_wait(&c);
		_exit(kc_disable(k, fd) == 0 ? 0 : 3);
	}
	peer_wait(&c);
	if (peer_fork(&f) == 0) {
		stderr_to(ferr);
		sections(h, target_leaf, 1);
		peer_tell(&f);
		peer_wait(&f);
		sections(USB(2), target_leaf2, 2);
		sections(h, target_leaf2, 2);
		_exit(0);
	}
	peer_wait(&f);
	expect_only_pcs(buf, 1, (const void *)target_leaf);	/* control */
	CHECK_OK(truncate(rpath, 0));
	peer_tell(&f);
	expect_exit0(f.pid);
	peer_tell(&c);
	expect_exit0(c.pid);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	CHECK_EQ(count_in_file(ferr, "ukcov: remote registry"), 1);
	CHECK_EQ(count_in_file(ferr, "unusable, cross-process coverage off"), 1);
	CHECK_EQ(count_in_file(cerr, "ukcov: remote registry"), 1);
	CHECK_EQ(count_in_file(cerr, "unusable, cross-process coverage off"), 1);
	unlink(cerr);
	unlink(ferr);
	registry_gone();
}

/* ---- a SIGKILLed collector's registration ---- */

/* The image strace runs: n sections for handle (hex). */
int registry_feeder_main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	sections(strtoull(argv[2], NULL, 16), target_leaf,
		 (unsigned)strtoul(argv[3], NULL, 10));
	return 0;
}

/* Run the feeder image under strace -e openat into log; 0 if it ran. */
static int feeder_under_strace(uint64_t h, unsigned n, const char *log)
{
	char self[4096], hs[32], ns[16];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t pid;

	CHECK(len > 0);
	self[len] = 0;
	snprintf(hs, sizeof(hs), "%llx", (unsigned long long)h);
	snprintf(ns, sizeof(ns), "%u", n);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		execlp("strace", "strace", "-f", "-qq", "-e", "trace=openat",
		       "-o", log, self, "--registry-feeder", hs, ns,
		       (char *)NULL);
		_exit(127);
	}
	return wait_status(pid) == 0 ? 0 : -1;
}

/* The first section that finds the collector gone deletes its slot;
 * 1000 more sections then open nothing under /proc/<pid> (before:
 * 1000 failed opens of /proc/<pid>/fd/<n>, 1.77 us each). */
static void t_stale_reclaimed(const struct kc *k)
{
	char log[160], needle[32];
	uint64_t *buf, h = USB(7);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer c;

	registry_private();
	if (peer_fork(&c) == 0)
		kc_collector_child(k, fd, h, &c);
	peer_wait(&c);
	CHECK_EQ(rf_header().used, 1);
	CHECK_OK(kill(c.pid, SIGKILL));
	CHECK(WIFSIGNALED(wait_status(c.pid)));
	sections(h, target_leaf, 1);		/* finds it dead */
	snprintf(log, sizeof(log), "%s/strace.log", rdir);
	snprintf(needle, sizeof(needle), "/proc/%d/", (int)c.pid);
	if (feeder_under_strace(h, 1000, log) != 0)
		FAIL("strace -e openat of the feeder failed");
	CHECK(count_in_file(log, rpath) >= 1);	/* strace saw its opens */
	CHECK_EQ(count_in_file(log, needle), 0);
	CHECK_EQ(rf_header().used, 0);
	CHECK_EQ(rf_slot(rf_home(h)).handle, RF_DELETED);
	CHECK_EQ(rec_count(buf), 0);
	unlink(log);
	registry_gone();
}

/* ---- a full registry, deleted slots ---- */

#define FULL_COLLECTORS (RF_SLOTS / KCOV_REMOTE_MAX_HANDLES)

/* Every slot live (4 collectors of 256 handles), one collector
 * disabled: a new registration takes a deleted slot, is fed from
 * another process, and a miss returns; when all are gone, misses probe
 * one slot again (maxprobe 0). */
static void t_full_reuses_deleted(const struct kc *k)
{
	static uint64_t hs[FULL_COLLECTORS][KCOV_REMOTE_MAX_HANDLES];
	struct actor *a[FULL_COLLECTORS];
	uint64_t *bufs[FULL_COLLECTORS], *buf, h = USB(0xfffff);
	int fds[FULL_COLLECTORS], fd, i, j;

	registry_private();
	for (i = 0; i < FULL_COLLECTORS; i++) {
		for (j = 0; j < KCOV_REMOTE_MAX_HANDLES; j++)
			hs[i][j] = USB(0x1000 + i * KCOV_REMOTE_MAX_HANDLES + j);
		fds[i] = kc_setup(k, KC_ENTRIES, &bufs[i]);
		a[i] = actor_start();
		CHECK_OK(actor_run(a[i], op_enable_handles,
				   &(struct enable_op){ k, fds[i],
							KCOV_REMOTE_MAX_HANDLES,
							hs[i] }));
	}
	CHECK_EQ(rf_header().used, RF_SLOTS);
	CHECK_OK(actor_run(a[0], op_disable, &(struct kc_op){ k, fds[0], 0 }));
	CHECK_EQ(rf_header().used, RF_SLOTS - KCOV_REMOTE_MAX_HANDLES);
	fd = kc_setup(k, KC_ENTRIES, &buf);
	CHECK_OK(kc_remote_enable1(k, fd, h));
	sections_in_child(h, target_leaf2, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	sections_in_child(hs[0][5], target_leaf, 1);	/* a miss */
	sections_in_child(hs[3][9], target_leaf3, 1);
	expect_only_pcs(bufs[3], 1, (const void *)target_leaf3);
	CHECK_EQ(rec_count(bufs[0]), 0);
	kc_disable_ok(k, fd);
	for (i = 1; i < FULL_COLLECTORS; i++)
		CHECK_OK(actor_run(a[i], op_disable,
				   &(struct kc_op){ k, fds[i], 0 }));
	CHECK_EQ(rf_header().used, 0);
	CHECK_EQ(rf_header().maxprobe, 0);
	for (i = 0; i < FULL_COLLECTORS; i++)
		actor_stop(a[i]);
	registry_gone();
}

/* A collector process of n handles from first on, registered when
 * this returns; it waits to be killed. */
static void collector_of(const struct kc *k, uint64_t first, unsigned n,
			 struct peer *c)
{
	uint64_t hs[KCOV_REMOTE_MAX_HANDLES], *b;
	unsigned j;

	for (j = 0; j < n; j++)
		hs[j] = first + j;
	if (peer_fork(c) == 0) {
		int fd = kc_setup(k, KC_ENTRIES, &b);

		if (kc_remote_enable(k, fd, KCOV_TRACE_PC, KC_ENTRIES, 0, n,
				     hs))
			_exit(2);
		peer_tell(c);
		peer_wait(c);	/* until killed */
		_exit(0);
	}
	peer_wait(c);
}

/* Every slot held by collectors that were then killed (their
 * registrations never removed): a new handle, whose probe meets only
 * their slots, registers (before: -ENOMEM, a dead slot was reclaimed
 * only by a registration of its own handle), the dead ones are gone
 * and a miss probes one slot again. */
static void t_full_of_dead_reclaimed(const struct kc *k)
{
	struct peer c[FULL_COLLECTORS];
	uint64_t *buf, h = USB(0xfffff);
	struct rf_header hd;
	int fd, i;

	registry_private();
	for (i = 0; i < FULL_COLLECTORS; i++)
		collector_of(k, USB(0x1000 + i * KCOV_REMOTE_MAX_HANDLES),
			     KCOV_REMOTE_MAX_HANDLES, &c[i]);
	CHECK_EQ(rf_header().used, RF_SLOTS);
	for (i = 0; i < FULL_COLLECTORS; i++) {
		CHECK_OK(kill(c[i].pid, SIGKILL));
		CHECK(WIFSIGNALED(wait_status(c[i].pid)));
	}
	CHECK_EQ(rf_header().used, RF_SLOTS);
	fd = kc_setup(k, KC_ENTRIES, &buf);
	CHECK_OK(kc_remote_enable1(k, fd, h));
	hd = rf_header();
	CHECK_EQ(hd.used, 1);
	CHECK_EQ(hd.maxprobe, 0);
	CHECK_EQ(rf_slot(rf_home(h)).handle, h);
	sections_in_child(h, target_leaf2, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	kc_disable_ok(k, fd);
	CHECK_EQ(rf_header().used, 0);
	registry_gone();
}

/* ---- what a feeder remembers of the registry ---- */

/* A feeder that missed h, then fed collector C1 for it, follows every
 * change another process makes: h registered here after its miss, then
 * moved to C2 (a fork child); each section lands with the collector
 * that has h at its start. */
static void t_feeder_follows_changes(const struct kc *k)
{
	uint64_t *buf, *buf2, h = USB(0x51);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct peer f, c2;

	registry_private();
	CHECK_OK(kc_remote_enable1(k, fd, USB(0x52))); /* used != 0 */
	if (peer_fork(&f) == 0) {
		unsigned step;

		for (step = 0; step < 3; step++) {
			sections(h, target_leaf, 1);
			peer_tell(&f);
			peer_wait(&f);
		}
		_exit(0);
	}
	peer_wait(&f);				/* missed */
	CHECK_EQ(rec_count(buf), 0);
	kc_disable_ok(k, fd);
	CHECK_OK(kc_remote_enable1(k, fd, h));
	peer_tell(&f);
	peer_wait(&f);				/* fed us */
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	kc_disable_ok(k, fd);
	if (peer_fork(&c2) == 0)
		kc_collector_child(k, fd2, h, &c2);
	peer_wait(&c2);
	peer_tell(&f);
	peer_wait(&f);				/* fed C2 */
	expect_only_pcs(buf2, 1, (const void *)target_leaf);
	CHECK_EQ(rec_count(buf), 1);
	peer_tell(&f);
	expect_exit0(f.pid);
	peer_tell(&c2);
	expect_exit0(c2.pid);
	registry_gone();
}

/* A writer killed half-way through a change leaves the header's seq
 * odd: readers then trust no hit.  The 100 ms check that sees the same
 * odd seq twice repairs it (lib/registry.c registry_repair), so a
 * feeder's sections reach the collector again within about 200 ms;
 * before, never until another registration.  The only test here that
 * waits on time: the repair is timed by design. */
static void t_dead_writer_repaired(const struct kc *k)
{
	struct timespec tick = { 0, 10000000L };	/* 10 ms */
	uint64_t *buf, h = USB(0x71), seq;
	int fd = kc_setup(k, KC_ENTRIES, &buf), rfd;
	struct peer f;
	unsigned i;

	registry_private();
	CHECK_OK(kc_remote_enable1(k, fd, h));
	seq = rf_header().seq | 1;		/* as a killed writer left it */
	rfd = open(rpath, O_WRONLY);
	CHECK(rfd >= 0);
	CHECK_EQ(pwrite(rfd, &seq, sizeof(seq), 32), sizeof(seq));
	close(rfd);
	if (peer_fork(&f) == 0) {
		for (i = 0; i < 300 && rec_count(buf) == 0; i++) {
			sections(h, target_leaf, 1);
			nanosleep(&tick, NULL);
		}
		_exit(rec_count(buf) == 1 ? 0 : 7);
	}
	expect_exit0(f.pid);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	CHECK_EQ(rf_header().seq % 2, 0);
	CHECK_EQ(rf_header().used, 1);
	kc_disable_ok(k, fd);
	registry_gone();
}

/* Readers write nothing: a feeder's lookups over 250 ms (two or more
 * of the 100 ms header checks) leave the registry's header as it was,
 * seq included.  A check that took the writer's lock without a dead
 * writer's odd seq would bump seq and the hint's epoch, and every
 * other process's cached lookups would be thrown away each time. */
static void t_readers_write_nothing(const struct kc *k)
{
	struct timespec tick = { 0, 10000000L }; /* 10 ms */
	uint64_t *buf, h = USB(0x73);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct rf_header before;
	struct peer f;

	registry_private();
	CHECK_OK(kc_remote_enable1(k, fd, h));
	before = rf_header();
	CHECK_EQ(before.seq % 2, 0);
	if (peer_fork(&f) == 0) {
		struct rf_header after;

		for (int i = 0; i < 25; i++) {
			sections(h, target_leaf, 1);
			nanosleep(&tick, NULL);
		}
		after = rf_header();
		if (after.seq != before.seq)
			_exit(7);
		_exit(memcmp(&after, &before, sizeof(after)) ? 8 : 0);
	}
	expect_exit0(f.pid);
	CHECK_EQ(rec_count(buf), 25);
	kc_disable_ok(k, fd);
	registry_gone();
}

/* A program whose errno is EINTR (an interrupted call it retried, say)
 * starts its first section for a collector of another process: the
 * registry's reads retry on a failed read only, not on a stale errno
 * (that spun for ever re-reading), the section records, and the
 * program's errno is as it left it. */
static void t_stale_eintr(const struct kc *k)
{
	uint64_t *buf, h = USB(0x74);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer f;

	registry_private();
	CHECK_OK(kc_remote_enable1(k, fd, h));
	if (peer_fork(&f) == 0) {
		alarm(20); /* a spin is a failure, not a hang */
		errno = EINTR;
		sections(h, target_leaf, 1);
		_exit(errno == EINTR ? 0 : 8);
	}
	expect_exit0(f.pid);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	kc_disable_ok(k, fd);
	registry_gone();
}

/* A section whose lookup meets a writer at work (seq odd) waits for it
 * and records: one section, no retry of the feeder's own.  The parent
 * plays the writer, ending its work 5 ms after the feeder starts; the
 * lookup used to try three times in a row and give up, so the section
 * was lost (remote.stress_kill lost 2 records of 13878 under load). */
static void t_section_waits_for_writer(const struct kc *k)
{
	struct timespec writer = { 0, 5000000L };	/* 5 ms */
	uint64_t *buf, h = USB(0x72), odd, even;
	int fd = kc_setup(k, KC_ENTRIES, &buf), rfd;
	struct peer f;

	registry_private();
	CHECK_OK(kc_remote_enable1(k, fd, h));
	even = rf_header().seq;
	CHECK_EQ(even % 2, 0);
	odd = even | 1;
	rfd = open(rpath, O_WRONLY);
	CHECK(rfd >= 0);
	CHECK_EQ(pwrite(rfd, &odd, sizeof(odd), 32), sizeof(odd));
	if (peer_fork(&f) == 0) {
		peer_tell(&f);
		sections(h, target_leaf, 1);
		_exit(rec_count(buf) == 1 ? 0 : 7);
	}
	peer_wait(&f);
	nanosleep(&writer, NULL);
	CHECK_EQ(pwrite(rfd, &even, sizeof(even), 32), sizeof(even));
	close(rfd);
	expect_exit0(f.pid);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	kc_disable_ok(k, fd);
	registry_gone();
}

/* The module-table file a collector names (UKCOV_REMOTE_MODULES) is
 * created by the first feeder that writes to it, mode 0600 whatever
 * the umask: it holds the feeder's memory layout.  Its lines are that
 * feeder's (pid). */
static void t_remote_modules_created_private(const struct kc *k)
{
	char mods[160], want[32], line[256];
	uint64_t *buf, h = USB(0x73);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct stat st;
	struct peer f;
	FILE *fp;

	registry_private();
	CHECK_OK(chmod(rdir, 0777));
	snprintf(mods, sizeof(mods), "%s/feeders.mods", rdir);
	setenv("UKCOV_REMOTE_MODULES", mods, 1);
	CHECK_OK(kc_remote_enable1(k, fd, h));
	unsetenv("UKCOV_REMOTE_MODULES");
	umask(0);
	if (peer_fork(&f) == 0) {
		sections(h, target_leaf, 1);
		_exit(rec_count(buf) == 1 ? 0 : 7);
	}
	expect_exit0(f.pid);
	CHECK_OK(stat(mods, &st));
	CHECK_EQ(st.st_mode & 07777, 0600);
	snprintf(want, sizeof(want), "M %d ", (int)f.pid);
	fp = fopen(mods, "r");
	CHECK(fp != NULL);
	CHECK(fgets(line, sizeof(line), fp) != NULL);
	fclose(fp);
	CHECK(strncmp(line, want, strlen(want)) == 0);
	kc_disable_ok(k, fd);
	unlink(mods);
	registry_gone();
}

/* ---- root and the user's XDG_RUNTIME_DIR ---- */

/* A runtime directory of another user is not used: the registry goes
 * to /dev/shm/ukcov-remote-<euid> (before, root created a root-owned
 * registry there that locked the user out). */
static void t_xdg_not_mine(const struct kc *k)
{
	char dir[64], file[128], msg[512];
	uint64_t *buf, h = USB(0x77);
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	snprintf(dir, sizeof(dir), "/tmp/ukcov-xdg.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	CHECK_OK(chmod(dir, 0777));
	if (geteuid() == 0)
		CHECK_OK(chown(dir, 65534, 65534));
	else
		snprintf(dir, sizeof(dir), "/");	/* root's */
	unsetenv("UKCOV_REGISTRY");
	setenv("XDG_RUNTIME_DIR", dir, 1);
	capture_stderr_begin();		/* whatever /dev/shm holds */
	CHECK_OK(kc_remote_enable1(k, fd, h));
	capture_stderr_end(msg, sizeof(msg));
	snprintf(file, sizeof(file), "%s/ukcov-remote", dir);
	CHECK_ERR(access(file, F_OK), ENOENT);
	snprintf(file, sizeof(file), "/dev/shm/ukcov-remote-%u",
		 (unsigned)geteuid());
	CHECK_OK(access(file, F_OK));
	kc_disable_ok(k, fd);
	if (geteuid() == 0)
		rmdir(dir);
}

/* ---- without /proc ---- */

/* This (child) process sees an empty /proc: a mount namespace of its
 * own with a tmpfs over it.  0, or -1 where that is not allowed. */
static int hide_proc(void)
{
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/proc", "tmpfs", 0, NULL) != 0)
		return -1;
	return 0;
}

/* A collector process without /proc: enables h (exit 2 if refused),
 * tells, waits, disables. */
static void noproc_collector(const struct kc *k, int fd, uint64_t h,
			     const struct peer *p, const char *err)
{
	stderr_to(err);
	if (hide_proc() != 0)
		_exit(4);
	if (kc_remote_enable1(k, fd, h) != 0)
		_exit(2);
	peer_tell(p);
	peer_wait(p);
	_exit(kc_disable(k, fd) == 0 ? 0 : 3);
}

/* Two collectors of h without /proc, in a private registry: A (a
 * noproc_collector, enabled when this returns) and the error files of
 * both, whose paths go to aerr and berr. */
static void noproc_start_a(const struct kc *k, int afd, uint64_t h,
			   struct peer *a, char *aerr, char *berr)
{
	registry_private();
	snprintf(aerr, 160, "%s/a.err", rdir);
	snprintf(berr, 160, "%s/b.err", rdir);
	if (peer_fork(a) == 0)
		noproc_collector(k, afd, h, a, aerr);
	peer_wait(a);
}

/* B, without /proc, enables h: it must exit 0 when the enable gives
 * want_errno (0: success). */
static void noproc_b_enables(const struct kc *k, int bfd, uint64_t h,
			     const char *berr, int want_errno)
{
	struct peer b;

	if (peer_fork(&b) == 0) {
		stderr_to(berr);
		if (hide_proc() != 0)
			_exit(4);
		if (kc_remote_enable1(k, bfd, h) == 0)
			_exit(want_errno == 0 ? 0 : 5);
		_exit(errno == want_errno ? 0 : 5);
	}
	expect_exit0(b.pid);
}

/* Without /proc no process can open another's collector: each says so
 * once, and two collectors still cannot register one handle (liveness
 * by kill(pid, 0); before, a collector whose /proc/<pid>/stat could
 * not be read counted as dead and was taken over). */
static void t_noproc_said_and_exclusive(const struct kc *k)
{
	char aerr[160], berr[160];
	uint64_t *abuf, *bbuf, h = USB(0x61);
	int afd = kc_setup(k, KC_ENTRIES, &abuf);
	int bfd = kc_setup(k, KC_ENTRIES, &bbuf);
	struct peer a;

	if (geteuid() != 0)
		return;		/* mounting needs root (CAP_SYS_ADMIN) */
	noproc_start_a(k, afd, h, &a, aerr, berr);
	noproc_b_enables(k, bfd, h, berr, EEXIST);
	peer_tell(&a);
	expect_exit0(a.pid);
	CHECK_EQ(count_in_file(aerr, "/proc is not mounted"), 1);
	CHECK_EQ(count_in_file(aerr, "ukcov:"), 1);
	CHECK_EQ(count_in_file(berr, "/proc is not mounted"), 1);
	CHECK_EQ(rf_header().used, 0);
	unlink(aerr);
	unlink(berr);
	registry_gone();
}

/* Without /proc a collector killed while registered is found dead by
 * kill(pid, 0) alone (ESRCH), and the next collector of its handle
 * takes the handle over; an exclusive registry must not keep a dead
 * process's handle forever. */
static void t_noproc_dead_taken_over(const struct kc *k)
{
	char aerr[160], berr[160];
	uint64_t *abuf, *bbuf, h = USB(0x62);
	int afd = kc_setup(k, KC_ENTRIES, &abuf);
	int bfd = kc_setup(k, KC_ENTRIES, &bbuf);
	struct peer a;

	if (geteuid() != 0)
		return;		/* mounting needs root (CAP_SYS_ADMIN) */
	noproc_start_a(k, afd, h, &a, aerr, berr);
	CHECK_OK(kill(a.pid, SIGKILL));
	CHECK(WIFSIGNALED(wait_status(a.pid)));
	CHECK_EQ(rf_header().used, 1);		/* A's registration stays */
	noproc_b_enables(k, bfd, h, berr, 0);
	unlink(aerr);
	unlink(berr);
	registry_gone();
}

/* ---- a full tmpfs ---- */

static long op_leaf_section(void *p)
{
	sections(*(const uint64_t *)p, target_leaf, 1);
	return 0;
}

/* A registry on a tmpfs of 8 KiB (Docker's /dev/shm, full): its
 * allocation fails at creation, said once; the enable succeeds and
 * coverage stays in the process (before: a sparse file, and the first
 * touch of a slot page past the tmpfs's size raised SIGBUS). */
static void t_full_tmpfs(const struct kc *k)
{
	char dir[64], err[96];
	uint64_t *buf, h = 0;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer c;
	unsigned n;

	if (geteuid() != 0)
		return;		/* mounting needs root (CAP_SYS_ADMIN) */
	for (n = 1; rf_home(h) < 512; n++)
		h = USB(n);	/* a slot on the registry's 6th page or later */
	snprintf(dir, sizeof(dir), "/tmp/ukcov-tmpfs.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(err, sizeof(err), "%s.err", dir);
	if (peer_fork(&c) == 0) {
		char path[96];

		stderr_to(err);
		if (unshare(CLONE_NEWNS) != 0 ||
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("tmpfs", dir, "tmpfs", 0, "size=8k") != 0)
			_exit(4);
		snprintf(path, sizeof(path), "%s/registry", dir);
		setenv("UKCOV_REGISTRY", path, 1);
		if (kc_remote_enable1(k, fd, h) != 0)
			_exit(2);
		thread_run(op_leaf_section, &h);
		_exit(rec_count(buf) == 1 ? 0 : 6);
	}
	expect_exit0(c.pid);
	CHECK_EQ(count_in_file(err, "ukcov:"), 1);
	CHECK_EQ(count_in_file(err, "cannot allocate it: no space left"), 1);
	unlink(err);
	rmdir(dir);
}

/* ---- tests that catch the bug they name ---- */

/* Two handles with one home slot: the second lies behind the first. */
static void colliding_pair(uint64_t *a, uint64_t *b)
{
	uint64_t n, m;

	for (n = 1; n < 4096; n++)
		for (m = n + 1; m < 4096; m++)
			if (rf_home(USB(n)) == rf_home(USB(m))) {
				*a = USB(n);
				*b = USB(m);
				return;
			}
	FAIL("no colliding handles");
}

/* A registered behind B's deleted slot: a probe that stopped at the
 * deleted slot would lose B for every other process. */
static void t_probe_past_deleted(const struct kc *k)
{
	uint64_t *abuf, *bbuf, a, b;
	int afd = kc_setup(k, KC_ENTRIES, &abuf);
	int bfd = kc_setup(k, KC_ENTRIES, &bbuf);
	struct actor *w = actor_start();

	registry_private();
	colliding_pair(&a, &b);
	CHECK_OK(actor_run(w, op_enable_handles,
			   &(struct enable_op){ k, afd, 1, &a }));
	CHECK_OK(kc_remote_enable1(k, bfd, b));
	CHECK_EQ(rf_slot(rf_home(a)).handle, a);
	CHECK_EQ(rf_slot((rf_home(a) + 1) % RF_SLOTS).handle, b);
	CHECK_OK(actor_run(w, op_disable, &(struct kc_op){ k, afd, 0 }));
	CHECK_EQ(rf_slot(rf_home(a)).handle, RF_DELETED);
	sections_in_child(b, target_leaf3, 3);
	expect_only_pcs(bbuf, 3, (const void *)target_leaf3);
	CHECK_EQ(rec_count(abuf), 0);
	kc_disable_ok(k, bfd);
	actor_stop(w);
	registry_gone();
}

/* P1 (this process) registers H1, P2 registers H2 and exits: P2's exit
 * removes P2's registrations only, so P3's sections reach P1. */
static void t_exit_keeps_others(const struct kc *k)
{
	uint64_t *buf, *buf2, h1 = USB(0x31), h2 = USB(0x32);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	int fd2 = kc_setup(k, KC_ENTRIES, &buf2);
	struct peer p2;

	registry_private();
	CHECK_OK(kc_remote_enable1(k, fd, h1));
	if (peer_fork(&p2) == 0)
		exit(kc_remote_enable1(k, fd2, h2) == 0 ? 0 : 2); /* atexit */
	expect_exit0(p2.pid);
	sections_in_child(h1, target_leaf2, 2);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
	CHECK_EQ(rf_header().used, 1);
	sections_in_child(h2, target_leaf, 1);	/* P2's is gone */
	CHECK_EQ(rec_count(buf2), 0);
	kc_disable_ok(k, fd);
	registry_gone();
}

static long op_three_cmps(void *p)
{
	ukcov_remote_start(*(const uint64_t *)p);
	target_cmp4(1, 2);
	target_cmp4(3, 4);
	target_cmp4(5, 6);
	ukcov_remote_stop();
	return 0;
}

/* Linux kcov_remote_start: a CMP area of size words holds
 * (size - 1) / 4 records, the first word being the count.  Area 8:
 * one record of three, two dropped (one more would fit in 2 * 4 + 1). */
static void t_cmp_area_capacity(const struct kc *k)
{
	uint64_t *buf, h = USB(0x41);
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	registry_private();
	CHECK_OK(kc_remote_enable(k, fd, KCOV_TRACE_CMP, 8, 0, 1, &h));
	thread_run(op_three_cmps, &h);
	CHECK_EQ(rec_count(buf), 1);
	expect_cmp(buf, 0, KCOV_CMP_SIZE(2), 1, 2, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	CHECK_EQ(kc_dropped(k, fd), 2);
	kc_disable_ok(k, fd);
	CHECK_OK(kc_remote_enable(k, fd, KCOV_TRACE_CMP, 9, 0, 1,
				  &h)); /* control */
	rec_reset(buf);
	thread_run(op_three_cmps, &h);
	CHECK_EQ(rec_count(buf), 2);
	expect_cmp(buf, 1, KCOV_CMP_SIZE(2), 3, 4, (const void *)target_cmp4,
		   (const void *)__sanitizer_cov_trace_cmp4);
	CHECK_EQ(kc_dropped(k, fd), 1);
	registry_gone();
}

#define NB_ENTRIES ((uint64_t)UKCOV_NETBSD_REMOTE_ENTRIES)

static long nb_enable(const struct kc *k, int fd)
{
	int mode = KCOV_MODE_TRACE_PC;

	return kc_req(k, fd, KCOV_IOC_ENABLE, (unsigned long)&mode);
}

struct nb_op {
	uint64_t s, id;
	unsigned n;
};

static long op_nb_section(void *p)
{
	const struct nb_op *o = p;

	if (ukcov_remote_enter(o->s, o->id) != 0)
		return -errno;
	call_n(target_leaf2, o->n);
	return ukcov_remote_leave(o->s, o->id) == 0 ? 0 : -1000 - errno;
}

/* UKCOV_IOC_DROPPED counts from the enable: drops of the previous
 * enable that nobody read are not reported after a re-enable. */
static void t_nb_reenable_dropped(const struct kc *k)
{
	struct kcov_ioc_remote_attach at = { 9, 9 };
	uint64_t *buf;
	int fd;

	registry_private();
	CHECK_OK(ukcov_remote_register(9, 9));
	fd = kc_open_ok(k);
	CHECK_OK(kc_req(k, fd, KCOV_IOC_REMOTE_ATTACH, (unsigned long)&at));
	buf = kc_map(fd, NB_ENTRIES);
	CHECK_OK(nb_enable(k, fd));
	CHECK_EQ(thread_run(op_nb_section,
			    &(struct nb_op){ 9, 9, (unsigned)NB_ENTRIES + 5 }), 0);
	CHECK_EQ(rec_count(buf), NB_ENTRIES - 1);
	kc_disable_ok(k, fd);		/* 6 dropped, never read */
	CHECK_OK(nb_enable(k, fd));
	CHECK_EQ(kc_dropped(k, fd), 0);
	CHECK_EQ(thread_run(op_nb_section, &(struct nb_op){ 9, 9, 3 }), 0);
	CHECK_EQ(kc_dropped(k, fd), 3);
	kc_disable_ok(k, fd);
	registry_gone();
}

void register_registry_tests(void)
{
	static const struct {
		const char *name;
		void (*fn)(const struct kc *);
		int fl;
		unsigned need;
	} tests[] = {
		{ "registry.truncated_live", t_truncated_live, FL_LINUX, 0 },
		{ "registry.stale_reclaimed", t_stale_reclaimed, FL_LINUX,
		  NEED_NATIVE },
		{ "registry.full_reuses_deleted", t_full_reuses_deleted,
		  FL_LINUX, 0 },
		{ "registry.full_of_dead_reclaimed", t_full_of_dead_reclaimed,
		  FL_LINUX, 0 },
		{ "registry.feeder_follows_changes", t_feeder_follows_changes,
		  FL_LINUX, 0 },
		{ "registry.dead_writer_repaired", t_dead_writer_repaired,
		  FL_LINUX, 0 },
		{ "registry.remote_modules_created_private",
		  t_remote_modules_created_private, FL_LINUX, 0 },
		{ "registry.readers_write_nothing", t_readers_write_nothing,
		  FL_LINUX, 0 },
		{ "registry.stale_eintr", t_stale_eintr, FL_LINUX, 0 },
		{ "registry.section_waits_for_writer",
		  t_section_waits_for_writer, FL_LINUX, 0 },
		{ "registry.xdg_not_mine", t_xdg_not_mine, FL_LINUX, 0 },
		{ "registry.full_tmpfs", t_full_tmpfs, FL_LINUX, 0 },
		{ "registry.noproc_said_and_exclusive",
		  t_noproc_said_and_exclusive, FL_LINUX, 0 },
		{ "registry.noproc_dead_taken_over", t_noproc_dead_taken_over,
		  FL_LINUX, 0 },
		{ "registry.probe_past_deleted", t_probe_past_deleted, FL_LINUX,
		  0 },
		{ "registry.exit_keeps_others", t_exit_keeps_others, FL_LINUX,
		  0 },
		{ "registry.cmp_area_capacity", t_cmp_area_capacity, FL_LINUX,
		  NEED_CMP },
		{ "registry.nb_reenable_dropped", t_nb_reenable_dropped,
		  FL_NETBSD, 0 },
	};
	unsigned i;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		reg_one(tests[i].name, tests[i].fn, tests[i].fl, 1,
			tests[i].need);
}
