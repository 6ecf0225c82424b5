/*
 * lib/registry.c -- remote handles for the whole machine, per user: a
 * section in one process feeds a collector in another, as the kernel's
 * kcov_remote_map is one table for the whole system.
 *
 * The registry is one file, created on first use (no daemon):
 * $UKCOV_REGISTRY, else $XDG_RUNTIME_DIR/ukcov-remote when that
 * directory belongs to the effective user, else
 * /dev/shm/ukcov-remote-<euid>: root with a user's XDG_RUNTIME_DIR
 * (sudo -E) gets a registry of its own instead of leaving a root-owned
 * file that locks the user out.  It must be a regular file of this
 * user, mode 0600, of exactly our size and layout; anything else is
 * reported once and cross-process coverage is off for the process.
 * Same-user-only comes from the OS: the file's mode, and
 * /proc/<pid>/fd/<n>, which the kernel opens only for a process that
 * may ptrace-read the collector.
 *
 * Its bytes are in registry_format.h.  Every process of the user can
 * write or truncate the file, so it is never mapped (a shrunk mapping
 * raises SIGBUS on the next touch): the space is allocated for real at
 * creation (posix_fallocate, so a full /dev/shm fails there, once) and
 * every access is pread/pwrite.  A short read or a bad header or slot
 * found later turns cross-process coverage off, said once.
 *
 * Writers (registering, unregistering, reclaiming) hold flock() on the
 * file, which the kernel drops when a writer dies, and this process's
 * writer mutex (flock does not exclude threads sharing the open file).
 * They make the header's seq odd while they work.  Readers (a section
 * start in another process) take no lock: they read the header and the
 * handle's probe, and trust a hit only if seq was even and unchanged.
 * A slot whose pid and start time no longer name a live process is
 * dead: the next registration of the handle takes it over, and a
 * section whose /proc/<pid>/fd/<n> open fails deletes it, so later
 * sections miss without a system call beyond the reads.
 *
 * A worker process opens a collector's descriptor once, through
 * /proc/<pid>/fd/<n>, and keeps it mapped (a proxy collector); the
 * merge then runs under the descriptor's own robust lock and checks the
 * generation in its control block, which the collector bumps at
 * disable, exit and re-enable.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "registry_format.h"

_Static_assert(sizeof(struct reg_slot) == 40, "slot layout");
_Static_assert(sizeof(struct reg_header) == 64, "header layout");

/*
 * The hint: a System V shared memory segment of one page, named by the
 * file's header, that a section start reads without a system call.  A
 * segment cannot be resized once made, so no peer can make a load from
 * it fault, unlike a mapping of the file.  Writers make its epoch odd
 * while they change the file and bump it after; a thread caches its
 * last lookup with the epoch it was made at, and trusts it while the
 * epoch stands.  The segment is removed (IPC_RMID) as soon as it is
 * attached: it lives while a process holds it and no longer.  What the
 * hint says is checked against the file every HINT_CHECK_NS, so a
 * segment someone replaced or a truncated file is noticed then.
 */
#define HINT_MAGIC 0x746e696876636b75ULL		/* "ukcvhint" */
#define HINT_BYTES 4096
#define HINT_CHECK_NS 100000000ULL			/* 100 ms */

struct reg_hint {
	uint64_t magic;
	uint64_t ino, dev;	/* the registry file it belongs to */
	uint64_t epoch;		/* odd while a writer works */
	uint64_t used;		/* the file's used: 0, every lookup misses */
	uint64_t homes[REG_SLOTS / 64];	/* bit i clear: no live slot's
					 * handle has home i, a miss */
};

/* A thread's last lookup, valid at epoch (see above). */
struct reg_tcache {
	uint64_t handle, epoch;
	uint64_t lgen;		/* reg.local_gen it was made at */
	int found;
	struct ukcov_reg_entry e;
};

/* A few handles per thread: a worker alternating between a collected
 * handle and others (a server's requests) keeps all of them. */
#define TCACHE_WAYS 8
static __thread struct reg_tcache reg_tc[TCACHE_WAYS]
	__attribute__((tls_model("initial-exec")));

static struct reg_tcache *tcache_of(uint64_t handle)
{
	return &reg_tc[(handle * 0x9e3779b97f4a7c15ULL) >> 61];
}

static struct {
	int state;		/* 0 not tried, 1 open, -1 unusable */
	int fd;
	int noproc;		/* no /proc: nobody can open a collector */
	struct reg_hint *hint;	/* NULL: every lookup reads the file */
	uint64_t hint_id;	/* its shmid + 1 */
	uint64_t hint_checked;	/* CLOCK_MONOTONIC_COARSE, ns */
	uint64_t ino, dev;	/* the file's */
	uint64_t seen_seq;	/* the file's seq at the last check */
	uint64_t seen_epoch;	/* the hint's epoch then */
	int unannounced;	/* checks in a row that saw such a change */
	uint64_t odd_seen;	/* an odd seq the last check saw, or 0 */
	uint64_t local_gen;	/* bumped when the file changed unseen */
	char path[256];		/* for the one message */
	pthread_mutex_t lock;	/* opening, in this process */
	pthread_mutex_t wlock;	/* writers, in this process */
} reg = { 0, -1, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, "",
	  PTHREAD_MUTEX_INITIALIZER,
	  PTHREAD_MUTEX_INITIALIZER };

static void registry_say(const char *path, const char *what, const char *why)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "ukcov: remote registry %s %s: %s\n",
			 path, what, why);

	ukcov__say_line(msg, sizeof(msg), n);
}

static void registry_complain(const char *path, const char *why)
{
	registry_say(path, "not used", why);
}

/* The registry went bad under us (truncated, rewritten, disk full):
 * cross-process coverage is off from now on, said once.  The fd stays
 * open: another thread may be reading it right now. */
static void registry_broken(const char *why)
{
	int open_state = 1;

	if (__atomic_compare_exchange_n(&reg.state, &open_state, -1, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		registry_say(reg.path, "unusable, cross-process coverage off",
			     why ? why : "read or write failed");
}

/* $XDG_RUNTIME_DIR only when it is a directory of the effective user:
 * root must not create its registry in a user's runtime directory. */
static int runtime_dir_is_mine(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid();
}

static int registry_path(char *buf, size_t size)
{
	const char *p = ukcov__env("UKCOV_REGISTRY");
	const char *xdg = ukcov__env("XDG_RUNTIME_DIR");
	int n;

	if (p && *p)
		n = snprintf(buf, size, "%s", p);
	else if (xdg && *xdg == '/' && runtime_dir_is_mine(xdg))
		n = snprintf(buf, size, "%s/ukcov-remote", xdg);
	else
		n = snprintf(buf, size, "/dev/shm/ukcov-remote-%u",
			     (unsigned)geteuid());
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The checks made on every open: ours, 0600, a regular file. */
static const char *registry_refused(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != geteuid())
		return "owned by another user";
	if ((st->st_mode & 07777) != 0600)
		return "mode is not 0600";
	return NULL;
}

static ssize_t fd_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(*(int *)ctx, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n;
}

static int fd_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pwrite(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* First user: allocate every block now, so that neither a full tmpfs
 * nor a sparse hole can fail a later write, then publish the header. */
static const char *registry_init_locked(int fd)
{
	struct reg_header h;
	struct stat st;
	int err;

	if (fstat(fd, &st) != 0)
		return "cannot stat it";
	if (st.st_size != 0)
		return NULL;
	err = posix_fallocate(fd, 0, (off_t)REG_FILE_SIZE);
	if (err) {
		(void)!ftruncate(fd, 0);	/* the next process tries again */
		return err == ENOSPC ? "cannot allocate it: no space left"
				     : "cannot allocate it";
	}
	memset(&h, 0, sizeof(h));
	h.magic = REG_MAGIC;
	h.layout = REG_LAYOUT;
	h.nslots = REG_SLOTS;
	return fd_pwrite(fd, &h, sizeof(h), 0) ? "cannot initialize it" : NULL;
}

/* A registry of the first layout (no seq, no maxprobe; its layout
 * field was the file's size) that nobody uses any more, as a reboot
 * would leave none: taken over in place, as a new file would be. */
static void registry_upgrade_locked(int fd)
{
	struct reg_header h;

	if (fd_pread(&fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != REG_MAGIC || h.layout != REG_FILE_SIZE || h.used != 0)
		return;
	memset(&h, 0, sizeof(h));
	h.magic = REG_MAGIC;
	h.layout = REG_LAYOUT;
	h.nslots = REG_SLOTS;
	(void)fd_pwrite(fd, &h, sizeof(h), 0);
}

/* The file at reg.path, checked, or why not. */
static const char *registry_check_locked(int fd)
{
	struct reg_io io = { fd_pread, &fd };
	struct reg_header h;
	struct stat st;
	const char *why = registry_init_locked(fd);

	if (why)
		return why;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != REG_FILE_SIZE)
		return "wrong size (truncated or foreign)";
	registry_upgrade_locked(fd);
	if (ukcov__reg_read_header(&io, &h, &why) != 0)
		return why;
	return NULL;
}

/* Cross-process coverage opens /proc/<pid>/fd/<n>: without /proc no
 * process can feed another, said once.  The registry still keeps two
 * collectors from registering one handle. */
static void registry_check_proc(void)
{
	if (access("/proc/self/fd", X_OK) == 0)
		return;
	reg.noproc = 1;
	registry_say(reg.path, "in use, but cross-process coverage is off",
		     "/proc is not mounted");
}

/* ---- the hint segment ---- */

/* Attach the segment id names, if it is this user's hint for our
 * file.  Checked once attached: while we are attached, the id cannot
 * name another segment. */
static struct reg_hint *hint_attach(uint64_t id)
{
	struct shmid_ds ds;
	struct reg_hint *h;

	if (id == 0 || id > (uint64_t)INT32_MAX + 1)
		return NULL;
	h = shmat((int)(id - 1), NULL, 0);
	if (h == (void *)-1)
		return NULL;
	if (shmctl((int)(id - 1), IPC_STAT, &ds) == 0 &&
	    ds.shm_perm.uid == geteuid() && ds.shm_perm.cuid == geteuid() &&
	    (ds.shm_perm.mode & 0777) == 0600 && ds.shm_segsz == HINT_BYTES &&
	    __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == HINT_MAGIC &&
	    h->ino == reg.ino && h->dev == reg.dev)
		return h;
	shmdt(h);
	return NULL;
}

/* The homes of the file's live slots, for a new hint (flock held). */
static int hint_fill_homes(int fd, struct reg_hint *h)
{
	struct reg_slot s[REG_CHUNK];
	unsigned i, j, home;

	for (i = 0; i < REG_SLOTS; i += REG_CHUNK) {
		if (fd_pread(&fd, s, sizeof(s), REG_SLOT_OFF(i)) !=
		    (ssize_t)sizeof(s))
			return -1;
		for (j = 0; j < REG_CHUNK; j++) {
			if (ukcov__reg_slot_kind(&s[j]) != REG_LIVE)
				continue;
			home = reg_home(s[j].handle);
			h->homes[home / 64] |= 1ULL << (home % 64);
		}
	}
	return 0;
}

/* A new hint, named in the header *hd of the file (flock held).  It is
 * removed at once: Linux lets later processes attach it still, and it
 * dies with its last user instead of outliving everybody. */
static struct reg_hint *hint_create_locked(int fd, struct reg_header *hd)
{
	int id = shmget(IPC_PRIVATE, HINT_BYTES, IPC_CREAT | 0600);
	struct reg_hint *h;

	if (id < 0)
		return NULL;
	h = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	if (h == (void *)-1)
		return NULL;
	h->ino = reg.ino;
	h->dev = reg.dev;
	h->used = hd->used;
	if (hint_fill_homes(fd, h) != 0) {
		shmdt(h);
		return NULL;
	}
	__atomic_store_n(&h->magic, HINT_MAGIC, __ATOMIC_RELEASE);
	hd->hint = (uint64_t)id + 1;
	if (fd_pwrite(fd, &hd->hint, sizeof(hd->hint),
		      offsetof(struct reg_header, hint)) == 0)
		return h;
	shmdt(h);
	return NULL;
}

/* The file's hint, or a new one; none (every lookup reads the file)
 * where System V shared memory is not available. */
static void hint_setup_locked(int fd)
{
	struct reg_header hd;

	if (fd_pread(&fd, &hd, sizeof(hd), 0) != (ssize_t)sizeof(hd))
		return;
	reg.seen_seq = hd.seq;
	reg.hint = hint_attach(hd.hint);
	if (!reg.hint)
		reg.hint = hint_create_locked(fd, &hd);
	reg.hint_id = reg.hint ? hd.hint : 0;
	/* Lookups cached under another hint (a fork child's, inherited)
	 * count for nothing under this one, whose epochs restart. */
	__atomic_add_fetch(&reg.local_gen, 1, __ATOMIC_RELEASE);
	reg.seen_epoch = reg.hint ? __atomic_load_n(&reg.hint->epoch,
						    __ATOMIC_ACQUIRE) : 0;
}

static uint64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A writer changed the file without the hint (one that could not
 * attach it): the hint's misses and cached lookups are not to be
 * trusted.  Twice in a row, so that a writer caught between its write
 * and its bump is not mistaken for one. */
static void hint_note_change(const struct reg_hint *hint, uint64_t seq)
{
	uint64_t epoch = hint ? __atomic_load_n(&hint->epoch,
						__ATOMIC_ACQUIRE) : 0;

	if (seq == reg.seen_seq) {
		reg.unannounced = 0;
		return;
	}
	if (hint && epoch == reg.seen_epoch && ++reg.unannounced >= 2)
		__atomic_store_n(&reg.hint, NULL, __ATOMIC_RELEASE);
	else if (epoch != reg.seen_epoch)
		reg.unannounced = 0;
	reg.seen_seq = seq;
	reg.seen_epoch = epoch;
	__atomic_add_fetch(&reg.local_gen, 1, __ATOMIC_RELEASE);
}

static void registry_repair(void);

/* Every HINT_CHECK_NS, one thread of the process reads the file's
 * header: a truncated or corrupt file is noticed (said once), a hint
 * the file no longer names is dropped, and a change no hint announced
 * (a writer without one) invalidates every thread's cached lookup. */
static void hint_check(void)
{
	struct reg_io io = { fd_pread, &reg.fd };
	struct reg_header hd;
	uint64_t now = coarse_ns();
	uint64_t last = __atomic_load_n(&reg.hint_checked, __ATOMIC_RELAXED);
	const char *why;

	if (now - last < HINT_CHECK_NS ||
	    !__atomic_compare_exchange_n(&reg.hint_checked, &last, now, 0,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	if (ukcov__reg_read_header(&io, &hd, &why) != 0) {
		registry_broken(why);
		return;
	}
	if (hd.hint != reg.hint_id)
		__atomic_store_n(&reg.hint, NULL, __ATOMIC_RELEASE);
	hint_note_change(__atomic_load_n(&reg.hint, __ATOMIC_ACQUIRE),
			 hd.seq);
	/* The same odd seq 100 ms apart: a writer died half-way (writers
	 * take microseconds).  Not from a handler: the repair blocks. */
	if ((hd.seq & 1) && hd.seq == reg.odd_seen &&
	    __ukcov_thread.sig_depth == 0)
		registry_repair();
	reg.odd_seen = (hd.seq & 1) ? hd.seq : 0;
}

static int registry_open_locked(void)
{
	struct stat st;
	const char *why = NULL;
	int fd;

	if (registry_path(reg.path, sizeof(reg.path)) != 0)
		return -1;
	fd = ukcov__real_open(reg.path,
			      O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		registry_complain(reg.path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || (why = registry_refused(&st)) != NULL)
		goto refuse;
	if (flock(fd, LOCK_EX) != 0) {
		why = "cannot lock it";
		goto refuse;
	}
	reg.ino = (uint64_t)st.st_ino;
	reg.dev = (uint64_t)st.st_dev;
	why = registry_check_locked(fd);
	if (!why)
		hint_setup_locked(fd);
	flock(fd, LOCK_UN);
	if (why)
		goto refuse;
	reg.fd = fd;
	reg.hint_checked = coarse_ns();
	registry_check_proc();
	return 0;
refuse:
	registry_complain(reg.path, why);
	ukcov__real_close(fd);
	return -1;
}

/* 1 if this process has a usable registry (opened now if need be). */
static int registry(void)
{
	int state = __atomic_load_n(&reg.state, __ATOMIC_ACQUIRE);

	if (state)
		return state > 0;
	pthread_mutex_lock(&reg.lock);
	if (!reg.state)
		__atomic_store_n(&reg.state,
				 registry_open_locked() == 0 ? 1 : -1,
				 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&reg.lock);
	return __atomic_load_n(&reg.state, __ATOMIC_ACQUIRE) > 0;
}

/* ---- liveness ---- */

/* Does (pid, start) still name a live process?  kill(pid, 0) answers
 * without /proc; the start time, where /proc gives it, tells a reused
 * pid apart.  Our own pid is alive. */
static int collector_alive(int32_t pid, uint64_t start)
{
	char state;
	uint64_t now;

	if (pid == (int32_t)getpid())
		return 1;
	if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH))
		return 0;
	if (reg.noproc || start <= 1)
		return 1;	/* nothing better to compare */
	if (ukcov__proc_start(pid, &state, &now) != 0)
		return 0;	/* gone since kill() */
	return state != 'Z' && state != 'X' && now == start;
}

/* ---- writers: under wlock and flock, seq odd meanwhile ---- */

static int writer_begin(struct reg_header *h)
{
	struct reg_io io = { fd_pread, &reg.fd };
	const char *why = NULL;

	pthread_mutex_lock(&reg.wlock);
	if (__atomic_load_n(&reg.state, __ATOMIC_ACQUIRE) <= 0)
		goto fail;
	if (flock(reg.fd, LOCK_EX) != 0)
		goto fail;
	if (ukcov__reg_read_header(&io, h, &why) != 0)
		goto broken;
	/* A writer killed half-way left seq odd: its work stands, as it
	 * was flushed slot by slot; readers missed meanwhile. */
	h->seq |= 1;
	if (fd_pwrite(reg.fd, &h->seq, sizeof(h->seq),
		      offsetof(struct reg_header, seq)) == 0) {
		if (reg.hint)	/* threads' cached lookups: not now */
			__atomic_fetch_or(&reg.hint->epoch, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
broken:
	registry_broken(why);
	flock(reg.fd, LOCK_UN);
fail:
	pthread_mutex_unlock(&reg.wlock);
	return -1;
}

static void writer_end(struct reg_header *h)
{
	h->seq++;		/* even again: readers may trust hits */
	if (fd_pwrite(reg.fd, h, sizeof(*h), 0) != 0)
		registry_broken(NULL);
	if (reg.hint) {
		__atomic_store_n(&reg.hint->used, h->used, __ATOMIC_RELAXED);
		__atomic_store_n(&reg.hint->epoch,
				 (__atomic_load_n(&reg.hint->epoch,
						  __ATOMIC_RELAXED) | 1) + 1,
				 __ATOMIC_RELEASE);
	}
	flock(reg.fd, LOCK_UN);
	pthread_mutex_unlock(&reg.wlock);
}

static int slot_read(unsigned i, struct reg_slot *s)
{
	if (fd_pread(&reg.fd, s, sizeof(*s), REG_SLOT_OFF(i)) ==
	    (ssize_t)sizeof(*s))
		return 0;
	registry_broken("truncated");
	return -1;
}

static int slot_write(unsigned i, const struct reg_slot *s)
{
	if (fd_pwrite(reg.fd, s, sizeof(*s), REG_SLOT_OFF(i)) == 0)
		return 0;
	registry_broken(NULL);
	return -1;
}

static int slot_delete(struct reg_header *h, unsigned i)
{
	uint64_t del = REG_SLOT_DELETED;

	if (fd_pwrite(reg.fd, &del, sizeof(del), REG_SLOT_OFF(i)) != 0) {
		registry_broken(NULL);
		return -1;
	}
	if (h->used)
		h->used--;
	return 0;
}

/* The free or deleted slot for handle nearest its home, k its
 * distance, or -1 when every slot is live. */
static int slot_for_insert(uint64_t handle, unsigned *k)
{
	struct reg_slot s;
	unsigned i;

	for (*k = 0; *k < REG_SLOTS; (*k)++) {
		i = (reg_home(handle) + *k) & (REG_SLOTS - 1);
		if (slot_read(i, &s) != 0)
			return -1;
		if (ukcov__reg_slot_kind(&s) != REG_LIVE)
			return (int)i;
	}
	return -1;
}

/* Within handle's probe: -EEXIST if a live collector has it; a dead
 * one's slot is deleted (its collector died without unregistering). */
static int handle_taken(struct reg_header *h, uint64_t handle)
{
	struct reg_slot s;
	unsigned k, i;

	for (k = 0; k <= h->maxprobe; k++) {
		i = (reg_home(handle) + k) & (REG_SLOTS - 1);
		if (slot_read(i, &s) != 0)
			return -EIO;
		if (ukcov__reg_slot_kind(&s) != REG_LIVE || s.handle != handle)
			continue;
		if (collector_alive(s.pid, s.start))
			return -EEXIST;
		if (slot_delete(h, i) != 0)
			return -EIO;
	}
	return 0;
}

/* A handle's probe this long, or none free: registrations whose
 * collector died without unregistering (killed, crashed: a "ukcov
 * fuzz" executor per crash) are in the way, and only the probe of
 * their own handle would ever reclaim them.  One sweep deletes every
 * dead one and shrinks maxprobe; a table of live collectors pays it
 * only on inserts that would lengthen every miss past this. */
#define REG_RECLAIM_PROBE 32

static void reclaim_dead_locked(struct reg_header *h);

/*
 * Register handle for the calling process's descriptor fd, generation
 * gen: 0, or -EEXIST if a live collector (in any process) has it.
 * Called by REMOTE_ENABLE after the in-process registration.  Returns 0
 * also when there is no usable registry: coverage then stays within
 * the process.
 */
int ukcov__registry_add(uint64_t handle, int fd, uint64_t ino, uint64_t gen)
{
	struct reg_header h;
	struct reg_slot s;
	unsigned k;
	int i, rc;

	if (!registry() || writer_begin(&h) != 0)
		return 0;
	rc = handle_taken(&h, handle);
	if (rc == -EIO)
		rc = 0;		/* broken: as without a registry */
	if (rc)
		goto out;
	i = slot_for_insert(handle, &k);
	if (i < 0 || k > REG_RECLAIM_PROBE) {
		reclaim_dead_locked(&h);
		i = slot_for_insert(handle, &k);
	}
	if (i < 0) {
		rc = __atomic_load_n(&reg.state, __ATOMIC_ACQUIRE) > 0
			     ? -ENOMEM : 0;
		goto out;
	}
	memset(&s, 0, sizeof(s));
	s.handle = handle;
	s.pid = (int32_t)getpid();
	s.fd = fd;
	s.start = ukcov__self_start_time();
	s.ino = ino;
	s.gen = gen;
	if (slot_write((unsigned)i, &s) != 0)
		goto out;
	if (reg.hint)
		__atomic_fetch_or(&reg.hint->homes[reg_home(handle) / 64],
				  1ULL << (reg_home(handle) % 64),
				  __ATOMIC_RELAXED);
	h.used++;
	if (k > h.maxprobe)
		h.maxprobe = k;
out:
	writer_end(&h);
	return rc;
}

/* Which registrations a sweep deletes: one process's (pid, fd, gen,
 * start), or (dead) every one whose collector no longer lives. */
struct reg_match {
	int32_t pid;
	int fd;			/* < 0: every fd of pid */
	uint64_t gen;
	uint64_t start;		/* 0: any */
	int dead;		/* instead: the dead collectors' */
};

static int slot_matches(const struct reg_slot *s, const struct reg_match *m)
{
	if (m->dead)
		return !collector_alive(s->pid, s->start);
	return s->pid == m->pid && (m->fd < 0 || (s->fd == m->fd &&
						  s->gen == m->gen)) &&
	       (m->start == 0 || s->start == m->start);
}

/* Delete what m matches (writer held); maxprobe shrinks to the longest
 * probe left, so that misses stay cheap however many slots were ever
 * used.  0, or -1 if the file broke. */
static int sweep_locked(struct reg_header *h, const struct reg_match *m)
{
	struct reg_slot s[REG_CHUNK];
	uint64_t far = 0, d, live = 0, homes[REG_SLOTS / 64] = { 0 };
	unsigned i, j;

	for (i = 0; i < REG_SLOTS; i += REG_CHUNK) {
		if (fd_pread(&reg.fd, s, sizeof(s), REG_SLOT_OFF(i)) !=
		    (ssize_t)sizeof(s)) {
			registry_broken("truncated");
			return -1;
		}
		for (j = 0; j < REG_CHUNK; j++) {
			if (ukcov__reg_slot_kind(&s[j]) != REG_LIVE)
				continue;
			if (slot_matches(&s[j], m)) {
				if (slot_delete(h, i + j) != 0)
					return -1;
				continue;
			}
			d = (i + j - reg_home(s[j].handle)) & (REG_SLOTS - 1);
			if (d > far)
				far = d;
			homes[reg_home(s[j].handle) / 64] |=
				1ULL << (reg_home(s[j].handle) % 64);
			live++;
		}
	}
	h->maxprobe = far;
	h->used = live;		/* counted, not trusted */
	for (i = 0; reg.hint && i < REG_SLOTS / 64; i++)
		__atomic_store_n(&reg.hint->homes[i], homes[i],
				 __ATOMIC_RELAXED);
	return 0;
}

static void registry_remove_matching(const struct reg_match *m)
{
	struct reg_header h;

	if (writer_begin(&h) != 0)
		return;
	(void)sweep_locked(&h, m);
	writer_end(&h);
}

/* After a writer died half-way (seq left odd): a removal that matches
 * nothing rewrites used, maxprobe and the hint's bitmap from the slots
 * and makes seq even, so readers trust hits again. */
static void registry_repair(void)
{
	struct reg_match none = { 0, -1, 0, 0, 0 };	/* live pids are > 0 */

	registry_remove_matching(&none);
}

/* Writer held: delete the registrations of dead collectors (a file
 * that broke meanwhile is said once; the insert then finds no slot or
 * a broken registry, as without the sweep). */
static void reclaim_dead_locked(struct reg_header *h)
{
	struct reg_match dead = { 0, -1, 0, 0, 1 };

	(void)sweep_locked(h, &dead);
}

/* Unregister every handle of (this process, fd, gen); all of this
 * process's with fd < 0.  Never opens the registry. */
static void registry_remove(int fd, uint64_t gen)
{
	struct reg_match m = { (int32_t)getpid(), fd, gen, 0, 0 };

	if (__atomic_load_n(&reg.state, __ATOMIC_ACQUIRE) > 0)
		registry_remove_matching(&m);
}

void ukcov__registry_remove(int fd, uint64_t gen)
{
	registry_remove(fd, gen);
}

/* Process exit: the process's registrations go now, not when a later
 * lookup finds the process gone. */
void ukcov__registry_remove_mine(void)
{
	registry_remove(-1, 0);
}

/* No live registration anywhere, or none whose handle has handle's
 * home: a miss without reading the file.  Trusted only if no writer
 * started meanwhile (the epoch, even, unchanged). */
static int hint_says_miss(const struct reg_hint *hint, uint64_t handle,
			  uint64_t epoch)
{
	unsigned home = reg_home(handle);

	if (__atomic_load_n(&hint->used, __ATOMIC_RELAXED) != 0 &&
	    (__atomic_load_n(&hint->homes[home / 64], __ATOMIC_RELAXED) &
	     (1ULL << (home % 64))))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&hint->epoch, __ATOMIC_RELAXED) == epoch;
}

/* The thread's cached lookup of handle, if the hint says nothing
 * changed since it was made: 0 hit, -1 miss, 1 not known.  Never in a
 * signal handler, which could interrupt its own thread's cache. */
static int cached_lookup(uint64_t handle, uint64_t epoch, uint64_t gen,
			 struct ukcov_reg_entry *out)
{
	const struct reg_tcache *tc = tcache_of(handle);

	if (tc->handle != handle || tc->epoch != epoch || tc->lgen != gen)
		return 1;
	if (!tc->found)
		return -1;
	*out = tc->e;
	return 0;
}

/*
 * A probe that meets a writer (seq odd, or changed under it) tries
 * again, yielding, for up to 200 ms: a writer holds seq odd for a few
 * pwrites, but one preempted on a loaded machine holds it for
 * milliseconds, and a section that gave up after three immediate tries
 * lost its coverage (remote.stress_kill, 2 records of 13878, seen under
 * load).  A writer that died half-way leaves seq odd for good: the
 * 100 ms check repairs it (hint_check); until then the section is not
 * recorded, as before.
 */
static enum reg_probe probe_while_busy(const struct reg_io *io,
				       uint64_t handle, struct reg_slot *s,
				       unsigned *index, const char **why)
{
	struct timespec t0, now;
	enum reg_probe r;

	for (int tries = 0;; tries++) {
		r = ukcov__reg_probe(io, handle, (int32_t)getpid(), s, index,
				     why);
		if (r != REG_BUSY || tries == 100000)
			return r;
		if (tries == 0)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000000000L +
		    (now.tv_nsec - t0.tv_nsec) > 200000000L)
			return r;
		sched_yield();
	}
}

static int probe_file(uint64_t handle, struct ukcov_reg_entry *out)
{
	struct reg_io io = { fd_pread, &reg.fd };
	struct reg_slot s;
	const char *why;
	unsigned index;
	enum reg_probe r = probe_while_busy(&io, handle, &s, &index, &why);

	if (r == REG_BROKEN)
		registry_broken(why);
	if (r != REG_FOUND)
		return r == REG_MISS ? -1 : -2;	/* -2: do not cache */
	out->pid = s.pid;
	out->fd = s.fd;
	out->start = s.start;
	out->ino = s.ino;
	out->gen = s.gen;
	return 0;
}

/*
 * Look handle up for a section in this process: the collector's pid,
 * start time, fd and generation, from a live registration of another
 * process.  No lock: a hit read while a writer worked is read again.
 * With the hint, a thread repeating its last lookup makes no system
 * call while no writer changed anything.
 */
int ukcov__registry_lookup(uint64_t handle, struct ukcov_reg_entry *out)
{
	struct reg_hint *hint;
	struct reg_tcache *tc = tcache_of(handle);
	uint64_t epoch = 1, gen;
	int rc, cache = __ukcov_thread.sig_depth == 0;

	if (!registry() || reg.noproc)
		return -1;
	hint_check();
	hint = __atomic_load_n(&reg.hint, __ATOMIC_ACQUIRE);
	gen = __atomic_load_n(&reg.local_gen, __ATOMIC_ACQUIRE);
	if (hint) {
		epoch = __atomic_load_n(&hint->epoch, __ATOMIC_ACQUIRE);
		if (!(epoch & 1) && hint_says_miss(hint, handle, epoch))
			return -1;
		if (!(epoch & 1) && cache &&
		    (rc = cached_lookup(handle, epoch, gen, out)) <= 0)
			return rc;
	}
	if (__atomic_load_n(&reg.state, __ATOMIC_ACQUIRE) <= 0)
		return -1;
	rc = probe_file(handle, out);
	if (hint && cache && rc != -2 && !(epoch & 1) &&
	    __atomic_load_n(&hint->epoch, __ATOMIC_ACQUIRE) == epoch) {
		tc->handle = handle;
		tc->epoch = epoch;
		tc->found = rc == 0;
		tc->lgen = gen;
		tc->e = rc == 0 ? *out : (struct ukcov_reg_entry){ 0 };
	}
	return rc == 0 ? 0 : -1;
}

/* The child of fork opens the registry again when it needs it: flock
 * belongs to the open file description, which the parent's fd shares,
 * so the child's locking must go through an open of its own. */
void ukcov__registry_after_fork_child(void)
{
	pthread_mutex_init(&reg.lock, NULL);
	pthread_mutex_init(&reg.wlock, NULL);
	if (reg.state <= 0)
		return;		/* none yet, or unusable (reported) */
	ukcov__real_close(reg.fd);
	if (reg.hint)
		shmdt(reg.hint);	/* attached again with the file */
	reg.hint = NULL;
	reg.hint_id = 0;
	reg.fd = -1;
	reg.noproc = 0;
	reg.state = 0;
}

/* A registration whose collector is gone: delete every slot of that
 * process, so that its handles' sections miss from now on instead of
 * trying /proc again each time. */
static void registry_reclaim(const struct ukcov_reg_entry *e)
{
	struct reg_match m = { e->pid, -1, 0, e->start, 0 };

	if (!collector_alive(e->pid, e->start))
		registry_remove_matching(&m);
}

/*
 * Open what a registration names, through /proc/<pid>/fd/<n>: the
 * kernel allows it only to a process that may ptrace-read the
 * registrant (the same user), never to another user.  The link is
 * looked at through O_PATH and opened only if it is still the
 * registered regular file (its inode): after the
 * number was reused it may be a FIFO without a reader, whose open
 * blocks, or a terminal, which would become our controlling one.  A
 * registrant found gone (ENOENT) is reclaimed.  Returns a close-on-exec
 * fd, or -1.
 */
int ukcov__registry_open(const struct ukcov_reg_entry *e)
{
	char path[64];
	struct stat st;
	int pfd, fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)e->pid,
		 (int)e->fd);
	pfd = ukcov__real_open(path, O_PATH | O_CLOEXEC, 0);
	if (pfd < 0) {
		if (errno == ENOENT)
			registry_reclaim(e);
		return -1;
	}
	if (fstat(pfd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_ino == e->ino) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
		fd = ukcov__real_open(path, O_RDWR | O_NOCTTY | O_NONBLOCK |
					     O_CLOEXEC, 0);
	}
	ukcov__real_close(pfd);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
			(uint64_t)st.st_ino != e->ino)) {
		ukcov__real_close(fd);
		fd = -1;
	}
	return fd;
}
