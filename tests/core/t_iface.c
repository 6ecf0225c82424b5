/*
 * tests/core/t_iface.c -- the native API's edges (<ukcov/kcov.h>): fds
 * that are not descriptors, flavors, and /dev/kcov deciding its flavor
 * from the first request when UKCOV_FLAVOR is unset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ukcov/kcov.h>

#include "kc.h"
#include "tests.h"

#ifndef CORE_PRELOAD
/* ukcov_ioctl/ukcov_flavor on an fd that is not a descriptor: ENOTTY;
 * on one that is not open: EBADF ("A file descriptor that is not open
 * gets EBADF; one that is not a ukcov descriptor gets ENOTTY"). */
static void t_not_a_descriptor(const struct kc *k)
{
	int p[2], null = open("/dev/null", O_RDWR);
	int mfd = memfd_create("ukcov", 0), fd;

	(void)k;
	pipe_ok(p);
	CHECK_OK(null);
	CHECK_OK(mfd);
	CHECK_OK(ftruncate(mfd, 1 << 20));
	for (fd = 0; fd < 3; fd++) {
		int fds[3] = { p[0], null, mfd };

		CHECK_ERR(ukcov_ioctl(fds[fd], 0x80086301UL, 64UL), ENOTTY);
		CHECK_ERR(ukcov_ioctl(fds[fd], UKCOV_IOC_DROPPED, 0UL), ENOTTY);
		CHECK_ERR(ukcov_flavor(fds[fd]), ENOTTY);
	}
	close(p[1]);
	CHECK_ERR(ukcov_ioctl(p[1], 0x6364UL, 0UL), EBADF);
	CHECK_ERR(ukcov_flavor(p[1]), EBADF);
	CHECK_ERR(ukcov_ioctl(-1, 0x6364UL, 0UL), EBADF);
	CHECK_ERR(ukcov_flavor(-1), EBADF);
	CHECK_ERR(ukcov_ioctl(1 << 20, 0x6364UL, 0UL), EBADF);
}

/* Unknown flavors are EINVAL; each flavor reports itself; the native
 * fd survives exec (no FD_CLOEXEC). */
static void t_open_flavors(const struct kc *k)
{
	int fl;

	(void)k;
	CHECK_ERR(ukcov_open(0), EINVAL);
	CHECK_ERR(ukcov_open(5), EINVAL);
	CHECK_ERR(ukcov_open(-1), EINVAL);
	for (fl = 0; fl < FL_COUNT; fl++) {
		int fd = ukcov_open(flavors[fl].id);

		CHECK_OK(fd);
		CHECK_EQ(ukcov_flavor(fd), flavors[fl].id);
		CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
		close(fd);
	}
	CHECK(strcmp(ukcov_version(), UKCOV_VERSION_STRING) == 0);
}

/* A descriptor from either path answers to both ioctl() and
 * ukcov_ioctl(). */
static void t_cross_api(const struct kc *k)
{
	const struct kc *other = &kcs[k->f->id - 1][!k->native];
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);

	CHECK_EQ(ukcov_flavor(fd), k->f->id);
	CHECK_ERR(kc_setbuf(other, fd, KC_ENTRIES), k->f->e_second_setbuf);
	kc_enable_ok(other, fd, 0);
	CHECK_ERR(kc_enable_pc(k, fd), k->f->e_enable_twice);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
}
#endif

/* The device paths through every open entry point of libc. */
static void t_open_entry_points(const struct kc *k)
{
	int fd[3];

	setenv("UKCOV_DEVICE", "ukcov", 1);
	if (strcmp(k->f->path, "/dev/kcov") == 0)
		setenv("UKCOV_FLAVOR", k->f->name, 1);
	fd[0] = openat(AT_FDCWD, k->f->path, O_RDWR);
	fd[1] = open64(k->f->path, O_RDWR | O_CLOEXEC);
	fd[2] = openat64(AT_FDCWD, k->f->path, O_RDWR);
	CHECK_OK(fd[0]);
	CHECK_OK(fd[1]);
	CHECK_OK(fd[2]);
	CHECK(fcntl(fd[1], F_GETFD) & FD_CLOEXEC);
	CHECK_EQ(fcntl(fd[0], F_GETFD) & FD_CLOEXEC, 0);
	/* Three independent descriptors. */
	kc_setbuf_ok(k, fd[0], KC_ENTRIES);
	kc_setbuf_ok(k, fd[1], KC_ENTRIES);
	CHECK_ERR(kc_setbuf(k, fd[1], KC_ENTRIES), k->f->e_second_setbuf);
	expect_open_state(k, fd[2]);
	if (core_have_native)
		CHECK_EQ(kc_flavor(fd[2]), k->f->id);
}

/* /dev/kcov without UKCOV_FLAVOR: undecided (flavor 0) until the first
 * request; FreeBSD's KIO* numbers make it FreeBSD, the 'K' group NetBSD
 * (brief).  From then on it follows that kernel's rules. */
static int open_undecided(void)
{
	int fd;

	setenv("UKCOV_DEVICE", "ukcov", 1);
	unsetenv("UKCOV_FLAVOR");
	fd = open("/dev/kcov", O_RDWR);
	CHECK_OK(fd);
	if (core_have_native)
		CHECK_EQ(kc_flavor(fd), 0);
	return fd;
}

static void expect_decided(int fd, int fl)
{
	if (core_have_native)
		CHECK_EQ(kc_flavor(fd), flavors[fl].id);
}

static void t_undecided_freebsd(const struct kc *k)
{
	const struct kc *fb = &kcs[FL_FREEBSD][0];
	uint64_t *buf;
	int fd = open_undecided();

	(void)k;
	CHECK_EQ(ioctl(fd, 0x20046304UL, (unsigned long)KC_ENTRIES), 0);
	expect_decided(fd, FL_FREEBSD);
	CHECK_ERR(ioctl(fd, 0x20046304UL, (unsigned long)KC_ENTRIES), EBUSY);
	CHECK_ERR(ioctl(fd, 0x80084b01UL, 0UL), EINVAL);	/* unknown */
	buf = kc_map(fd, KC_ENTRIES);
	expect_ready_state(fb, fd, buf);

	/* A refused first request decides too. */
	fd = open_undecided();
	CHECK_ERR(ioctl(fd, 0x20046302UL, 0UL), EBUSY);	/* no buffer */
	expect_decided(fd, FL_FREEBSD);
	CHECK_ERR(ioctl(fd, 0x6364UL, 0UL), EINVAL);
	expect_open_state(fb, fd);
}

static void t_undecided_netbsd(const struct kc *k)
{
	const struct kc *nb = &kcs[FL_NETBSD][0];
	uint64_t n = KC_ENTRIES, *buf;
	int mode = 0, fd = open_undecided();

	(void)k;
	CHECK_EQ(ioctl(fd, 0x80084b01UL, &n), 0);
	expect_decided(fd, FL_NETBSD);
	CHECK_ERR(ioctl(fd, 0x80084b01UL, &n), EEXIST);	/* NetBSD's errno */
	buf = kc_map(fd, KC_ENTRIES);
	/* KCOV_MODE_NONE is NetBSD's, OpenBSD would refuse it. */
	CHECK_EQ(ioctl(fd, 0x80044b02UL, &mode), 0);
	target_leaf();
	CHECK_EQ(ioctl(fd, 0x20004b03UL, 0UL), 0);
	CHECK_EQ(rec_count(buf), 0);
	expect_ready_state(nb, fd, buf);

	fd = open_undecided();
	mode = 1;
	CHECK_ERR(ioctl(fd, 0x80044b02UL, &mode), ENOBUFS);
	expect_decided(fd, FL_NETBSD);
	expect_open_state(nb, fd);
}

#ifndef CORE_PRELOAD
/* A descriptor closed behind libukcov's back (a raw close, as glibc's
 * internal closes are) leaves a stale entry in its fd table; the
 * number, reused by another file, must behave as that file, and a new
 * descriptor given the same number must be the new one.  Regression:
 * the stale entry used to make ioctl/close treat /dev/null as the old
 * descriptor. */
static void t_stale_fd_number(const struct kc *k)
{
	int fd = ukcov_open(UKCOV_LINUX), again, null, want;

	(void)k;
	CHECK_OK(fd);
	CHECK_EQ(ukcov_ioctl(fd, 0x80086301UL, 512UL), 0);
	CHECK_EQ(syscall(SYS_close, fd), 0);
	null = open("/dev/null", O_RDWR);
	CHECK_EQ(null, fd);
	/* The kernel answers for /dev/null, not the old descriptor:
	 * ENOTTY, or ENOSYS from qemu-user, which refuses an ioctl it
	 * cannot translate before the kernel sees it. */
	want = kc_kernel_ioctl_errno(null, 0x6364UL);
	CHECK_ERR(ioctl(null, 0x6364UL, 0UL), want);
	/* The native API answers itself: not a ukcov descriptor. */
	CHECK_ERR(ukcov_ioctl(null, 0x6364UL, 0UL), ENOTTY);
	CHECK_EQ(close(null), 0);
	again = ukcov_open(UKCOV_FREEBSD);
	CHECK_EQ(again, fd);
	CHECK_EQ(ukcov_flavor(again), UKCOV_FREEBSD);
	/* A fresh descriptor: no buffer yet, so FreeBSD's ENABLE is EBUSY. */
	CHECK_ERR(ukcov_ioctl(again, 0x20046302UL, 0UL), EBUSY);
	CHECK_EQ(close(again), 0);
}
#endif

/* By default (UKCOV_DEVICE unset) a device path the kernel opens is
 * the kernel's, whatever descriptor number it gets: here /dev/kcov is a
 * file of a tmpfs over /dev (a mount namespace of this test's own, so
 * it needs root) and fd 0 is free.  The open that succeeded leaves
 * errno as it was, so a stale ENOENT must not count as "no kcov". */
static void t_kernel_device_as_fd0(const struct kc *k)
{
	struct stat want, got;
	int fd;

	(void)k;
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/dev", "tmpfs", 0, NULL) != 0)
		FAIL("a tmpfs over /dev in a mount namespace: %s (needs root)",
		     errname(errno));
	fd = open("/dev/kcov", O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK_OK(fd);
	CHECK_OK(fstat(fd, &want));
	close(fd);
	unsetenv("UKCOV_DEVICE");
	unsetenv("UKCOV_FLAVOR");
	close(0);
	errno = ENOENT;
	fd = open("/dev/kcov", O_RDWR);
	CHECK_EQ(fd, 0);
	CHECK_OK(fstat(0, &got));
	CHECK_EQ(got.st_ino, want.st_ino);
	CHECK_EQ(got.st_dev, want.st_dev);
}

void register_iface_tests(void)
{
#ifndef CORE_PRELOAD
	reg_one("iface.stale_fd_number", t_stale_fd_number, FL_LINUX, 1, 0);
	reg_one("iface.not_a_descriptor", t_not_a_descriptor, FL_LINUX, 1, 0);
	reg_one("iface.open_flavors", t_open_flavors, FL_LINUX, 1, 0);
	reg_flavors_apis("iface.cross_api", t_cross_api, NEED_NATIVE);
#endif
	reg_one("iface.open_entry_points", t_open_entry_points, FL_LINUX, 0, 0);
	reg_one("iface.open_entry_points", t_open_entry_points, FL_OPENBSD, 0,
		0);
	reg_one("iface.undecided_dev_kcov_freebsd", t_undecided_freebsd,
		FL_FREEBSD, 0, 0);
	reg_one("iface.undecided_dev_kcov_netbsd", t_undecided_netbsd,
		FL_NETBSD, 0, 0);
	reg_one("iface.kernel_device_as_fd0", t_kernel_device_as_fd0,
		FL_LINUX, 0, 0);
}
