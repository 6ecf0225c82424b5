/*
 * lib/os.c -- what the four flavors share: picking a flavor, copying
 * ioctl arguments in and out the way a kernel does (EFAULT, not a
 * crash, for a bad pointer), and the UKCOV_IOC_DROPPED request.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "requests.h"

const struct ukcov_os *ukcov__os(int flavor)
{
	switch (flavor) {
	case UKCOV_LINUX:   return &ukcov__os_linux;
	case UKCOV_FREEBSD: return &ukcov__os_freebsd;
	case UKCOV_NETBSD:  return &ukcov__os_netbsd;
	case UKCOV_OPENBSD: return &ukcov__os_openbsd;
	default:            return NULL;
	}
}

/* The flavor whose table is called name ("linux", "freebsd", "netbsd",
 * "openbsd": UKCOV_FLAVOR's values), or 0. */
int ukcov__flavor_by_name(const char *name)
{
	int fl;

	for (fl = UKCOV_LINUX; name && fl <= UKCOV_OPENBSD; fl++)
		if (strcmp(ukcov__os(fl)->name, name) == 0)
			return fl;
	return 0;
}

/* A /dev/kcov descriptor opened without UKCOV_FLAVOR takes its flavor
 * from its first request: FreeBSD's KIO* numbers are FreeBSD's own; the
 * 'K' group is shared by NetBSD and OpenBSD and means NetBSD. */
int ukcov__flavor_for_request(unsigned long req)
{
	if (req == UKCOV_REQ_FREEBSD_ENABLE || req == UKCOV_REQ_FREEBSD_DISABLE ||
	    req == UKCOV_REQ_FREEBSD_SETBUFSIZE)
		return UKCOV_FREEBSD;
	if (((req >> 8) & 0xff) == 'K')
		return UKCOV_NETBSD;
	return 0;
}

/*
 * copyin(9)/copyout(9): an unmapped or unreadable user pointer is
 * EFAULT.  process_vm_readv/writev on ourselves check the range without
 * touching it.  Where they are refused (ENOSYS under qemu-user, EPERM or
 * ENOSYS from a seccomp profile), the bytes cross a pipe instead: the
 * kernel's write(2) reads the source and read(2) writes the destination,
 * each EFAULT for a bad range as copyin/copyout are.  Never a plain
 * memcpy: that faults on exactly the pointers the caller must refuse.
 */
static int copy_through_pipe(void *dst, const void *src, size_t n)
{
	int p[2], rc = 0;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	/* A pipe holds at least 4096 bytes (pipe(7): PIPE_BUF is the
	 * least capacity); ioctl arguments are smaller, but go in steps. */
	for (size_t done = 0; rc == 0 && done < n;) {
		size_t step = n - done < 4096 ? n - done : 4096;
		ssize_t w = write(p[1], (const char *)src + done, step);

		if (w != (ssize_t)step ||
		    read(p[0], (char *)dst + done, step) != (ssize_t)step)
			rc = -EFAULT;
		done += step;
	}
	ukcov__real_close(p[0]);
	ukcov__real_close(p[1]);
	return rc;
}

static int vm_refused(ssize_t r)
{
	return r < 0 && (errno == ENOSYS || errno == EPERM);
}

int ukcov__copyin(void *dst, const void *src, size_t n)
{
	struct iovec local = { dst, n };
	struct iovec remote = { (void *)src, n };
	ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	if (r == (ssize_t)n)
		return 0;
	return vm_refused(r) ? copy_through_pipe(dst, src, n) : -EFAULT;
}

static int copyout(void *dst, const void *src, size_t n)
{
	struct iovec local = { (void *)src, n };
	struct iovec remote = { dst, n };
	ssize_t r = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);

	if (r == (ssize_t)n)
		return 0;
	return vm_refused(r) ? copy_through_pipe(dst, src, n) : -EFAULT;
}

/* Requests every flavor accepts.  Sets *handled when req is one. */
int ukcov__ioctl_common(struct ukcov_desc *d, unsigned long req,
			unsigned long arg, int *handled)
{
	struct ukcov_cb *cb = d->cb;
	uint64_t now, n, *drops = &cb->drops, *drops_read = &cb->drops_read;
	int rc;

	*handled = 0;
	if (req != UKCOV_IOC_DROPPED)
		return 0;
	*handled = 1;
	/* A NetBSD descriptor attached to a remote counts the remote's. */
	if (cb->nb_attached)
		ukcov__nb_drops(cb, &drops, &drops_read);
	/* Report first, clear only once the caller has the value. */
	now = __atomic_load_n(drops, __ATOMIC_RELAXED);
	n = now - __atomic_load_n(drops_read, __ATOMIC_RELAXED);
	rc = copyout((void *)arg, &n, sizeof(n));
	if (rc == 0)
		__atomic_store_n(drops_read, now, __ATOMIC_RELAXED);
	return rc;
}
