/*
 * lib/os_freebsd.c -- FreeBSD kcov: sys/kern/kern_kcov.c (kcov_ioctl,
 * kcov_alloc, kcov_mmap_single, kcov_mmap_cleanup), arguments by value
 * (_IOWINT: the kernel reads an int).
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/freebsd/kcov.h>

static int freebsd_setbufsize(struct ukcov_desc *d, int fd, unsigned int n)
{
	if (d->cb->state != UKCOV_ST_OPEN)
		return -EBUSY;
	/* kcov_alloc; kern.kcov.max_entries defaults to KCOV_MAXENTRIES */
	if (n < 2 || n > KCOV_MAXENTRIES)
		return -EINVAL;
	return ukcov__setbuf_locked(d, fd, n);
}

static int freebsd_enable(struct ukcov_desc *d, int fd, int mode)
{
	/* Not READY: no buffer yet, already RUNNING (any thread). */
	if (d->cb->state != UKCOV_ST_READY)
		return -EBUSY;
	/* td->td_kcov_info != NULL: EINVAL here, where Linux says EBUSY
	 * (FreeBSD kern_kcov.c, kcov_ioctl KIOENABLE).  A thread has kcov
	 * too inside another flavour's remote section (a Linux section, a
	 * NetBSD remote): one thread never traces into two buffers. */
	if (ukcov__thread_has_kcov(&__ukcov_thread))
		return -EINVAL;
	if (mode != KCOV_MODE_TRACE_PC && mode != KCOV_MODE_TRACE_CMP)
		return -EINVAL;
	return ukcov__enable_locked(d, fd, mode == KCOV_MODE_TRACE_PC ?
				   UKCOV_MODE_PC : UKCOV_MODE_CMP);
}

static int freebsd_disable(struct ukcov_desc *d)
{
	if (d->cb->state != UKCOV_ST_RUNNING || __ukcov_thread.owned != d ||
	    !ukcov__owned_by_me_locked(d->cb))
		return -EINVAL;
	ukcov__owner_disable_locked(d);
	return 0;
}

static int freebsd_ioctl(struct ukcov_desc *d, int fd, unsigned long req,
			 unsigned long arg)
{
	switch (req) {
	case KIOSETBUFSIZE:
		return freebsd_setbufsize(d, fd, (unsigned int)arg);
	case KIOENABLE:
		return freebsd_enable(d, fd, (int)arg);
	case KIODISABLE:
		return freebsd_disable(d);
	default:
		return -EINVAL;	/* not ENOTTY */
	}
}

/* kcov_mmap_single: exactly read/write, a buffer, a mapping of exactly
 * entries*8 bytes; the object offset is forced to 0. */
static int freebsd_mmap_check(const struct ukcov_cb *cb, size_t len, int prot,
			      int flags, off_t *off)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = ((uint64_t)len + page - 1) & ~((uint64_t)page - 1);

	(void)flags;
	if ((prot & (PROT_EXEC | PROT_READ | PROT_WRITE)) !=
	    (PROT_READ | PROT_WRITE))
		return -EINVAL;
	if (cb->state == UKCOV_ST_OPEN)
		return -EINVAL;
	if (size / KCOV_ENTRY_SIZE != cb->entries)
		return -EINVAL;
	*off = 0;
	return 0;
}

const struct ukcov_os ukcov__os_freebsd = {
	.flavor = UKCOV_FREEBSD,
	.name = "freebsd",
	.ioctl = freebsd_ioctl,
	.mmap_check = freebsd_mmap_check,
	.last_close_locked = ukcov__die_locked,
};
