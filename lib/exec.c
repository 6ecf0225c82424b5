/*
 * lib/exec.c -- exec keeps tracing into the same buffer (Linux has no
 * kcov hook on exec: task_struct survives).  The thread that execs may
 * not be the process's main thread; after exec it becomes the process's
 * only thread with tid == pid.  So before exec the owner marks itself in
 * the control block (exec_tid), and the new image's constructor
 * (init.c) takes over a RUNNING descriptor whose owner is this process
 * and either this tid or the marked one.  Threads that exec kills are
 * released like any exiting thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "internal.h"

static void mark_exec_tid(int32_t tid)
{
	struct ukcov_thread *t = &__ukcov_thread;
	struct ukcov_desc *d;

	pthread_mutex_lock(&ukcov__proc_lock);
	d = t->owned;
	if (d && ukcov__cb_lock(d->cb) == 0) {
		if (ukcov__owned_by_me_locked(d->cb))
			d->cb->exec_tid = tid;
		ukcov__cb_unlock(d->cb);
	}
	pthread_mutex_unlock(&ukcov__proc_lock);
}

void ukcov__exec_prepare(void)
{
	if (__ukcov_thread.owned)
		mark_exec_tid(ukcov__gettid());
}

void ukcov__exec_failed(void)
{
	if (__ukcov_thread.owned)
		mark_exec_tid(0);
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

static void *real_exec(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

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
	execve_fn f = (execve_fn)real_exec("execve");

	EXEC_CALL(f ? f(path, argv, envp) : (errno = ENOSYS, -1));
}

UKCOV_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn f = (execv_fn)real_exec("execv");

	EXEC_CALL(f ? f(path, argv) : (errno = ENOSYS, -1));
}

UKCOV_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn f = (execv_fn)real_exec("execvp");

	EXEC_CALL(f ? f(file, argv) : (errno = ENOSYS, -1));
}

UKCOV_EXPORT int execvpe(const char *file, char *const argv[],
			 char *const envp[])
{
	execve_fn f = (execve_fn)real_exec("execvpe");

	EXEC_CALL(f ? f(file, argv, envp) : (errno = ENOSYS, -1));
}

UKCOV_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn f = (fexecve_fn)real_exec("fexecve");

	EXEC_CALL(f ? f(fd, argv, envp) : (errno = ENOSYS, -1));
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

UKCOV_EXPORT int execl(const char *path, const char *arg, ...)
{
	char *store[EXECL_MAX], **argv;
	va_list ap;
	size_t n;

	va_start(ap, arg);
	argv = gather_args(arg, ap, &n, store, EXECL_MAX);
	va_end(ap);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	return execv(path, argv);
}

UKCOV_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *store[EXECL_MAX], **argv;
	va_list ap;
	size_t n;

	va_start(ap, arg);
	argv = gather_args(arg, ap, &n, store, EXECL_MAX);
	va_end(ap);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	return execvp(file, argv);
}

UKCOV_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *store[EXECL_MAX], **argv;
	char *const *envp;
	va_list ap;
	size_t n;

	va_start(ap, arg);
	argv = gather_args(arg, ap, &n, store, EXECL_MAX);
	envp = argv ? va_arg(ap, char *const *) : NULL;
	va_end(ap);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	return execve(path, argv, envp);
}
