/*
 * lib/fdtab.c -- which fds of this process are ukcov descriptors, and
 * who else holds them.
 *
 * The interposed close/ioctl/mmap/dup pay one array load for an fd that
 * is not ours.  The kernel knows when the last reference to a file
 * description goes away; user space learns it from POSIX record locks:
 * every process holding a descriptor keeps a read lock on the byte at
 * UKCOV_LOCK_OFF.  Such locks belong to the process, vanish when it
 * dies (SIGKILL included) and survive exec, so "does any other process
 * still hold it?" is one F_GETLK.  They also vanish when the process
 * closes any fd of the file, so the lock is taken again after a close
 * that leaves fds behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static struct ukcov_desc *fdmap[UKCOV_FDMAP_SIZE];	/* [A] readers */
static struct ukcov_desc *desc_list;
static int fdmap_end;		/* one past the highest fd ever registered */

struct ukcov_desc *ukcov__fd_desc(int fd)
{
	if ((unsigned)fd >= UKCOV_FDMAP_SIZE)
		return NULL;
	return __atomic_load_n(&fdmap[fd], __ATOMIC_ACQUIRE);
}

/* fdmap[fd] goes stale when the fd is closed behind our back (a raw
 * system call, glibc's internal close after fdopen) and its number is
 * reused: check that fd still refers to the descriptor's memfd before
 * treating it as one.  Only fds in the map pay this fstat. */
struct ukcov_desc *ukcov__fd_desc_checked(int fd)
{
	struct ukcov_desc *d = ukcov__fd_desc(fd);
	struct stat st;

	if (likely(!d))
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino)
		return d;
	pthread_mutex_lock(&ukcov__proc_lock);
	if (ukcov__fd_desc(fd) == d)
		ukcov__fd_forget_locked(fd);
	pthread_mutex_unlock(&ukcov__proc_lock);
	return NULL;
}

void ukcov__fd_hold(int fd)
{
	struct flock fl = {
		.l_type = F_RDLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)UKCOV_LOCK_OFF,
		.l_len = 1,
	};

	ukcov__real_fcntl(fd, F_SETLK, (unsigned long)&fl);
}

/* Would closing fd drop the last reference to the descriptor in the
 * whole system?  Only asked when it is this process's last fd of it. */
int ukcov__fd_last_holder(int fd)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)UKCOV_LOCK_OFF,
		.l_len = 1,
	};

	if (ukcov__real_fcntl(fd, F_GETLK, (unsigned long)&fl) != 0)
		return 0;	/* cannot tell: assume others remain */
	return fl.l_type == F_UNLCK;
}

static struct ukcov_desc *desc_find_locked(dev_t dev, ino_t ino)
{
	struct ukcov_desc *d;

	for (d = desc_list; d; d = d->next)
		if (d->dev == dev && d->ino == ino)
			return d;
	return NULL;
}

static struct ukcov_desc *desc_new_locked(int fd, const struct stat *st)
{
	struct ukcov_desc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->cb = ukcov__cb_map(fd);
	if (!d->cb) {
		free(d);
		return NULL;
	}
	d->dev = st->st_dev;
	d->ino = st->st_ino;
	d->next = desc_list;
	desc_list = d;
	return d;
}

/* Drop the process's view once no fd and no thread uses it. */
void ukcov__desc_put_locked(struct ukcov_desc *d)
{
	struct ukcov_desc **pp;

	if (d->nfds > 0 || d->ntracers > 0)
		return;
	for (pp = &desc_list; *pp; pp = &(*pp)->next) {
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	}
	if (d->buf)
		munmap(d->buf, d->buf_len);
	munmap(d->cb, UKCOV_CB_SIZE);
	free(d);
}

/* Record fd as a ukcov descriptor of this process (checked by the
 * caller).  Returns its descriptor, or NULL (ENOMEM). */
struct ukcov_desc *ukcov__fd_register_locked(int fd)
{
	struct ukcov_desc *d;
	struct stat st;

	if (fstat(fd, &st) != 0)
		return NULL;
	if ((unsigned)fd < UKCOV_FDMAP_SIZE && fdmap[fd]) {
		if (fdmap[fd]->dev == st.st_dev && fdmap[fd]->ino == st.st_ino)
			return fdmap[fd];
		ukcov__fd_forget_locked(fd);	/* stale: number reused */
	}
	d = desc_find_locked(st.st_dev, st.st_ino);
	if (!d)
		d = desc_new_locked(fd, &st);
	if (!d)
		return NULL;
	if ((unsigned)fd < UKCOV_FDMAP_SIZE) {
		d->nfds++;
		if (fd >= fdmap_end)
			fdmap_end = fd + 1;
		__atomic_store_n(&fdmap[fd], d, __ATOMIC_RELEASE);
	}
	ukcov__fd_hold(fd);
	return d;
}

/* The fd's descriptor, recognising a ukcov fd this process has not seen
 * yet (passed over a socket, opened through /proc).  NULL with errno
 * EBADF or ENOTTY otherwise. */
struct ukcov_desc *ukcov__fd_lookup(int fd)
{
	struct ukcov_desc *d = ukcov__fd_desc_checked(fd);
	int r;

	if (d)
		return d;
	r = ukcov__fd_looks_like_ukcov(fd);
	if (r <= 0) {
		errno = r < 0 ? -r : ENOTTY;
		return NULL;
	}
	pthread_mutex_lock(&ukcov__proc_lock);
	d = ukcov__fd_register_locked(fd);
	pthread_mutex_unlock(&ukcov__proc_lock);
	if (!d)
		errno = ENOMEM;
	return d;
}

void ukcov__fd_dup_locked(int oldfd, int newfd)
{
	struct ukcov_desc *d = ukcov__fd_desc(oldfd);

	if (!d || (unsigned)newfd >= UKCOV_FDMAP_SIZE || fdmap[newfd] == d)
		return;
	if (fdmap[newfd])	/* stale: the kernel just handed out newfd */
		ukcov__fd_forget_locked(newfd);
	d->nfds++;
	if (newfd >= fdmap_end)
		fdmap_end = newfd + 1;
	__atomic_store_n(&fdmap[newfd], d, __ATOMIC_RELEASE);
}

/* Another fd of d, to take the lock again after a close; -1 if none. */
int ukcov__desc_any_fd_locked(const struct ukcov_desc *d)
{
	int fd;

	if (d->nfds <= 0)
		return -1;
	for (fd = 0; fd < fdmap_end; fd++)
		if (fdmap[fd] == d)
			return fd;
	return -1;
}

/* fd has been (or is about to be) closed by the caller. */
void ukcov__fd_forget_locked(int fd)
{
	struct ukcov_desc *d = ukcov__fd_desc(fd);

	if (!d)
		return;
	__atomic_store_n(&fdmap[fd], NULL, __ATOMIC_RELEASE);
	d->nfds--;
	ukcov__desc_put_locked(d);
}

void ukcov__fdtab_for_each_locked(void (*fn)(struct ukcov_desc *, int fd))
{
	struct ukcov_desc *d;

	for (d = desc_list; d; d = d->next)
		fn(d, ukcov__desc_any_fd_locked(d));
}

/* POSIX locks are not inherited across fork: the child takes its own,
 * so the parent's later close does not think it is the last holder.
 * No thread of the child traces yet. */
void ukcov__fdtab_after_fork_child(void)
{
	struct ukcov_desc *d, *next;
	int fd;

	for (fd = 0; fd < fdmap_end; fd++)
		if (fdmap[fd])
			ukcov__fd_hold(fd);
	for (d = desc_list; d; d = next) {
		next = d->next;
		d->ntracers = 0;
		ukcov__desc_put_locked(d);
	}
}
