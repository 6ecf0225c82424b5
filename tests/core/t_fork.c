/*
 * tests/core/t_fork.c -- a descriptor shared by processes (HARD-PROBLEMS
 * §1) and the fork server of L-doc: "a parent process opens
 * /sys/kernel/debug/kcov, enables trace mode, mmaps coverage buffer and
 * then forks child processes in a loop.  Child processes only need to
 * enable coverage (disable happens automatically on thread end)."
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/sancov.h>

#include "kc.h"
#include "tests.h"

#define ROUNDS 8

enum server_child { CHILD_EXIT, CHILD__EXIT, CHILD_CMP };

/* ROUNDS children, one at a time: child i enables the inherited
 * descriptor, runs target code and ends with exit() (atexit runs),
 * _exit() (the owner just dies), or in CMP mode; the parent finds
 * exactly child i's records, then resets the count. */
static void fork_server(const struct kc *k, enum server_child how)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	unsigned i;

	for (i = 0; i < ROUNDS; i++) {
		pid_t pid = fork();

		CHECK_OK(pid);
		if (pid == 0) {
			kc_enable_ok(k, fd, how == CHILD_CMP);
			if (how == CHILD_CMP)
				target_cmp4(i, 77);
			else
				call_n(target_leaf, i + 1);
			if (how == CHILD__EXIT)
				_exit(0);
			exit(0);
		}
		expect_exit0(pid);
		if (how == CHILD_CMP) {
			CHECK_EQ(rec_count(buf), 1);
			expect_cmp(buf, 0, 4, i, 77, (const void *)target_cmp4,
				   (const void *)__sanitizer_cov_trace_cmp4);
		} else {
			expect_only_pcs(buf, i + 1, (const void *)target_leaf);
		}
		rec_reset(buf);
	}
	expect_ready_state(k, fd, buf);
}

static void t_server_exit(const struct kc *k)
{
	fork_server(k, CHILD_EXIT);
}

static void t_server__exit(const struct kc *k)
{
	fork_server(k, CHILD__EXIT);
}

static void t_server_cmp(const struct kc *k)
{
	fork_server(k, CHILD_CMP);
}

/* A fork child starts disabled (Linux kcov_task_init): its calls do not
 * land in the parent's buffer, it cannot disable the parent's
 * descriptor, and enabling it is "busy". */
static void t_child_starts_disabled(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	pid_t pid;

	uint64_t *own;
	int fd2 = kc_setup(k, KC_ENTRIES, &own);

	kc_enable_ok(k, fd, 0);
	target_leaf();
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		call_n(target_leaf2, 10);
		CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
		CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_busy);
		call_n(target_leaf2, 10);
		/* It holds no descriptor: it may enable another one. */
		kc_enable_ok(k, fd2, 0);
		call_n(target_leaf3, 4);
		exit(0);
	}
	expect_exit0(pid);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
	expect_only_pcs(own, 4, (const void *)target_leaf3);
}

/* The tracing child dies of SIGSEGV: its records stay, and the next
 * enable -- by the parent, then by another child -- succeeds. */
static int *volatile crash_ptr;	/* NULL */

static void t_child_crash(const struct kc *k)
{
	struct rlimit no_core = { 0, 0 };
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), st;
	pid_t pid = fork();

	CHECK_OK(pid);
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &no_core);
		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, 3);
		*crash_ptr = 1;
		_exit(0);
	}
	st = wait_status(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	expect_only_pcs(buf, 3, (const void *)target_leaf);
	kc_enable_ok(k, fd, 0);
	target_leaf2();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 4);
	expect_pcs_in(buf, 3, 1, (const void *)target_leaf2);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		kc_enable_ok(k, fd, 0);
		target_leaf3();
		exit(0);
	}
	expect_exit0(pid);
	CHECK_EQ(rec_count(buf), 5);
	expect_pcs_in(buf, 4, 1, (const void *)target_leaf3);
}

/* While a child traces, the descriptor's state is shared: the parent's
 * ENABLE gets the OS's "busy" errno (Linux EINVAL, FreeBSD EBUSY,
 * NetBSD EBUSY, OpenBSD ENXIO) and its DISABLE the "not owner" one.
 * After SIGKILL the next enable succeeds. */
static void t_child_killed(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), st;
	struct peer child;

	if (peer_fork(&child) == 0) {
		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, 3);
		peer_tell(&child);
		peer_wait(&child);		/* blocks until killed */
		_exit(0);
	}
	peer_wait(&child);
	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_busy);
	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	CHECK_ERR(kc_setbuf(k, fd, KC_ENTRIES), EBUSY);	/* all four */
	CHECK_OK(kill(child.pid, SIGKILL));
	/* Dead but not reaped yet (a zombie): already released, as Linux
	 * kcov_task_exit runs in do_exit, before the zombie state. */
	st = wait_zombie(child.pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	expect_only_pcs(buf, 3, (const void *)target_leaf);
	expect_ready_state(k, fd, buf);
	wait_status(child.pid);
}

/* An owner that _exit()s (no atexit handler) is released by the time it
 * is a zombie; a new enable succeeds before the parent reaps it. */
static void t_owner_zombie(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	pid_t pid = fork();

	CHECK_OK(pid);
	if (pid == 0) {
		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, 2);
		_exit(0);
	}
	CHECK_EQ(wait_zombie(pid), 0);
	expect_only_pcs(buf, 2, (const void *)target_leaf);
	expect_ready_state(k, fd, buf);
	expect_exit0(pid);
}

/* UKCOV_IOC_DROPPED works from another process, and counts the owner's
 * drops exactly. */
static void t_dropped_other_process(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct peer child;

	if (peer_fork(&child) == 0) {
		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, KC_ENTRIES - 1 + 6);
		peer_tell(&child);
		peer_wait(&child);
		call_n(target_leaf, 2);
		peer_tell(&child);
		peer_wait(&child);
		exit(0);
	}
	peer_wait(&child);
	CHECK_EQ(kc_dropped(k, fd), 6);
	CHECK_EQ(kc_dropped(k, fd), 0);
	peer_tell(&child);
	peer_wait(&child);
	CHECK_EQ(kc_dropped(k, fd), 2);
	peer_tell(&child);
	expect_exit0(child.pid);
	CHECK_EQ(rec_count(buf), KC_ENTRIES - 1);
}

/* One state for all processes: the child sets the buffer size, the
 * parent's second SETBUFSIZE is refused and it maps the child's size. */
static void t_shared_setbuf(const struct kc *k)
{
	int fd = kc_open_ok(k);
	uint64_t *buf;
	pid_t pid = fork();

	CHECK_OK(pid);
	if (pid == 0) {
		kc_setbuf_ok(k, fd, KC_ENTRIES);
		exit(0);
	}
	expect_exit0(pid);
	CHECK_ERR(kc_setbuf(k, fd, KC_ENTRIES), k->f->e_second_setbuf);
	buf = kc_map(fd, KC_ENTRIES);
	expect_ready_state(k, fd, buf);
}

/* SCM_RIGHTS: a process that never saw the descriptor receives an fd
 * of it and drives it like any holder (one shared state, one buffer).
 * Linux, FreeBSD and NetBSD allow it; OpenBSD refuses to pass kcov fds
 * (§1.4, unp_internalize EINVAL), which ukcov deliberately does not
 * imitate (docs/DESIGN.md), so OpenBSD is left out. */
static void send_fd(int sock, int fd)
{
	char c = 'f', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;

	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	CHECK_EQ(sendmsg(sock, &m, 0), 1);
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	int fd;

	CHECK_EQ(recvmsg(sock, &m, 0), 1);
	CHECK(CMSG_FIRSTHDR(&m) != NULL);
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd;
}

static void t_fd_passing(const struct kc *k)
{
	uint64_t *buf;
	int sv[2], fd;
	pid_t pid;

	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();			/* before the descriptor exists */
	CHECK_OK(pid);
	if (pid == 0) {
		uint64_t *mine;

		fd = recv_fd(sv[1]);
		CHECK_ERR(kc_setbuf(k, fd, KC_ENTRIES), k->f->e_second_setbuf);
		mine = kc_map(fd, KC_ENTRIES);
		kc_enable_ok(k, fd, 0);
		call_n(target_leaf, 3);
		kc_disable_ok(k, fd);
		CHECK_EQ(rec_count(mine), 3);
		exit(0);
	}
	fd = kc_setup(k, KC_ENTRIES, &buf);
	send_fd(sv[0], fd);
	expect_exit0(pid);
	expect_only_pcs(buf, 3, (const void *)target_leaf);
	expect_ready_state(k, fd, buf);
}

/* 8 processes enable one shared descriptor at once (they wait on a
 * pipe the parent closes to start them all): exactly one wins, the
 * others get the "busy" errno.  Nobody exits before all have tried, so
 * the winner holds the descriptor throughout.  Exit status 0 = won. */
#define RACE_PROCS 8

static void racing_child(const struct kc *k, int fd, int go, int tried,
			 int done)
{
	char c;
	int rc;

	CHECK_EQ(read(go, &c, 1), 0);		/* EOF: go */
	errno = 0;
	rc = kc_enable_pc(k, fd);
	if (rc != 0 && errno != k->f->e_enable_busy)
		FAIL("enable: %s", errname(errno));
	target_leaf();
	send_byte(tried, 't');
	CHECK_EQ(read(done, &c, 1), 0);		/* EOF: all tried */
	_exit(rc == 0 ? 0 : 1);
}

static void t_enable_race_processes(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), go[2], tried[2], done[2];
	int i, wins = 0;
	pid_t pids[RACE_PROCS];

	pipe_ok(go);
	pipe_ok(tried);
	pipe_ok(done);
	for (i = 0; i < RACE_PROCS; i++) {
		pids[i] = fork();
		CHECK_OK(pids[i]);
		if (pids[i] == 0) {
			close(go[1]);
			close(done[1]);
			racing_child(k, fd, go[0], tried[1], done[0]);
		}
	}
	close(go[1]);
	for (i = 0; i < RACE_PROCS; i++)
		recv_byte(tried[0]);
	close(done[1]);
	for (i = 0; i < RACE_PROCS; i++) {
		int st = wait_status(pids[i]);

		CHECK(WIFEXITED(st));
		wins += WEXITSTATUS(st) == 0;
	}
	CHECK_EQ(wins, 1);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	expect_ready_state(k, fd, buf);
}

void register_fork_tests(void)
{
	int fl;

	reg_flavors("fork.server_exit", t_server_exit, 0);
	reg_flavors("fork.server__exit", t_server__exit, 0);
	reg_flavors("fork.server_cmp", t_server_cmp, NEED_CMP);
	reg_flavors("fork.child_starts_disabled", t_child_starts_disabled, 0);
	reg_flavors("fork.child_crash", t_child_crash, 0);
	reg_flavors("fork.child_killed", t_child_killed, 0);
	reg_flavors("fork.owner_zombie", t_owner_zombie, 0);
	reg_flavors("fork.dropped_other_process", t_dropped_other_process, 0);
	reg_flavors("fork.shared_setbuf", t_shared_setbuf, 0);
	reg_flavors("fork.enable_race", t_enable_race_processes, 0);
	for (fl = FL_LINUX; fl <= FL_NETBSD; fl++)
		reg_one("fork.fd_passing", t_fd_passing, fl, core_have_native,
			0);
}
