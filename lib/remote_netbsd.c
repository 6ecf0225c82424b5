/*
 * lib/remote_netbsd.c -- NetBSD's remotes: kcov_remote_register,
 * kcov_remote_enter, kcov_remote_leave and the remote half of
 * kcov_remote_enable/disable/attach/detach and kcov_fops_mmap
 * (sys/kern/subr_kcov.c rev 1.15-1.17; docs/KERNELS.md "NetBSD").
 *
 * NetBSD's model differs from Linux's (lib/remote.c): the code that
 * does the work registers a remote (subsystem, id), which owns ONE
 * buffer of KCOV_BUF_MAX_ENTRIES entries; any descriptor attached to it
 * maps that buffer, and a thread between enter and leave records
 * straight into it (no private area, no merge).  The remote's enabled
 * flag and mode are the remote's own (kr->kd), not the descriptor's.
 *
 * Here a remote is a memfd: the buffer, then one page of state that
 * every process mapping it shares (a fork child, a process that found
 * it in the per-user registry, lib/registry.c):
 *
 *     state word: (generation << 8) | NB_ON | mode
 *
 *           ENABLE (gen+1)            any attached fd's ENABLE: EBUSY
 *     off ------------------> on(mode) 
 *         <------------------          a section entered while on
 *          DISABLE, DETACH, last       records while the word is the
 *          close of an attached fd,    one it saw at enter: a disable
 *          exit of a thread inside     stops it, a re-enable does not
 *          a section (kcov_lwp_free)   restart it (new generation)
 *
 * A section: enter takes the page's holder word (NetBSD asserts
 * refcount == 1: one thread in a remote at a time) and installs the
 * buffer as the thread's hot block if the remote is on (NetBSD sets
 * l_kcov only if kd->enabled); leave gives both back.  NetBSD's hooks
 * test kd->enabled on every record; ours test only the area pointer,
 * so a disable clears the in-process holder's pointer itself (a
 * compare-and-swap against the buffer, so that nothing else the
 * thread records into is touched), and the holder re-checks the word
 * after it reinstalls the block at a signal handler's return.
 *
 * Locking: [I] immutable once published; [A] atomics, shared by every
 * process mapping the remote; [P] under ukcov__proc_lock; [N] inserted
 * under nb_lock, read without it (the list only grows).  Order:
 * ukcov__proc_lock, a control block's lock, nb_lock.  A remote lives
 * until the process ends: NetBSD has no unregister.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/netbsd/kcov.h>

#define NB_ENTRIES    ((uint64_t)UKCOV_NB_REMOTE_ENTRIES)
#define NB_BUF_BYTES  (NB_ENTRIES * 8)		/* a page multiple */
#define NB_FILE_BYTES (NB_BUF_BYTES + 4096)
#define NB_MAGIC      0x6d6572626e766b75ULL	/* "ukvnbrem" */
#define NB_ON         0x80ULL
#define NB_MODE(st)   ((int)((st) & 0x7f))
/* Registry keys: bits 32-55 set, which no valid Linux handle has. */
#define NB_KEY_MID    (0xffffffULL << 32)
#define NB_KEY_TAG    (0x4e4252ULL << 32)	/* "NBR" */

/* The page after the buffer. */
struct nb_page {
	uint64_t magic;		/* [I] stored last */
	uint64_t subsystem;	/* [I] */
	uint64_t id;		/* [I] */
	uint64_t state;		/* [A] the state word above */
	int32_t holder;		/* [A] tid of the thread inside, 0 none */
	int32_t pad;
	uint64_t drops;		/* [A] records a full buffer dropped */
	uint64_t drops_read;	/* [A] drops already reported by
				 * UKCOV_IOC_DROPPED, or at the enable */
};

struct ukcov_nb_remote {
	struct nb_page *pg;		/* [I] */
	uint64_t *buf;			/* [I] NB_ENTRIES words */
	int fd;				/* [I] the memfd, close-on-exec */
	int local;			/* [I] registered by this process
					 * (or its parent before a fork) */
	int32_t pid;			/* [I] the registrant (for a local
					 * one, a parent before a fork) */
	uint64_t start, ino;		/* [I] proxies */
	int stale;			/* [N] proxy no longer registered */
	struct ukcov_thread *holder_t;	/* [P] this process's thread inside */
	struct ukcov_nb_remote *next;	/* [N] */
};

static pthread_mutex_t nb_lock = PTHREAD_MUTEX_INITIALIZER;
/* The calling thread's tid for the holder word: gettid is a system
 * call, most of an empty section's cost.  Reset in a fork child. */
static __thread pid_t nb_tid;
static struct ukcov_nb_remote *nb_list;	/* [N] */

/* ---- refusals, reported once per reason ---- */

enum nb_why {
	NB_DUP,
	NB_UNREG,
	NB_TRACES,
	NB_NESTED,
	NB_SIGNAL,
	NB_BUSY,
	NB_NOENTER,
	NB_COUNT,
};

static const char *const nb_text[NB_COUNT] = {
	"already registered (NetBSD panics)",
	"not registered (NetBSD panics)",
	"this thread traces or runs a Linux section (NetBSD: l_kcov set)",
	"this thread is inside a remote already (sections do not nest)",
	"inside a signal handler (NetBSD does not trace interrupts)",
	"another thread is inside this remote (NetBSD asserts refcount == 1)",
	"this thread did not enter this remote",
};

static int nb_refuse(enum nb_why why, const char *fn, uint64_t s, uint64_t id,
		     const void *where, int err)
{
	static int reported[NB_COUNT];
	char msg[512];
	Dl_info di;
	int n;

	if (!__atomic_exchange_n(&reported[why], 1, __ATOMIC_RELAXED)) {
		memset(&di, 0, sizeof(di));
		if (dladdr(where, &di) && di.dli_sname && di.dli_saddr)
			n = snprintf(msg, sizeof(msg),
				     "ukcov: %s(0x%llx, 0x%llx) refused at "
				     "%s+0x%lx (%p, %s): %s\n", fn,
				     (unsigned long long)s,
				     (unsigned long long)id, di.dli_sname,
				     (unsigned long)((const char *)where -
						     (const char *)di.dli_saddr),
				     where, di.dli_fname, nb_text[why]);
		else
			n = snprintf(msg, sizeof(msg),
				     "ukcov: %s(0x%llx, 0x%llx) refused at %p "
				     "(%s): %s\n", fn, (unsigned long long)s,
				     (unsigned long long)id, where,
				     di.dli_fname ? di.dli_fname : "?",
				     nb_text[why]);
		ukcov__say_line(msg, sizeof(msg), n);
	}
	errno = err;
	return -1;
}

/* ---- remotes ---- */

/*
 * Registry keys of (s, id): a 40-bit hash in the bits no Linux handle
 * has.  Two remotes may share a key, so a remote has NB_KEY_PROBES of
 * them (the hash salted by the probe's number): it is registered at the
 * first that is free, and found by opening each key's entry and
 * comparing the page's subsystem and id (nb_proxy_open), never by the
 * key alone.  Probe 0 is the hash unsalted.
 */
#define NB_KEY_PROBES 4
static uint64_t nb_key(uint64_t s, uint64_t id, unsigned probe)
{
	uint64_t h = (s * 0x9e3779b97f4a7c15ULL) ^ id ^
		     ((uint64_t)probe * 0xd6e8feb86659fd93ULL);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (h & ~NB_KEY_MID) | NB_KEY_TAG;
}

static int nb_is(const struct ukcov_nb_remote *r, uint64_t s, uint64_t id)
{
	return r->pg->subsystem == s && r->pg->id == id;
}

/* Map a remote's memfd; NULL if it is not one (size, magic). */
static struct ukcov_nb_remote *nb_map(int fd)
{
	struct ukcov_nb_remote *r;
	void *p;

	p = ukcov__real_mmap(NULL, NB_FILE_BYTES, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		munmap(p, NB_FILE_BYTES);
		errno = ENOMEM;
		return NULL;
	}
	r->buf = p;
	r->pg = (struct nb_page *)((char *)p + NB_BUF_BYTES);
	r->fd = fd;
	return r;
}

static void nb_unmap(struct ukcov_nb_remote *r)
{
	munmap(r->buf, NB_FILE_BYTES);
	free(r);
}

/* Publish r at the head of the list; lookups run without the lock. */
static void nb_publish_locked(struct ukcov_nb_remote *r)
{
	r->next = nb_list;
	__atomic_store_n(&nb_list, r, __ATOMIC_RELEASE);
}

/* kcov_allocbuf(kd, KCOV_BUF_MAX_ENTRIES) for a new remote: a sealed
 * memfd, zero-filled like NetBSD's anonymous uobj. */
static struct ukcov_nb_remote *nb_create(uint64_t s, uint64_t id)
{
	struct ukcov_nb_remote *r;
	int fd, e;

	fd = memfd_create("ukcov-netbsd-remote",
			  MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)NB_FILE_BYTES) != 0 ||
	    ukcov__real_fcntl(fd, F_ADD_SEALS,
			      F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
	    !(r = nb_map(fd))) {
		e = errno == ENOSPC || errno == EFBIG ? ENOMEM : errno;
		ukcov__real_close(fd);
		errno = e;
		return NULL;
	}
	r->local = 1;
	r->pid = (int32_t)getpid();
	r->pg->subsystem = s;
	r->pg->id = id;
	__atomic_store_n(&r->pg->magic, NB_MAGIC, __ATOMIC_RELEASE);
	return r;
}

/* Open another process's remote (ukcov__registry_open: the same user
 * only) and check it is the one named. */
static struct ukcov_nb_remote *nb_proxy_open(uint64_t s, uint64_t id,
					     const struct ukcov_reg_entry *e)
{
	struct ukcov_nb_remote *r = NULL;
	struct stat st;
	int fd = ukcov__registry_open(e);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == NB_FILE_BYTES)
		r = nb_map(fd);
	if (r && (__atomic_load_n(&r->pg->magic, __ATOMIC_ACQUIRE) !=
		  NB_MAGIC || !nb_is(r, s, id))) {
		nb_unmap(r);
		r = NULL;
	}
	if (!r) {
		ukcov__real_close(fd);
		return NULL;
	}
	r->pid = e->pid;
	r->start = e->start;
	r->ino = e->ino;
	return r;
}

static struct ukcov_nb_remote *nb_find_listed(uint64_t s, uint64_t id,
					      struct ukcov_nb_remote **proxy)
{
	struct ukcov_nb_remote *r;

	*proxy = NULL;
	for (r = __atomic_load_n(&nb_list, __ATOMIC_ACQUIRE); r; r = r->next) {
		if (r->stale || !nb_is(r, s, id))
			continue;
		if (r->local)
			return r;
		*proxy = r;
	}
	return NULL;
}

/* Does the registry entry e name the remote proxy r maps? */
static int nb_entry_is(const struct ukcov_nb_remote *r,
		       const struct ukcov_reg_entry *e)
{
	return r->pid == e->pid && r->start == e->start && r->ino == e->ino;
}

/* The machine's registration of (s, id), under nb_lock: proxy (this
 * process's mapping of it, or NULL) if its entry is still there, else
 * a new proxy of the entry whose page is (s, id), else NULL. */
static struct ukcov_nb_remote *nb_registry_find_locked(
	uint64_t s, uint64_t id, struct ukcov_nb_remote *proxy)
{
	struct ukcov_reg_entry e;
	struct ukcov_nb_remote *r;

	for (unsigned i = 0; i < NB_KEY_PROBES; i++) {
		if (ukcov__registry_lookup(nb_key(s, id, i), &e) != 0 ||
		    !e.pid)
			continue;
		if (proxy && nb_entry_is(proxy, &e))
			return proxy;
		r = nb_proxy_open(s, id, &e);	/* NULL: another remote's */
		if (r)
			return r;
	}
	return NULL;
}

/* Register this process's remote r (fd, inode ino) as (s, id): -EEXIST
 * if a live process has registered (s, id) already, else at the first
 * of its keys that is free (another remote may hold a key). */
static int nb_registry_add(uint64_t s, uint64_t id, int fd, uint64_t ino)
{
	struct ukcov_nb_remote *other;
	int rc = 0;

	pthread_mutex_lock(&nb_lock);
	other = nb_registry_find_locked(s, id, NULL);
	pthread_mutex_unlock(&nb_lock);
	if (other) {
		ukcov__real_close(other->fd);
		nb_unmap(other);
		return -EEXIST;
	}
	for (unsigned i = 0; i < NB_KEY_PROBES; i++) {
		rc = ukcov__registry_add(nb_key(s, id, i), fd, ino, 0);
		if (rc != -EEXIST)
			return rc;
	}
	return -ENOSPC;		/* every key held by another remote */
}

/*
 * kcov_remote_find: this process's remotes (its own and its parent's
 * before a fork), then the machine's registry: a remote another
 * process of this user registered.  A proxy is checked against the
 * registry every time, so a registrant that died and was replaced is
 * not served from a stale mapping.
 */
struct ukcov_nb_remote *ukcov__nb_find(uint64_t s, uint64_t id)
{
	struct ukcov_nb_remote *r, *proxy;

	r = nb_find_listed(s, id, &proxy);
	if (r)
		return r;
	pthread_mutex_lock(&nb_lock);
	r = nb_registry_find_locked(s, id, proxy);
	if (proxy && r != proxy)
		proxy->stale = 1;	/* kept mapped: a section may use it */
	if (r && r != proxy)
		nb_publish_locked(r);
	pthread_mutex_unlock(&nb_lock);
	return r;
}

/* Is r still served: this process's, or a proxy whose registrant is
 * alive (a zombie or a reused pid is not)?  Reads /proc: for attach
 * only, never on a section's path. */
int ukcov__nb_alive(const struct ukcov_nb_remote *r)
{
	char state;
	uint64_t start;

	if (r->local)
		return 1;
	return ukcov__proc_start(r->pid, &state, &start) == 0 &&
	       start == r->start && state != 'Z' && state != 'X';
}

int ukcov__nb_fd(const struct ukcov_nb_remote *r)
{
	return r->fd;
}

/* ---- enable, disable (kcov_remote_enable, kcov_remote_disable) ---- */

/* EBUSY if on already; mode is an enum ukcov_mode (NONE records
 * nothing).  A new generation: sections entered before do not start
 * recording. */
int ukcov__nb_enable_locked(struct ukcov_nb_remote *r, int mode)
{
	uint64_t old = __atomic_load_n(&r->pg->state, __ATOMIC_RELAXED), nw;

	do {
		if (old & NB_ON)
			return -EBUSY;
		nw = (((old >> 8) + 1) << 8) | NB_ON | (uint64_t)mode;
	} while (!__atomic_compare_exchange_n(&r->pg->state, &old, nw, 0,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	/* UKCOV_IOC_DROPPED counts from the enable, as for a descriptor. */
	__atomic_store_n(&r->pg->drops_read,
			 __atomic_load_n(&r->pg->drops, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	return 0;
}

/* UKCOV_IOC_DROPPED of a descriptor attached to a remote: the remote's
 * counters, if this process reaches it (cb locked). */
void ukcov__nb_drops(const struct ukcov_cb *cb, uint64_t **drops,
		     uint64_t **drops_read)
{
	struct ukcov_nb_remote *r = ukcov__nb_find(cb->nb_subsystem,
						   cb->nb_id);

	if (r) {
		*drops = &r->pg->drops;
		*drops_read = &r->pg->drops_read;
	}
}

/* Stop the in-process holder now: NetBSD's hooks test kd->enabled on
 * every record.  Only an area that is this remote's buffer is cleared.
 * Called with ukcov__proc_lock held, after the state word changed. */
static void nb_stop_holder_locked(struct ukcov_nb_remote *r)
{
	struct ukcov_thread *t = r->holder_t;
	uint64_t *want;

	if (!t)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	want = r->buf;
	__atomic_compare_exchange_n(&t->pc_area, &want, NULL, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	want = r->buf;
	__atomic_compare_exchange_n(&t->cmp_area, &want, NULL, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* ENOENT if off.  Called with ukcov__proc_lock held. */
int ukcov__nb_disable_locked(struct ukcov_nb_remote *r)
{
	uint64_t old = __atomic_load_n(&r->pg->state, __ATOMIC_RELAXED);

	do {
		if (!(old & NB_ON))
			return -ENOENT;
	} while (!__atomic_compare_exchange_n(&r->pg->state, &old,
					      old & ~0xffULL, 0,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	nb_stop_holder_locked(r);
	return 0;
}

/* ---- sections ---- */

/* The section's hot block: the remote's buffer in its mode, with
 * NetBSD's capacities (bufnent = entries - 1 PCs, floor(bufnent / 4)
 * comparisons); nothing if the word st is off or in mode NONE. */
static void nb_install(struct ukcov_thread *t, struct ukcov_nb_remote *r,
		       uint64_t st)
{
	struct ukcov_hot h;

	memset(&h, 0, sizeof(h));
	h.pc_cap = NB_ENTRIES - 1;
	h.cmp_cap = (NB_ENTRIES - 1) / 4;
	h.drops = &r->pg->drops;
	if ((st & NB_ON) && NB_MODE(st) == UKCOV_MODE_PC)
		h.pc_area = r->buf;
	else if ((st & NB_ON) && NB_MODE(st) == UKCOV_MODE_CMP)
		h.cmp_area = r->buf;
	ukcov__thread_load_hot(t, &h);
	/* Against a disable between our read of the word and the
	 * install (nb_stop_holder_locked): look again. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->pg->state, __ATOMIC_SEQ_CST) != st)
		ukcov__thread_clear_hot(t);
}

/* From ukcov__thread_rearm_hot, outside signal handlers: the section
 * records again if the remote is still on with the same generation. */
void ukcov__nb_rearm(struct ukcov_thread *t)
{
	struct ukcov_nb_remote *r = t->nb_remote;

	if (__atomic_load_n(&r->pg->state, __ATOMIC_SEQ_CST) == t->nb_state)
		nb_install(t, r, t->nb_state);
	else
		ukcov__thread_clear_hot(t);
}

/* Take the remote's holder word; a holder that no longer exists (a
 * process killed inside a section) is taken over. */
static int nb_take(struct ukcov_nb_remote *r, int32_t tid)
{
	int32_t old = 0;

	while (!__atomic_compare_exchange_n(&r->pg->holder, &old, tid, 0,
					    __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		if (old == tid || kill(old, 0) == 0 || errno != ESRCH)
			return 0;
	}
	return 1;
}

/* Leave: the thread's own state comes back (it traced nothing: enter
 * requires that) and the remote is free.  ukcov__proc_lock held. */
static void nb_section_end_locked(struct ukcov_thread *t)
{
	struct ukcov_nb_remote *r = t->nb_remote;

	ukcov__thread_clear_hot(t);
	t->nb_remote = NULL;
	t->nb_state = 0;
	r->holder_t = NULL;
	__atomic_store_n(&r->pg->holder, 0, __ATOMIC_RELEASE);
	ukcov__thread_rearm_hot(t);
}

static void proc_lock(struct ukcov_thread *t)
{
	t->remote_busy++;	/* a handler's section must not wait for us */
	pthread_mutex_lock(&ukcov__proc_lock);
}

static void proc_unlock(struct ukcov_thread *t)
{
	pthread_mutex_unlock(&ukcov__proc_lock);
	t->remote_busy--;
}

UKCOV_EXPORT int ukcov_remote_register(uint64_t subsystem, uint64_t id)
{
	const void *where = __builtin_return_address(0);
	struct ukcov_thread *t = &__ukcov_thread;
	struct ukcov_nb_remote *r, *proxy;
	struct stat st;
	int rc;

	proc_lock(t);
	if (nb_find_listed(subsystem, id, &proxy)) {
		proc_unlock(t);
		return nb_refuse(NB_DUP, "ukcov_remote_register", subsystem,
				 id, where, EEXIST);
	}
	r = nb_create(subsystem, id);
	if (!r) {
		rc = errno;
		proc_unlock(t);
		errno = rc;
		return -1;
	}
	/* The machine's table, as NetBSD's list is the system's; without
	 * a usable registry the remote serves this process (and its
	 * fork children) only. */
	rc = fstat(r->fd, &st) == 0
		     ? nb_registry_add(subsystem, id, r->fd,
				       (uint64_t)st.st_ino)
		     : 0;
	if (rc) {
		ukcov__real_close(r->fd);
		nb_unmap(r);
		proc_unlock(t);
		if (rc == -EEXIST)
			return nb_refuse(NB_DUP, "ukcov_remote_register",
					 subsystem, id, where, EEXIST);
		errno = -rc;
		return -1;
	}
	pthread_mutex_lock(&nb_lock);
	nb_publish_locked(r);
	pthread_mutex_unlock(&nb_lock);
	proc_unlock(t);
	return 0;
}

/* kcov_remote_enter: the checks NetBSD asserts become refusals. */
static int nb_enter_check(const struct ukcov_thread *t)
{
	if (t->nb_remote)
		return NB_NESTED;
	if (ukcov__follow_traces(t) || t->remote_coll ||
	    ukcov__thread_has_kcov(t))
		return NB_TRACES;
	return -1;
}

UKCOV_EXPORT int ukcov_remote_enter(uint64_t subsystem, uint64_t id)
{
	const void *where = __builtin_return_address(0);
	struct ukcov_thread *t = &__ukcov_thread;
	struct ukcov_nb_remote *r;
	int why;

	/* Before any lock: a handler may have interrupted this thread
	 * inside ukcov__proc_lock. */
	if (t->sig_depth > 0)
		ukcov__signals_resync(t);	/* handlers left by siglongjmp */
	if (t->sig_depth > 0)
		return nb_refuse(NB_SIGNAL, "ukcov_remote_enter", subsystem,
				 id, where, EBUSY);
	proc_lock(t);
	why = nb_enter_check(t);
	r = why < 0 ? ukcov__nb_find(subsystem, id) : NULL;
	if (why < 0 && !r)
		why = NB_UNREG;
	if (!nb_tid)
		nb_tid = ukcov__gettid();
	if (why < 0 && !nb_take(r, nb_tid))
		why = NB_BUSY;
	if (why >= 0) {
		proc_unlock(t);
		return nb_refuse((enum nb_why)why, "ukcov_remote_enter",
				 subsystem, id, where,
				 why == NB_UNREG ? ENOENT : EBUSY);
	}
	/* Its exit must end the section (kcov_lwp_free). */
	ukcov__thread_exit_hook(t);
	r->holder_t = t;
	t->nb_remote = r;
	t->nb_state = __atomic_load_n(&r->pg->state, __ATOMIC_SEQ_CST);
	nb_install(t, r, t->nb_state);
	proc_unlock(t);
	return 0;
}

UKCOV_EXPORT int ukcov_remote_leave(uint64_t subsystem, uint64_t id)
{
	const void *where = __builtin_return_address(0);
	struct ukcov_thread *t = &__ukcov_thread;

	/* A handler never entered (refused); the interrupted thread's
	 * section is not the handler's to leave. */
	if (t->sig_depth > 0)
		ukcov__signals_resync(t);
	if (t->sig_depth > 0 || !t->nb_remote ||
	    !nb_is(t->nb_remote, subsystem, id))
		return nb_refuse(NB_NOENTER, "ukcov_remote_leave", subsystem,
				 id, where, EINVAL);
	proc_lock(t);
	nb_section_end_locked(t);
	proc_unlock(t);
	return 0;
}

/* kcov_lwp_free: a thread that exits inside a section it records in
 * turns the remote off (l_kcov is the remote's kd, whose enabled goes
 * false).  NetBSD then leaves the refcount taken, and the next enter
 * panics; here the section ends and the remote stays usable.  Called
 * with ukcov__proc_lock held. */
void ukcov__nb_thread_exit(struct ukcov_thread *t)
{
	struct ukcov_nb_remote *r = t->nb_remote;
	uint64_t old;

	if (!r)
		return;
	if (t->nb_state & NB_ON) {
		old = __atomic_load_n(&r->pg->state, __ATOMIC_RELAXED);
		while ((old & NB_ON) &&
		       !__atomic_compare_exchange_n(&r->pg->state, &old,
						    old & ~0xffULL, 0,
						    __ATOMIC_SEQ_CST,
						    __ATOMIC_RELAXED))
			;
	}
	nb_section_end_locked(t);
}

/* Register every remote of this process in the machine's registry
 * (add) or take them out (remove). */
static void nb_registry_all(int add)
{
	struct ukcov_nb_remote *r;
	struct stat st;

	for (r = __atomic_load_n(&nb_list, __ATOMIC_ACQUIRE); r; r = r->next) {
		if (!r->local || r->pid != (int32_t)getpid())
			continue;	/* a proxy, or the parent's */
		if (!add)
			ukcov__registry_remove(r->fd, 0);
		else if (fstat(r->fd, &st) == 0)
			(void)nb_registry_add(r->pg->subsystem, r->pg->id,
					      r->fd, (uint64_t)st.st_ino);
	}
}

/* exec ends the image that holds the remotes (their memfds are
 * close-on-exec): its registrations go first, so that the new image
 * may register the same remotes; a failed exec puts them back. */
void ukcov__nb_exec_prepare(void)
{
	nb_registry_all(0);
}

void ukcov__nb_exec_failed(void)
{
	nb_registry_all(1);
}

/* The child of fork is a new LWP: no section (l_kcov NULL).  The
 * remotes are shared (the same memfd pages); a section the parent's
 * thread has open keeps the holder word. */
void ukcov__nb_fork_child(void)
{
	struct ukcov_thread *t = &__ukcov_thread;
	struct ukcov_nb_remote *r;

	pthread_mutex_init(&nb_lock, NULL);
	for (r = nb_list; r; r = r->next)
		r->holder_t = NULL;
	t->nb_remote = NULL;
	t->nb_state = 0;
	nb_tid = 0;
}
