/*
 * lib/exec.c -- exec keeps tracing into the same buffer (Linux has no
 * kcov hook on exec: task_struct survives).  The thread that execs may
 * not be the process's main thread; after exec it becomes the process's
 * only thread with tid == pid.  So before exec the owner marks itself in
 * the control block (exec_tid), and the new image's constructor
 * (init.c) takes over a RUNNING descriptor whose owner is this process
 * and either this tid or the marked one.  Threads that exec kills are
 * released like any exiting thread.  A descriptor with no fd that
 * survives exec gets a carrier fd for the crossing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

/* Lowest fd number a carrier may take: high, so that the new image's
 * own opens get the numbers they expect. */
#define CARRIER_MIN_FD 1000

/* Does an fd of d survive exec?  Then it carries the descriptor. */
static int desc_has_inheritable_fd_locked(const struct ukcov_desc *d)
{
	for (int fd = 0; fd < UKCOV_FDMAP_SIZE && fd < 4096; fd++)
		if (ukcov__fd_desc(fd) == d &&
		    !(ukcov__real_fcntl(fd, F_GETFD, 0) & FD_CLOEXEC))
			return 1;
	return 0;
}

/* The kernel keeps tracing across exec even when the fd is
 * close-on-exec, or already closed (Linux, NetBSD): the task holds the
 * kcov.  Here the new image must find the descriptor, so an fd without
 * FD_CLOEXEC is made for the exec, from another fd or from the
 * runtime's own mapping.  The new image closes it after takeover. */
static int make_carrier_locked(const struct ukcov_desc *d)
{
	char path[96];
	int src = ukcov__desc_any_fd_locked(d), fd, min = CARRIER_MIN_FD;
	long max = sysconf(_SC_OPEN_MAX);

	if (max > 0 && max <= min)
		min = (int)max / 2;
	if (src >= 0)
		return ukcov__real_fcntl(src, F_DUPFD, (unsigned long)min);
	if (!d->buf)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)(uintptr_t)d->buf,
		 (unsigned long)((uintptr_t)d->buf + d->buf_len));
	src = ukcov__real_open(path, O_RDWR | O_CLOEXEC, 0);
	if (src < 0)
		return -1;
	fd = ukcov__real_fcntl(src, F_DUPFD, (unsigned long)min);
	ukcov__real_close(src);
	return fd;
}

static int carrier = -1;	/* made by exec_prepare, for exec_failed */

/* Run fn on the calling thread's descriptor with both locks held, if
 * the thread still owns it. */
static void on_owned_desc_locked(void (*fn)(struct ukcov_desc *d))
{
	struct ukcov_desc *d = __ukcov_thread.owned;

	if (d && ukcov__cb_lock(d->cb) == 0) {
		if (ukcov__owned_by_me_locked(d->cb))
			fn(d);
		ukcov__cb_unlock(d->cb);
	}
}

static void mark_exec(struct ukcov_desc *d)
{
	carrier = desc_has_inheritable_fd_locked(d) ? -1
						    : make_carrier_locked(d);
	d->cb->exec_tid = ukcov__gettid();
	d->cb->exec_carrier = carrier;
}

static void unmark_exec(struct ukcov_desc *d)
{
	d->cb->exec_tid = 0;
	d->cb->exec_carrier = -1;
}

void ukcov__exec_prepare(void)
{
	if (!__ukcov_thread.owned)
		return;
	pthread_mutex_lock(&ukcov__proc_lock);
	on_owned_desc_locked(mark_exec);
	pthread_mutex_unlock(&ukcov__proc_lock);
}

void ukcov__exec_failed(void)
{
	struct ukcov_desc *d;
	int fd;

	if (!__ukcov_thread.owned)
		return;
	pthread_mutex_lock(&ukcov__proc_lock);
	on_owned_desc_locked(unmark_exec);
	d = __ukcov_thread.owned;
	if (carrier >= 0) {
		ukcov__real_close(carrier);
		carrier = -1;
		/* That close dropped our POSIX lock on the file. */
		fd = d ? ukcov__desc_any_fd_locked(d) : -1;
		if (fd >= 0)
			ukcov__fd_hold(fd);
	}
	pthread_mutex_unlock(&ukcov__proc_lock);
}

/* Mark the exec, run it (real.c finds libc's function, or does it with
 * raw system calls in a static program), and unmark if it failed. */
#define EXEC_CALL(call)						\
	do {								\
		int rc_, e_;						\
		ukcov__exec_prepare();					\
		rc_ = (call);						\
		e_ = errno;						\
		ukcov__exec_failed();					\
		errno = e_;						\
		return rc_;						\
	} while (0)

UKCOV_EXPORT int execve(const char *path, char *const argv[],
			char *const envp[])
{
	EXEC_CALL(ukcov__real_execve(path, argv, envp));
}

UKCOV_EXPORT int execveat(int dirfd, const char *path, char *const argv[],
			  char *const envp[], int flags)
{
	EXEC_CALL(ukcov__real_execveat(dirfd, path, argv, envp, flags));
}

UKCOV_EXPORT int execv(const char *path, char *const argv[])
{
	EXEC_CALL(ukcov__real_execv(path, argv));
}

UKCOV_EXPORT int execvp(const char *file, char *const argv[])
{
	EXEC_CALL(ukcov__real_execvp(file, argv));
}

UKCOV_EXPORT int execvpe(const char *file, char *const argv[],
			 char *const envp[])
{
	EXEC_CALL(ukcov__real_execvpe(file, argv, envp));
}

UKCOV_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_CALL(ukcov__real_fexecve(fd, argv, envp));
}

/* execl, execlp, execle: gather the list into an argv. */
static char **gather_args(const char *arg0, va_list ap, size_t *n,
			  char **store, size_t cap)
{
	size_t i = 0;
	const char *a = arg0;

	while (a && i + 1 < cap) {
		store[i++] = (char *)a;
		a = va_arg(ap, const char *);
	}
	store[i] = NULL;
	*n = i;
	return a ? NULL : store;	/* NULL: too many arguments */
}

#define EXECL_MAX 4096	/* 32 KiB of stack, as glibc's execl uses */

enum execl_via { VIA_EXECV, VIA_EXECVP, VIA_EXECVE };

/* The list after arg (and for execle the envp after it) into an argv,
 * then the v-form, which marks the exec. */
static int execl_common(enum execl_via via, const char *file, const char *arg,
			va_list ap)
{
	char *store[EXECL_MAX], **argv;
	size_t n;

	argv = gather_args(arg, ap, &n, store, EXECL_MAX);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	switch (via) {
	case VIA_EXECV:
		return execv(file, argv);
	case VIA_EXECVP:
		return execvp(file, argv);
	default:
		return execve(file, argv, va_arg(ap, char *const *));
	}
}

#define EXECL_WRAPPER(name, via)					\
	UKCOV_EXPORT int name(const char *file, const char *arg, ...)	\
	{								\
		va_list ap;						\
		int rc;							\
		va_start(ap, arg);					\
		rc = execl_common(via, file, arg, ap);			\
		va_end(ap);						\
		return rc;						\
	}

EXECL_WRAPPER(execl, VIA_EXECV)
EXECL_WRAPPER(execlp, VIA_EXECVP)
EXECL_WRAPPER(execle, VIA_EXECVE)
