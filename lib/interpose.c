/*
 * lib/interpose.c -- libc entry points that serve unmodified kcov
 * programs: open() of the device paths, ioctl(), mmap(), and the calls
 * that change which fds refer to a descriptor (close, dup*, fcntl
 * F_DUPFD, close_range, closefrom).
 *
 * An fd that is not a ukcov descriptor costs one array load before the
 * call goes on to libc untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "requests.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* ---- open ---- */

/* UKCOV_DEVICE=ukcov always serves the device paths, =kernel never;
 * by default ukcov serves them only where the kernel has no kcov.
 * Returns 1 with *fd set when the kernel's answer stands. */
static int serve_device(int dirfd, const char *path, int flags, mode_t mode,
			int *fd)
{
	const char *policy = ukcov__env("UKCOV_DEVICE");
	int kernel_only = policy && strcmp(policy, "kernel") == 0;
	int real;

	if (policy && strcmp(policy, "ukcov") == 0)
		return 0;
	real = ukcov__real_openat(dirfd, path, flags, mode);
	if (kernel_only || real >= 0 ||
	    (errno != ENOENT && errno != ENODEV && errno != ENXIO)) {
		*fd = real;
		return 1;
	}
	return 0;
}

static int open_common(int dirfd, const char *path, int flags, mode_t mode)
{
	int flavor, fd;

	flavor = ukcov__device_flavor(path);
	if (likely(flavor == 0) || serve_device(dirfd, path, flags, mode, &fd))
		return flavor == 0 ? ukcov__real_openat(dirfd, path, flags, mode)
				   : fd;
	return ukcov__open_desc(flavor < 0 ? 0 : flavor, flags & O_CLOEXEC);
}

static mode_t open_mode(int flags, va_list ap)
{
	if (flags & (O_CREAT | __O_TMPFILE))
		return (mode_t)va_arg(ap, int);
	return 0;
}

#define OPEN_WRAPPER(name)						\
	UKCOV_EXPORT int name(const char *path, int flags, ...)		\
	{								\
		va_list ap;						\
		mode_t mode;						\
		va_start(ap, flags);					\
		mode = open_mode(flags, ap);				\
		va_end(ap);						\
		return open_common(AT_FDCWD, path, flags, mode);	\
	}

#define OPENAT_WRAPPER(name)						\
	UKCOV_EXPORT int name(int dirfd, const char *path, int flags, ...) \
	{								\
		va_list ap;						\
		mode_t mode;						\
		va_start(ap, flags);					\
		mode = open_mode(flags, ap);				\
		va_end(ap);						\
		return open_common(dirfd, path, flags, mode);		\
	}

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

/* _FORTIFY_SOURCE entry points: no mode argument. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

UKCOV_EXPORT int __open_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0);
}

UKCOV_EXPORT int __open64_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0);
}

UKCOV_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags, 0);
}

UKCOV_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags, 0);
}

/* ---- ioctl, mmap ---- */

static int is_kcov_request(unsigned long req)
{
#define REQUEST_CASE(r) case r:
	switch (req) {
	UKCOV_FOR_EACH_REQUEST(REQUEST_CASE)
		return 1;
	default:
		return 0;
	}
#undef REQUEST_CASE
}

UKCOV_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	/* An fd this process has not registered (passed over a socket)
	 * is recognised by its content, but only for kcov requests. */
	if (ukcov__fd_desc_checked(fd) ||
	    (unlikely(is_kcov_request(req)) && ukcov__fd_looks_like_ukcov(fd) > 0))
		return ukcov__do_ioctl(fd, req, arg);
	return ukcov__real_ioctl(fd, req, arg);
}

static void *mmap_common(void *addr, size_t len, int prot, int flags, int fd,
			 off_t off)
{
	struct ukcov_desc *d = NULL;

	if (fd >= 0 && !(flags & MAP_ANONYMOUS)) {
		d = ukcov__fd_desc_checked(fd);
		if (!d && ukcov__fd_looks_like_ukcov(fd) > 0)
			d = ukcov__fd_lookup(fd);
	}
	if (likely(!d))
		return ukcov__real_mmap(addr, len, prot, flags, fd, off);
	return ukcov__do_mmap(d, addr, len, prot, flags, fd, off);
}

UKCOV_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
			off_t off)
{
	return mmap_common(addr, len, prot, flags, fd, off);
}

UKCOV_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
			  off_t off)
{
	return mmap_common(addr, len, prot, flags, fd, off);
}

/* ---- closing: close, dup2/dup3 onto a descriptor, close_range ---- */

/* fd is about to stop referring to its descriptor.  If it is the last
 * reference anywhere, the descriptor's OS decides what a last close
 * does (FreeBSD and OpenBSD stop tracing).  Returns how many other fds
 * of this process still refer to it. */
static int closing_begin_locked(struct ukcov_desc *d, int fd)
{
	const struct ukcov_os *os;
	int others = d->nfds - 1;

	if (others == 0 && ukcov__fd_last_holder(fd) &&
	    ukcov__cb_lock(d->cb) == 0) {
		os = ukcov__os(d->cb->flavor);
		if (os)
			os->last_close_locked(d);
		ukcov__cb_unlock(d->cb);
	}
	return others;
}

/* fd no longer refers to d.  Closing any fd of a file drops this
 * process's POSIX locks on it: take ours again if fds remain. */
static void closing_end_locked(struct ukcov_desc *d, int fd, int others)
{
	ukcov__fd_forget_locked(fd);
	if (others > 0)
		ukcov__fd_hold(ukcov__desc_any_fd_locked(d));
}

int ukcov__close_desc_fd(int fd)
{
	struct ukcov_desc *d;
	int rc, e, others;

	pthread_mutex_lock(&ukcov__proc_lock);
	d = ukcov__fd_desc(fd);
	if (!d) {
		pthread_mutex_unlock(&ukcov__proc_lock);
		return ukcov__real_close(fd);
	}
	others = closing_begin_locked(d, fd);
	rc = ukcov__real_close(fd);
	e = errno;
	closing_end_locked(d, fd, others);
	pthread_mutex_unlock(&ukcov__proc_lock);
	errno = e;
	return rc;
}

UKCOV_EXPORT int close(int fd)
{
	if (likely(!ukcov__fd_desc(fd)) || !ukcov__fd_desc_checked(fd))
		return ukcov__real_close(fd);
	return ukcov__close_desc_fd(fd);
}

UKCOV_EXPORT int dup(int fd)
{
	int nfd = ukcov__real_dup(fd);

	if (nfd >= 0 && unlikely(ukcov__fd_desc_checked(fd) != NULL)) {
		pthread_mutex_lock(&ukcov__proc_lock);
		ukcov__fd_dup_locked(fd, nfd);
		pthread_mutex_unlock(&ukcov__proc_lock);
	}
	return nfd;
}

/* dup2/dup3: newfd, if it was a descriptor, is closed on the way. */
static int dup_onto(int oldfd, int newfd, int flags)
{
	struct ukcov_desc *victim;
	int rc, e, others = 0;

	if (likely(!ukcov__fd_desc_checked(oldfd) &&
		   !ukcov__fd_desc_checked(newfd)))
		return ukcov__real_dup3(oldfd, newfd, flags);
	pthread_mutex_lock(&ukcov__proc_lock);
	victim = oldfd == newfd ? NULL : ukcov__fd_desc(newfd);
	if (victim && ukcov__real_fcntl(oldfd, F_GETFD, 0) < 0) {
		/* dup2 fails with EBADF and leaves newfd alone. */
		pthread_mutex_unlock(&ukcov__proc_lock);
		errno = EBADF;
		return -1;
	}
	if (victim)
		others = closing_begin_locked(victim, newfd);
	rc = ukcov__real_dup3(oldfd, newfd, flags);
	e = errno;
	if (victim && rc >= 0)
		closing_end_locked(victim, newfd, others);
	if (rc >= 0 && oldfd != newfd)
		ukcov__fd_dup_locked(oldfd, newfd);
	pthread_mutex_unlock(&ukcov__proc_lock);
	errno = e;
	return rc;
}

UKCOV_EXPORT int dup2(int oldfd, int newfd)
{
	return dup_onto(oldfd, newfd, -1);
}

UKCOV_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd == newfd) {
		errno = EINVAL;
		return -1;
	}
	return dup_onto(oldfd, newfd, flags);
}

static int fcntl_common(int fd, int cmd, unsigned long arg)
{
	int rc = ukcov__real_fcntl(fd, cmd, arg);

	if (rc >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) &&
	    unlikely(ukcov__fd_desc_checked(fd) != NULL)) {
		pthread_mutex_lock(&ukcov__proc_lock);
		ukcov__fd_dup_locked(fd, rc);
		pthread_mutex_unlock(&ukcov__proc_lock);
	}
	return rc;
}

UKCOV_EXPORT int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return fcntl_common(fd, cmd, arg);
}

/* _FILE_OFFSET_BITS=64 programs call fcntl64: the same function. */
UKCOV_EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

/* Close the descriptors in [first, last] one by one, so each gets its
 * last-close rule; the caller then closes the rest of the range. */
static void close_descs_in_range(unsigned first, unsigned last)
{
	unsigned fd;

	if (first >= UKCOV_FDMAP_SIZE)
		return;
	if (last >= UKCOV_FDMAP_SIZE)
		last = UKCOV_FDMAP_SIZE - 1;
	for (fd = first; fd <= last; fd++)
		if (ukcov__fd_desc((int)fd))
			ukcov__close_desc_fd((int)fd);
}

UKCOV_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		close_descs_in_range(first, last);
	return ukcov__real_close_range(first, last, flags);
}

/* One getdents64 buffer of /proc/self/fd: close each fd >= lowfd but
 * dfd.  Returns the bytes read (0 at the end, -1 on error). */
static long close_listed(int dfd, int lowfd)
{
	char buf[1024] __attribute__((aligned(8)));
	long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));

	for (long off = 0; off < n;) {
		/* struct linux_dirent64: ino, off, reclen, type, name */
		unsigned short reclen;
		const char *name = buf + off + 19;
		long fd = 0;

		memcpy(&reclen, buf + off + 16, sizeof(reclen));
		if (reclen == 0)
			return -1;
		while (*name >= '0' && *name <= '9' && fd < 1L << 31)
			fd = fd * 10 + (*name++ - '0');
		if (*name == '\0' && name != buf + off + 19 && fd >= lowfd &&
		    fd != dfd)
			ukcov__real_close((int)fd);
		off += reclen;
	}
	return n;
}

/* Kernels before 5.9 have no close_range.  A descriptor may sit at or
 * above a lowered RLIMIT_NOFILE, so a loop to sysconf(_SC_OPEN_MAX)
 * would leave it open; list /proc/self/fd instead, as glibc's
 * __closefrom_fallback does.  procfs reads that directory by fd number
 * (the position is the next fd), so closing while reading skips none. */
static void closefrom_fallback(int lowfd)
{
	int dfd = ukcov__real_open("/proc/self/fd",
				   O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	struct rlimit rl;

	if (dfd >= 0) {
		while (close_listed(dfd, lowfd) > 0)
			;
		ukcov__real_close(dfd);
		return;
	}
	/* No /proc: every fd the hard limit allowed (at most nr_open). */
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max > INT_MAX)
		rl.rlim_max = INT_MAX;
	for (rlim_t fd = (rlim_t)lowfd; fd < rl.rlim_max; fd++)
		ukcov__real_close((int)fd);
}

UKCOV_EXPORT void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	close_descs_in_range((unsigned)lowfd, ~0U);
	if (ukcov__real_close_range((unsigned)lowfd, ~0U, 0) == 0)
		return;
	closefrom_fallback(lowfd);
}
