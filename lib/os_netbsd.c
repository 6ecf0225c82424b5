/*
 * lib/os_netbsd.c -- NetBSD kcov: sys/kern/subr_kcov.c rev 1.17
 * (kcov_setbufsize, kcov_enable, kcov_disable, kcov_fops_mmap),
 * arguments by pointer, copied in before the driver runs.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/netbsd/kcov.h>

#define KCOV_BUF_MAX_ENTRIES (256 << 10)

static int netbsd_setbufsize(struct ukcov_desc *d, int fd, unsigned long arg)
{
	uint64_t n;
	int rc = ukcov__copyin(&n, (const void *)arg, sizeof(n));

	if (rc)
		return rc;
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EBUSY;
	/* kcov_allocbuf */
	if (n < 2 || n > KCOV_BUF_MAX_ENTRIES)
		return -EINVAL;
	if (d->cb->state != UKCOV_ST_OPEN)
		return -EEXIST;
	return ukcov__setbuf_locked(d, fd, n);
}

static int netbsd_enable(struct ukcov_desc *d, int fd, unsigned long arg)
{
	int mode, rc = ukcov__copyin(&mode, (const void *)arg, sizeof(mode));

	if (rc)
		return rc;
	if (mode != KCOV_MODE_NONE && mode != KCOV_MODE_TRACE_PC &&
	    mode != KCOV_MODE_TRACE_CMP)
		return -EINVAL;
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EBUSY;
	if (__ukcov_thread.owned)	/* curlwp->l_kcov != NULL */
		return -EBUSY;
	if (d->cb->state != UKCOV_ST_READY)
		return -ENOBUFS;
	/* KCOV_MODE_NONE enables without recording. */
	return ukcov__enable_locked(d, fd, mode == KCOV_MODE_TRACE_PC ?
		UKCOV_MODE_PC : mode == KCOV_MODE_TRACE_CMP ?
		UKCOV_MODE_CMP : UKCOV_MODE_NONE);
}

static int netbsd_disable(struct ukcov_desc *d)
{
	if (d->cb->state != UKCOV_ST_RUNNING)
		return -ENOENT;
	if (__ukcov_thread.owned != d || !ukcov__owned_by_me_locked(d->cb))
		return -ENOENT;
	ukcov__disable_locked(d);
	return 0;
}

/* No remote (subsystem, id) is registered in user space yet, so an
 * attach finds none; the argument is still copied in first. */
static int netbsd_remote_attach(struct ukcov_desc *d, unsigned long arg)
{
	struct kcov_ioc_remote_attach ra = { 0, 0 };
	int rc = ukcov__copyin(&ra, (const void *)arg, sizeof(ra));

	if (rc)
		return rc;
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EEXIST;
	return -ENOENT;
}

static int netbsd_remote_detach(struct ukcov_desc *d)
{
	if (d->cb->state == UKCOV_ST_RUNNING)
		return -EEXIST;
	return -ENOENT;		/* not attached */
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
	uint64_t bufsize = cb->state == UKCOV_ST_OPEN ? 0 : cb->bytes;

	(void)flags;
	if (prot & PROT_EXEC)
		return -EACCES;
	if (*off < 0 || size > max || (uint64_t)*off > max)
		return -EINVAL;
	if (size + (uint64_t)*off > bufsize)
		return -ENOMEM;
	return 0;
}

/* kcov_fops_close: an enabled descriptor is left to its LWP, which
 * keeps tracing until it exits. */
static void netbsd_last_close(struct ukcov_desc *d)
{
	(void)d;
}

const struct ukcov_os ukcov__os_netbsd = {
	.flavor = UKCOV_NETBSD,
	.name = "netbsd",
	.ioctl = netbsd_ioctl,
	.mmap_check = netbsd_mmap_check,
	.last_close_locked = netbsd_last_close,
};
