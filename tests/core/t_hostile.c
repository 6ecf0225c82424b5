/*
 * tests/core/t_hostile.c -- hostile peers: another process
 * of the same user rewrites a descriptor's control block, hands a
 * forged one across exec, feeds many collectors, reuses the fd a
 * registration names, or dies holding the block's lock.  Whatever it does, our processes keep running,
 * write nothing outside their mappings and say once why a descriptor
 * is not used (docs/FORMATS.md, "Trust").
 *
 * The forgeries write the memfd directly (fd_write), as a peer does
 * through /proc/<pid>/fd/<n>.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ukcov/linux/kcov.h>

#include "kc.h"
#include "tests.h"
/* The control block's layout, to forge its fields. */
#include "../../lib/internal.h"

#define H(n) (KCOV_SUBSYSTEM_USB | 0x4800 | (uint64_t)(n))
#define CB_FIELD(f) ((off_t)(UKCOV_CB_OFF + offsetof(struct ukcov_cb, f)))

static void forge_u64(int fd, off_t off, uint64_t v)
{
	fd_write(fd, &v, sizeof(v), off);
}

static uint64_t read_u64(int fd, off_t off)
{
	uint64_t v;

	fd_read(fd, &v, sizeof(v), off);
	return v;
}

static long remote_enable(const struct kc *k, int fd, uint32_t area,
			  uint64_t h)
{
	uint64_t raw[4] = { 0 };
	struct kcov_remote_arg *ra = (struct kcov_remote_arg *)(void *)raw;

	ra->trace_mode = KCOV_TRACE_PC;
	ra->area_size = area;
	ra->num_handles = 1;
	ra->handles[0] = h;
	return kc_req(k, fd, KCOV_REMOTE_ENABLE, (unsigned long)ra);
}

/* A forked feeder: `sections` sections of `calls` target_leaf each,
 * then exit 0.  Its fork drops this process's table, so it finds the
 * collector in the machine's registry, through a proxy. */
static pid_t feeder(uint64_t h, unsigned sections, unsigned calls)
{
	struct peer p;

	if (peer_fork(&p) == 0) {
		while (sections--) {
			ukcov_remote_start(h);
			call_n(target_leaf, calls);
			ukcov_remote_stop();
		}
		_exit(0);
	}
	return p.pid;
}

/* The page after the 4096-byte buffer: a merge bounded by a forged
 * entries would land there. */
static void expect_nothing_past(int fd, uint64_t bytes)
{
	uint64_t page[PAGE / 8];
	unsigned i;

	fd_read(fd, page, sizeof(page), (off_t)bytes);
	for (i = 0; i < PAGE / 8; i++)
		if (page[i])
			FAIL("word %u past the buffer is 0x%llx", i,
			     (unsigned long long)page[i]);
}

/* (a) remote_area forged far past the buffer (2^61 + 1 words: times 8
 * it wraps to 8 bytes).  The feeder clamps it to the buffer: one
 * section keeps entries - 1 records and counts the rest as dropped. */
static void t_forged_remote_area(const struct kc *k)
{
	uint64_t *buf, h = H(1);
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_OK(remote_enable(k, fd, KC_ENTRIES, h));
	forge_u64(fd, CB_FIELD(remote_area), (1ULL << 61) + 1);
	expect_exit0(feeder(h, 1, 1000));
	expect_only_pcs(buf, KC_ENTRIES - 1, (const void *)target_leaf);
	CHECK_EQ(kc_dropped(k, fd), 1000 - (KC_ENTRIES - 1));
	expect_nothing_past(fd, PAGE);
	kc_disable_ok(k, fd);
}

/* (a) entries forged to 2^30 over a 4096-byte buffer (bytes left as
 * they are), or bytes forged past the block: the feeder refuses the
 * collector and says so once; nothing lands in the collector's buffer
 * or past it; the collector's own disable still works. */
static void forged_size(const struct kc *k, off_t field, uint64_t value,
			const char *why)
{
	uint64_t *buf, h = H(2), saved;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	char msg[1024], want[512];

	CHECK_OK(remote_enable(k, fd, KC_ENTRIES, h));
	saved = read_u64(fd, field);
	forge_u64(fd, field, value);
	capture_stderr_begin();
	/* Two sections of 400: an unbounded merge passes the 4096 bytes
	 * mapped at the second. */
	expect_exit0(feeder(h, 2, 400));
	capture_stderr_end(msg, sizeof(msg));
	snprintf(want, sizeof(want),
		 "ukcov: remote collector of another process (fd %d) not "
		 "used: %s; this coverage is off\n", fd, why);
	if (strcmp(msg, want) != 0)
		FAIL("stderr \"%s\", want \"%s\"", msg, want);
	CHECK_EQ(rec_count(buf), 0);
	expect_nothing_past(fd, PAGE);
	forge_u64(fd, field, saved);
	kc_disable_ok(k, fd);
}

static void t_forged_entries(const struct kc *k)
{
	forged_size(k, CB_FIELD(entries), 1ULL << 30,
		    "a buffer larger than the file holds");
}

/* Twice the real entries: still below the block, but past the bytes. */
static void t_forged_entries_double(const struct kc *k)
{
	forged_size(k, CB_FIELD(entries), 2ULL * KC_ENTRIES,
		    "entries and bytes of the buffer disagree");
}

static void t_forged_bytes(const struct kc *k)
{
	forged_size(k, CB_FIELD(bytes), 1ULL << 33,
		    "a buffer larger than the file holds");
}

/* (a) entries forged after a second remote enable: a feeder that
 * mapped the buffer for the first generation checks the block again
 * for the second (lib/remote.c proxy_refresh), refuses it and says so
 * once; neither of its sections after that lands in the buffer, and
 * it exits cleanly.  A refused refresh once handed out the proxy
 * anyway, without taking its reference. */
static void t_forged_new_generation(const struct kc *k)
{
	uint64_t *buf, h = H(3);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	char msg[1024], want[512];
	struct peer f;

	CHECK_OK(remote_enable(k, fd, KC_ENTRIES, h));
	capture_stderr_begin();
	if (peer_fork(&f) == 0) {
		ukcov_remote_start(h);
		call_n(target_leaf, 1);
		ukcov_remote_stop();
		peer_tell(&f);
		peer_wait(&f);
		for (int i = 0; i < 2; i++) {
			ukcov_remote_start(h);
			call_n(target_leaf, 400);
			ukcov_remote_stop();
		}
		_exit(0);
	}
	peer_wait(&f);
	CHECK_EQ(rec_count(buf), 1);
	kc_disable_ok(k, fd);
	rec_reset(buf);
	CHECK_OK(remote_enable(k, fd, KC_ENTRIES, h));
	forge_u64(fd, CB_FIELD(entries), 1ULL << 30);
	peer_tell(&f);
	expect_exit0(f.pid);
	capture_stderr_end(msg, sizeof(msg));
	snprintf(want, sizeof(want),
		 "ukcov: remote collector of another process (fd %d) not "
		 "used: a buffer larger than the file holds; this coverage "
		 "is off\n",
		 fd);
	if (strcmp(msg, want) != 0)
		FAIL("stderr \"%s\", want \"%s\"", msg, want);
	CHECK_EQ(rec_count(buf), 0);
	expect_nothing_past(fd, PAGE);
	forge_u64(fd, CB_FIELD(entries), KC_ENTRIES);
	kc_disable_ok(k, fd);
}

/* The owner's own bounds are the copy it checked when it first mapped
 * the buffer: entries forged between two enables does not widen what
 * its thread writes. */
static void t_forged_entries_owner(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	kc_disable_ok(k, fd);
	forge_u64(fd, CB_FIELD(entries), 1ULL << 28);
	rec_reset(buf);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 1000);
	CHECK_EQ(kc_dropped(k, fd), 1000 - (KC_ENTRIES - 1));
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, KC_ENTRIES - 1, (const void *)target_leaf);
	expect_nothing_past(fd, PAGE);
	forge_u64(fd, CB_FIELD(entries), KC_ENTRIES);
}

/* The same for a unique bitmap: words that fit the forged entries but
 * not the buffer this process mapped are EINVAL, as the kernel's
 * bitmap_words >= size - 1, and the buffer is left alone. */
static void t_forged_entries_unique(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	kc_enable_ok(k, fd, 0);
	kc_disable_ok(k, fd);
	forge_u64(fd, CB_FIELD(entries), 1ULL << 20);
	rec_reset(buf);
	CHECK_ERR(kc_req(k, fd, KCOV_UNIQUE_ENABLE, 4UL * KC_ENTRIES), EINVAL);
	call_n(target_leaf, 10);
	CHECK_EQ(rec_count(buf), 0);
	expect_nothing_past(fd, PAGE);
	forge_u64(fd, CB_FIELD(entries), KC_ENTRIES);
	CHECK_OK(kc_req(k, fd, KCOV_UNIQUE_ENABLE, 8));
	kc_disable_ok(k, fd);
}

/* (b) The exec'd image of hostile.exec_*: many records, which a
 * takeover bounded by a forged entries would write past the 4096 bytes
 * it maps.  With an fd argument it first truncates that file, as a
 * peer can an unsealed one. */
int hostile_exec_target_main(int argc, char **argv)
{
	if (argc > 2 && ftruncate(atoi(argv[2]), 0) != 0)
		return 2;
	call_n(target_leaf, 2000);
	return 0;
}

/* stderr of an exec'd image that refused its inherited descriptor:
 * exactly one line, for some fd. */
static void expect_exec_refusal(const char *msg, const char *why)
{
	static const char head[] =
		"ukcov: descriptor inherited across exec (fd ";
	char tail[256];
	size_t n = strlen(msg), t;

	snprintf(tail, sizeof(tail), ") not used: %s; this coverage is off\n",
		 why);
	t = strlen(tail);
	if (strncmp(msg, head, sizeof(head) - 1) != 0 || n < t ||
	    strcmp(msg + n - t, tail) != 0 || strchr(msg, '\n') != msg + n - 1)
		FAIL("stderr \"%s\", want one line \"%s<fd>%s\"", msg, head,
		     tail);
}

/* (b) A process enables a descriptor, forges entries = 2^30 (bytes
 * 4096, the magic intact) and execs: the new image does not take the
 * descriptor over, says why, and runs to exit 0; the descriptor is
 * released (enabled again once the field is put back). */
static void t_exec_forged(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	char msg[1024];
	struct peer p;

	capture_stderr_begin();
	if (peer_fork(&p) == 0) {
		char *argv[] = { "core", "--hostile-exec-target", NULL };

		if (kc_enable_pc(k, fd) != 0)
			_exit(2);
		forge_u64(fd, CB_FIELD(entries), 1ULL << 30);
		execv("/proc/self/exe", argv);
		_exit(3);
	}
	expect_exit0(p.pid);
	capture_stderr_end(msg, sizeof(msg));
	expect_exec_refusal(msg, "a buffer larger than the file holds");
	CHECK_EQ(rec_count(buf), 0);
	expect_nothing_past(fd, PAGE);
	forge_u64(fd, CB_FIELD(entries), KC_ENTRIES);
	kc_enable_ok(k, fd, 0);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/* This process's feeders memfd (lib/feeders.c), where the processes
 * feeding its collections append their module tables, or -1. */
static int feeders_fd(void)
{
	char path[64], link[128];
	ssize_t n;
	int fd;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strncmp(link, "/memfd:ukcov-feeders", 20) == 0)
			return fd;
	}
	return -1;
}

static long long feeders_size(void)
{
	struct stat st;
	int fd = feeders_fd();

	return fd >= 0 && fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
}

/* A collector process of many_collectors: enabled for h, it checks
 * that the feeder's second round appended no second module table. */
static void many_collector_child(const struct kc *k, int fd, uint64_t h,
				 const struct peer *p)
{
	long long size1;

	if (remote_enable(k, fd, KC_ENTRIES, h))
		_exit(2);
	peer_tell(p);
	peer_wait(p);		/* round 1 fed */
	size1 = feeders_size();
	peer_tell(p);
	peer_wait(p);		/* round 2 fed */
	if (kc_disable(k, fd) != 0)
		_exit(3);
	_exit(size1 <= 0 ? 4 : feeders_size() != size1 ? 5 : 0);
}

/* (b) A copy of a running descriptor's block in a memfd that is not
 * sealed, handed across exec: a peer could truncate it under the new
 * image's mapping (the image does, here), so it is not taken over. */
static void t_exec_unsealed(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	char msg[1024];
	struct peer p;

	capture_stderr_begin();
	if (peer_fork(&p) == 0) {
		char block[UKCOV_CB_SIZE], a[16];
		char *argv[] = { "core", "--hostile-exec-target", a, NULL };
		int m = memfd_create("ukcov", 0);

		if (m < 0 || ftruncate(m, (off_t)UKCOV_FILE_SIZE) != 0 ||
		    kc_enable_pc(k, fd) != 0)
			_exit(2);
		fd_read(fd, block, sizeof(block), (off_t)UKCOV_CB_OFF);
		if (kc_disable(k, fd) != 0 || close(fd) != 0)
			_exit(3);
		/* Running, owned by this thread: what a takeover wants. */
		fd_write(m, block, sizeof(block), (off_t)UKCOV_CB_OFF);
		snprintf(a, sizeof(a), "%d", m);
		execv("/proc/self/exe", argv);
		_exit(4);
	}
	expect_exit0(p.pid);
	capture_stderr_end(msg, sizeof(msg));
	expect_exec_refusal(msg, "the file is not sealed against shrinking");
	CHECK_EQ(rec_count(buf), 0);
}

/* (c) n live collector processes, each its own handle and buffer, fed
 * by this process twice over, round-robin: each gets exactly its PCs,
 * and this process's module table once.  More collectors than a proxy
 * cache holds make the feeder evict and reopen proxies (LRU). */
static void many_collectors(const struct kc *k, unsigned n)
{
	uint64_t **bufs = calloc(n, sizeof(*bufs));
	struct peer *ps = calloc(n, sizeof(*ps));
	int *fds = calloc(n, sizeof(*fds));
	unsigned i, round;

	CHECK(bufs && ps && fds);
	for (i = 0; i < n; i++) {
		fds[i] = kc_setup(k, KC_ENTRIES, &bufs[i]);
		if (peer_fork(&ps[i]) == 0)
			many_collector_child(k, fds[i], H(0x100 + i), &ps[i]);
		peer_wait(&ps[i]);
	}
	for (round = 0; round < 2; round++) {
		for (i = 0; i < n; i++) {
			ukcov_remote_start(H(0x100 + i));
			call_n(target_leaf, 1 + i % 3);
			ukcov_remote_stop();
		}
		for (i = 0; i < n && round == 0; i++) {
			peer_tell(&ps[i]);
			peer_wait(&ps[i]);
		}
	}
	for (i = 0; i < n; i++) {
		peer_tell(&ps[i]);
		expect_exit0(ps[i].pid);
		expect_only_pcs(bufs[i], 2ULL * (1 + i % 3),
				(const void *)target_leaf);
		close(ps[i].rd);
		close(ps[i].wr);
		munmap(bufs[i], (size_t)KC_ENTRIES * 8);
		close(fds[i]);
	}
	free(bufs);
	free(ps);
	free(fds);
}

static void t_twenty_collectors(const struct kc *k)
{
	many_collectors(k, 20);
}

static void t_seventy_collectors(const struct kc *k)
{
	many_collectors(k, 70);
}

/* (d) One collector process that opens a new descriptor for the same
 * handle each round (disabling the last one, keeping it open): every
 * round's sections reach that round's buffer. */
static void t_new_descriptor_each_round(const struct kc *k)
{
	struct peer p;
	unsigned r;

	if (peer_fork(&p) == 0) {
		for (r = 0; r < 20; r++) {
			uint64_t *buf;
			int fd = kc_setup(k, KC_ENTRIES, &buf);

			if (remote_enable(k, fd, KC_ENTRIES, H(3)))
				_exit(2);
			peer_tell(&p);
			peer_wait(&p);
			/* Each round's byte: 'a' + the records it got. */
			send_byte(p.wr, (char)('a' + rec_count(buf)));
			if (kc_disable(k, fd) != 0)
				_exit(3);
		}
		_exit(0);
	}
	for (r = 0; r < 20; r++) {
		peer_wait(&p);
		ukcov_remote_start(H(3));
		call_n(target_leaf, 2);
		ukcov_remote_stop();
		peer_tell(&p);
		if (recv_byte(p.rd) != 'a' + 2)
			FAIL("round %u: the collector did not get 2 PCs", r);
	}
	expect_exit0(p.pid);
}

/* (9) The fd a registration names now is a terminal (the collector's
 * fd was reused, as after pid reuse an unrelated process's is): a
 * feeder with no controlling terminal must not open it and so must not
 * acquire it as one. */
static void t_proxy_reused_fd_tty(const struct kc *k)
{
	uint64_t *buf, h = H(4);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer c, f;

	if (peer_fork(&c) == 0) {
		int m = posix_openpt(O_RDWR | O_NOCTTY), s;

		if (m < 0 || grantpt(m) || unlockpt(m) ||
		    remote_enable(k, fd, KC_ENTRIES, h))
			_exit(2);
		s = open(ptsname(m), O_RDWR | O_NOCTTY);
		/* Past the runtime: the registry still names fd. */
		if (s < 0 || syscall(SYS_dup3, s, fd, 0) != fd)
			_exit(3);
		peer_tell(&c);
		peer_wait(&c);
		_exit(0);
	}
	peer_wait(&c);
	if (peer_fork(&f) == 0) {
		int tty;

		if (setsid() < 0)
			_exit(2);
		ukcov_remote_start(h);
		target_leaf();
		ukcov_remote_stop();
		tty = open("/dev/tty", O_RDWR | O_NOCTTY);
		_exit(tty < 0 && errno == ENXIO ? 0 : 4);
	}
	expect_exit0(f.pid);
	peer_tell(&c);
	expect_exit0(c.pid);
	CHECK_EQ(rec_count(buf), 0);
}

/* (9) The collector's feeders memfd number now names a FIFO without a
 * reader: a feeder that opened it for writing would block for ever in
 * its section start.  It leaves it alone, and the section's PCs still
 * arrive. */
static void t_feeders_fd_fifo(const struct kc *k)
{
	char dir[] = "/tmp/ukcov-fifo.XXXXXX", fifo[64];
	uint64_t *buf, h = H(5);
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer c;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/f", dir);
	CHECK_OK(mkfifo(fifo, 0600));
	if (peer_fork(&c) == 0) {
		int ffd, p;

		if (remote_enable(k, fd, KC_ENTRIES, h))
			_exit(2);
		ffd = feeders_fd();
		p = open(fifo, O_PATH | O_CLOEXEC);
		/* Past the runtime, as a reused number would be. */
		if (ffd < 0 || p < 0 || syscall(SYS_dup3, p, ffd, 0) != ffd)
			_exit(3);
		peer_tell(&c);
		peer_wait(&c);
		_exit(0);
	}
	peer_wait(&c);
	expect_exit0(feeder(h, 1, 1));
	peer_tell(&c);
	expect_exit0(c.pid);
	unlink(fifo);
	rmdir(dir);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/* A peer that dies holding the control block's lock, as one killed
 * inside a transition would: the next request finds the lock's owner
 * dead (EOWNERDEAD), takes the block as it is (each transition leaves
 * it consistent at every store, lib/desc.c) and goes on. */
static void t_lock_holder_died(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer p;

	if (peer_fork(&p) == 0) {
		/* The system call: libukcov's mmap() maps only the buffer
		 * of a descriptor it knows. */
		struct ukcov_cb *cb = (struct ukcov_cb *)syscall(
			SYS_mmap, NULL, UKCOV_CB_SIZE, PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, (off_t)UKCOV_CB_OFF);

		if (cb == MAP_FAILED || pthread_mutex_lock(&cb->lock) != 0)
			_exit(1);
		_exit(0);
	}
	expect_exit0(p.pid);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 10);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 10);
	expect_only_pcs(buf, 10, (const void *)target_leaf);
	/* And again: the lock was made consistent, not left dead. */
	rec_reset(buf);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 3);
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 3, (const void *)target_leaf);
}

void register_hostile_tests(void)
{
	static const struct {
		const char *name;
		void (*fn)(const struct kc *);
		int any_api;	/* no remote section: the preload build too */
	} tests[] = {
		{ "hostile.forged_remote_area", t_forged_remote_area },
		{ "hostile.forged_entries", t_forged_entries },
		{ "hostile.forged_entries_double", t_forged_entries_double },
		{ "hostile.forged_bytes", t_forged_bytes },
		{ "hostile.forged_new_generation", t_forged_new_generation },
		{ "hostile.forged_entries_owner", t_forged_entries_owner, 1 },
		{ "hostile.forged_entries_unique", t_forged_entries_unique, 1 },
		{ "hostile.exec_forged", t_exec_forged, 1 },
		{ "hostile.exec_unsealed", t_exec_unsealed, 1 },
		{ "hostile.twenty_collectors", t_twenty_collectors },
		{ "hostile.seventy_collectors", t_seventy_collectors },
		{ "hostile.new_descriptor_each_round",
		  t_new_descriptor_each_round },
		{ "hostile.proxy_reused_fd_tty", t_proxy_reused_fd_tty },
		{ "hostile.feeders_fd_fifo", t_feeders_fd_fifo },
		{ "hostile.lock_holder_died", t_lock_holder_died, 1 },
	};
	unsigned i;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		reg_one(tests[i].name, tests[i].fn, FL_LINUX,
			tests[i].any_api ? core_have_native : 1, 0);
}
