/*
 * lib/desc.c -- the descriptor's shared state and its transitions.
 *
 * One function per transition, each called with the control block
 * locked; the per-OS tables (os_*.c) decide which errno a request gets
 * and in which order the checks run, then call these.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int ukcov__cb_lock(struct ukcov_cb *cb)
{
	int rc = pthread_mutex_lock(&cb->lock);

	/* A holder died inside a transition.  Every transition leaves the
	 * block consistent at each store, so the state is usable. */
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&cb->lock);
		rc = 0;
	}
	return rc;
}

void ukcov__cb_unlock(struct ukcov_cb *cb)
{
	pthread_mutex_unlock(&cb->lock);
}

/* /proc/<pid>/stat (or a task's): state letter and start time.  The one
 * parser, for the owner check here and the start time thread.c records. */
static int ukcov__read_proc_stat(const char *path, char *state,
				 uint64_t *start)
{
	char buf[1024], *p;
	ssize_t n;
	int fd, field;

	fd = ukcov__real_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	ukcov__real_close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	*state = p[2];
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	*start = p ? strtoull(p + 1, NULL, 10) : 0;
	return 0;
}

/*
 * A process's state letter and start time, from its first thread's
 * task file, /proc/<pid>/task/<pid>/stat: the same fields as
 * /proc/<pid>/stat, but a file that qemu-user passes through to the
 * kernel.  qemu emulates /proc/self/stat and /proc/<its own pid>/stat
 * (linux-user/syscall.c, open_self_stat) with a start time of 0, so a
 * process reading its own start time there and its child reading the
 * kernel's for it would disagree, and every live owner would look
 * reused.  Every start time ukcov compares comes from here.
 */
int ukcov__proc_start(pid_t pid, char *state, uint64_t *start)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)pid);
	return ukcov__read_proc_stat(path, state, start);
}

/* Is the thread that enabled the descriptor still there?  A process
 * killed with SIGKILL never disables; a zombie or a reused pid counts as
 * gone, as does a thread that no longer exists in a live process. */
static int ukcov__owner_alive(const struct ukcov_cb *cb)
{
	char path[96], state;
	uint64_t start;
	pid_t pid = cb->owner_pid, tid = cb->owner_tid;

	if (pid <= 0 || tid <= 0)
		return 0;
	if (pid == getpid()) {
		if (syscall(SYS_tgkill, pid, tid, 0) == 0)
			return 1;
		return errno != ESRCH;
	}
	if (ukcov__proc_start(pid, &state, &start) != 0)
		return 0;
	if (state == 'Z' || state == 'X' || start != cb->owner_start)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	if (ukcov__read_proc_stat(path, &state, &start) != 0)
		return 0;
	return state != 'Z' && state != 'X';
}

/* RUNNING -> READY, whoever the owner was. */
void ukcov__release_owner_locked(struct ukcov_cb *cb)
{
	if (cb->state == UKCOV_ST_RUNNING)
		cb->state = UKCOV_ST_READY;
	cb->mode = UKCOV_MODE_NONE;
	/* Linux kcov_reset: the bitmap is forgotten, a later enable uses
	 * the whole buffer again. */
	cb->uniq_words = 0;
	cb->owner_pid = 0;
	cb->owner_tid = 0;
	cb->owner_start = 0;
	cb->exec_tid = 0;
	cb->exec_carrier = -1;
}

/* A dead owner never disabled: treat it as if its thread had exited.
 * Every request runs this first, so the next enable succeeds. */
void ukcov__reap_dead_owner_locked(struct ukcov_cb *cb)
{
	if (cb->state == UKCOV_ST_RUNNING && !ukcov__owner_alive(cb))
		ukcov__release_owner_locked(cb);
}

int ukcov__owned_by_me_locked(const struct ukcov_cb *cb)
{
	return cb->state == UKCOV_ST_RUNNING &&
	       cb->owner_pid == (int32_t)getpid() &&
	       cb->owner_tid == (int32_t)__ukcov_thread.tid &&
	       __ukcov_thread.registered;
}

/* OPEN -> READY.  The pages are allocated now, as the kernels allocate
 * at SETBUFSIZE/INIT_TRACE, so a failure is ENOMEM here and not a
 * SIGBUS later.  A fresh memfd range reads as zeroes. */
int ukcov__setbuf_locked(struct ukcov_desc *d, int fd, uint64_t entries)
{
	struct ukcov_cb *cb = d->cb;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t bytes = (entries * 8 + (uint64_t)page - 1) &
			 ~((uint64_t)page - 1);

	if (fallocate(fd, 0, 0, (off_t)bytes) != 0) {
		int e = errno;

		/* Give back what a partial allocation took. */
		fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			  (off_t)bytes);
		return (e == ENOSPC || e == ENOMEM || e == EFBIG) ? -ENOMEM
								 : -e;
	}
	cb->entries = entries;
	cb->bytes = bytes;
	cb->state = UKCOV_ST_READY;
	return 0;
}

static const char *const peer_site_text[UKCOV_PEER_SITES] = {
	"descriptor",
	"remote collector of another process",
	"descriptor inherited across exec",
};

/* Said once per site and process: a peer that keeps forging the block
 * does not fill stderr. */
void ukcov__peer_refused(enum ukcov_peer_site site, int fd, const char *why)
{
	static int said[UKCOV_PEER_SITES];
	char msg[256];
	int n;

	if (__atomic_exchange_n(&said[site], 1, __ATOMIC_RELAXED))
		return;
	n = snprintf(msg, sizeof(msg),
		     "ukcov: %s (fd %d) not used: %s; this coverage is off\n",
		     peer_site_text[site], fd, why);
	ukcov__say_line(msg, sizeof(msg), n);
}

const char *ukcov__cb_check_fd(int fd, const struct ukcov_cb *cb,
			       struct ukcov_cb_bounds *out)
{
	struct stat st;

	int seals = ukcov__real_fcntl(fd, F_GET_SEALS, 0);

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return "not a regular file";
	/* ukcov_open seals every descriptor: a file that can shrink
	 * would turn our mapping's pages into SIGBUS (HARD-PROBLEMS 13). */
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return "the file is not sealed against shrinking";
	return ukcov__cb_check(cb, UKCOV_CB_SIZE, (uint64_t)st.st_size,
			       (uint64_t)sysconf(_SC_PAGESIZE), out);
}

/* Map the buffer for the runtime's own writes (once per process), by
 * one checked copy of entries and bytes: every later bound of this
 * process (the threads' capacities) comes from d->entries, never from
 * the block again. */
int ukcov__map_buffer(struct ukcov_desc *d, int fd)
{
	struct ukcov_cb_bounds b;
	const char *why;
	void *p;

	if (d->buf)
		return 0;
	why = ukcov__cb_check_fd(fd, d->cb, &b);
	if (!why && b.bytes == 0)
		why = "no buffer";
	if (why) {
		ukcov__peer_refused(UKCOV_PEER_DESC, fd, why);
		return -EINVAL;
	}
	p = ukcov__real_mmap(NULL, b.bytes, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	d->buf = p;
	d->buf_len = b.bytes;
	d->entries = b.entries;
	return 0;
}

/* READY -> RUNNING for the calling thread.  Called with both
 * ukcov__proc_lock and the block's lock held. */
int ukcov__enable_locked(struct ukcov_desc *d, int fd, int mode)
{
	return ukcov__enable_uniq_locked(d, fd, mode, 0);
}

/* The same, in a unique mode when uniq_words > 0 (KCOV_UNIQUE_ENABLE,
 * UKCOV_IOC_UNIQUE_ENABLE_CMP): the thread's key table is mapped
 * first, so a failure changes nothing. */
int ukcov__enable_uniq_locked(struct ukcov_desc *d, int fd, int mode,
			      uint64_t uniq_words)
{
	struct ukcov_cb *cb = d->cb;
	struct ukcov_thread *t = &__ukcov_thread;
	int rc = ukcov__map_buffer(d, fd);

	/* The caller checked words against the block's entries; the
	 * bound is this process's checked copy (a peer may have changed
	 * the block's since). */
	if (rc == 0 && uniq_words &&
	    ukcov__uniq_check_words(d->entries, uniq_words))
		rc = -EINVAL;
	if (rc == 0)
		rc = ukcov__uniq_prepare(t, mode, uniq_words);
	if (rc)
		return rc;
	cb->state = UKCOV_ST_RUNNING;
	cb->mode = mode;
	cb->uniq_words = uniq_words;
	cb->owner_pid = getpid();
	cb->owner_tid = ukcov__gettid();
	cb->owner_start = ukcov__self_start_time();
	cb->exec_tid = 0;
	cb->exec_carrier = -1;
	/* UKCOV_IOC_DROPPED counts from the enable. */
	cb->drops_read = __atomic_load_n(&cb->drops, __ATOMIC_RELAXED);
	ukcov__thread_arm(t, d, mode);
	return 0;
}

/* RUNNING -> READY by the owner itself (KCOV_DISABLE and friends,
 * through ukcov__owner_disable_locked, which resets the remotes first). */
void ukcov__disable_locked(struct ukcov_desc *d)
{
	ukcov__release_owner_locked(d->cb);
	ukcov__thread_disarm(&__ukcov_thread);
}

struct ukcov_cb *ukcov__cb_map(int fd)
{
	void *p = ukcov__real_mmap(NULL, UKCOV_CB_SIZE, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, (off_t)UKCOV_CB_OFF);

	return p == MAP_FAILED ? NULL : p;
}

/* Fill in a new descriptor's control block; the magic goes last so
 * that a concurrent probe never sees half a block. */
int ukcov__cb_init(int fd, int flavor)
{
	struct ukcov_cb *cb = ukcov__cb_map(fd);
	pthread_mutexattr_t ma;

	if (!cb)
		return -ENOMEM;
	memset(cb, 0, sizeof(*cb));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&cb->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	cb->layout = sizeof(*cb);
	cb->flavor = flavor;
	cb->state = UKCOV_ST_OPEN;
	cb->exec_carrier = -1;
	__atomic_store_n(&cb->magic, UKCOV_MAGIC, __ATOMIC_RELEASE);
	munmap(cb, UKCOV_CB_SIZE);
	return 0;
}

/* The slow check for an fd this process has not seen as ukcov: a
 * regular file of exactly our size with our magic in the block, sealed
 * against shrinking as ukcov_open leaves it (a file another process
 * could truncate would turn every page we map of it into SIGBUS).
 * *why names a refused lookalike (an unsealed one), else stays NULL.
 * Never trusts the fd number. */
int ukcov__fd_ukcov_why(int fd, const char **why)
{
	struct stat st;
	uint64_t magic = 0;
	int seals;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != UKCOV_FILE_SIZE)
		return 0;
	if (pread(fd, &magic, sizeof(magic), (off_t)UKCOV_CB_OFF) !=
	    (ssize_t)sizeof(magic) || magic != UKCOV_MAGIC)
		return 0;
	seals = ukcov__real_fcntl(fd, F_GET_SEALS, 0);
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		*why = "the file is not sealed against shrinking";
		return 0;
	}
	return 1;
}

int ukcov__fd_looks_like_ukcov(int fd)
{
	const char *why = NULL;

	return ukcov__fd_ukcov_why(fd, &why);
}

/* RUNNING -> DYING at the last close (FreeBSD kcov_mmap_cleanup,
 * OpenBSD kcovclose): tracing stops at once.  An owner thread in this
 * process is stopped now; one in another process stops at its next
 * ukcov call or at exit (docs/DESIGN.md). */
void ukcov__die_locked(struct ukcov_desc *d)
{
	struct ukcov_cb *cb = d->cb;

	if (cb->state != UKCOV_ST_RUNNING)
		return;
	cb->state = UKCOV_ST_DYING;
	cb->mode = UKCOV_MODE_NONE;
	if (cb->owner_pid == (int32_t)getpid())
		ukcov__stop_local_owner(d, cb->owner_tid);
}
