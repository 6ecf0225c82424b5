/*
 * tests/core/t_owner.c -- who owns an enabled descriptor, checked where
 * timing cannot hide a mistake: a dead owner whose pid another process
 * now has, and a thread that is still alive, but exiting, when someone
 * else enables.
 *
 * Linux kcov_task_exit (kernel/kcov.c) releases the descriptor when the
 * owner task exits, FreeBSD kcov_thread_dtor, NetBSD kcov_lwp_free and
 * OpenBSD kcov_exit likewise: the next ENABLE from anyone succeeds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

/* ---- pid reuse ---- */

/* struct clone_args of Linux 5.5 (include/uapi/linux/sched.h), up to
 * set_tid_size; declared here so <linux/sched.h> does not clash with
 * <sched.h>. */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size;
};

/* A child with exactly the pid want (clone3 set_tid; needs
 * CAP_SYS_ADMIN in the pid namespace's user namespace).  Like fork(),
 * without the atfork handlers: the child must only use raw syscalls and
 * code that touches no ukcov state.  Returns 0 in the child. */
static pid_t fork_with_pid(pid_t want)
{
	struct clone3_args a = { 0 };
	pid_t pid;
	char last[32];
	int fd, n;

	a.exit_signal = SIGCHLD;
	a.set_tid = (uint64_t)(uintptr_t)&want;
	a.set_tid_size = 1;
	pid = (pid_t)syscall(SYS_clone3, &a, sizeof(a));
	if (pid >= 0 || errno != ENOSYS)
		return pid;
	/* No clone3 (qemu-user 7.2): the pid after ns_last_pid, which
	 * root may set too.  Another task born in between takes it: that
	 * child is killed and the next try made. */
	n = snprintf(last, sizeof(last), "%d", (int)want - 1);
	for (int tries = 0; tries < 50; tries++) {
		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, last, (size_t)n) != n) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		if (pid <= 0 || pid == want)
			return pid;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	errno = EAGAIN;
	return -1;
}

/* Field 22 of /proc/PID/stat: the start time in clock ticks. */
static unsigned long long proc_start_time(pid_t pid)
{
	char path[64], line[1024], *p;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		FAIL("%s: %s", path, errname(errno));
	p = fgets(line, sizeof(line), f);
	fclose(f);
	p = p ? strrchr(line, ')') : NULL;	/* comm may hold spaces */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		FAIL("%s: no start time", path);
	return strtoull(p + 1, NULL, 10);
}

/* Sleep for n clock ticks (the unit of proc_start_time). */
static void sleep_ticks(int n)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec ts = { 0, 0 };

	ts.tv_nsec = (long)n * (1000000000L / (hz > 0 ? hz : 100));
	while (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Owner A enables, records, and is SIGKILLed and reaped: it never
 * disabled.  B is then given A's pid (and tid) and stays alive, so
 * /proc/A-pid is a live process again; only the start time tells it is
 * not the owner.  An ENABLE from a third party must succeed. */
static void t_pid_reused(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), ready[2], hold[2];
	unsigned long long start_a;
	pid_t a, b;

	pipe_ok(ready);
	pipe_ok(hold);
	a = fork();
	CHECK_OK(a);
	if (a == 0) {
		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, 3);
		send_byte(ready[1], 'a');
		recv_byte(hold[0]);		/* blocks until killed */
		_exit(0);
	}
	recv_byte(ready[0]);
	/* Positive control: while A lives, the descriptor is A's. */
	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_busy);
	start_a = proc_start_time(a);
	CHECK_OK(kill(a, SIGKILL));
	CHECK(WIFSIGNALED(wait_status(a)));
	/* From here to B's birth no request touches fd, so nothing can
	 * reap A's ownership before its pid is someone else's.  Two ticks
	 * apart, B's start time cannot equal A's. */
	sleep_ticks(2);
	b = fork_with_pid(a);
	if (b == 0) {
		char c;

		(void)!read(hold[0], &c, 1);	/* until the test lets go */
		syscall(SYS_exit_group, 0);
	}
	if (b < 0)
		FAIL("clone3 with set_tid %d, or ns_last_pid: %s (needs root: "
		     "CAP_SYS_ADMIN)",
		     (int)a, errname(errno));
	CHECK_EQ(b, a);
	CHECK(proc_start_time(b) != start_a);
	CHECK_EQ(kc_enable_pc(k, fd), 0);
	call_n(target_leaf2, 2);
	kc_disable_ok(k, fd);
	send_byte(hold[1], 'b');
	expect_exit0(b);
	CHECK_EQ(rec_count(buf), 5);
	expect_pcs_in(buf, 0, 3, (const void *)target_leaf);
	expect_pcs_in(buf, 3, 2, (const void *)target_leaf2);
}

/* ---- thread exit ---- */

/* The exiting thread stops in a TSD destructor of its own, which runs
 * after the runtime's (glibc runs destructors in key order, and the
 * runtime's key was made at start-up).  The thread is alive there, so
 * the dead-owner check cannot release the descriptor: only the
 * runtime's release at thread exit can. */
struct exit_gate {
	const struct kc *k;
	int fd;
	pid_t tid;
	int in_dtor[2], go[2];
};

static pthread_key_t gate_key;

static void gate_destructor(void *p)
{
	struct exit_gate *g = p;

	send_byte(g->in_dtor[1], 'd');
	recv_byte(g->go[0]);
}

static void *gate_thread(void *p)
{
	struct exit_gate *g = p;

	g->tid = (pid_t)syscall(SYS_gettid);
	kc_enable_ok(g->k, g->fd, 0);
	call_n(target_leaf, 2);
	CHECK_OK(pthread_setspecific(gate_key, g));
	return NULL;			/* exits without DISABLE */
}

static void t_exit_release_while_alive(const struct kc *k)
{
	uint64_t *buf;
	struct exit_gate g = { k, kc_setup(k, KC_ENTRIES, &buf), 0,
			       { -1, -1 }, { -1, -1 } };
	pthread_t t;

	pipe_ok(g.in_dtor);
	pipe_ok(g.go);
	CHECK_EQ(pthread_key_create(&gate_key, gate_destructor), 0);
	CHECK_EQ(pthread_create(&t, NULL, gate_thread, &g), 0);
	recv_byte(g.in_dtor[0]);
	/* The owner thread is still there. */
	CHECK_EQ(syscall(SYS_tgkill, getpid(), g.tid, 0), 0);
	CHECK_EQ(kc_enable_pc(k, g.fd), 0);
	call_n(target_leaf2, 3);
	kc_disable_ok(k, g.fd);
	send_byte(g.go[1], 'g');
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rec_count(buf), 5);
	expect_pcs_in(buf, 0, 2, (const void *)target_leaf);
	expect_pcs_in(buf, 2, 3, (const void *)target_leaf2);
}

void register_owner_tests(void)
{
	reg_flavors("owner.pid_reused", t_pid_reused, 0);
	reg_flavors("owner.thread_exit_releases_while_alive",
		    t_exit_release_while_alive, 0);
}
