/*
 * lib/real.c -- the libc functions the interposers forward to.
 *
 * Found with dlsym(RTLD_NEXT) the first time they are needed, so that
 * another interposer further down (a sanitizer, a preloaded tracer)
 * still sees the call.  In a fully static executable there is no
 * dynamic linker: the raw system call does the job.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define REAL(name, type)						\
	static type real_##name(void)					\
	{								\
		static type fn;						\
		type f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);	\
		if (!f) {						\
			f = (type)dlsym(RTLD_NEXT, #name);		\
			__atomic_store_n(&fn, f, __ATOMIC_RELEASE);	\
		}							\
		return f;						\
	}

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*close_fn)(int);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*dup_fn)(int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*sigaction_fn)(int, const void *, void *);

REAL(open64, open_fn)
REAL(openat64, openat_fn)
REAL(close, close_fn)
REAL(ioctl, ioctl_fn)
REAL(dup, dup_fn)
REAL(dup3, dup3_fn)
REAL(fcntl64, fcntl_fn)
REAL(mmap64, mmap_fn)
REAL(sigaction, sigaction_fn)

static long check(long r)
{
	return r;	/* syscall() already sets errno and returns -1 */
}

int ukcov__real_open(const char *path, int flags, mode_t mode)
{
	open_fn f = real_open64();

	if (f)
		return f(path, flags, mode);
	return (int)check(syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

int ukcov__real_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	openat_fn f = real_openat64();

	if (f)
		return f(dirfd, path, flags, mode);
	return (int)check(syscall(SYS_openat, dirfd, path, flags, mode));
}

int ukcov__real_close(int fd)
{
	close_fn f = real_close();

	return f ? f(fd) : (int)check(syscall(SYS_close, fd));
}

int ukcov__real_ioctl(int fd, unsigned long req, unsigned long arg)
{
	ioctl_fn f = real_ioctl();

	return f ? f(fd, req, arg) : (int)check(syscall(SYS_ioctl, fd, req, arg));
}

int ukcov__real_dup(int fd)
{
	dup_fn f = real_dup();

	return f ? f(fd) : (int)check(syscall(SYS_dup, fd));
}

int ukcov__real_dup3(int oldfd, int newfd, int flags)
{
	dup3_fn f = real_dup3();

	/* dup2 semantics (flags -1): oldfd == newfd is valid and no-op. */
	if (flags < 0) {
		if (oldfd == newfd)
			return ukcov__real_fcntl(oldfd, F_GETFD, 0) < 0 ? -1
									: newfd;
		flags = 0;
	}
	return f ? f(oldfd, newfd, flags)
		 : (int)check(syscall(SYS_dup3, oldfd, newfd, flags));
}

int ukcov__real_fcntl(int fd, int cmd, unsigned long arg)
{
	fcntl_fn f = real_fcntl64();

	return f ? f(fd, cmd, arg) : (int)check(syscall(SYS_fcntl, fd, cmd, arg));
}

void *ukcov__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	mmap_fn f = real_mmap64();

	if (f)
		return f(addr, len, prot, flags, fd, off);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* The static fallback is glibc's own __sigaction, which supplies the
 * signal restorer a raw rt_sigaction would need. */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

int ukcov__real_sigaction(int sig, const void *act, void *oact)
{
	sigaction_fn f = real_sigaction();

	if (f)
		return f(sig, act, oact);
	return __sigaction(sig, act, oact);
}

int ukcov__real_close_range(unsigned first, unsigned last, int flags)
{
	return (int)check(syscall(SYS_close_range, first, last, flags));
}
