/*
 * lib/signals.c -- signal handlers are user space's interrupts.
 *
 * The kernels do not record interrupt context (Linux check_kcov_mode
 * requires in_task(); FreeBSD skips td_intr_nesting_level > 0; NetBSD
 * and OpenBSD skip ci_idepth).  Every handler the program installs
 * through sigaction/signal is run by a trampoline that clears the
 * thread's hot pointers for the handler's duration and recomputes them
 * afterwards.  The callbacks pay nothing for this.
 *
 * A handler that leaves with siglongjmp never returns to the
 * trampoline.  The trampoline notes its frame; the thread's next ukcov
 * call finds frames it has unwound past and resumes recording
 * (docs/DESIGN.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#define NSIG_MAX 65

/*
 * The program's view of each signal's action, kept in step with the
 * kernel's disposition (the trampoline or not).
 * [L] written under table_lock, taken with every signal blocked (so a
 *     handler never spins on a lock its own thread holds); table_seq is
 *     odd while a writer is inside.
 * [Q] read without the lock by the trampoline, as a seqlock: copy,
 *     then retry if table_seq moved.  A handler cannot take a lock that
 *     the code it interrupted may hold.
 */
static struct sigaction user_action[NSIG_MAX];	/* [L][Q] */
static int user_wrapped[NSIG_MAX];		/* [L] */
static int table_lock;
static unsigned table_seq;
/* coverage=1: these signals dump coverage before the program's action;
 * the trampoline stays installed even while that action is SIG_DFL.
 * [L] set once by ukcov__signals_hook_fatal, read by the trampoline. */
static int fatal_hooked[NSIG_MAX];
/* [A] set (before any fatal_hooked) by ukcov__signals_hook_fatal. */
static void (*fatal_dump)(int sig);

static void table_acquire(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		;
	__atomic_store_n(&table_seq, table_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void table_release(const sigset_t *old)
{
	__atomic_store_n(&table_seq, table_seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* A consistent copy of the program's action for sig, without the lock
 * (the writer on another thread finishes in a few instructions). */
static void read_user_action(int sig, struct sigaction *a)
{
	unsigned seq;

	for (;;) {
		seq = __atomic_load_n(&table_seq, __ATOMIC_ACQUIRE);
		memcpy(a, &user_action[sig], sizeof(*a));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) &&
		    __atomic_load_n(&table_seq, __ATOMIC_RELAXED) == seq)
			return;
	}
}

/*
 * SA_RESETHAND: the kernel put SIG_DFL in place of the trampoline when
 * it delivered the signal, and the program's view follows: oldact then
 * reports SIG_DFL.  Under the lock, as sigaction() changes the table and
 * the kernel together; and only if the kernel's disposition is still
 * SIG_DFL: a sigaction() on another thread between the delivery and
 * this point installed a new action, which must stay.
 */
static void mirror_resethand(int sig)
{
	struct sigaction cur;
	sigset_t old;

	table_acquire(&old);
	if (user_wrapped[sig] && ukcov__real_sigaction(sig, NULL, &cur) == 0 &&
	    !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL) {
		user_action[sig].sa_handler = SIG_DFL;
		user_action[sig].sa_flags &= ~SA_SIGINFO;
		user_wrapped[sig] = 0;
	}
	table_release(&old);
}

static void run_user_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a;

	/* Write coverage first: the program's handler may _exit, and the
	 * default action ends the process.  The SIG_DFL branch below then
	 * re-raises, so the process dies of the same signal. */
	if (__atomic_load_n(&fatal_hooked[sig], __ATOMIC_RELAXED))
		__atomic_load_n(&fatal_dump, __ATOMIC_ACQUIRE)(sig);
	read_user_action(sig, &a);
	if (a.sa_flags & SA_RESETHAND)
		mirror_resethand(sig);
	if (a.sa_flags & SA_SIGINFO) {
		a.sa_sigaction(sig, si, uc);
	} else if (a.sa_handler == SIG_DFL) {
		/* Raced with a change to SIG_DFL: do the default action. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		ukcov__real_sigaction(sig, &dfl, NULL);
		raise(sig);
	} else if (a.sa_handler != SIG_IGN) {
		a.sa_handler(sig);
	}
}

#define FRAME_ALTSTACK ((uintptr_t)1)

static int on_altstack(void)
{
	stack_t ss;

	return sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
}

/* Has the thread unwound past this trampoline frame (siglongjmp)?
 * Stacks grow down: a live frame lies above the current one. */
static int frame_left(uintptr_t frame)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if ((frame & FRAME_ALTSTACK) && !on_altstack())
		return 1;
	return here > (frame & ~FRAME_ALTSTACK);
}

void ukcov__signals_resync(struct ukcov_thread *t)
{
	int depth = t->sig_depth;

	while (depth > 0 && depth <= 8 && frame_left(t->sig_frames[depth - 1]))
		depth--;
	if (depth != t->sig_depth) {
		/* Remote sections the abandoned handlers left open end
		 * here, innermost first. */
		for (int d = t->sig_depth; d > depth; d--)
			ukcov__remote_leave_depth(t, d);
		t->sig_depth = depth;
		ukcov__thread_rearm_hot(t);
	}
}

static void trampoline(int sig, siginfo_t *si, void *uc)
{
	struct ukcov_thread *t = &__ukcov_thread;
	int saved_errno = errno;

	if (t->sig_depth < 8)
		t->sig_frames[t->sig_depth] =
			((uintptr_t)__builtin_frame_address(0) & ~FRAME_ALTSTACK) |
			(on_altstack() ? FRAME_ALTSTACK : 0);
	t->sig_depth++;
	ukcov__thread_clear_hot(t);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	errno = saved_errno;
	run_user_handler(sig, si, uc);
	saved_errno = errno;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* A section the handler left open ends with it; the interrupted
	 * context (with its own section, if any) gets its block back. */
	ukcov__remote_leave_depth(t, t->sig_depth);
	t->sig_depth--;
	ukcov__thread_rearm_hot(t);
	errno = saved_errno;
}

static int is_function(const struct sigaction *act)
{
	if (act->sa_flags & SA_SIGINFO)
		return act->sa_sigaction != NULL;
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

UKCOV_EXPORT int sigaction(int sig, const struct sigaction *act,
			   struct sigaction *oact)
{
	struct sigaction wrapped, prev_user, kernel_old;
	int had_wrapper, rc, e;
	sigset_t old;

	if (sig <= 0 || sig >= NSIG_MAX)
		return ukcov__real_sigaction(sig, act, oact);
	table_acquire(&old);
	had_wrapper = user_wrapped[sig];
	prev_user = user_action[sig];
	if (act && (is_function(act) ||
		    (fatal_hooked[sig] && !(act->sa_flags & SA_SIGINFO) &&
		     act->sa_handler == SIG_DFL))) {
		wrapped = *act;
		wrapped.sa_sigaction = trampoline;
		wrapped.sa_flags |= SA_SIGINFO;
		user_action[sig] = *act;
		user_wrapped[sig] = 1;
		rc = ukcov__real_sigaction(sig, &wrapped, &kernel_old);
	} else {
		rc = ukcov__real_sigaction(sig, act, &kernel_old);
		if (act && rc == 0)
			user_wrapped[sig] = 0;
	}
	e = errno;
	if (rc != 0) {
		user_action[sig] = prev_user;
		user_wrapped[sig] = had_wrapper;
	}
	table_release(&old);
	if (rc == 0 && oact) {
		*oact = kernel_old;
		/* Report the program's handler, never the trampoline. */
		if (had_wrapper && kernel_old.sa_sigaction == trampoline)
			*oact = prev_user;
	}
	errno = e;
	return rc;
}

/*
 * coverage=1 (lib/sancov.c): SIGSEGV, SIGBUS, SIGABRT, SIGFPE and SIGILL
 * (and SIGTRAP on aarch64, where __builtin_trap and -fsanitize-trap are
 * a brk: what ud2's SIGILL is on x86-64) write the coverage files
 * before the program's handler runs, or before the default action kills
 * the process.  A debugger takes SIGTRAP through ptrace before any
 * handler would run.  A signal the program ignores
 * is left alone.  The program's own handlers are chained as for any
 * signal; its view of the action (sigaction's oldact) is unchanged.
 * dump (sancov.c's, handed down: signals.c is the lower layer) writes
 * the files.
 */
void ukcov__signals_hook_fatal(void (*dump)(int sig))
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL,
#if defined(__aarch64__)
				    SIGTRAP,
#endif
	};
	sigset_t old;

	__atomic_store_n(&fatal_dump, dump, __ATOMIC_RELEASE);
	table_acquire(&old);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int sig = sigs[i];
		struct sigaction cur, wrapped;

		if (ukcov__real_sigaction(sig, NULL, &cur) != 0)
			continue;
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
			continue;
		__atomic_store_n(&fatal_hooked[sig], 1, __ATOMIC_RELAXED);
		if (user_wrapped[sig])
			continue;	/* the trampoline is there already */
		user_action[sig] = cur;
		user_wrapped[sig] = 1;
		wrapped = cur;
		wrapped.sa_sigaction = trampoline;
		wrapped.sa_flags |= SA_SIGINFO | SA_ONSTACK;
		if (ukcov__real_sigaction(sig, &wrapped, NULL) != 0) {
			user_wrapped[sig] = 0;
			__atomic_store_n(&fatal_hooked[sig], 0, __ATOMIC_RELAXED);
		}
	}
	table_release(&old);
}

/* glibc's BSD-semantics signal(): SA_RESTART, the signal itself
 * blocked while its handler runs. */
UKCOV_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (sig > 0 && sig < NSIG_MAX)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = SA_RESTART;
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

sighandler_t bsd_signal(int sig, sighandler_t handler);

UKCOV_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return signal(sig, handler);
}

UKCOV_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	act.sa_flags = SA_RESETHAND | SA_NODEFER;
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* The child of fork has one thread: the forking one, which may be
 * inside a handler (thread.c fork_child keeps its nesting), but is not
 * inside sigaction(), which holds the table lock with every signal
 * blocked.  Another thread of the parent may have held it. */
void ukcov__signals_after_fork_child(void)
{
	__atomic_store_n(&table_seq, table_seq & ~1u, __ATOMIC_RELAXED);
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELAXED);
}
