/*
 * lib/thread.c -- per-thread state: arming the callbacks, the list of
 * this process's tracing threads, and what thread exit, fork and
 * process exit do to them (init.c installs the hooks that call these,
 * and hands over, in struct ukcov_thread_hooks, what this file needs
 * from the layers above it).
 *
 * The kernels keep the tracing state in the task (Linux caches mode,
 * area and size in task_struct "for performance"); here it lives in one
 * TLS struct.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

__thread struct ukcov_thread __ukcov_thread
	__attribute__((tls_model("initial-exec"), visibility("default")));

/* Guards the fd table, the per-process descriptors and the thread list.
 * Lock order: ukcov__proc_lock, then a control block's lock. */
pthread_mutex_t ukcov__proc_lock = PTHREAD_MUTEX_INITIALIZER;

/* A static link that brings any of the runtime (this object is under
 * nearly every other) must bring its constructor too: init.c installs
 * the hooks and the thread-exit key this file relies on, and the fork
 * and exit handlers.  A link anchor, not a call (lib/layers.txt). */
__attribute__((used)) static const char *const init_anchor_ref =
	&ukcov__runtime_anchor;

static struct ukcov_thread *thread_list;	/* tracing threads */
static uint64_t self_start_time;		/* 0: not read yet */
static struct ukcov_thread_hooks hooks;		/* [I] from init.c */
static pthread_key_t exit_key;			/* [I] its destructor: */
						/* hooks.thread_exit */

/* Called once, by the constructor (init.c), before anything arms. */
void ukcov__thread_set_hooks(const struct ukcov_thread_hooks *h)
{
	hooks = *h;
	pthread_key_create(&exit_key, h->thread_exit);
}

/* Make t's thread run the thread-exit hook when it exits.  The key's
 * value only needs to be non-NULL for its destructor to run.  glibc's
 * pthread_setspecific of an early key takes no lock, so this may run in
 * a signal handler. */
static void hook_thread_exit(struct ukcov_thread *t)
{
	pthread_setspecific(exit_key, t);
}

static void note_tracer(void)
{
	if (hooks.note_tracer)
		hooks.note_tracer();
}

pid_t ukcov__gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Field 22 of /proc/<pid>/stat (ukcov__proc_start); with the pid it
 * names one process for the lifetime of the system (pids are reused,
 * start times are not). */
uint64_t ukcov__self_start_time(void)
{
	char state;
	uint64_t start = 0;

	if (self_start_time)
		return self_start_time;
	if (ukcov__proc_start(getpid(), &state, &start) != 0)
		return 1;
	self_start_time = start ? start : 1;
	return self_start_time;
}

/* The one place that turns a thread's recording off: the callbacks
 * test the area pointers (and the guard callback uniq_gmax first).  Release:
 * a thread that sees NULL also sees what was written before. */
void ukcov__thread_clear_hot(struct ukcov_thread *t)
{
	__atomic_store_n(&t->pc_area, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&t->cmp_area, NULL, __ATOMIC_RELEASE);
	/* The guard callback's unique test reads uniq_gmax before the area
	 * (callbacks.c, ukcov__guard_kcov), and trace_pc's the bitmap
	 * pointer (kcov_pc): off with them. */
	t->uniq_gmax = 0;
	__atomic_store_n(&t->uniq_bits, NULL, __ATOMIC_RELEASE);
	ukcov__imap_update(t);
}

void ukcov__thread_save_hot(const struct ukcov_thread *t, struct ukcov_hot *h)
{
	h->pc_area = __atomic_load_n(&t->pc_area, __ATOMIC_RELAXED);
	h->cmp_area = __atomic_load_n(&t->cmp_area, __ATOMIC_RELAXED);
	h->pc_cap = t->pc_cap;
	h->cmp_cap = t->cmp_cap;
	h->drops = t->drops;
	h->uniq_bits = t->uniq_bits;
	h->uniq_keys = t->uniq_keys;
	h->uniq_mask = t->uniq_mask;
	h->uniq_shift = t->uniq_shift;
	h->uniq_gmax = t->uniq_gmax;
	h->uniq_direct = t->uniq_direct;
	h->uniq_lo6 = t->uniq_lo6;
	h->uniq_dwords = t->uniq_dwords;
}

/* Install a whole hot block.  The area pointers are cleared first and
 * set last, so a callback (or a signal handler's) never pairs an area
 * with another area's capacity or drop counter. */
void ukcov__thread_load_hot(struct ukcov_thread *t, const struct ukcov_hot *h)
{
	ukcov__thread_clear_hot(t);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->pc_cap = h->pc_cap;
	t->cmp_cap = h->cmp_cap;
	t->drops = h->drops;
	t->uniq_bits = h->uniq_bits;
	t->uniq_keys = h->uniq_keys;
	t->uniq_mask = h->uniq_mask;
	t->uniq_shift = h->uniq_shift;
	t->uniq_gmax = h->uniq_gmax;
	t->uniq_direct = h->uniq_direct;
	t->uniq_lo6 = h->uniq_lo6;
	t->uniq_dwords = h->uniq_dwords;
	if (h->pc_area)
		note_tracer();	/* trace_pc, guards look */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&t->pc_area, h->pc_area, __ATOMIC_RELEASE);
	__atomic_store_n(&t->cmp_area, h->cmp_area, __ATOMIC_RELEASE);
	ukcov__imap_update(t);
}

/* Recompute the hot fields from the thread's own state.  Inside a signal
 * handler they stay cleared: handlers are user space's interrupts,
 * unless the handler opened a remote section of its own.  A remote
 * section open at the current depth owns the hot block. */
void ukcov__thread_rearm_hot(struct ukcov_thread *t)
{
	struct ukcov_desc *d = t->owned;
	uint64_t *pc = NULL, *cmp = NULL;
	uint64_t *buf = d ? d->buf : t->follow_area;
	const struct ukcov_hot *sec = NULL;

	if (t->rt && hooks.section_hot)
		sec = hooks.section_hot(t, t->sig_depth);
	if (sec) {
		ukcov__thread_load_hot(t, sec);
		return;
	}
	/* A NetBSD remote section: the remote's buffer, unless the remote
	 * went off (remote_netbsd.c); NetBSD does not trace interrupts. */
	if (t->nb_remote && t->sig_depth == 0 && hooks.nb_rearm) {
		hooks.nb_rearm(t);
		return;
	}
	/* No bitmap unless ukcov__uniq_hot says which (kcov_pc reads it
	 * before the area). */
	__atomic_store_n(&t->uniq_bits, NULL, __ATOMIC_RELEASE);
	if (buf && t->sig_depth == 0) {
		/* A unique mode appends after its bitmap (unique.c). */
		uint64_t *area = ukcov__uniq_hot(t, buf);

		if (t->mode == UKCOV_MODE_PC)
			pc = area;
		else if (t->mode == UKCOV_MODE_CMP)
			cmp = area;
	}
	if (pc)
		note_tracer();	/* guards look at pc_area */
	__atomic_store_n(&t->pc_area, pc, __ATOMIC_RELEASE);
	__atomic_store_n(&t->cmp_area, cmp, __ATOMIC_RELEASE);
	ukcov__imap_update(t);
}

static void thread_register_locked(struct ukcov_thread *t)
{
	if (t->registered)
		return;
	t->tid = ukcov__gettid();
	ukcov__imap_thread_start(t);
	t->prev = NULL;
	t->next = thread_list;
	if (thread_list)
		thread_list->prev = t;
	thread_list = t;
	t->registered = 1;
	hook_thread_exit(t);
}

/* A thread that is on no list (a remote section's worker) still needs
 * its exit hook; this may run in a signal handler's section start
 * (see hook_thread_exit). */
void ukcov__thread_exit_hook(struct ukcov_thread *t)
{
	if (!t->registered)
		hook_thread_exit(t);
}

void ukcov__thread_unregister_locked(struct ukcov_thread *t)
{
	if (!t->registered)
		return;
	if (t->prev)
		t->prev->next = t->next;
	else
		thread_list = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->registered = 0;
}

/* Called with ukcov__proc_lock held, after the control block says this
 * thread owns d. */
void ukcov__thread_arm(struct ukcov_thread *t, struct ukcov_desc *d,
		       int mode)
{
	/* Bounds from this process's checked mapping, not the shared
	 * block, which another process may have rewritten since. */
	uint64_t entries = d->entries;
	uint64_t words = __atomic_load_n(&d->cb->uniq_words, __ATOMIC_RELAXED);

	if (words && (entries < 2 || words >= entries - 1))
		words = 0;	/* forged: a plain trace, inside the buffer */
	t->owned = d;
	t->mode = mode;
	t->drops = &d->cb->drops;
	/* Unique modes (KCOV_UNIQUE_ENABLE): the enable prepared the
	 * table; an exec takeover maps it here (without one the thread
	 * records nothing, see ukcov__uniq_hot). */
	t->uniq_words = words;
	ukcov__uniq_prepare(t, mode, t->uniq_words);
	ukcov__uniq_trust_if_clear(t, d->buf);
	ukcov__uniq_direct_choose(t, d->buf, &d->uniq_direct);
	ukcov__imap_forget(t);
	/* Capacity as every kernel computes it: entries-1 PCs, and
	 * floor((entries-1)/4) comparison records, of the trace that
	 * follows the bitmap in a unique mode. */
	ukcov__uniq_caps(t, entries);
	d->ntracers++;
	thread_register_locked(t);
	ukcov__thread_rearm_hot(t);
}

/* A thread of a program traced with "ukcov run --threads all", or of
 * another process of its tree: it owns no descriptor, it records into
 * its own buffer (follow.c, tree.c). */
void ukcov__thread_follow_arm(struct ukcov_thread *t, uint64_t *area,
			      uint64_t entries, int mode, uint64_t uniq_words,
			      uint64_t *drops)
{
	pthread_mutex_lock(&ukcov__proc_lock);
	t->follow_area = area;
	t->follow_entries = entries;
	t->follow_drops = 0;
	t->mode = mode;
	/* A tree buffer counts its drops in its file (tree.c). */
	t->drops = drops ? drops : &t->follow_drops;
	t->uniq_words = uniq_words;
	ukcov__uniq_prepare(t, mode, uniq_words);
	ukcov__uniq_trust_if_clear(t, area);
	ukcov__uniq_direct_choose(t, area, NULL);
	ukcov__imap_forget(t);
	ukcov__uniq_caps(t, entries);
	thread_register_locked(t);
	ukcov__thread_rearm_hot(t);
	pthread_mutex_unlock(&ukcov__proc_lock);
}

/* Called with ukcov__proc_lock held. */
void ukcov__thread_disarm(struct ukcov_thread *t)
{
	struct ukcov_desc *d = t->owned;

	ukcov__thread_clear_hot(t);
	if (!d)
		return;
	t->owned = NULL;
	t->mode = UKCOV_MODE_NONE;
	t->uniq_words = 0;
	d->ntracers--;
	ukcov__desc_put_locked(d);
}

/* FreeBSD and OpenBSD stop tracing when the descriptor's last fd closes.
 * If the owner thread is one of ours, stop it now.  Its mapping stays
 * until it disarms itself, so a record it is writing right now lands in
 * valid memory.  Called with ukcov__proc_lock held. */
void ukcov__stop_local_owner(struct ukcov_desc *d, pid_t tid)
{
	struct ukcov_thread *t;

	for (t = thread_list; t; t = t->next)
		if (t->owned == d && t->tid == tid)
			ukcov__thread_stop(t);
}

/* Tracing stops, but the thread keeps its descriptor until it exits,
 * as FreeBSD's td_kcov_info and OpenBSD's p_kd stay set: enabling
 * another fd is still refused. */
void ukcov__thread_stop(struct ukcov_thread *t)
{
	t->mode = UKCOV_MODE_NONE;
	ukcov__thread_clear_hot(t);
}

/* fn on every tracing thread of this process (init.c's process exit);
 * with ukcov__proc_lock held. */
void ukcov__threads_for_each_locked(void (*fn)(struct ukcov_thread *t))
{
	struct ukcov_thread *t;

	for (t = thread_list; t; t = t->next)
		fn(t);
}

/* Linux kcov_task_init: the child starts disabled.  Only the forking
 * thread exists in the child; it keeps its signal nesting (init.c's
 * fork_child says why) and its remote common handle. */
void ukcov__threads_after_fork_child(void)
{
	struct ukcov_thread *t = &__ukcov_thread;

	self_start_time = 0;
	ukcov__thread_clear_hot(t);
	t->owned = NULL;
	t->mode = UKCOV_MODE_NONE;
	t->uniq_words = 0;	/* the table's copy stays, as a cache */
	t->registered = 0;
	t->follow_area = NULL;	/* the copy stays mapped, unused */
	thread_list = NULL;
}
