/*
 * lib/exec.c -- exec keeps tracing into the same buffer (Linux has no
 * kcov hook on exec: task_struct survives).  Both sides of the crossing
 * live here:
 *
 *   old image: the exec wrappers (execve and family) mark the owner
 *              thread in the control block (exec_tid), and make a
 *              carrier fd when no fd of the descriptor survives exec;
 *   new image: ukcov__exec_takeover(), run by the runtime's constructor
 *              (init.c), finds the inherited descriptors in
 *              /proc/self/fd and resumes tracing where the old image
 *              left off.
 *
 * The thread that execs may not be the process's main thread; after
 * exec it becomes the process's only thread with tid == pid.  So the
 * new image takes over a RUNNING descriptor whose owner is this process
 * and either this tid or the marked one.  Threads that exec kills are
 * released like any exiting thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
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

static void exec_prepare(void)
{
	ukcov__nb_exec_prepare();
	if (!__ukcov_thread.owned)
		return;
	pthread_mutex_lock(&ukcov__proc_lock);
	on_owned_desc_locked(mark_exec);
	pthread_mutex_unlock(&ukcov__proc_lock);
}

static void exec_failed(void)
{
	struct ukcov_desc *d;
	int fd;

	ukcov__nb_exec_failed();
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
		exec_prepare();						\
		rc_ = (call);						\
		e_ = errno;						\
		exec_failed();						\
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

/* ---- the new image: takeover ---- */

/* The inherited block is another process's input: a forged size (an
 * invoker writing entries = 2^30 over a 4096-byte buffer) would make
 * this image write past its mapping, so it is checked against the
 * file before anything is mapped by it, and refused with a word why. */
static int takeover_checked(struct ukcov_desc *d, int fd)
{
	struct ukcov_cb_bounds b;
	const char *why = ukcov__cb_check_fd(fd, d->cb, &b);

	if (!why && b.bytes == 0)
		why = "no buffer";
	if (why) {
		ukcov__peer_refused(UKCOV_PEER_EXEC, fd, why);
		return 0;
	}
	return ukcov__map_buffer(d, fd) == 0;
}

/* The owner of a RUNNING descriptor is this process: either our thread
 * (tid == pid after exec) or the thread that marked itself before exec.
 * Any other owner thread of this pid was killed by the exec. */
/* Returns 1 if fd is the carrier the old image made for the crossing
 * (make_carrier_locked), which the caller then closes. */
static int takeover_desc(struct ukcov_desc *d, int fd)
{
	struct ukcov_cb *cb = d->cb;
	int32_t me = (int32_t)ukcov__gettid();
	int is_carrier = 0;

	if (ukcov__cb_lock(cb) != 0)
		return 0;
	if (cb->exec_carrier == fd && cb->owner_pid == (int32_t)getpid()) {
		is_carrier = 1;
		cb->exec_carrier = -1;
	}
	if (cb->state != UKCOV_ST_RUNNING || cb->owner_pid != (int32_t)getpid()) {
		ukcov__cb_unlock(cb);
		return is_carrier;
	}
	/* A remote owner's registrations lived in the old image: its
	 * descriptor is released (docs/DESIGN.md, differences). */
	if (cb->mode == UKCOV_MODE_REMOTE) {
		/* Sections of other processes stop feeding it. */
		ukcov__registry_remove(fd, cb->remote_gen);
		cb->remote_gen++;
	}
	if ((cb->owner_tid == me || (cb->exec_tid && cb->owner_tid == cb->exec_tid))
	    && cb->mode != UKCOV_MODE_REMOTE
	    && !__ukcov_thread.owned && takeover_checked(d, fd)) {
		cb->owner_tid = me;
		cb->exec_tid = 0;
		cb->owner_start = ukcov__self_start_time();
		ukcov__thread_arm(&__ukcov_thread, d, cb->mode);
	} else {
		ukcov__release_owner_locked(cb);
	}
	ukcov__cb_unlock(cb);
	return is_carrier;
}

/* The new image's side, from the runtime's constructor (init.c): find
 * the ukcov descriptors this process inherited, register them, take
 * the holder lock, and resume tracing where the old image left off. */
void ukcov__exec_takeover(void)
{
	DIR *dir;
	struct dirent *e;
	struct ukcov_desc *d;
	int fd, dfd, armed = 0, ncarriers = 0, carriers[16];
	const char *why;

	/* A setuid or setgid image (AT_SECURE) takes over nothing: its
	 * invoker chose the descriptors it inherits (docs/FORMATS.md,
	 * "Trust"). */
	if (ukcov__secure())
		return;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return;
	dfd = dirfd(dir);
	pthread_mutex_lock(&ukcov__proc_lock);
	while ((e = readdir(dir)) != NULL) {
		fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dfd)
			continue;
		why = NULL;
		if (ukcov__fd_ukcov_why(fd, &why) <= 0) {
			if (why)
				ukcov__peer_refused(UKCOV_PEER_EXEC, fd, why);
			continue;
		}
		d = ukcov__fd_register_locked(fd);
		if (!d)
			continue;
		if (takeover_desc(d, fd) && ncarriers < 16)
			carriers[ncarriers++] = fd;
		armed |= __ukcov_thread.owned == d;
	}
	pthread_mutex_unlock(&ukcov__proc_lock);
	closedir(dir);
	/* A carrier existed only for the crossing: closing it is the close
	 * the kernel's exec did to a close-on-exec fd, with that OS's
	 * last-close rule. */
	for (int i = 0; i < ncarriers; i++)
		ukcov__close_desc_fd(carriers[i]);
	if (armed) {
		ukcov__modules_snapshot();
		ukcov__follow_setup(__ukcov_thread.mode,
				    __ukcov_thread.owned->entries,
				    __ukcov_thread.uniq_words);
	}
}
