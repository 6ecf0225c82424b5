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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "registry_format.h"

_Static_assert(sizeof(struct reg_slot) == 40, "slot layout");
_Static_assert(sizeof(struct reg_header) == 64, "header layout");

static struct {
	int state;		/* 0 not tried, 1 open, -1 unusable */
	int fd;
	int noproc;		/* no /proc: nobody can open a collector */
	char path[256];		/* for the one message */
	pthread_mutex_t lock;	/* opening, in this process */
	pthread_mutex_t wlock;	/* writers, in this process */
} reg = { 0, -1, 0, "", PTHREAD_MUTEX_INITIALIZER,
	  PTHREAD_MUTEX_INITIALIZER };

static void registry_say(const char *path, const char *what, const char *why)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "ukcov: remote registry %s %s: %s\n",
			 path, what, why);

	if (n > 0)
		(void)!write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n
							      : sizeof(msg) - 1);
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
	const char *p = getenv("UKCOV_REGISTRY");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
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
	why = registry_check_locked(fd);
	flock(fd, LOCK_UN);
	if (why)
		goto refuse;
	reg.fd = fd;
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
	char path[64], state;
	uint64_t now;

	if (pid == (int32_t)getpid())
		return 1;
	if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH))
		return 0;
	if (reg.noproc || start <= 1)
		return 1;	/* nothing better to compare */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ukcov__read_proc_stat(path, &state, &now) != 0)
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
		      offsetof(struct reg_header, seq)) == 0)
		return 0;
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
	h.used++;
	if (k > h.maxprobe)
		h.maxprobe = k;
out:
	writer_end(&h);
	return rc;
}

/* Which registrations a removal deletes. */
struct reg_match {
	int32_t pid;
	int fd;			/* < 0: every fd of pid */
	uint64_t gen;
	uint64_t start;		/* 0: any */
};

static int slot_matches(const struct reg_slot *s, const struct reg_match *m)
{
	return s->pid == m->pid && (m->fd < 0 || (s->fd == m->fd &&
						  s->gen == m->gen)) &&
	       (m->start == 0 || s->start == m->start);
}

/* Delete what m matches; maxprobe shrinks to the longest probe left,
 * so that misses stay cheap however many slots were ever used. */
static void registry_remove_matching(const struct reg_match *m)
{
	struct reg_slot s[REG_CHUNK];
	struct reg_header h;
	uint64_t far = 0, d;
	unsigned i, j;

	if (writer_begin(&h) != 0)
		return;
	for (i = 0; i < REG_SLOTS; i += REG_CHUNK) {
		if (fd_pread(&reg.fd, s, sizeof(s), REG_SLOT_OFF(i)) !=
		    (ssize_t)sizeof(s)) {
			registry_broken("truncated");
			goto out;
		}
		for (j = 0; j < REG_CHUNK; j++) {
			if (ukcov__reg_slot_kind(&s[j]) != REG_LIVE)
				continue;
			if (slot_matches(&s[j], m)) {
				if (slot_delete(&h, i + j) != 0)
					goto out;
				continue;
			}
			d = (i + j - reg_home(s[j].handle)) & (REG_SLOTS - 1);
			if (d > far)
				far = d;
		}
	}
	h.maxprobe = far;
out:
	writer_end(&h);
}

/* Unregister every handle of (this process, fd, gen); all of this
 * process's with fd < 0.  Never opens the registry. */
static void registry_remove(int fd, uint64_t gen)
{
	struct reg_match m = { (int32_t)getpid(), fd, gen, 0 };

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

/*
 * Look handle up for a section in this process: the collector's pid,
 * start time, fd and generation, from a live registration of another
 * process.  No lock: a hit read while a writer worked is read again.
 */
int ukcov__registry_lookup(uint64_t handle, struct ukcov_reg_entry *out)
{
	struct reg_io io = { fd_pread, &reg.fd };
	struct reg_slot s;
	const char *why;
	unsigned index, tries;
	enum reg_probe r = REG_BUSY;

	if (!registry() || reg.noproc)
		return -1;
	for (tries = 0; tries < 3 && r == REG_BUSY; tries++)
		r = ukcov__reg_probe(&io, handle, (int32_t)getpid(), &s, &index,
				     &why);
	if (r == REG_BROKEN)
		registry_broken(why);
	if (r != REG_FOUND)
		return -1;	/* busy three times: as if just before */
	out->pid = s.pid;
	out->fd = s.fd;
	out->start = s.start;
	out->ino = s.ino;
	out->gen = s.gen;
	return 0;
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
	reg.fd = -1;
	reg.noproc = 0;
	reg.state = 0;
}

/* A registration whose collector is gone: delete every slot of that
 * process, so that its handles' sections miss from now on instead of
 * trying /proc again each time. */
static void registry_reclaim(const struct ukcov_reg_entry *e)
{
	struct reg_match m = { e->pid, -1, 0, e->start };

	if (!collector_alive(e->pid, e->start))
		registry_remove_matching(&m);
}

/*
 * Open what a registration names, through /proc/<pid>/fd/<n>: the
 * kernel allows it only to a process that may ptrace-read the
 * registrant (the same user), never to another user.  The fd must
 * still be the registered file (its inode).  Returns a close-on-exec
 * fd, or -1.
 */
int ukcov__registry_open(const struct ukcov_reg_entry *e)
{
	struct stat st;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)e->pid,
		 (int)e->fd);
	fd = ukcov__real_open(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0) {
		if (errno == ENOENT)
			registry_reclaim(e);
		return -1;
	}
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != e->ino) {
		ukcov__real_close(fd);
		return -1;
	}
	return fd;
}
