/*
 * lib/api.c -- the native API (<ukcov/kcov.h>) and the paths the
 * interposed open/ioctl/mmap take for ukcov descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* A memfd, not close-on-exec unless asked: kcov fds survive exec.
 * Sealed against shrinking so the runtime's mapping can never SIGBUS. */
int ukcov__open_desc(int flavor, int cloexec)
{
	int fd, rc, e;

	fd = memfd_create(UKCOV_MEMFD_NAME,
			  MFD_ALLOW_SEALING | (cloexec ? MFD_CLOEXEC : 0));
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)UKCOV_FILE_SIZE) != 0 ||
	    ukcov__real_fcntl(fd, F_ADD_SEALS,
			      F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		e = errno;
		goto fail;
	}
	rc = ukcov__cb_init(fd, flavor);
	if (rc) {
		e = -rc;
		goto fail;
	}
	pthread_mutex_lock(&ukcov__proc_lock);
	if (!ukcov__fd_register_locked(fd)) {
		pthread_mutex_unlock(&ukcov__proc_lock);
		e = ENOMEM;
		goto fail;
	}
	pthread_mutex_unlock(&ukcov__proc_lock);
	return fd;
fail:
	ukcov__real_close(fd);
	errno = e;
	return -1;
}

UKCOV_EXPORT int ukcov_open(int flavor)
{
	if (!ukcov__os(flavor)) {
		errno = EINVAL;
		return -1;
	}
	return ukcov__open_desc(flavor, 0);
}

/* The descriptor's flavor, deciding an undecided /dev/kcov one from its
 * first request.  Called with the block locked. */
static const struct ukcov_os *desc_os_locked(struct ukcov_cb *cb,
					     unsigned long req)
{
	if (cb->flavor == 0)
		cb->flavor = ukcov__flavor_for_request(req);
	return ukcov__os(cb->flavor);
}

/* The calling thread traces a descriptor whose last fd was closed in
 * another process (FreeBSD, OpenBSD: DYING).  That process could not
 * reach our TLS; we stop at our first request after it. */
static void stop_if_dying_locked(struct ukcov_thread *t)
{
	struct ukcov_desc *d = t->owned;

	if (d && __atomic_load_n(&d->cb->state, __ATOMIC_RELAXED) ==
		 UKCOV_ST_DYING)
		ukcov__thread_stop(t);
}

int ukcov__do_ioctl(int fd, unsigned long req, unsigned long arg)
{
	struct ukcov_desc *d = ukcov__fd_lookup(fd);
	const struct ukcov_os *os;
	int rc, handled;

	if (!d)
		return -1;	/* errno EBADF or ENOTTY */
	ukcov__signals_resync(&__ukcov_thread);
	/* A signal handler's remote section must not wait for the block
	 * lock this thread holds (remote.c). */
	__ukcov_thread.remote_busy++;
	pthread_mutex_lock(&ukcov__proc_lock);
	stop_if_dying_locked(&__ukcov_thread);
	if (ukcov__cb_lock(d->cb) != 0) {
		pthread_mutex_unlock(&ukcov__proc_lock);
		__ukcov_thread.remote_busy--;
		errno = EIO;
		return -1;
	}
	ukcov__reap_dead_owner_locked(d->cb);
	rc = ukcov__ioctl_common(d, req, arg, &handled);
	if (!handled) {
		os = desc_os_locked(d->cb, req);
		rc = os ? os->ioctl(d, fd, req, arg) : -ENOTTY;
	}
	ukcov__cb_unlock(d->cb);
	pthread_mutex_unlock(&ukcov__proc_lock);
	__ukcov_thread.remote_busy--;
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

UKCOV_EXPORT int ukcov_ioctl(int fd, unsigned long request, ...)
{
	unsigned long arg;
	va_list ap;

	/* As the kernel does, read the third argument as one register-sized
	 * word; each flavor narrows it as its kernel would. */
	va_start(ap, request);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return ukcov__do_ioctl(fd, request, arg);
}

UKCOV_EXPORT int ukcov_flavor(int fd)
{
	struct ukcov_desc *d = ukcov__fd_lookup(fd);

	if (!d)
		return -1;
	return __atomic_load_n(&d->cb->flavor, __ATOMIC_RELAXED);
}

UKCOV_EXPORT const char *ukcov_version(void)
{
	return UKCOV_VERSION_STRING;
}

/* mmap(2) of a ukcov descriptor, under its OS's size, offset and
 * protection rules. */
void *ukcov__do_mmap(struct ukcov_desc *d, void *addr, size_t len, int prot,
		     int flags, int fd, off_t off)
{
	const struct ukcov_os *os;
	int rc;

	if (ukcov__cb_lock(d->cb) != 0) {
		errno = EIO;
		return MAP_FAILED;
	}
	os = ukcov__os(d->cb->flavor);
	/* An undecided /dev/kcov has no buffer: every kernel refuses. */
	rc = os ? os->mmap_check(d->cb, len, prot, flags, &off) : -EINVAL;
	if (rc == 0 && os->mmap_fd_locked) {
		rc = os->mmap_fd_locked(d->cb, fd);
		fd = rc < 0 ? fd : rc;
		rc = rc < 0 ? rc : 0;
	}
	ukcov__cb_unlock(d->cb);
	if (rc < 0) {
		errno = -rc;
		return MAP_FAILED;
	}
	return ukcov__real_mmap(addr, len, prot, flags, fd, off);
}

/* Which flavor a device path stands for, 0 if it is not one.  /dev/kcov
 * takes UKCOV_FLAVOR, else it is decided by its first request. */
int ukcov__device_flavor(const char *path)
{
	int flavor;

	if (!path)
		return 0;
	if (strcmp(path, "/sys/kernel/debug/kcov") == 0)
		return UKCOV_LINUX;
	if (strcmp(path, "/dev/kcov") != 0)
		return 0;
	flavor = ukcov__flavor_by_name(ukcov__env("UKCOV_FLAVOR"));
	return flavor ? flavor : -1;	/* -1: undecided */
}
