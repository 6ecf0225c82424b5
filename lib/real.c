/*
 * lib/real.c -- every libc function the interposers forward to, found
 * one way, in this one place.
 *
 * In a dynamic program each is found with dlsym(RTLD_NEXT) the first
 * time it is needed, so that another interposer further down (a
 * sanitizer, a preloaded tracer) still sees the call.  A fully static
 * program has no dynamic linker and dlsym finds nothing: then the raw
 * system call does the job, or, where libc does more than one system
 * call (the PATH search of execvp, execv's environ), the code here that
 * does what glibc does with raw calls.  What a static program cannot
 * get this way is pthread_create (docs/DESIGN.md, "Static programs").
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* real_NAME(): the next definition of NAME, or NULL in a static
 * program.  Looked up once; a racing lookup finds the same value. */
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
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[],
			   int);
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);

REAL(open64, open_fn)
REAL(openat64, openat_fn)
REAL(close, close_fn)
REAL(ioctl, ioctl_fn)
REAL(dup, dup_fn)
REAL(dup3, dup3_fn)
REAL(fcntl64, fcntl_fn)
REAL(mmap64, mmap_fn)
REAL(sigaction, sigaction_fn)
REAL(execve, execve_fn)
REAL(execv, execv_fn)
REAL(execvp, execv_fn)
REAL(execvpe, execve_fn)
REAL(fexecve, fexecve_fn)
REAL(execveat, execveat_fn)
REAL(pthread_create, pthread_create_fn)

/* syscall() already sets errno and returns -1. */
#define RAW(...) ((int)syscall(__VA_ARGS__))

int ukcov__real_open(const char *path, int flags, mode_t mode)
{
	open_fn f = real_open64();

	return f ? f(path, flags, mode) : RAW(SYS_openat, AT_FDCWD, path, flags,
					     mode);
}

int ukcov__real_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	openat_fn f = real_openat64();

	return f ? f(dirfd, path, flags, mode)
		 : RAW(SYS_openat, dirfd, path, flags, mode);
}

int ukcov__real_close(int fd)
{
	close_fn f = real_close();

	return f ? f(fd) : RAW(SYS_close, fd);
}

int ukcov__real_ioctl(int fd, unsigned long req, unsigned long arg)
{
	ioctl_fn f = real_ioctl();

	return f ? f(fd, req, arg) : RAW(SYS_ioctl, fd, req, arg);
}

int ukcov__real_dup(int fd)
{
	dup_fn f = real_dup();

	return f ? f(fd) : RAW(SYS_dup, fd);
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
	return f ? f(oldfd, newfd, flags) : RAW(SYS_dup3, oldfd, newfd, flags);
}

int ukcov__real_fcntl(int fd, int cmd, unsigned long arg)
{
	fcntl_fn f = real_fcntl64();

	return f ? f(fd, cmd, arg) : RAW(SYS_fcntl, fd, cmd, arg);
}

void *ukcov__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	mmap_fn f = real_mmap64();

	if (f)
		return f(addr, len, prot, flags, fd, off);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* The static fallback is glibc's own __sigaction (exported by libc.so
 * too), which supplies the signal restorer a raw rt_sigaction needs. */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

int ukcov__real_sigaction(int sig, const void *act, void *oact)
{
	sigaction_fn f = real_sigaction();

	return f ? f(sig, act, oact) : __sigaction(sig, act, oact);
}

int ukcov__real_close_range(unsigned first, unsigned last, int flags)
{
	return RAW(SYS_close_range, first, last, flags);
}

/* ---- the exec family ---- */

int ukcov__real_execve(const char *path, char *const argv[],
		       char *const envp[])
{
	execve_fn f = real_execve();

	return f ? f(path, argv, envp) : RAW(SYS_execve, path, argv, envp);
}

int ukcov__real_execveat(int dirfd, const char *path, char *const argv[],
			 char *const envp[], int flags)
{
	execveat_fn f = real_execveat();

	return f ? f(dirfd, path, argv, envp, flags)
		 : RAW(SYS_execveat, dirfd, path, argv, envp, flags);
}

/* glibc fexecve: execveat(fd, "", AT_EMPTY_PATH). */
int ukcov__real_fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn f = real_fexecve();

	if (f)
		return f(fd, argv, envp);
	if (fd < 0 || !argv || !envp) {
		errno = EINVAL;
		return -1;
	}
	return RAW(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
}

int ukcov__real_execv(const char *path, char *const argv[])
{
	execv_fn f = real_execv();

	return f ? f(path, argv) : ukcov__real_execve(path, argv, environ);
}

/* A file execve refused as ENOEXEC is run by /bin/sh, as glibc's
 * execvp does (POSIX: "as if the process invoked sh"); errno is then
 * that of the shell's execve.  On the stack: no allocation between a
 * vfork and an exec. */
static void exec_as_script(const char *path, char *const argv[],
			   char *const envp[])
{
	enum { MAX_SCRIPT_ARGS = 4096 };
	char *sh_argv[MAX_SCRIPT_ARGS + 2];
	size_t argc = 0, i;

	while (argv[argc])
		if (++argc > MAX_SCRIPT_ARGS) {
			errno = E2BIG;
			return;
		}
	sh_argv[0] = (char *)"/bin/sh";
	sh_argv[1] = (char *)path;
	for (i = 1; i < argc; i++)
		sh_argv[i + 1] = argv[i];
	sh_argv[(argc ? argc : 1) + 1] = NULL;
	(void)RAW(SYS_execve, "/bin/sh", sh_argv, envp);
}

static int exec_or_script(const char *path, char *const argv[],
			  char *const envp[])
{
	(void)RAW(SYS_execve, path, argv, envp);
	if (errno == ENOEXEC)
		exec_as_script(path, argv, envp);
	return -1;
}

/*
 * glibc's __execvpe (posix/execvpe.c) with raw calls: a name with a
 * slash is executed as is; otherwise each PATH element in turn (an
 * empty one is "."; no PATH is "/bin:/usr/bin"), going on after
 * ENOENT-like errors, remembering EACCES, and stopping at any other.
 */
static int search_path(const char *file, char *const argv[],
		       char *const envp[])
{
	/* getenv, not ukcov__env: execvp itself reads PATH so, also in an
	 * AT_SECURE process, and this is the program's own exec. */
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	size_t flen = strlen(file), dlen;
	int got_eacces = 0;

	if (flen == 0) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/'))
		return exec_or_script(file, argv, envp);
	if (flen > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		dlen = (size_t)(end - p);
		if (dlen + flen + 2 <= sizeof(buf)) {
			memcpy(buf, p, dlen);
			if (dlen)
				buf[dlen++] = '/';
			memcpy(buf + dlen, file, flen + 1);
			(void)exec_or_script(buf, argv, envp);
			switch (errno) {
			case EACCES:
				got_eacces = 1;
				break;
			case ENOENT: case ESTALE: case ENOTDIR: case ENODEV:
			case ETIMEDOUT:
				break;
			default:
				return -1;
			}
		}
		if (*end == '\0')
			break;
	}
	errno = got_eacces ? EACCES : ENOENT;
	return -1;
}

int ukcov__real_execvp(const char *file, char *const argv[])
{
	execv_fn f = real_execvp();

	return f ? f(file, argv) : search_path(file, argv, environ);
}

int ukcov__real_execvpe(const char *file, char *const argv[],
			char *const envp[])
{
	execve_fn f = real_execvpe();

	return f ? f(file, argv, envp) : search_path(file, argv, envp);
}

/* Threads need libc's own pthread_create: no raw fallback. */
int ukcov__real_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			       void *(*fn)(void *), void *arg)
{
	pthread_create_fn f = real_pthread_create();

	return f ? f(th, attr, fn, arg) : ENOSYS;
}
