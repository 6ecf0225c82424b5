/*
 * tests/core/t_fault.c -- allocation failures inside the runtime (issue
 * 6, defect 8).  Run only under tests/core/faultshim.c (10-core.sh
 * preloads it after libukcov.so.0), which fails the nth call of one
 * function: each test fails every call of that function in the
 * operation in turn and checks, per flavor, the errno the kernel gives
 * for a failed allocation, that the descriptor's state did not change
 * (the same request succeeds afterwards), and that no fd and no mapping
 * of a ukcov memfd was left behind.
 *
 * The kernels: Linux kcov_open "kcov = kzalloc(...); if (!kcov) return
 * -ENOMEM", KCOV_INIT_TRACE "area = vmalloc_user(...); if (area ==
 * NULL) return -ENOMEM"; OpenBSD kd_init and NetBSD kcov_allocbuf
 * return ENOMEM when the kernel allocation fails; FreeBSD allocates
 * with M_WAITOK (sleeps, never fails).  ukcov cannot sleep for memory:
 * ENOMEM for every flavor (docs/DESIGN.md, "Deliberate differences"),
 * and the memfd's own errno (EMFILE) when no fd is left, as an open(2)
 * of the device would give.  The shim also holds a sigaction inside
 * the runtime's signal table lock, for a fork at that moment.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/netbsd/kcov.h>

#include "kc.h"
#include "tests.h"

typedef void (*arm_fn)(const char *fn, int nth, int e);
typedef int (*disarm_fn)(void);
static arm_fn fault_arm;
static disarm_fn fault_disarm;
typedef void (*hold_fn)(int entered, int release);
static hold_fn sigaction_hold;

#define MAX_NTH 8	/* more calls of one function than any path makes */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

struct snapshot {
	int fds, maps;
};

static struct snapshot snap(void)
{
	return (struct snapshot){ count_fds(), kc_descriptor_maps() };
}

static void expect_nothing_leaked(struct snapshot before)
{
	CHECK_EQ(count_fds(), before.fds);
	CHECK_EQ(kc_descriptor_maps(), before.maps);
}

/* ukcov_open with the nth call of fn failing with e, for every n that
 * the open makes; want is the errno the caller must see. */
static void open_fails(const struct kc *k, const char *fn, int e, int want)
{
	int nth, fd, err, fired, failures = 0;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		struct snapshot before = snap();

		fault_arm(fn, nth, e);
		errno = 0;
		fd = kc_open(k);
		err = errno;
		fired = fault_disarm();
		if (!fired) {
			CHECK_OK(fd);
			close(fd);
			break;
		}
		failures++;
		CHECK_EQ(fd, -1);
		CHECK_EQ(err, want);
		expect_nothing_leaked(before);
		/* Unchanged: the next open works and gives an OPEN one. */
		fd = kc_open_ok(k);
		expect_open_state(k, fd);
		close(fd);
	}
	CHECK(failures > 0);	/* the injection reached the runtime */
}

static void t_open_memfd(const struct kc *k)
{
	open_fails(k, "memfd_create", ENOMEM, ENOMEM);
	open_fails(k, "memfd_create", EMFILE, EMFILE);
}

static void t_open_ftruncate(const struct kc *k)
{
	open_fails(k, "ftruncate", ENOMEM, ENOMEM);
}

static void t_open_mmap(const struct kc *k)
{
	open_fails(k, "mmap", ENOMEM, ENOMEM);
}

static void t_open_malloc(const struct kc *k)
{
	open_fails(k, "malloc", ENOMEM, ENOMEM);
}

/* SETBUFSIZE / INIT_TRACE allocates the buffer's pages: a tmpfs out of
 * space (ENOSPC) or memory is ENOMEM, and the descriptor stays OPEN. */
static void t_setbuf_fallocate(const struct kc *k)
{
	static const int errs[] = { ENOSPC, ENOMEM };

	for (unsigned i = 0; i < 2; i++) {
		int fd = kc_open_ok(k), rc, err;
		struct snapshot before = snap();

		fault_arm("fallocate", 1, errs[i]);
		rc = kc_setbuf(k, fd, KC_ENTRIES);
		err = errno;
		CHECK_EQ(fault_disarm(), 1);
		CHECK_EQ(rc, -1);
		CHECK_EQ(err, ENOMEM);
		expect_nothing_leaked(before);
		expect_open_state(k, fd);
		close(fd);
	}
}

/* ENABLE maps the buffer for the runtime's own writes: when that fails
 * it is ENOMEM, and the descriptor stays READY (nobody owns it). */
static void t_enable_mmap(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), rc, err;
	struct snapshot before = snap();

	fault_arm("mmap", 1, ENOMEM);
	rc = kc_enable_pc(k, fd);
	err = errno;
	CHECK_EQ(fault_disarm(), 1);
	CHECK_EQ(rc, -1);
	CHECK_EQ(err, ENOMEM);
	expect_nothing_leaked(before);
	expect_ready_state(k, fd, buf);
}

/* The program's own mmap of the buffer: the OS's ENOMEM, nothing
 * mapped, and the same mmap works afterwards. */
static void t_user_mmap(const struct kc *k)
{
	int fd = kc_open_ok(k);
	struct snapshot before;
	void *p;

	kc_setbuf_ok(k, fd, KC_ENTRIES);
	before = snap();
	fault_arm("mmap", 1, ENOMEM);
	p = mmap(NULL, (size_t)KC_ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	CHECK(fault_disarm() == 1 && p == MAP_FAILED && errno == ENOMEM);
	expect_nothing_leaked(before);
	expect_ready_state(k, fd, kc_map(fd, KC_ENTRIES));
}

/* ukcov_remote_register with the nth call of fn failing: -1 with want,
 * no fd or mapping of the remote's memfd left, no remote registered
 * (the same call succeeds afterwards).  NetBSD's kcov_remote_register
 * panics when kcov_allocbuf fails. */
static void register_fails(const char *fn, int e, int want)
{
	static uint64_t id = 100;
	int nth, rc, err, fired, failures = 0;

	for (nth = 1; nth <= MAX_NTH; nth++, id++) {
		struct snapshot before = snap();

		fault_arm(fn, nth, e);
		errno = 0;
		rc = ukcov_remote_register(9, id);
		err = errno;
		fired = fault_disarm();
		if (!fired) {
			CHECK_OK(rc);
			id++;
			break;
		}
		failures++;
		CHECK_EQ(rc, -1);
		CHECK_EQ(err, want);
		expect_nothing_leaked(before);
		CHECK_OK(ukcov_remote_register(9, id));
	}
	CHECK(failures > 0);	/* the injection reached the runtime */
}

static void t_nbremote_register(const struct kc *k)
{
	(void)k;
	/* The registry is open (its own mapping) before the counting. */
	CHECK_OK(ukcov_remote_register(9, 1));
	register_fails("memfd_create", ENOMEM, ENOMEM);
	register_fails("memfd_create", EMFILE, EMFILE);
	register_fails("ftruncate", ENOMEM, ENOMEM);
	register_fails("mmap", ENOMEM, ENOMEM);
	register_fails("malloc", ENOMEM, ENOMEM);
}

static void *ignore_sigusr1(void *arg)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	*(int *)arg = sigaction(SIGUSR1, &sa, NULL);
	return NULL;
}

/* In the child: SIGUSR2 ignored through sigaction, and read back. */
static int child_sets_sigusr2(void)
{
	struct sigaction sa, cur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGUSR2, &sa, NULL) == 0 &&
	       sigaction(SIGUSR2, NULL, &cur) == 0 && cur.sa_handler == SIG_IGN;
}

/* fork while another thread is inside sigaction(), holding the
 * runtime's signal table lock (the shim keeps it there): the child has
 * only the forking thread, so nobody would ever release that lock; the
 * runtime frees it in the child (pthread_atfork child handlers run
 * there, POSIX), whose own sigaction must then work. */
static void t_fork_holding_signal_table(const struct kc *k)
{
	int entered[2], release[2], done[2], rc = -1, n, status = 0;
	struct pollfd pfd;
	pthread_t th;
	pid_t pid;
	char c = 0;

	(void)k;
	CHECK_OK(pipe(entered));
	CHECK_OK(pipe(release));
	CHECK_OK(pipe(done));
	sigaction_hold(entered[1], release[0]);
	CHECK_EQ(pthread_create(&th, NULL, ignore_sigusr1, &rc), 0);
	CHECK_EQ(read(entered[0], &c, 1), 1);	/* it holds the lock now */
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		c = child_sets_sigusr2() ? 'y' : 'n';
		_exit(write(done[1], &c, 1) == 1 ? 0 : 1);
	}
	close(done[1]);
	pfd.fd = done[0];
	pfd.events = POLLIN;
	/* A bound, not a synchronisation: the child answers at once, or
	 * spins on the lock for ever (every signal blocked). */
	n = poll(&pfd, 1, 10000);
	if (n != 1)
		kill(pid, SIGKILL);
	CHECK_EQ(write(release[1], "x", 1), 1);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (n != 1)
		FAIL("the fork child's sigaction did not return in 10 s: the "
		     "table lock the parent's other thread held is still taken");
	CHECK_EQ(read(done[0], &c, 1), 1);
	CHECK_EQ(c, 'y');
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(rc, 0);
}

void register_fault_tests(void)
{
	fault_arm = (arm_fn)dlsym(RTLD_DEFAULT, "ukcov_test_fault_arm");
	fault_disarm = (disarm_fn)dlsym(RTLD_DEFAULT, "ukcov_test_fault_disarm");
	sigaction_hold = (hold_fn)dlsym(RTLD_DEFAULT,
					"ukcov_test_sigaction_hold");
	if (!fault_arm || !fault_disarm || !sigaction_hold)
		return;		/* only under the shim (10-core.sh) */
	reg_flavors("fault.open_memfd_create", t_open_memfd, NEED_NATIVE);
	reg_flavors("fault.open_ftruncate", t_open_ftruncate, NEED_NATIVE);
	reg_flavors("fault.open_mmap", t_open_mmap, NEED_NATIVE);
	reg_flavors("fault.open_malloc", t_open_malloc, NEED_NATIVE);
	reg_flavors("fault.setbuf_fallocate", t_setbuf_fallocate, NEED_NATIVE);
	reg_flavors("fault.enable_mmap", t_enable_mmap, NEED_NATIVE);
	reg_flavors("fault.user_mmap", t_user_mmap, NEED_NATIVE);
	reg_one("fault.nbremote_register", t_nbremote_register, FL_NETBSD, 1,
		NEED_NATIVE);
	reg_one("fault.fork_holding_signal_table", t_fork_holding_signal_table,
		FL_LINUX, 1, 0);
}
