/*
 * lib/init.c -- the runtime's process-lifetime hooks: the constructor,
 * the thread-exit key destructor, the fork handlers and the process-exit
 * handler.  What each hook does to the threads lives in thread.c, the
 * exec takeover the constructor runs in exec.c.
 *
 * The kernels' hooks become:
 *   do_exit -> kcov_task_exit           pthread key destructor (thread
 *                                        exit), atexit (process exit)
 *   dup_task_struct -> kcov_task_init   pthread_atfork child handler
 *   (exec: the task survives)           constructor -> exec takeover
 *
 * Instrumented constructors may run before this one; the callbacks
 * tolerate that (zeroed TLS reads as "tracing off").
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* callbacks.c and thread.c refer to this, so that a static link of the
 * callbacks, or of any part of the runtime, brings this object (the
 * constructor and the hooks), and with it the interposers, along. */
const char ukcov__runtime_anchor = 1;

/* ---- thread exit ---- */

/* Linux kcov_task_exit, FreeBSD kcov_thread_dtor, NetBSD kcov_lwp_free,
 * OpenBSD kcov_exit: the descriptor goes back to READY with its buffer
 * contents kept; after a last close it stays DYING.  With
 * ukcov__proc_lock held. */
static void thread_exit_locked(struct ukcov_thread *t)
{
	struct ukcov_desc *d = t->owned;

	if (d && ukcov__cb_lock(d->cb) == 0) {
		/* A remote owner's handles are unregistered (Linux
		 * kcov_task_exit), under the block's lock as merges are. */
		ukcov__remote_owner_reset(t);
		if (ukcov__owned_by_me_locked(d->cb))
			ukcov__release_owner_locked(d->cb);
		ukcov__cb_unlock(d->cb);
	}
	/* A section still open is stopped (merged), the areas go. */
	ukcov__remote_thread_exit(t);
	ukcov__nb_thread_exit(t);
	ukcov__thread_disarm(t);
	if (t->follow_area)
		ukcov__follow_flush_locked(t, 1);
	ukcov__uniq_release(t);
	ukcov__imap_release(t);
	ukcov__thread_unregister_locked(t);
}

/* The thread-exit key's destructor (thread.c registers each tracing
 * thread with the key). */
static void thread_exit_destructor(void *arg)
{
	struct ukcov_thread *t = arg;

	pthread_mutex_lock(&ukcov__proc_lock);
	thread_exit_locked(t);
	pthread_mutex_unlock(&ukcov__proc_lock);
}

/* What thread.c calls in the layers above it. */
static const struct ukcov_thread_hooks thread_hooks = {
	.section_hot = ukcov__remote_section_hot,
	.nb_rearm = ukcov__nb_rearm,
	.note_tracer = ukcov__sancov_note_tracer,
	.thread_exit = thread_exit_destructor,
};

/* ---- process exit ---- */

/* exit() ends every thread of the process without running their
 * destructors: stop each.  Other threads run on until exit_group: keep
 * their buffers mapped, save what they recorded so far. */
static void thread_stop_at_exit(struct ukcov_thread *t)
{
	ukcov__thread_clear_hot(t);
	if (t->follow_area)
		ukcov__follow_flush_locked(t, 0);
}

/* exit() ends every thread of the process without running their
 * destructors; release whatever a thread of this process had enabled. */
static void release_desc_at_exit(struct ukcov_desc *d, int fd)
{
	(void)fd;
	if (ukcov__cb_lock(d->cb) != 0)
		return;
	if (d->cb->state == UKCOV_ST_RUNNING &&
	    d->cb->owner_pid == (int32_t)getpid())
		ukcov__release_owner_locked(d->cb);
	ukcov__cb_unlock(d->cb);
}

static void process_exit_handler(void)
{
	ukcov__modules_snapshot();
	ukcov__remote_process_exit();
	/* exit() called from a signal handler that interrupted us inside
	 * the lock must not deadlock: the owner-dead check will release
	 * the descriptors instead. */
	if (pthread_mutex_trylock(&ukcov__proc_lock) != 0)
		return;
	ukcov__threads_for_each_locked(thread_stop_at_exit);
	ukcov__fdtab_for_each_locked(release_desc_at_exit);
	pthread_mutex_unlock(&ukcov__proc_lock);
}

/* ---- fork ---- */

static void fork_prepare(void)
{
	pthread_mutex_lock(&ukcov__proc_lock);
	ukcov__remote_fork_prepare();
}

static void fork_parent(void)
{
	ukcov__remote_fork_parent();
	pthread_mutex_unlock(&ukcov__proc_lock);
}

/* Linux kcov_task_init: the child starts disabled.  The control block
 * still names the parent's thread as owner, which is right: the parent
 * still traces.  Only the forking thread exists in the child, and it is
 * where the parent's was: a fork inside a signal handler leaves the
 * child inside that handler, with the trampoline frames on its copy of
 * the stack, so sig_depth and sig_frames are kept (the trampoline's
 * return brings them back to 0 and re-arms, as in the parent). */
static void fork_child(void)
{
	ukcov__threads_after_fork_child();
	/* The child keeps the common handle (Linux kcov_task_init copies
	 * kcov_handle) but no section and no registration. */
	ukcov__remote_fork_child();
	ukcov__nb_fork_child();
	ukcov__fdtab_after_fork_child();
	ukcov__follow_after_fork_child();
	ukcov__signals_after_fork_child();
	ukcov__sancov_after_fork_child();
	pthread_mutex_init(&ukcov__proc_lock, NULL);
	ukcov__tree_after_fork_child();	/* arms: after the lock's init */
}

/* ---- the constructor ---- */

/* UKCOV_COMMON_HANDLE (hex or decimal): the main thread's remote common
 * handle, as if inherited across the exec that started this program
 * (Linux keeps kcov_handle in the task across exec; ukcov run --remote
 * --common passes it this way). */
static void common_handle_from_env(void)
{
	const char *v = ukcov__env("UKCOV_COMMON_HANDLE");
	char *end;
	unsigned long long h;

	if (!v || !*v)
		return;
	h = strtoull(v, &end, 0);
	if (*end == '\0' && (h >> 56) == 0 && (h & ~0xffffffffULL) == 0)
		__ukcov_thread.common_handle = h;
}

__attribute__((constructor(101))) static void ukcov_init(void)
{
	ukcov__thread_set_hooks(&thread_hooks);
	common_handle_from_env();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atexit(process_exit_handler);
	ukcov__sancov_init();
	ukcov__uniq_text_init();	/* before a takeover arms unique mode */
	ukcov__exec_takeover();
	ukcov__tree_init(__ukcov_thread.owned != NULL);
}
