/*
 * tests/core/t_signal.c -- signal handlers are user space's interrupts
 * (HARD-PROBLEMS §4; the kernels never record interrupt context, §1
 * "Excluded contexts").  Target code run by a handler on a tracing
 * thread is not recorded; the same code outside the handler is (the
 * positive control in every test).  sigaction's oldact reports the
 * program's handler.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

static volatile sig_atomic_t ran, depth, max_depth, nest_to = 3;
static volatile int info_ok;

/* Handlers: uninstrumented themselves, they call target code. */
static void h_leaf2(int sig)
{
	(void)sig;
	ran++;
	/* What a handler runs is the subject of these tests: it must not
	 * be recorded. */
	call_n(target_leaf2, 3); /* NOLINT(bugprone-signal-handler) */
}

static void h_siginfo(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	info_ok = sig == SIGUSR1 && si->si_signo == SIGUSR1 &&
		  si->si_code == SI_QUEUE && si->si_value.sival_int == 42;
	ran++;
	target_leaf2();
	if (target_has_cmp)
		target_cmp4(1, 2);
}

static void h_outer(int sig)
{
	(void)sig;
	ran++;
	target_leaf2();
	raise(SIGUSR2);			/* nested handler */
	target_leaf2();
}

static void h_inner(int sig)
{
	(void)sig;
	ran++;
	target_leaf3();
}

static void h_recursive(int sig)
{
	depth++;
	if (depth > max_depth)
		max_depth = depth;
	ran++;
	target_leaf2();
	if (depth < nest_to)
		raise(sig);		/* SA_NODEFER: delivered at once */
	target_leaf2();
	depth--;
}

static void install(int sig, void (*h)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(sig, &sa, NULL));
}

/* Enable, leaf, deliver (the handlers run target_leaf2 and friends
 * want_ran times in all), leaf: exactly two records, both in
 * target_leaf.  Then the positive control: target_leaf2 called outside
 * any handler records. */
static void around(const struct kc *k, void (*deliver)(void), int want_ran)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	ran = 0;
	kc_enable_ok(k, fd, 0);
	target_leaf();
	deliver();
	target_leaf();
	CHECK_EQ(ran, want_ran);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
	call_n(target_leaf2, 3);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 5);
	expect_pcs_in(buf, 2, 3, (const void *)target_leaf2);
}

static void raise_usr1(void)
{
	CHECK_OK(raise(SIGUSR1));
}

static void t_sigaction(const struct kc *k)
{
	install(SIGUSR1, h_leaf2, 0);
	around(k, raise_usr1, 1);
}

/* Installed while tracing, through signal(3). */
static void deliver_after_signal(void)
{
	CHECK(signal(SIGUSR1, h_leaf2) != SIG_ERR);
	raise_usr1();
	raise_usr1();
	CHECK_EQ(ran, 2);
}

static void t_signal_fn(const struct kc *k)
{
	around(k, deliver_after_signal, 2);
}

/* SA_SIGINFO: the handler gets its siginfo (sigqueue's value). */
static void queue_usr1(void)
{
	union sigval v = { .sival_int = 42 };

	CHECK_OK(sigqueue(getpid(), SIGUSR1, v));
	CHECK_EQ(info_ok, 1);
}

static void t_siginfo(const struct kc *k)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h_siginfo;
	sa.sa_flags = SA_SIGINFO;
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	around(k, queue_usr1, 1);
}

/* SA_RESETHAND: the handler runs once (unrecorded), then the action is
 * SIG_DFL again (as sigaction reports it). */
static void deliver_resethand(void)
{
	struct sigaction old;

	raise_usr1();
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_handler == SIG_DFL);
	CHECK_EQ(ran, 1);
}

static void t_resethand(const struct kc *k)
{
	install(SIGUSR1, h_leaf2, SA_RESETHAND);
	around(k, deliver_resethand, 1);
}

/* SA_NODEFER: the handler interrupts itself three deep; nothing of it
 * is recorded, and recording resumes after the outermost returns. */
static void deliver_nodefer(void)
{
	depth = max_depth = 0;
	raise_usr1();
	CHECK_EQ(max_depth, 3);
	CHECK_EQ(ran, 3);
}

static void t_nodefer(const struct kc *k)
{
	install(SIGUSR1, h_recursive, SA_NODEFER);
	around(k, deliver_nodefer, 3);
}

/* Deeper than the trampoline keeps frames for (8, lib/signals.c), on
 * a thread that has not traced yet: 12 handlers deep, and then the
 * thread enables, traces and disables as one whose state the nesting
 * left alone; it exits enabled again, which releases the descriptor to
 * the next thread, as the kernels' task exit does. */
struct deep_arg {
	const struct kc *k;
	int fd;
};

static void *nest_deep_then_trace(void *p)
{
	struct deep_arg *a = p;

	depth = max_depth = 0;
	ran = 0;
	nest_to = 12;
	raise_usr1();
	nest_to = 3;
	if (max_depth != 12 || ran != 12 || depth != 0)
		return (void *)1;
	if (kc_enable(a->k, a->fd, a->k->f->mode_pc) != 0)
		return (void *)2;
	call_n(target_leaf, 5);
	if (kc_disable(a->k, a->fd) != 0)
		return (void *)3;
	if (kc_enable(a->k, a->fd, a->k->f->mode_pc) != 0)
		return (void *)4;
	call_n(target_leaf, 1);
	return NULL; /* still enabled */
}

static void t_nodefer_deep(const struct kc *k)
{
	uint64_t *buf;
	struct deep_arg a = { k, kc_setup(k, KC_ENTRIES, &buf) };
	pthread_t th;
	void *r;

	install(SIGUSR1, h_recursive, SA_NODEFER);
	CHECK_EQ(pthread_create(&th, NULL, nest_deep_then_trace, &a), 0);
	CHECK_EQ(pthread_join(th, &r), 0);
	CHECK_EQ((long)r, 0);
	expect_only_pcs(buf, 6, (const void *)target_leaf);
	rec_reset(buf);
	kc_enable_ok(k, a.fd, 0);
	call_n(target_leaf2, 2);
	kc_disable_ok(k, a.fd);
	expect_only_pcs(buf, 2, (const void *)target_leaf2);
}

/* A handler interrupted by another signal's handler. */
static void deliver_nested(void)
{
	raise_usr1();
	CHECK_EQ(ran, 2);
}

static void t_nested(const struct kc *k)
{
	install(SIGUSR1, h_outer, 0);
	install(SIGUSR2, h_inner, 0);
	around(k, deliver_nested, 2);
}

/* Asynchronous delivery: another thread sends the signal while this one
 * waits in sigsuspend. */
static void *send_usr1(void *p)
{
	pthread_kill(*(pthread_t *)p, SIGUSR1);
	return NULL;
}

static void deliver_from_thread(void)
{
	sigset_t block, old, none;
	pthread_t self = pthread_self(), th;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&none);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	CHECK_EQ(pthread_create(&th, NULL, send_usr1, &self), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	sigsuspend(&none);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	CHECK_EQ(ran, 1);
}

static void t_async(const struct kc *k)
{
	install(SIGUSR1, h_leaf2, 0);
	around(k, deliver_from_thread, 1);
}

/* CMP mode: the handler's comparisons are not recorded either. */
static void t_cmp_mode(const struct kc *k)
{
	struct sigaction sa;
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	union sigval v = { .sival_int = 42 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h_siginfo;
	sa.sa_flags = SA_SIGINFO;
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	kc_enable_ok(k, fd, 1);
	target_cmp4(5, 6);
	CHECK_OK(sigqueue(getpid(), SIGUSR1, v));
	target_cmp4(7, 8);
	kc_disable_ok(k, fd);
	CHECK_EQ(ran, 1);
	CHECK_EQ(rec_count(buf), 2);
	CHECK_EQ(buf[2], 5);
	CHECK_EQ(buf[6], 7);
}

/* A handler installed before the runtime initialises is excluded too:
 * an executable's .preinit_array runs before any constructor, those of
 * libukcov.so / libukcov.a included. */
static void install_early(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_leaf2;
	sigaction(SIGURG, &sa, NULL);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit_install_early)(void) = install_early;

static void raise_urg(void)
{
	CHECK_OK(raise(SIGURG));
}

static void t_installed_early(const struct kc *k)
{
	around(k, raise_urg, 1);
}

/* A handler that leaves with siglongjmp never returns to the runtime:
 * recording resumes at the thread's next ukcov request
 * (docs/DESIGN.md, "Deliberate differences"), here a DROPPED. */
static sigjmp_buf jump_back;

static void h_jump(int sig)
{
	(void)sig;
	ran++;
	target_leaf2();
	siglongjmp(jump_back, 1);
}

static void t_siglongjmp(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	install(SIGUSR1, h_jump, 0);
	ran = 0;
	kc_enable_ok(k, fd, 0);
	target_leaf();
	if (sigsetjmp(jump_back, 1) == 0)
		raise_usr1();
	CHECK_EQ(ran, 1);
	CHECK_EQ(kc_dropped(k, fd), 0);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
}

/* A child forked inside a handler leaves the handler as the parent
 * does, and is then an ordinary process outside any handler: enabled
 * in main, it records exactly its own calls (the fork child used to
 * forget it was inside a handler, and the handler's return
 * left it unable to record). */
static volatile pid_t forked;

static void h_fork(int sig)
{
	(void)sig;
	ran++;
	target_leaf2();		/* in the handler: not recorded */
	forked = fork();
}

static void t_fork_in_handler(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	install(SIGUSR1, h_fork, 0);
	ran = 0;
	forked = -1;
	raise_usr1();
	CHECK_OK(forked);
	if (forked == 0) {
		/* The child, back in main from the handler. */
		kc_enable_ok(k, fd, 0);
		target_leaf();
		kc_disable_ok(k, fd);
		_exit(0);
	}
	expect_exit0(forked);
	CHECK_EQ(ran, 1);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	/* And the parent, back from the same handler, records too. */
	rec_reset(buf);
	kc_enable_ok(k, fd, 0);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}

/*
 * SA_RESETHAND against sigaction() on another thread.  The kernel resets a SA_RESETHAND action when it delivers the
 * signal, before the handler (the runtime's trampoline) runs; a
 * sigaction() on another thread in between installs a new action that
 * must stay.  Made deterministic: SIGUSR1 and SIGUSR2 are made pending
 * together; Linux sets up both frames before returning to user space,
 * SIGUSR1's first (the lower number, and its reset), so SIGUSR2's handler
 * runs first, exactly between SIGUSR1's reset and its trampoline.  It
 * has the other thread install h_second for SIGUSR1 and waits for it.
 */
static volatile sig_atomic_t first_ran, second_ran;
static int to_installer[2], from_installer[2];

static void h_first(int sig)
{
	(void)sig;
	first_ran++;
}

static void h_second(int sig)
{
	(void)sig;
	second_ran++;
}

static void install_resethand(void (*h)(int))
{
	install(SIGUSR1, h, SA_RESETHAND);
}

static void *installer(void *arg)
{
	char c;

	(void)arg;
	while (read(to_installer[0], &c, 1) == 1) {
		install_resethand(h_second);
		CHECK_EQ(write(from_installer[1], &c, 1), 1);
	}
	return NULL;
}

static void h_window(int sig)
{
	char c = 'i';

	(void)sig;
	ran++;
	if (write(to_installer[1], &c, 1) != 1 ||
	    read(from_installer[0], &c, 1) != 1)
		_exit(3);
}

static void t_resethand_race(const struct kc *k)
{
	struct sigaction old;
	sigset_t both, prev;
	pthread_t th;

	(void)k;
	CHECK_OK(pipe(to_installer));
	CHECK_OK(pipe(from_installer));
	CHECK_EQ(pthread_create(&th, NULL, installer, NULL), 0);
	install(SIGUSR2, h_window, 0);
	install_resethand(h_first);
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	CHECK_OK(sigprocmask(SIG_BLOCK, &both, &prev));
	CHECK_OK(raise(SIGUSR1));
	CHECK_OK(raise(SIGUSR2));
	CHECK_OK(sigprocmask(SIG_SETMASK, &prev, NULL));
	CHECK_EQ(ran, 1);
	/* The delivered signal ran the action installed when the trampoline
	 * read it: h_second (the kernel names no action per delivery). */
	CHECK_EQ(first_ran + second_ran, 1);
	/* h_second is installed, not reset: it was never delivered. */
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_handler == h_second);
	CHECK_EQ(old.sa_flags & SA_RESETHAND, SA_RESETHAND);
	/* And it runs, then is reset, as the kernel does. */
	second_ran = 0;
	CHECK_OK(raise(SIGUSR1));
	CHECK_EQ(second_ran, 1);
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_handler == SIG_DFL);
	close(to_installer[1]);
	CHECK_EQ(pthread_join(th, NULL), 0);
}

/* oldact and signal()'s result are the program's handlers (and flags,
 * mask), never a wrapper. */
static void h_other(int sig)
{
	(void)sig;
}

static void t_oldact(const struct kc *k)
{
	struct sigaction sa, old;
	const int flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_RESETHAND |
			  SA_ONSTACK;

	(void)k;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_leaf2;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	sa.sa_sigaction = h_siginfo;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &sa, &old));
	CHECK(old.sa_handler == h_leaf2);
	CHECK_EQ(old.sa_flags & flags, SA_RESTART);
	CHECK(sigismember(&old.sa_mask, SIGUSR2));
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_sigaction == h_siginfo);
	CHECK_EQ(old.sa_flags & flags, SA_SIGINFO | SA_NODEFER);
	CHECK(!sigismember(&old.sa_mask, SIGUSR2));
	CHECK((void *)signal(SIGUSR1, h_other) == (void *)h_siginfo);
	CHECK(signal(SIGUSR1, SIG_IGN) == h_other);
	CHECK(signal(SIGUSR1, h_leaf2) == SIG_IGN);
	CHECK(signal(SIGUSR1, SIG_DFL) == h_leaf2);
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_handler == SIG_DFL);
}

void register_signal_tests(void)
{
	reg_flavors("signal.sigaction", t_sigaction, 0);
	reg_flavors("signal.signal", t_signal_fn, 0);
	reg_flavors("signal.siginfo", t_siginfo, 0);
	reg_flavors("signal.resethand", t_resethand, 0);
	reg_flavors("signal.nodefer", t_nodefer, 0);
	reg_flavors("signal.nodefer_deep", t_nodefer_deep, 0);
	reg_flavors("signal.nested", t_nested, 0);
	reg_flavors("signal.async", t_async, 0);
	reg_flavors("signal.cmp_mode", t_cmp_mode, NEED_CMP);
	reg_flavors("signal.installed_early", t_installed_early, 0);
	reg_flavors("signal.siglongjmp", t_siglongjmp, 0);
	reg_flavors("signal.fork_in_handler", t_fork_in_handler, 0);
	reg_one("signal.resethand_race", t_resethand_race, FL_LINUX,
		core_have_native, 0);
	reg_one("signal.oldact", t_oldact, FL_LINUX, core_have_native, 0);
}
