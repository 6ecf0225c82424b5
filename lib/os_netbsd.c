/*
 * lib/os_netbsd.c -- NetBSD kcov: sys/kern/subr_kcov.c rev 1.17
 * (kcov_setbufsize, kcov_enable, kcov_disable, kcov_remote_attach,
 * kcov_remote_detach, kcov_fops_mmap, kcov_fops_close), arguments by
 * pointer, copied in before the driver runs.  The remotes themselves
 * are in remote_netbsd.c.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/netbsd/kcov.h>

#define KCOV_BUF_MAX_ENTRIES (256 << 10)

/* The remote a descriptor is attached to (kd->remote), or NULL when
 * this process cannot reach it (an fd passed to a process that neither
 * registered the remote nor finds it in the registry). */
static struct ukcov_nb_remote *attached_remote(const struct ukcov_cb *cb)
{
	return cb->nb_attached ? ukcov__nb_find(cb->nb_subsystem, cb->nb_id)
			       : NULL;
}

static int netbsd_setbufsize(struct ukcov_desc *d, int fd, unsigned long arg)
{
	uint64_t n;
	int rc = ukcov__copyin(&n, (const void *)arg, sizeof(n));

	if (rc)
		return rc;
	/* kcov_setbufsize: "buffer allocated remotely", whatever n is. */
	if (d->cb->nb_attached)
		return 0;
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EBUSY;
	/* kcov_allocbuf */
	if (n < 2 || n > KCOV_BUF_MAX_ENTRIES)
		return -EINVAL;
	if (d->cb->state != UKCOV_ST_OPEN)
		return -EEXIST;
	return ukcov__setbuf_locked(d, fd, n);
}

/* kcov_enable: the mode is checked first; an attached descriptor
 * enables its remote (kcov_remote_enable: EBUSY if on), whoever asks,
 * and the calling thread is not traced. */
static int netbsd_enable(struct ukcov_desc *d, int fd, unsigned long arg)
{
	struct ukcov_nb_remote *r;
	int mode, rc = ukcov__copyin(&mode, (const void *)arg, sizeof(mode));

	if (rc)
		return rc;
	if (mode != KCOV_MODE_NONE && mode != KCOV_MODE_TRACE_PC &&
	    mode != KCOV_MODE_TRACE_CMP)
		return -EINVAL;
	mode = mode == KCOV_MODE_TRACE_PC ? UKCOV_MODE_PC :
	       mode == KCOV_MODE_TRACE_CMP ? UKCOV_MODE_CMP : UKCOV_MODE_NONE;
	if (d->cb->nb_attached) {
		r = attached_remote(d->cb);
		return r ? ukcov__nb_enable_locked(r, mode) : -ENOENT;
	}
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EBUSY;
	/* curlwp->l_kcov != NULL: this thread traces another descriptor
	 * or is inside a remote (a NetBSD one, or another flavour's: a
	 * Linux section). */
	if (ukcov__thread_has_kcov(&__ukcov_thread))
		return -EBUSY;
	if (d->cb->state != UKCOV_ST_READY)
		return -ENOBUFS;
	/* KCOV_MODE_NONE enables without recording. */
	return ukcov__enable_locked(d, fd, mode);
}

/* kcov_disable: an attached descriptor disables its remote, from any
 * thread (kcov_remote_disable: ENOENT if off). */
static int netbsd_disable(struct ukcov_desc *d)
{
	struct ukcov_nb_remote *r;

	if (d->cb->nb_attached) {
		r = attached_remote(d->cb);
		return r ? ukcov__nb_disable_locked(r) : -ENOENT;
	}
	if (d->cb->state != UKCOV_ST_RUNNING)
		return -ENOENT;
	if (__ukcov_thread.owned != d || !ukcov__owned_by_me_locked(d->cb))
		return -ENOENT;
	ukcov__owner_disable_locked(d);
	return 0;
}

/* kcov_remote_attach: EEXIST while the descriptor itself is enabled,
 * ENOENT for a remote nobody registered.  Attaching again replaces
 * the remote and leaves the old one as it was, as NetBSD does; the
 * descriptor's own buffer stays, unused while attached. */
static int netbsd_remote_attach(struct ukcov_desc *d, unsigned long arg)
{
	struct kcov_ioc_remote_attach ra = { 0, 0 };
	struct ukcov_nb_remote *r;
	int rc = ukcov__copyin(&ra, (const void *)arg, sizeof(ra));

	if (rc)
		return rc;
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EEXIST;
	r = ukcov__nb_find(ra.subsystem, ra.id);
	if (!r || !ukcov__nb_alive(r))
		return -ENOENT;
	d->cb->nb_subsystem = ra.subsystem;
	d->cb->nb_id = ra.id;
	d->cb->nb_attached = 1;
	return 0;
}

/* kcov_remote_detach: EEXIST while enabled, ENOENT if not attached;
 * the remote is disabled, whoever enabled it. */
static int netbsd_remote_detach(struct ukcov_desc *d)
{
	struct ukcov_nb_remote *r;

	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EEXIST;
	if (!d->cb->nb_attached)
		return -ENOENT;
	r = attached_remote(d->cb);
	if (r)
		(void)ukcov__nb_disable_locked(r);
	d->cb->nb_attached = 0;
	return 0;
}

static int netbsd_ioctl(struct ukcov_desc *d, int fd, unsigned long req,
			unsigned long arg)
{
	switch (req) {
	case KCOV_IOC_SETBUFSIZE:
		return netbsd_setbufsize(d, fd, arg);
	case KCOV_IOC_ENABLE:
		return netbsd_enable(d, fd, arg);
	case KCOV_IOC_DISABLE:
		return netbsd_disable(d);
	case KCOV_IOC_REMOTE_ATTACH:
		return netbsd_remote_attach(d, arg);
	case KCOV_IOC_REMOTE_DETACH:
		return netbsd_remote_detach(d);
	default:
		return -EINVAL;
	}
}

/* kcov_fops_mmap: no PROT_EXEC; partial and offset mappings inside the
 * page-rounded buffer (bufsize 0 without one, hence ENOMEM). */
static int netbsd_mmap_check(const struct ukcov_cb *cb, size_t len, int prot,
			     int flags, off_t *off)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = ((uint64_t)len + page - 1) & ~((uint64_t)page - 1);
	uint64_t max = (uint64_t)KCOV_BUF_MAX_ENTRIES * KCOV_ENTRY_SIZE;
	/* kdbuf: the remote's buffer if attached. */
	uint64_t bufsize = cb->nb_attached ? max :
			   cb->state == UKCOV_ST_OPEN ? 0 : cb->bytes;

	(void)flags;
	if (prot & PROT_EXEC)
		return -EACCES;
	if (*off < 0 || size > max || (uint64_t)*off > max)
		return -EINVAL;
	if (size + (uint64_t)*off > bufsize)
		return -ENOMEM;
	return 0;
}

/* kcov_fops_mmap maps kdbuf->uobj: an attached descriptor maps its
 * remote's memfd. */
static int netbsd_mmap_fd(const struct ukcov_cb *cb, int fd)
{
	struct ukcov_nb_remote *r;

	if (!cb->nb_attached)
		return fd;
	r = attached_remote(cb);
	return r ? ukcov__nb_fd(r) : -ENOMEM;
}

/* kcov_fops_close: an attached remote is disabled; an enabled
 * descriptor is left to its LWP, which keeps tracing until it exits. */
static void netbsd_last_close(struct ukcov_desc *d)
{
	struct ukcov_nb_remote *r = attached_remote(d->cb);

	if (r)
		(void)ukcov__nb_disable_locked(r);
}

const struct ukcov_os ukcov__os_netbsd = {
	.flavor = UKCOV_NETBSD,
	.name = "netbsd",
	.ioctl = netbsd_ioctl,
	.mmap_check = netbsd_mmap_check,
	.last_close_locked = netbsd_last_close,
	.mmap_fd_locked = netbsd_mmap_fd,
};
