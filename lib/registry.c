/*
 * lib/registry.c -- remote handles for the whole machine, per user: a
 * section in one process feeds a collector in another, as the kernel's
 * kcov_remote_map is one table for the whole system.
 *
 * The registry is one file, created on first use (no daemon):
 * $UKCOV_REGISTRY, else $XDG_RUNTIME_DIR/ukcov-remote, else
 * /dev/shm/ukcov-remote-<uid>.  It must be a regular file of this user,
 * mode 0600, of exactly our size and magic; anything else (another
 * user's file, a truncated or corrupt one) is reported once and
 * cross-process coverage is off for the process.  Same-user-only comes
 * from the OS: the file's mode, and /proc/<pid>/fd/<n>, which the
 * kernel opens only for a process that may ptrace-read the collector.
 *
 *   header: magic, layout, nslots, used
 *   slot[i]: handle (0 never used, ~0 deleted), collector pid, its
 *            process start time, its descriptor's fd number in that
 *            process, the descriptor's remote generation
 *
 * Writers (a collector registering or unregistering) hold flock() on
 * the file, which the kernel drops when a writer dies.  Readers (a
 * section start in another process) probe without a lock and check the
 * slot's handle again after reading it.  A slot whose pid and start
 * time no longer name a live process is dead: the next registration of
 * the handle takes it over.
 *
 * A worker process opens a collector's descriptor once, through
 * /proc/<pid>/fd/<n>, and keeps it mapped (a proxy collector); the
 * merge then runs under the descriptor's own robust lock and checks the
 * generation in its control block, which the collector bumps at
 * disable, exit and re-enable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define REG_MAGIC 0x7267657276636b75ULL		/* "ukcvregr" */
#define REG_SLOTS 1024
#define SLOT_FREE 0ULL
#define SLOT_DELETED (~0ULL)

struct reg_slot {
	uint64_t handle;	/* written last when filled, first when freed */
	int32_t pid;
	int32_t fd;
	uint64_t start;
	uint64_t ino;
	uint64_t gen;
};

struct reg_file {
	uint64_t magic;
	uint32_t layout;
	uint32_t nslots;
	uint64_t used;		/* live slots, a hint for a fast miss */
	uint64_t pad[5];
	struct reg_slot slot[REG_SLOTS];
};

static struct {
	int state;		/* 0 not tried, 1 open, -1 unusable */
	int fd;
	struct reg_file *f;
	pthread_mutex_t lock;	/* opening, in this process */
} reg = { 0, -1, NULL, PTHREAD_MUTEX_INITIALIZER };

static void registry_complain(const char *path, const char *why)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg),
			 "ukcov: remote registry %s not used: %s\n", path, why);

	if (n > 0)
		(void)!write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n
							      : sizeof(msg) - 1);
}

static int registry_path(char *buf, size_t size)
{
	const char *p = ukcov__env("UKCOV_REGISTRY");
	const char *xdg = ukcov__env("XDG_RUNTIME_DIR");
	int n;

	if (p && *p)
		n = snprintf(buf, size, "%s", p);
	else if (xdg && *xdg)
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

/* First user: size it and publish the header, magic last. */
static int registry_init_locked(int fd, struct stat *st)
{
	struct reg_file *f;

	if (fstat(fd, st) != 0)
		return -1;
	if (st->st_size != 0)
		return 0;
	if (ftruncate(fd, (off_t)sizeof(struct reg_file)) != 0)
		return -1;
	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED)
		return -1;
	f->layout = sizeof(*f);
	f->nslots = REG_SLOTS;
	__atomic_store_n(&f->magic, REG_MAGIC, __ATOMIC_RELEASE);
	munmap(f, sizeof(*f));
	return fstat(fd, st);
}

static struct reg_file *registry_open_locked(void)
{
	char path[4096];
	struct stat st;
	struct reg_file *f;
	const char *why = NULL;
	int fd;

	if (registry_path(path, sizeof(path)) != 0)
		return NULL;
	fd = ukcov__real_open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			      0600);
	if (fd < 0) {
		registry_complain(path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || (why = registry_refused(&st)) != NULL)
		goto refuse;
	if (flock(fd, LOCK_EX) != 0 || registry_init_locked(fd, &st) != 0) {
		why = "cannot initialize it";
		goto refuse;
	}
	flock(fd, LOCK_UN);
	if ((uint64_t)st.st_size != sizeof(struct reg_file)) {
		why = "wrong size (truncated or foreign)";
		goto refuse;
	}
	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED) {
		why = "cannot map it";
		goto refuse;
	}
	if (__atomic_load_n(&f->magic, __ATOMIC_ACQUIRE) != REG_MAGIC ||
	    f->layout != sizeof(*f) || f->nslots != REG_SLOTS) {
		munmap(f, sizeof(*f));
		why = "corrupt header";
		goto refuse;
	}
	reg.fd = fd;
	return f;
refuse:
	registry_complain(path, why);
	ukcov__real_close(fd);
	return NULL;
}

/* The mapped registry, or NULL if this process cannot use one. */
static struct reg_file *registry(void)
{
	int state = __atomic_load_n(&reg.state, __ATOMIC_ACQUIRE);

	if (state)
		return state > 0 ? reg.f : NULL;
	pthread_mutex_lock(&reg.lock);
	if (!reg.state) {
		reg.f = registry_open_locked();
		__atomic_store_n(&reg.state, reg.f ? 1 : -1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&reg.lock);
	return reg.f;
}

static unsigned slot_hash(uint64_t handle)
{
	return (unsigned)((handle * 0x9e3779b97f4a7c15ULL) >> 54) &
	       (REG_SLOTS - 1);
}

/* Does (pid, start) still name a live process?  Our own pid is alive. */
static int collector_alive(int32_t pid, uint64_t start)
{
	struct ukcov_cb probe;

	if (pid == (int32_t)getpid())
		return 1;
	memset(&probe, 0, sizeof(probe));
	probe.owner_pid = pid;
	probe.owner_tid = pid;		/* the process: its main thread */
	probe.owner_start = start;
	return ukcov__owner_alive(&probe);
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
	struct reg_file *f = registry();
	struct reg_slot *s, *free_slot = NULL;
	unsigned i, k;
	int rc = 0;

	if (!f)
		return 0;
	if (flock(reg.fd, LOCK_EX) != 0)
		return 0;
	for (k = 0, i = slot_hash(handle); k < REG_SLOTS;
	     k++, i = (i + 1) & (REG_SLOTS - 1)) {
		s = &f->slot[i];
		if (s->handle == SLOT_FREE) {
			if (!free_slot)
				free_slot = s;
			break;
		}
		if (s->handle == SLOT_DELETED) {
			if (!free_slot)
				free_slot = s;
			continue;
		}
		if (s->handle != handle)
			continue;
		if (collector_alive(s->pid, s->start)) {
			rc = -EEXIST;
			goto out;
		}
		/* Reclaimed: its collector died without unregistering. */
		__atomic_store_n(&s->handle, SLOT_DELETED, __ATOMIC_RELEASE);
		f->used--;
		if (!free_slot)
			free_slot = s;
	}
	if (!free_slot) {
		rc = -ENOMEM;
		goto out;
	}
	free_slot->pid = (int32_t)getpid();
	free_slot->fd = fd;
	free_slot->start = ukcov__self_start_time();
	free_slot->ino = ino;
	free_slot->gen = gen;
	__atomic_store_n(&free_slot->handle, handle, __ATOMIC_RELEASE);
	f->used++;
out:
	flock(reg.fd, LOCK_UN);
	return rc;
}

/* Unregister every handle of (this process, fd, gen); all of this
 * process's with fd < 0. */
static void registry_remove(int fd, uint64_t gen)
{
	struct reg_file *f = __atomic_load_n(&reg.state, __ATOMIC_ACQUIRE) > 0
				     ? reg.f : NULL;
	int32_t me = (int32_t)getpid();
	unsigned i;

	if (!f || flock(reg.fd, LOCK_EX) != 0)
		return;
	for (i = 0; i < REG_SLOTS; i++) {
		struct reg_slot *s = &f->slot[i];

		if (s->handle != SLOT_FREE && s->handle != SLOT_DELETED &&
		    s->pid == me && (fd < 0 || (s->fd == fd && s->gen == gen))) {
			__atomic_store_n(&s->handle, SLOT_DELETED,
					 __ATOMIC_RELEASE);
			f->used--;
		}
	}
	flock(reg.fd, LOCK_UN);
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
 * process.  Lock-free: the slot is read, then its handle checked again.
 */
int ukcov__registry_lookup(uint64_t handle, struct ukcov_reg_entry *out)
{
	struct reg_file *f = registry();
	unsigned i, k;

	if (!f || __atomic_load_n(&f->used, __ATOMIC_RELAXED) == 0)
		return -1;
	for (k = 0, i = slot_hash(handle); k < REG_SLOTS;
	     k++, i = (i + 1) & (REG_SLOTS - 1)) {
		struct reg_slot *s = &f->slot[i];
		uint64_t h = __atomic_load_n(&s->handle, __ATOMIC_ACQUIRE);

		if (h == SLOT_FREE)
			return -1;
		if (h != handle)
			continue;
		out->pid = s->pid;
		out->fd = s->fd;
		out->start = s->start;
		out->ino = s->ino;
		out->gen = s->gen;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->handle, __ATOMIC_RELAXED) != handle)
			continue;
		/* No liveness check here (it reads /proc, 100 times a
		 * section's cost): a dead collector's block stays mapped
		 * by the proxy, so its sections write into memory nobody
		 * reads, and lose only their own coverage.  Registration
		 * reclaims the slot. */
		if (out->pid == (int32_t)getpid())
			continue;
		return 0;
	}
	return -1;
}

/* The child of fork opens the registry again when it needs it: flock
 * belongs to the open file description, which the parent's fd shares,
 * so the child's locking must go through an open of its own. */
void ukcov__registry_after_fork_child(void)
{
	pthread_mutex_init(&reg.lock, NULL);
	if (reg.state <= 0)
		return;		/* none yet, or unusable (reported) */
	munmap(reg.f, sizeof(*reg.f));
	ukcov__real_close(reg.fd);
	reg.f = NULL;
	reg.fd = -1;
	reg.state = 0;
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
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != e->ino) {
		ukcov__real_close(fd);
		return -1;
	}
	return fd;
}
