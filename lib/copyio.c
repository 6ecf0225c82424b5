/*
 * lib/copyio.c -- copying ioctl arguments in and out the way a kernel
 * does (EFAULT, not a crash, for a bad pointer), for the flavors (os*.c)
 * and the remote requests (remote.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

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

int ukcov__copyout(void *dst, const void *src, size_t n)
{
	struct iovec local = { (void *)src, n };
	struct iovec remote = { dst, n };
	ssize_t r = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);

	if (r == (ssize_t)n)
		return 0;
	return vm_refused(r) ? copy_through_pipe(dst, src, n) : -EFAULT;
}
