/*
 * lib/init.c -- the runtime's constructor: hooks for thread exit, fork
 * and process exit, and the takeover of descriptors inherited across
 * exec.
 *
 * Instrumented constructors may run before this one; the callbacks
 * tolerate that (zeroed TLS reads as "tracing off").
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* callbacks.c refers to this, so that a static link of the callbacks
 * brings this object, and with it the interposers, along. */
const char ukcov__runtime_anchor = 1;

/* The owner of a RUNNING descriptor is this process: either our thread
 * (tid == pid after exec) or the thread that marked itself before exec.
 * Any other owner thread of this pid was killed by the exec. */
/* Returns 1 if fd is the carrier the old image made for the crossing
 * (exec.c), which the caller then closes. */
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
	    && !__ukcov_thread.owned && ukcov__map_buffer(d, fd) == 0) {
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

/* Find the ukcov descriptors this process inherited: register them,
 * take the holder lock, and resume tracing where the old image left
 * off. */
void ukcov__takeover_scan(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	struct ukcov_desc *d;
	int fd, dfd, armed = 0, ncarriers = 0, carriers[16];

	if (!dir)
		return;
	dfd = dirfd(dir);
	pthread_mutex_lock(&ukcov__proc_lock);
	while ((e = readdir(dir)) != NULL) {
		fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dfd)
			continue;
		if (ukcov__fd_looks_like_ukcov(fd) <= 0)
			continue;
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
				    __ukcov_thread.owned->cb->entries,
				    __ukcov_thread.uniq_words);
	}
}

/* UKCOV_COMMON_HANDLE (hex or decimal): the main thread's remote common
 * handle, as if inherited across the exec that started this program
 * (Linux keeps kcov_handle in the task across exec; ukcov run --remote
 * --common passes it this way). */
static void common_handle_from_env(void)
{
	const char *v = getenv("UKCOV_COMMON_HANDLE");
	char *end;
	unsigned long long h;

	if (!v || !*v)
		return;
	h = strtoull(v, &end, 0);
	if (*end == '\0' && (h >> 56) == 0 && (h & ~0xffffffffULL) == 0)
		__ukcov_thread.common_handle = h;
}

__attribute__((constructor(101))) static void ukcov_init(void)
{
	common_handle_from_env();
	ukcov__threads_init();
	ukcov__sancov_init();
	ukcov__takeover_scan();
}
