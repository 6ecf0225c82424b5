/*
 * lib/remote.c -- remote coverage in one process: Linux's
 * KCOV_REMOTE_ENABLE and the kcov_remote_start/stop annotations
 * (kernel/kcov.c kcov_ioctl, kcov_remote_enable, kcov_remote_start,
 * kcov_remote_stop, kcov_move_area; Documentation/dev-tools/kcov.rst
 * "Remote coverage collection").
 *
 * A collector thread registers handles for its descriptor.  Any thread
 * of the process may then run a section, ukcov_remote_start(handle) ...
 * ukcov_remote_stop(): the section records into a private area of the
 * thread's own, and at stop the area is appended to the collector's
 * buffer.  The life of a section:
 *
 *      start(h)                                         stop()
 *   ---------> h in the thread's cache at an unchanged ----------> restore
 *              reg_epoch: borrow its ref (no lock);               saved hot
 *              else look h up (registry lock), take a             (depth 0:
 *              ref, cache it                                      clear it);
 *              snapshot the collector's generation                merge if
 *              area from the per-thread cache                     generation
 *              save the thread's hot block (not at                unchanged;
 *              depth 0), install the section's                    drop ref
 *
 * One section may be open per signal depth: depth 0 is the task
 * context, a handler at depth n is the softirq analogue and may open
 * its own section, which saves and restores the interrupted thread's
 * hot block (its own open section included), as Linux's
 * kcov_remote_softirq_start/stop save the task's state per CPU.
 *
 * Locking: [R] under reg_lock (the handle table, collectors' refs
 * taken, reg_epoch written); [T] the owning thread only (its lookup
 * cache); [L] under the collector's lock (merges against reset);
 * [I] immutable after the enable.  Order: ukcov__proc_lock, a control
 * block's lock, reg_lock, a collector's lock.  A thread sets
 * t->remote_busy while it holds any of the last two, and a section
 * start in a signal handler that interrupted it is ignored, so a
 * handler never waits for a lock its own thread holds.  Collectors and
 * the per-thread state are mmap'ed, never malloc'ed, so that a stop in
 * a signal handler may free them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/linux/kcov.h>

/* Task context plus the 8 nested handlers signals.c tracks. */
#define REMOTE_DEPTHS 9
/* Bits 32-55 of a handle are reserved (kcov_check_handle). */
#define HANDLE_RESERVED (~(KCOV_SUBSYSTEM_MASK | KCOV_INSTANCE_MASK))
#define REG_BUCKETS 64

/* A collector: this process's own (the owner thread's), or a proxy
 * for one in another process, found in the registry (registry.c).
 * Either way it holds its own mapping of the descriptor's buffer and
 * control block, so a section may outlive the owner's disable. */
struct ukcov_collector {
	struct ukcov_cb *cb;		/* [I] own mapping */
	uint64_t *buf;			/* [I] own mapping of the buffer */
	size_t buf_bytes;		/* [I] */
	uint64_t entries;		/* [I] the collector's buffer */
	int mode;			/* [I] UKCOV_MODE_PC or _CMP */
	uint64_t area_words;		/* [I] a section's area, in words */
	int fd;				/* [I] the owner's fd (own collector) */
	int refs;			/* atomic: owner or proxy cache,
					 * threads' lookup caches, and open
					 * sections that did not borrow one */
	uint64_t serial;		/* [I] unique in the process, never 0:
					 * names the collector a section's
					 * hot block was computed for */
	/* Proxies only: which collector, [I]. */
	int32_t pid;
	uint64_t start, ino, gen;
	uint64_t modules_gen;		/* [R] generation our table went to */
	/* [R] where this generation wants our table, read with the
	 * generation, and what we last sent there. */
	char modules_path[sizeof(((struct ukcov_cb *)0)->remote_modules)];
	uint64_t modules_ino;
	char sent_path[sizeof(((struct ukcov_cb *)0)->remote_modules)];
	uint64_t sent_ino, sent_loads;
};

struct reg_entry {
	uint64_t handle;		/* [R] */
	struct ukcov_collector *c;	/* [R] */
	struct reg_entry *next;		/* [R] */
};

/* One open section (c != NULL) and the area cached for its depth.
 * Written by the owning thread only. */
struct remote_section {
	struct ukcov_collector *c;
	uint64_t seq;			/* the generation at start */
	int mode;			/* the collector's, at start */
	struct ukcov_hot hot;		/* the section's hot block */
	struct ukcov_hot saved;		/* the thread's, back at stop */
	uint64_t drops;			/* records the area could not hold */
	uint64_t *area;			/* cached, reused by the next start */
	size_t area_bytes;
	uint64_t hot_serial;		/* hot was computed for this collector
					 * and area: reused as it is */
	int borrowed;			/* c's reference is the lookup cache's */
	int saved_clean;		/* depth 0: nothing saved, the thread
					 * gets its areas cleared back */
};

/* The thread's last in-process lookup: cache_handle was cache_c's at
 * reg_epoch cache_epoch, with generation cache_seq.  While reg_epoch is
 * unchanged neither the table nor any registered collector's
 * generation changed (both change only with reg_epoch), so a start for
 * cache_handle takes no lock.  The cache holds a reference on cache_c,
 * which open sections borrow (cache_pins): it is replaced only when no
 * section borrowed it. */
struct remote_cache {
	uint64_t handle;		/* [T] */
	struct ukcov_collector *c;	/* [T] holds a reference, or NULL */
	uint64_t epoch, seq;		/* [T] */
	int pins;			/* [T] open sections borrowing c */
};

struct ukcov_remote_tls {
	struct remote_section sec[REMOTE_DEPTHS];
	struct remote_cache cache;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reg_entry *reg_table[REG_BUCKETS];	/* [R] */
/* Bit b set: bucket b may hold entries.  Written under reg_lock, read
 * without it, so that a start for a handle nobody registered (the
 * common case of annotated code nobody collects) takes no lock. */
static uint64_t reg_nonempty;
/* Bumped under reg_lock by every change of reg_table and, before it,
 * of a registered collector's generation; read without it by the
 * threads' lookup caches. */
static uint64_t reg_epoch;
static uint64_t collector_serials;	/* atomic */

static void reg_epoch_bump_locked(void)
{
	__atomic_store_n(&reg_epoch, reg_epoch + 1, __ATOMIC_RELEASE);
}

static unsigned reg_bucket(uint64_t handle)
{
	return (unsigned)((handle * 0x9e3779b97f4a7c15ULL) >> 58);
}

/* ---- small helpers ---- */

static void *map_anon(size_t bytes)
{
	void *p = ukcov__real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				   -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static size_t page_round(uint64_t bytes)
{
	static size_t page;	/* sysconf costs more than a section */

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);

	return ((size_t)bytes + page - 1) & ~(page - 1);
}

static void busy_enter(struct ukcov_thread *t)
{
	t->remote_busy++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void busy_leave(struct ukcov_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->remote_busy--;
}

/* The thread records for itself, owns a remote collection or is inside
 * a NetBSD remote: Linux's kcov_mode_enabled(t->kcov_mode) for a task. */
static int thread_traces(const struct ukcov_thread *t)
{
	return t->owned != NULL || ukcov__follow_traces(t) ||
	       t->remote_coll != NULL || t->nb_remote != NULL;
}

static int thread_in_section(const struct ukcov_thread *t)
{
	int i;

	if (!t->rt)
		return 0;
	for (i = 0; i < REMOTE_DEPTHS; i++)
		if (t->rt->sec[i].c)
			return 1;
	return 0;
}

/* Linux's current->kcov != NULL: the thread enabled a descriptor (for
 * itself or as a remote owner) or runs a section (kcov_start). */
int ukcov__thread_has_kcov(const struct ukcov_thread *t)
{
	return t->owned != NULL || thread_in_section(t) ||
	       t->nb_remote != NULL;	/* NetBSD section: l_kcov */
}

const struct ukcov_hot *ukcov__remote_section_hot(const struct ukcov_thread *t,
						  int depth)
{
	if (!t->rt || depth < 0 || depth >= REMOTE_DEPTHS ||
	    !t->rt->sec[depth].c)
		return NULL;
	return &t->rt->sec[depth].hot;
}

/* ---- reporting an ignored start (Linux: WARN_ON) ---- */

enum ignored_why {
	IGN_TRACES,
	IGN_OWNER,
	IGN_NESTED,
	IGN_HANDLE,
	IGN_COUNT,
};

static const char *const ignored_text[IGN_COUNT] = {
	"this thread traces itself (it enabled a descriptor)",
	"this thread owns a remote collection (KCOV_REMOTE_ENABLE)",
	"a section is already open here (sections do not nest)",
	"reserved bits 32-55 of the handle are set",
};

/* Once per reason and process: the location of the first offender,
 * as a symbol if the caller's module exports one. */
static void report_ignored(enum ignored_why why, uint64_t handle,
			   const void *where)
{
	static int reported[IGN_COUNT];
	char msg[512];
	Dl_info di;
	int n;

	if (__atomic_exchange_n(&reported[why], 1, __ATOMIC_RELAXED))
		return;
	memset(&di, 0, sizeof(di));
	if (dladdr(where, &di) && di.dli_sname && di.dli_saddr)
		n = snprintf(msg, sizeof(msg),
			     "ukcov: ukcov_remote_start(0x%llx) ignored at "
			     "%s+0x%lx (%p, %s): %s\n",
			     (unsigned long long)handle, di.dli_sname,
			     (unsigned long)((const char *)where -
					     (const char *)di.dli_saddr),
			     where, di.dli_fname ? di.dli_fname : "?",
			     ignored_text[why]);
	else
		n = snprintf(msg, sizeof(msg),
			     "ukcov: ukcov_remote_start(0x%llx) ignored at "
			     "%p (%s): %s\n",
			     (unsigned long long)handle, where,
			     di.dli_fname ? di.dli_fname : "?",
			     ignored_text[why]);
	ukcov__say_line(msg, sizeof(msg), n);
}

/* ---- collectors ---- */

static void collector_free(struct ukcov_collector *c)
{
	if (c->buf)
		munmap(c->buf, c->buf_bytes);
	if (c->cb)
		munmap(c->cb, UKCOV_CB_SIZE);
	munmap(c, page_round(sizeof(*c)));
}

static void collector_unref(struct ukcov_collector *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
		collector_free(c);
}

/* Map fd's block and buffer for a collector; 0 or -1.  The block may
 * be another process's (a proxy), so entries and bytes are checked
 * against the file once, here: every merge is bounded by this copy,
 * never by the block again. */
static int collector_map(struct ukcov_collector *c, int fd,
			 enum ukcov_peer_site site, int name_fd)
{
	struct ukcov_cb_bounds b;
	const char *why;
	void *p;

	c->cb = ukcov__cb_map(fd);
	if (!c->cb)
		return -1;
	why = ukcov__cb_check_fd(fd, c->cb, &b);
	if (!why && b.bytes == 0)
		why = "no buffer";
	if (why) {
		ukcov__peer_refused(site, name_fd, why);
		return -1;
	}
	c->entries = b.entries;
	c->buf_bytes = b.bytes;
	p = ukcov__real_mmap(NULL, c->buf_bytes, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	c->buf = p;
	return 0;
}

static struct ukcov_collector *collector_new(int fd, int mode,
					     uint32_t area_size)
{
	struct ukcov_collector *c = map_anon(page_round(sizeof(*c)));

	if (!c)
		return NULL;
	if (collector_map(c, fd, UKCOV_PEER_DESC, fd) != 0) {
		collector_free(c);
		return NULL;
	}
	c->fd = fd;
	c->mode = mode;
	/* A section never holds more than the collector's buffer could
	 * take in one merge: what is cut here is lost (and counted) the
	 * same as what the merge would cut. */
	c->area_words = area_size < c->entries ? area_size : c->entries;
	c->refs = 1;	/* the owner's */
	c->serial = __atomic_add_fetch(&collector_serials, 1, __ATOMIC_RELAXED);
	return c;
}

/* Linux kcov_remote_reset: unregister every handle of c (here and in
 * the machine's registry) and bump the generation, so that sections in
 * flight are discarded at their stop.  Called with the block locked,
 * which orders it with every merge. */
static void collector_retire(struct ukcov_thread *t, struct ukcov_collector *c)
{
	struct reg_entry **pp, *e;
	uint64_t gen = c->cb->remote_gen;
	unsigned i;

	ukcov__registry_remove(c->fd, gen);
	busy_enter(t);
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < REG_BUCKETS; i++) {
		pp = &reg_table[i];
		while ((e = *pp) != NULL) {
			if (e->c == c) {
				*pp = e->next;
				free(e);
			} else {
				pp = &e->next;
			}
		}
		if (!reg_table[i])
			__atomic_and_fetch(&reg_nonempty, ~(1ULL << i),
					   __ATOMIC_RELAXED);
	}
	/* The epoch first: a lock-free start that reads the new
	 * generation sees the new epoch too (cache_lookup). */
	reg_epoch_bump_locked();
	__atomic_store_n(&c->cb->remote_gen, gen + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&reg_lock);
	busy_leave(t);
}

/* Called with reg_lock held. */
static struct ukcov_collector *reg_lookup_locked(uint64_t handle)
{
	struct reg_entry *e;

	for (e = reg_table[reg_bucket(handle)]; e; e = e->next)
		if (e->handle == handle)
			return e->c;
	return NULL;
}

/* Linux kcov_remote_add: EEXIST for a handle registered anywhere,
 * including earlier in the same array. */
static int reg_add_locked(uint64_t handle, struct ukcov_collector *c)
{
	struct reg_entry *e;

	if (reg_lookup_locked(handle))
		return -EEXIST;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->handle = handle;
	e->c = c;
	e->next = reg_table[reg_bucket(handle)];
	reg_table[reg_bucket(handle)] = e;
	reg_epoch_bump_locked();
	__atomic_or_fetch(&reg_nonempty, 1ULL << reg_bucket(handle),
			  __ATOMIC_RELEASE);
	return 0;
}

/* kcov_check_handle(handle, common_valid, uncommon_valid, zero_valid).
 * Every subsystem from 1 to 0xff is valid: in user space the global
 * subsystems belong to the application (docs/DESIGN.md). */
static int handle_valid(uint64_t h, int common_valid, int uncommon_valid)
{
	if (h & HANDLE_RESERVED)
		return 0;
	if ((h & KCOV_SUBSYSTEM_MASK) == KCOV_SUBSYSTEM_COMMON)
		return common_valid && (h & KCOV_INSTANCE_MASK) != 0;
	return uncommon_valid;
}

/* kcov_check_handle then kcov_remote_add, here and for the machine. */
static int register_one_locked(uint64_t h, struct ukcov_collector *c,
			       int common)
{
	struct stat st;
	int rc;

	if (!handle_valid(h, common, !common))
		return -EINVAL;
	rc = reg_add_locked(h, c);
	if (rc == 0 && fstat(c->fd, &st) == 0)
		rc = ukcov__registry_add(h, c->fd, (uint64_t)st.st_ino,
					 c->cb->remote_gen);
	return rc;
}

static int register_handles(struct ukcov_thread *t, struct ukcov_collector *c,
			    const struct kcov_remote_arg *ra)
{
	uint32_t i;
	int rc = 0;

	busy_enter(t);
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < ra->num_handles && rc == 0; i++)
		rc = register_one_locked(ra->handles[i], c, 0);
	if (rc == 0 && ra->common_handle)
		rc = register_one_locked(ra->common_handle, c, 1);
	pthread_mutex_unlock(&reg_lock);
	busy_leave(t);
	return rc;
}

/* The remote argument, read as kcov_ioctl reads it: num_handles first
 * (EFAULT, then EINVAL above KCOV_REMOTE_MAX_HANDLES), then the whole
 * struct, whose num_handles must not have changed in between. */
static int copyin_remote_arg(struct kcov_remote_arg **out, unsigned long arg)
{
	struct kcov_remote_arg *ra;
	uint32_t n;
	size_t size;
	int rc;

	rc = ukcov__copyin(&n, (const char *)arg +
			   offsetof(struct kcov_remote_arg, num_handles),
			   sizeof(n));
	if (rc)
		return rc;
	if (n > KCOV_REMOTE_MAX_HANDLES)
		return -EINVAL;
	size = sizeof(*ra) + (size_t)n * sizeof(ra->handles[0]);
	ra = malloc(size);
	if (!ra)
		return -ENOMEM;
	rc = ukcov__copyin(ra, (const void *)arg, size);
	if (rc == 0 && ra->num_handles != n)
		rc = -EINVAL;
	if (rc) {
		free(ra);
		return rc;
	}
	*out = ra;
	return 0;
}

/* kcov_ioctl_locked's checks before it commits, in its order. */
static int remote_enable_check(const struct ukcov_desc *d,
			       const struct ukcov_thread *t,
			       const struct kcov_remote_arg *ra)
{
	/* kcov->mode != KCOV_MODE_INIT || !kcov->area */
	if (d->cb->state != UKCOV_ST_READY)
		return -EINVAL;
	/* kcov->t != NULL || current->kcov != NULL: the thread traces,
	 * owns a remote collection or is inside a section. */
	if (ukcov__thread_has_kcov(t))
		return -EBUSY;
	if (ra->trace_mode != KCOV_TRACE_PC && ra->trace_mode != KCOV_TRACE_CMP)
		return -EINVAL;
	/* area_size > LONG_MAX / sizeof(unsigned long) cannot hold for a
	 * 32-bit area_size on LP64; there is no minimum. */
	return 0;
}

/* $UKCOV_REMOTE_MODULES: the file where the processes that feed this
 * collection append their module tables (ukcov run --remote), so that
 * their PCs can be symbolized; too long a path is not used.  Without
 * it they go to this process's feeders memfd, which ukcov_dump()
 * reads (feeders.c). */
static void remote_modules_path(struct ukcov_cb *cb)
{
	const char *p = ukcov__env("UKCOV_REMOTE_MODULES");
	size_t n = p ? strlen(p) : 0;

	if (!p || !*p) {
		ukcov__feeders_publish(cb);
		return;
	}
	if (n >= sizeof(cb->remote_modules))
		n = 0;
	memcpy(cb->remote_modules, p, n);
	cb->remote_modules[n] = 0;
	cb->remote_modules_ino = 0;
}

/*
 * KCOV_REMOTE_ENABLE, in the order of kcov_ioctl and
 * kcov_ioctl_locked.  Called with ukcov__proc_lock and the block's
 * lock held.
 */
int ukcov__remote_enable_locked(struct ukcov_desc *d, int fd,
				unsigned long arg)
{
	struct ukcov_thread *t = &__ukcov_thread;
	struct kcov_remote_arg *ra = NULL;
	struct ukcov_collector *c;
	int mode, rc;

	rc = copyin_remote_arg(&ra, arg);
	if (rc)
		return rc;
	rc = remote_enable_check(d, t, ra);
	if (rc) {
		free(ra);
		return rc;
	}
	mode = ra->trace_mode == KCOV_TRACE_PC ? UKCOV_MODE_PC : UKCOV_MODE_CMP;
	c = collector_new(fd, mode, ra->area_size);
	if (!c) {
		free(ra);
		return -ENOMEM;
	}
	/* A new generation: what other processes read to find and check
	 * this collection (registry.c). */
	d->cb->remote_gen++;
	d->cb->remote_mode = mode;
	d->cb->remote_area = c->area_words;
	remote_modules_path(d->cb);
	/* Linux commits the owner before it looks at the handles, and a
	 * bad handle rolls everything back with kcov_disable. */
	rc = ukcov__enable_locked(d, fd, UKCOV_MODE_REMOTE);
	if (rc == 0) {
		t->remote_coll = c;
		rc = register_handles(t, c, ra);
		if (rc == 0)
			t->common_handle = ra->common_handle ? ra->common_handle
							     : t->common_handle;
		else
			ukcov__owner_disable_locked(d);	/* retires c */
	} else {
		collector_unref(c);
	}
	free(ra);
	return rc;
}

/* RUNNING -> READY by the owner itself (KCOV_DISABLE and friends):
 * kcov_disable -> kcov_remote_reset, a remote owner's handles are
 * unregistered and its sections in flight discarded, then the
 * descriptor's transition (desc.c). */
void ukcov__owner_disable_locked(struct ukcov_desc *d)
{
	ukcov__remote_owner_reset(&__ukcov_thread);
	ukcov__disable_locked(d);
}

/* KCOV_DISABLE or exit of the owner (kcov_disable -> kcov_remote_reset,
 * kcov_task_reset clears the owner's kcov_handle). */
void ukcov__remote_owner_reset(struct ukcov_thread *t)
{
	struct ukcov_collector *c = t->remote_coll;

	if (!c)
		return;
	collector_retire(t, c);
	t->remote_coll = NULL;
	t->common_handle = 0;
	collector_unref(c);
}

/* ---- OpenBSD: KIOREMOTEATTACH (sys/dev/kcov.c kcov_remote_attach,
 * kcov_remote_register(9)) ----
 *
 * One remote per process, (KCOV_REMOTE_COMMON, the process): "coverage
 * from tasks and timeouts scheduled by the current process".  Here the
 * process's code annotates that work with
 * ukcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, pid)).
 * The enabling thread does not own the descriptor (p_kd is not set for
 * a remote-attached one), so the collection belongs to the process:
 * any thread may disable it, and it ends at the last close. */

static struct ukcov_collector *attached;	/* under ukcov__proc_lock */
static struct ukcov_desc *attached_desc;

int ukcov__remote_attach_locked(struct ukcov_desc *d)
{
	/* One registration per process; a DYING one would be replaced. */
	if (attached_desc && attached_desc != d &&
	    attached_desc->cb->state != UKCOV_ST_DYING)
		return -EBUSY;
	if (d->cb->remote_attach)
		return -EBUSY;
	d->cb->remote_attach = (int32_t)getpid();
	attached_desc = d;
	return 0;
}

/* KIOENABLE of an attached descriptor: TRACE, with no owner thread. */
int ukcov__remote_attached_enable_locked(struct ukcov_desc *d, int fd,
					 int mode)
{
	struct ukcov_thread *t = &__ukcov_thread;
	struct ukcov_cb *cb = d->cb;
	uint64_t h = KCOV_SUBSYSTEM_COMMON | (uint32_t)getpid();
	struct stat st;
	int rc;

	attached = collector_new(fd, mode, (uint32_t)cb->entries);
	if (!attached)
		return -ENOMEM;
	cb->remote_gen++;
	cb->remote_mode = mode;
	cb->remote_area = attached->area_words;
	remote_modules_path(cb);
	busy_enter(t);
	pthread_mutex_lock(&reg_lock);
	rc = reg_add_locked(h, attached);
	if (rc == 0 && fstat(fd, &st) == 0)
		rc = ukcov__registry_add(h, fd, (uint64_t)st.st_ino,
					 cb->remote_gen);
	pthread_mutex_unlock(&reg_lock);
	busy_leave(t);
	if (rc) {
		collector_retire(t, attached);
		collector_unref(attached);
		attached = NULL;
		return rc == -EEXIST ? -EBUSY : rc;
	}
	cb->state = UKCOV_ST_RUNNING;
	cb->mode = UKCOV_MODE_REMOTE;
	cb->owner_pid = (int32_t)getpid();
	cb->owner_tid = (int32_t)getpid();	/* the process, not a thread */
	cb->owner_start = ukcov__self_start_time();
	cb->drops_read = __atomic_load_n(&cb->drops, __ATOMIC_RELAXED);
	return 0;
}

/* KIODISABLE, or the end of the attached descriptor: the sections in
 * flight are discarded (OpenBSD waits for them, kr_barrier). */
void ukcov__remote_attached_disable_locked(struct ukcov_desc *d)
{
	if (attached && attached_desc == d) {
		collector_retire(&__ukcov_thread, attached);
		collector_unref(attached);
		attached = NULL;
	}
	ukcov__release_owner_locked(d->cb);
}

/* kd_free: the last close detaches the remote. */
void ukcov__remote_detach_locked(struct ukcov_desc *d)
{
	if (d->cb->state == UKCOV_ST_RUNNING)
		ukcov__remote_attached_disable_locked(d);
	d->cb->remote_attach = 0;
	if (attached_desc == d)
		attached_desc = NULL;
}

/* KCOV_RESET_TRACE by a remote owner: the count word goes to 0 under
 * the collector's lock, so no merge in flight undoes it. */
int ukcov__remote_reset_trace(struct ukcov_thread *t)
{
	struct ukcov_collector *c = t->remote_coll;

	if (!c)
		return -EINVAL;
	/* The caller holds the block's lock, as every merge does. */
	__atomic_store_n(&c->buf[0], 0, __ATOMIC_RELEASE);
	return 0;
}

/* ---- sections ---- */

static void thread_rt_map(struct ukcov_thread *t)
{
	t->rt = map_anon(page_round(sizeof(*t->rt)));
	/* Its exit stops an open section and frees the areas. */
	ukcov__thread_exit_hook(t);
}

static struct ukcov_remote_tls *thread_rt(struct ukcov_thread *t)
{
	if (!t->rt)
		thread_rt_map(t);
	return t->rt;
}

/* The depth's cached area, replaced only when a collector asks for a
 * larger one: a start allocates nothing in the common case. */
static uint64_t *
section_area_map(struct remote_section *s, uint64_t words)
{
	size_t bytes = page_round(words * 8);

	if (s->area)
		munmap(s->area, s->area_bytes);
	s->area = map_anon(bytes);
	s->area_bytes = s->area ? bytes : 0;
	return s->area;
}

static uint64_t *section_area(struct remote_section *s, uint64_t words)
{
	if (s->area && s->area_bytes >= words * 8)
		return s->area;
	return section_area_map(s, words);
}

static void section_fill_hot(struct remote_section *s,
			     const struct ukcov_collector *c, uint64_t *area)
{
	uint64_t w = c->area_words;

	memset(&s->hot, 0, sizeof(s->hot));
	s->hot.pc_cap = w ? w - 1 : 0;
	s->hot.cmp_cap = w ? (w - 1) / 4 : 0;
	s->hot.drops = &s->drops;
	if (c->mode == UKCOV_MODE_PC)
		s->hot.pc_area = area;
	else
		s->hot.cmp_area = area;
}

/* ---- proxies: collectors of other processes ---- */

/* A bounded cache: a collector no longer registered under what the
 * proxy mapped (disabled, re-enabled, its process gone) is evicted
 * first, then the least recently used; an evicted proxy is simply
 * opened again at its next use, so no number of collectors loses
 * coverage (a fixed table of 16 that evicted only dead processes left
 * the 17th live collector without any). */
#define PROXIES 64
/* The keys live in the table, so that a lookup reads one array and
 * not a page per proxy (64 collectors cost 1.3 us a section that way,
 * against 0.3 us for 20). */
struct proxy_slot {
	struct ukcov_collector *c;	/* holds the cache's reference */
	uint64_t start, ino;
	uint64_t used;			/* proxy_clock at the last use */
	int32_t pid, fd;
};
static struct proxy_slot proxies[PROXIES];		/* [R] */
static uint64_t proxy_clock;				/* [R] */

static int proxy_is(const struct proxy_slot *p, const struct ukcov_reg_entry *e)
{
	return p->c && p->pid == e->pid && p->start == e->start &&
	       p->fd == e->fd && p->ino == e->ino;
}

/* The registration the proxy was made for has ended: the collector
 * bumps remote_gen whenever it unregisters or registers again
 * (collector_retire, REMOTE_ENABLE).  Only a hint for eviction: a
 * forged block makes us evict early, never misbehave.  No system call:
 * a collector killed before it could unregister is simply never used
 * again, and so soon the least recently used (kill(pid, 0) on every
 * proxy made a miss in a full cache cost 60 system calls). */
static int proxy_stale(const struct ukcov_collector *c)
{
	const struct ukcov_cb *cb = c->cb;

	return c->gen &&
	       (__atomic_load_n(&cb->remote_gen, __ATOMIC_RELAXED) != c->gen ||
		__atomic_load_n(&cb->state, __ATOMIC_RELAXED) !=
			UKCOV_ST_RUNNING);
}

/* The slot to (re)use: a free one, a stale one, else the least
 * recently used. */
static int proxy_victim_locked(void)
{
	int i, lru = 0;

	for (i = 0; i < PROXIES; i++)
		if (!proxies[i].c)
			return i;
	for (i = 0; i < PROXIES; i++) {
		if (proxy_stale(proxies[i].c))
			return i;
		if (proxies[i].used < proxies[lru].used)
			lru = i;
	}
	return lru;
}

/* Open the collector's descriptor (the same user only: /proc/<pid>/fd
 * needs ptrace rights).  The fd is closed once the buffer and block
 * are mapped. */
static struct ukcov_collector *proxy_open(const struct ukcov_reg_entry *e)
{
	struct ukcov_collector *c = NULL;
	int fd = ukcov__registry_open(e);
	struct stat st;

	if (fd < 0)
		return NULL;
	/* A descriptor's file, of a descriptor's size (a NetBSD remote's
	 * registration names a buffer of another size). */
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size == UKCOV_FILE_SIZE &&
	    ukcov__fd_looks_like_ukcov(fd) > 0 &&
	    (c = map_anon(page_round(sizeof(*c)))) != NULL &&
	    collector_map(c, fd, UKCOV_PEER_PROXY, e->fd) != 0) {
		collector_free(c);
		c = NULL;
	}
	ukcov__real_close(fd);
	if (!c)
		return NULL;
	c->pid = e->pid;
	c->start = e->start;
	c->fd = e->fd;
	c->ino = e->ino;
	c->refs = 1;	/* the cache's */
	c->serial = __atomic_add_fetch(&collector_serials, 1, __ATOMIC_RELAXED);
	return c;
}

/* The proxy for e, from the cache or opened now.  Called with reg_lock
 * held. */
static struct ukcov_collector *proxy_get_locked(const struct ukcov_reg_entry *e)
{
	struct ukcov_collector *c;
	struct proxy_slot *p;
	int i;

	for (i = 0; i < PROXIES; i++) {
		if (proxy_is(&proxies[i], e)) {
			proxies[i].used = ++proxy_clock;
			return proxies[i].c;
		}
	}
	c = proxy_open(e);
	if (!c)
		return NULL;
	i = proxy_victim_locked();
	p = &proxies[i];
	/* Sections still open on the old one hold their own reference. */
	if (p->c)
		collector_unref(p->c);
	*p = (struct proxy_slot){ .c = c, .start = e->start, .ino = e->ino,
				  .used = ++proxy_clock, .pid = e->pid,
				  .fd = e->fd };
	return c;
}

/* The mode and area of a proxy come from the collector's block, read
 * under its lock with the generation they belong to, from one checked
 * copy; the area is bounded by the buffer this process mapped. */
static int proxy_refresh(struct ukcov_collector *c, uint64_t gen)
{
	struct ukcov_cb_bounds b;
	const char *why;
	int ok;

	if (ukcov__cb_lock(c->cb) != 0)
		return 0;
	ok = c->cb->remote_gen == gen && c->cb->state == UKCOV_ST_RUNNING &&
	     c->cb->mode == UKCOV_MODE_REMOTE;
	why = ok ? ukcov__cb_check(c->cb, UKCOV_CB_SIZE, UKCOV_FILE_SIZE,
				   page_round(1), &b)
		 : NULL;
	if (ok && !why && b.remote_mode == UKCOV_MODE_NONE)
		why = "an unknown remote trace mode";
	if (why) {
		ukcov__peer_refused(UKCOV_PEER_PROXY, c->fd, why);
		ok = 0;
	}
	if (ok) {
		c->mode = b.remote_mode;
		c->area_words = b.remote_area < c->entries ? b.remote_area
							   : c->entries;
		c->gen = gen;
		memcpy(c->modules_path, c->cb->remote_modules,
		       sizeof(c->modules_path));
		c->modules_path[sizeof(c->modules_path) - 1] = 0;
		c->modules_ino = c->cb->remote_modules_ino;
	}
	ukcov__cb_unlock(c->cb);
	return ok;
}

/* dlpi_adds + dlpi_subs: changes whenever an object is loaded or
 * unloaded, so a table sent earlier is still ours while it holds. */
static int loader_count_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *count = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) +
		    sizeof(info->dlpi_subs))
		*count = (uint64_t)info->dlpi_adds + (uint64_t)info->dlpi_subs;
	return 1;
}

/* The module tables this process sent, by the file they went to (its
 * inode and a hash of its path), kept across proxies: an evicted and
 * reopened proxy does not append the same table again, else a feeder
 * cycling over more collectors than PROXIES would grow their feeders
 * memfds without bound.  [R] */
#define SENT_MEMO 256
static struct sent_memo {
	uint64_t ino, path, loads;
} sent_memo[SENT_MEMO];
static unsigned sent_next;

static uint64_t path_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

static struct sent_memo *sent_find_locked(uint64_t ino, uint64_t path)
{
	unsigned i;

	for (i = 0; i < SENT_MEMO; i++)
		if (sent_memo[i].ino == ino && sent_memo[i].path == path)
			return &sent_memo[i];
	return NULL;
}

/* Was this table (loads) sent to c's file already?  Notes it if not. */
static int sent_before_locked(const struct ukcov_collector *c, uint64_t loads)
{
	uint64_t path = path_hash(c->modules_path);
	struct sent_memo *m;

	if (!c->modules_ino)
		return 0;	/* a named file: no identity to keep */
	m = sent_find_locked(c->modules_ino, path);
	if (m && m->loads == loads)
		return 1;
	if (!m)
		m = &sent_memo[sent_next++ % SENT_MEMO];
	m->ino = c->modules_ino;
	m->path = path;
	m->loads = loads;
	return 0;
}

/* Once per collection this process feeds: its module table goes where
 * the collector asked, so the collector's tool can symbolize our PCs.
 * A collector that re-enables keeps its feeders memfd: the same table
 * is not appended again while nothing was loaded or unloaded, so the
 * memfd of a collector that re-enables per request stays small.
 * Not from a signal handler (dl_iterate_phdr takes the loader's lock):
 * the next section outside one sends it.  Called with reg_lock held. */
static void proxy_send_modules(const struct ukcov_thread *t,
			       struct ukcov_collector *c)
{
	uint64_t loads = 0;

	if (c->modules_gen == c->gen || t->sig_depth > 0)
		return;
	c->modules_gen = c->gen;
	dl_iterate_phdr(loader_count_of, &loads);
	if (c->modules_ino && c->modules_ino == c->sent_ino &&
	    loads == c->sent_loads &&
	    strcmp(c->modules_path, c->sent_path) == 0)
		return;
	if (!sent_before_locked(c, loads))
		ukcov__modules_snapshot_peer(c->modules_path, c->modules_ino);
	memcpy(c->sent_path, c->modules_path, sizeof(c->sent_path));
	c->sent_ino = c->modules_ino;
	c->sent_loads = loads;
}

/* The cache's collector for handle, its reference borrowed, or NULL:
 * no lock, no atomic read-modify-write. */
static struct ukcov_collector *cache_lookup(struct ukcov_remote_tls *rt,
					    uint64_t handle, uint64_t *seq)
{
	struct remote_cache *k = &rt->cache;

	if (!k->c || k->handle != handle ||
	    k->epoch != __atomic_load_n(&reg_epoch, __ATOMIC_ACQUIRE))
		return NULL;
	k->pins++;
	*seq = k->seq;
	return k->c;
}

/* Drop the cached collector if no open section borrowed it. */
static void cache_drop(struct remote_cache *k)
{
	struct ukcov_collector *c = k->c;

	if (!c || k->pins)
		return;
	k->c = NULL;
	k->handle = 0;
	collector_unref(c);
}

/* c, found for handle at epoch with seq under reg_lock and holding one
 * more reference for the cache, becomes the thread's cached lookup,
 * whose reference the new section borrows. */
static void cache_fill(struct remote_cache *k, uint64_t handle,
		       struct ukcov_collector *c, uint64_t epoch, uint64_t seq)
{
	k->c = c;
	k->handle = handle;
	k->epoch = epoch;
	k->seq = seq;
	k->pins = 1;
}

/* This process's collector of handle, under reg_lock, with a reference
 * for the section, or one for the cache that the section borrows. */
static struct ukcov_collector *local_get(struct ukcov_thread *t,
					uint64_t handle, uint64_t *seq,
					int *borrowed)
{
	struct ukcov_remote_tls *rt = t->rt;
	struct ukcov_collector *c;
	uint64_t epoch = 0;

	if (rt)
		cache_drop(&rt->cache);	/* stale, or another handle's */
	pthread_mutex_lock(&reg_lock);
	c = reg_lookup_locked(handle);
	if (c) {
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
		/* Changes only under reg_lock too (retire). */
		*seq = __atomic_load_n(&c->cb->remote_gen, __ATOMIC_RELAXED);
		epoch = reg_epoch;
	}
	pthread_mutex_unlock(&reg_lock);
	*borrowed = c && rt && !rt->cache.c;
	if (*borrowed)
		cache_fill(&rt->cache, handle, c, epoch, *seq);
	return c;
}

/* The collector of handle in another process (the machine's registry),
 * with a reference for the section, or NULL. */
static struct ukcov_collector *
remote_get(struct ukcov_thread *t, uint64_t handle, uint64_t *seq)
{
	struct ukcov_collector *c = NULL;
	struct ukcov_reg_entry e;

	if (ukcov__registry_lookup(handle, &e) != 0)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	c = proxy_get_locked(&e);
	/* Mode and area are fixed for a generation: read once. */
	if (c && (c->gen == e.gen || proxy_refresh(c, e.gen))) {
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
		*seq = e.gen;
		proxy_send_modules(t, c);
	} else {
		c = NULL;
	}
	pthread_mutex_unlock(&reg_lock);
	return c;
}

/* Take a reference on the collector of handle (or borrow the thread's
 * cache's), or NULL: this process's own first, then the machine's
 * registry. */
static struct ukcov_collector *collector_get(struct ukcov_thread *t,
					     uint64_t handle, uint64_t *seq,
					     int *borrowed)
{
	struct ukcov_collector *c = NULL;

	*borrowed = 0;
	if (t->rt && (c = cache_lookup(t->rt, handle, seq)) != NULL) {
		*borrowed = 1;
		return c;
	}
	/* An empty bucket: nobody here registered the handle.  A
	 * registration racing with this start is no different from one
	 * just after. */
	if (__atomic_load_n(&reg_nonempty, __ATOMIC_ACQUIRE) &
	    (1ULL << reg_bucket(handle)))
		c = local_get(t, handle, seq, borrowed);
	if (!c)
		c = remote_get(t, handle, seq);
	return c;
}

/* The section's reference: its own, or the cache's it borrowed. */
static void section_ref_drop(struct ukcov_thread *t,
			     struct ukcov_collector *c, int borrowed)
{
	if (borrowed)
		t->rt->cache.pins--;
	else
		collector_unref(c);
}

/* The section's hot block, unless it was computed for c and area. */
static void section_prepare_hot(struct remote_section *s,
				const struct ukcov_collector *c, uint64_t *area)
{
	if (s->hot_serial == c->serial &&
	    (c->mode == UKCOV_MODE_PC ? s->hot.pc_area : s->hot.cmp_area) ==
		    area)
		return;
	section_fill_hot(s, c, area);
	s->hot_serial = c->serial;
}

/* Open a section at depth; called with t->remote_busy set. */
static void section_open(struct ukcov_thread *t, int depth, uint64_t handle)
{
	struct ukcov_collector *c;
	struct remote_section *s;
	uint64_t seq = 0, *area;
	int borrowed;

	c = collector_get(t, handle, &seq, &borrowed);
	if (!c)
		return;		/* unregistered: no coverage, no error */
	if (!thread_rt(t)) {
		collector_unref(c);	/* Linux: vmalloc failed */
		return;
	}
	s = &t->rt->sec[depth];
	area = c->area_words ? section_area(s, c->area_words) : NULL;
	if (!area) {
		section_ref_drop(t, c, borrowed);
		return;
	}
	area[0] = 0;
	s->drops = 0;
	s->seq = seq;
	s->mode = c->mode;
	s->borrowed = borrowed;
	section_prepare_hot(s, c, area);
	/* At depth 0 the thread records nothing (ukcov_remote_start
	 * checked thread_traces): its hot block has no area, and the rest
	 * of it is dead until an enable arms the thread again
	 * (ukcov__thread_arm recomputes all of it).  In a handler the
	 * interrupted block is saved whole. */
	s->saved_clean = depth == 0;
	if (!s->saved_clean)
		ukcov__thread_save_hot(t, &s->saved);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Published last: from here a signal handler's return (rearm)
	 * reinstalls this section's block. */
	s->c = c;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ukcov__thread_load_hot(t, &s->hot);
}

UKCOV_EXPORT void ukcov_remote_start(uint64_t handle)
{
	struct ukcov_thread *t = &__ukcov_thread;
	const void *where = __builtin_return_address(0);
	int depth;

	if (handle & HANDLE_RESERVED) {
		report_ignored(IGN_HANDLE, handle, where);
		return;
	}
	/* A signal that interrupted this thread inside the registry's
	 * locks: the section cannot start (Linux disables interrupts). */
	if (t->remote_busy)
		return;
	if (t->sig_depth > 0)
		ukcov__signals_resync(t);	/* handlers left by siglongjmp */
	depth = t->sig_depth;
	if (depth >= REMOTE_DEPTHS)
		return;
	/* WARN_ON(in_task() && kcov_mode_enabled(t->kcov_mode)) */
	if (depth == 0 && thread_traces(t)) {
		report_ignored(t->remote_coll ? IGN_OWNER : IGN_TRACES, handle,
			       where);
		return;
	}
	if (t->rt && t->rt->sec[depth].c) {
		report_ignored(IGN_NESTED, handle, where);
		return;
	}
	if (handle == 0)
		return;		/* never registered */
	busy_enter(t);
	section_open(t, depth, handle);
	busy_leave(t);
}

UKCOV_EXPORT void ukcov_remote_start_common(uint32_t id)
{
	/* kcov_remote_start_common: kcov_remote_handle(COMMON, id). */
	ukcov_remote_start(KCOV_SUBSYSTEM_COMMON | id);
}

/* kcov_move_area: append the section's records to the collector's
 * buffer, truncated to its free space; a count word beyond the
 * capacity is garbage and nothing is copied.  What is lost is added to
 * the descriptor's drop count. */
static void merge_locked(struct ukcov_collector *c, int mode,
			 const uint64_t *src, uint64_t n, uint64_t lost)
{
	uint64_t *dst = c->buf;
	uint64_t words = mode == UKCOV_MODE_CMP ? 4 : 1;
	uint64_t cap = (c->entries - 1) / words;
	uint64_t len = __atomic_load_n(&dst[0], __ATOMIC_RELAXED), k = 0;

	if (len <= cap) {
		k = n < cap - len ? n : cap - len;
		memcpy(dst + 1 + len * words, src + 1, k * words * 8);
		__atomic_store_n(&dst[0], len + k, __ATOMIC_RELEASE);
	}
	lost += n - k;
	if (lost)
		__atomic_add_fetch(&c->cb->drops, lost, __ATOMIC_RELAXED);
}

/* Merge under the descriptor's own lock, which every process holding
 * it shares and which disable and exit hold when they end the
 * generation: Linux's "sequence == kcov->sequence && kcov->remote". */
static void merge_if_current(struct ukcov_collector *c, uint64_t seq, int mode,
			     const uint64_t *area, uint64_t n, uint64_t lost)
{
	struct ukcov_cb *cb = c->cb;

	if (ukcov__cb_lock(cb) != 0)
		return;
	if (cb->remote_gen == seq && cb->state == UKCOV_ST_RUNNING &&
	    cb->mode == UKCOV_MODE_REMOTE)
		merge_locked(c, mode, area, n, lost);
	ukcov__cb_unlock(cb);
}

/* Close the section at s: the thread gets its saved block back, then
 * the records go to the collector if its generation is unchanged
 * (Linux: sequence == kcov->sequence && kcov->remote). */
static void section_close(struct ukcov_thread *t, struct remote_section *s)
{
	struct ukcov_collector *c = s->c;
	const uint64_t *area = s->hot.pc_area ? s->hot.pc_area
					      : s->hot.cmp_area;
	uint64_t cap = s->hot.pc_area ? s->hot.pc_cap : s->hot.cmp_cap;
	uint64_t n, lost;

	busy_enter(t);
	s->c = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (s->saved_clean)
		ukcov__thread_clear_hot(t);
	else
		ukcov__thread_load_hot(t, &s->saved);
	n = __atomic_load_n(&area[0], __ATOMIC_ACQUIRE);
	if (n > cap)
		n = cap;
	lost = __atomic_load_n(&s->drops, __ATOMIC_RELAXED);
	/* An empty section has nothing to merge or count. */
	if (n || lost) {
		merge_if_current(c, s->seq, s->mode, area, n, lost);
	}
	section_ref_drop(t, c, s->borrowed);
	busy_leave(t);
}

UKCOV_EXPORT void ukcov_remote_stop(void)
{
	struct ukcov_thread *t = &__ukcov_thread;
	int depth = t->sig_depth;

	/* No section here (an unbalanced stop, or a stop on a thread that
	 * never started one): nothing to do, as in Linux. */
	if (!t->rt || t->remote_busy || depth >= REMOTE_DEPTHS ||
	    !t->rt->sec[depth].c)
		return;
	section_close(t, &t->rt->sec[depth]);
}

/* A signal handler returns with its section still open: close it, as
 * a softirq ends its section before it returns. */
void ukcov__remote_leave_depth(struct ukcov_thread *t, int depth)
{
	if (t->rt && depth < REMOTE_DEPTHS && t->rt->sec[depth].c &&
	    !t->remote_busy)
		section_close(t, &t->rt->sec[depth]);
}

UKCOV_EXPORT uint64_t ukcov_common_handle(void)
{
	const struct ukcov_thread *t = &__ukcov_thread;

	/* kcov_common_handle: 0 unless in_task(). */
	return t->sig_depth > 0 ? 0 : t->common_handle;
}

/* Thread exit: open sections are stopped (merged), innermost first; an
 * owner's handles are unregistered; the cached areas go. */
void ukcov__remote_thread_exit(struct ukcov_thread *t)
{
	struct ukcov_remote_tls *rt = t->rt;
	int i;

	ukcov__remote_owner_reset(t);
	if (!rt)
		return;
	for (i = REMOTE_DEPTHS - 1; i >= 0; i--) {
		if (rt->sec[i].c)
			section_close(t, &rt->sec[i]);
		if (rt->sec[i].area)
			munmap(rt->sec[i].area, rt->sec[i].area_bytes);
	}
	cache_drop(&rt->cache);
	t->rt = NULL;
	munmap(rt, page_round(sizeof(*rt)));
}

/* exit(): this process's registrations leave the machine's registry. */
void ukcov__remote_process_exit(void)
{
	ukcov__registry_remove_mine();
}

/* ---- fork ---- */

void ukcov__remote_fork_prepare(void)
{
	pthread_mutex_lock(&reg_lock);
}

void ukcov__remote_fork_parent(void)
{
	pthread_mutex_unlock(&reg_lock);
}

/* Linux kcov_task_init: the child has no section and owns nothing, but
 * keeps the common handle.  The registrations are the parent's; the
 * child's copy of the table is forgotten (its entries stay allocated:
 * they are the parent's memory image). */
void ukcov__remote_fork_child(void)
{
	struct ukcov_thread *t = &__ukcov_thread;
	int i;

	pthread_mutex_init(&reg_lock, NULL);
	memset(reg_table, 0, sizeof(reg_table));
	reg_nonempty = 0;
	reg_epoch++;
	ukcov__registry_after_fork_child();
	t->remote_coll = NULL;
	t->remote_busy = 0;
	attached = NULL;	/* OpenBSD: the remote was the parent's */
	attached_desc = NULL;
	if (t->rt) {
		for (i = 0; i < REMOTE_DEPTHS; i++)
			t->rt->sec[i].c = NULL;
		/* The parent's collector: forgotten, as its table. */
		memset(&t->rt->cache, 0, sizeof(t->rt->cache));
	}
}
