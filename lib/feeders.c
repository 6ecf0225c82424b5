/*
 * lib/feeders.c -- the module tables of the processes that feed this
 * process's remote collections, for ukcov_dump().
 *
 * A collector that was not given $UKCOV_REMOTE_MODULES (ukcov run
 * --remote gives one) creates one memfd per process, "ukcov-feeders",
 * and stores /proc/<pid>/fd/<n> and the memfd's inode in the
 * descriptor's block.  Every process that runs a section for the
 * collection appends its module table there once per collection (the
 * "M" lines of docs/FORMATS.md §4, lib/modules.c), after checking the
 * inode, so that a descriptor number the application closed and reused
 * never receives our lines.  ukcov_dump() reads the memfd back and adds
 * the feeders' modules to the dump's own (lib/dump.c).
 *
 * Opening /proc/<pid>/fd/<n> needs the right to ptrace-read the
 * collector: the same user, as for the collector's descriptor itself
 * (lib/remote.c proxy_open).  The memfd is close-on-exec: a new image
 * starts with no feeders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Written once under ukcov__proc_lock (first remote enable), read by
 * ukcov_dump() without it: a torn read is impossible for an int, and a
 * dump racing with the first enable has no feeders yet. */
static int feeders_fd = -1;
static uint64_t feeders_ino;

/* The memfd, created at the first call; -1 if it cannot be. */
static int feeders_open(void)
{
	struct stat st;
	int fd;

	if (feeders_fd >= 0)
		return feeders_fd;
	fd = memfd_create("ukcov-feeders", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		ukcov__real_close(fd);
		return -1;
	}
	feeders_ino = (uint64_t)st.st_ino;
	__atomic_store_n(&feeders_fd, fd, __ATOMIC_RELEASE);
	return fd;
}

/* Where feeders append their tables: the path into cb->remote_modules
 * and the inode into cb->remote_modules_ino; "" if no memfd.  Called
 * with ukcov__proc_lock held. */
void ukcov__feeders_publish(struct ukcov_cb *cb)
{
	int fd = feeders_open();

	cb->remote_modules[0] = 0;
	cb->remote_modules_ino = 0;
	if (fd < 0)
		return;
	snprintf(cb->remote_modules, sizeof(cb->remote_modules),
		 "/proc/%d/fd/%d", (int)getpid(), fd);
	cb->remote_modules_ino = feeders_ino;
}

/* The feeders' lines, malloc'd into *out (NUL-terminated), or NULL
 * with *len 0 when no process fed this one.  A memfd the application
 * closed or replaced (inode changed) counts as empty.  -1 on ENOMEM. */
int ukcov__feeders_read(char **out, size_t *len)
{
	int fd = __atomic_load_n(&feeders_fd, __ATOMIC_ACQUIRE);
	struct stat st;
	size_t got = 0;
	char *buf;

	*out = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st) != 0 ||
	    (uint64_t)st.st_ino != feeders_ino || st.st_size <= 0)
		return 0;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -1;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got,
				  (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = 0;
	*out = buf;
	*len = got;
	return 0;
}
