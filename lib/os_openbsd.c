/*
 * lib/os_openbsd.c -- OpenBSD kcov: sys/dev/kcov.c rev 1.51 (kcovioctl,
 * kd_init, kcovmmap, kcovclose), arguments by pointer.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/openbsd/kcov.h>

static int openbsd_setbufsize(struct ukcov_desc *d, int fd, unsigned long arg)
{
	unsigned long n;
	int rc = ukcov__copyin(&n, (const void *)arg, sizeof(n));

	if (rc)
		return rc;
	if (d->cb->state != UKCOV_ST_OPEN)
		return -EBUSY;
	/* kd_init: n = 1 is accepted and leaves room for no entry. */
	if (n == 0 || n > KCOV_BUF_MAX_NMEMB)
		return -EINVAL;
	return ukcov__setbuf_locked(d, fd, n);
}

static int openbsd_enable(struct ukcov_desc *d, int fd, unsigned long arg)
{
	int mode, rc = ukcov__copyin(&mode, (const void *)arg, sizeof(mode));

	if (rc)
		return rc;
	/* p->p_kd is checked first, so a second ENABLE by the same thread
	 * is EBUSY and one from another thread ENXIO (OpenBSD dev/kcov.c,
	 * kcovioctl KIOENABLE).  Inside another flavour's remote section
	 * (Linux, NetBSD) the thread has kcov as well: EBUSY. */
	if (ukcov__thread_has_kcov(&__ukcov_thread))
		return -EBUSY;
	if (d->cb->state != UKCOV_ST_READY)
		return -ENXIO;
	if (mode != KCOV_MODE_TRACE_PC && mode != KCOV_MODE_TRACE_CMP)
		return -EINVAL;
	mode = mode == KCOV_MODE_TRACE_PC ? UKCOV_MODE_PC : UKCOV_MODE_CMP;
	/* "Remote coverage is mutually exclusive": p_kd stays unset. */
	if (d->cb->remote_attach)
		return ukcov__remote_attached_enable_locked(d, fd, mode);
	return ukcov__enable_locked(d, fd, mode);
}

/* KIOREMOTEATTACH: READY only (ENXIO), the common subsystem only
 * (EINVAL), one remote per process (EBUSY); the id is ignored. */
static int openbsd_remote_attach(struct ukcov_desc *d, unsigned long arg)
{
	struct kio_remote_attach ra = { 0, 0 };
	int rc = ukcov__copyin(&ra, (const void *)arg, sizeof(ra));

	if (rc)
		return rc;
	if (d->cb->state != UKCOV_ST_READY)
		return -ENXIO;
	if (ra.subsystem != KCOV_REMOTE_COMMON)
		return -EINVAL;
	return ukcov__remote_attach_locked(d);
}

/* kcovclose: a remote-attached descriptor is freed at once, which
 * detaches the remote; otherwise a tracing one goes DYING. */
static void openbsd_last_close(struct ukcov_desc *d)
{
	if (d->cb->remote_attach) {
		ukcov__remote_detach_locked(d);
		return;
	}
	ukcov__die_locked(d);
}

static int openbsd_disable(struct ukcov_desc *d)
{
	/* p->p_kd != kd && kd->kd_kr == NULL */
	if (!d->cb->remote_attach && (__ukcov_thread.owned != d ||
				      !ukcov__owned_by_me_locked(d->cb)))
		return -EPERM;
	if (d->cb->state != UKCOV_ST_RUNNING)
		return -ENXIO;
	if (d->cb->remote_attach)
		ukcov__remote_attached_disable_locked(d);
	else
		ukcov__owner_disable_locked(d);
	return 0;
}

static int openbsd_ioctl(struct ukcov_desc *d, int fd, unsigned long req,
			 unsigned long arg)
{
	switch (req) {
	case KIOSETBUFSIZE:
		return openbsd_setbufsize(d, fd, arg);
	case KIOENABLE:
		return openbsd_enable(d, fd, arg);
	case KIODISABLE:
		return openbsd_disable(d);
	case KIOREMOTEATTACH:
		return openbsd_remote_attach(d, arg);
	default:
		return -ENOTTY;
	}
}

/* kcovmmap is asked for every page: each page offset must lie below
 * kd_nmemb * 8 (nmemb = entries - 1); a refused device mapping is
 * EINVAL (uvm_mmapfile). */
static int openbsd_mmap_check(const struct ukcov_cb *cb, size_t len, int prot,
			      int flags, off_t *off)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = ((uint64_t)len + page - 1) & ~((uint64_t)page - 1);
	uint64_t nmemb = cb->state == UKCOV_ST_OPEN ? 0 : cb->entries - 1;

	(void)prot;
	(void)flags;
	if (*off < 0 || size == 0 ||
	    (uint64_t)*off + size - (uint64_t)page >= nmemb * 8)
		return -EINVAL;
	return 0;
}

const struct ukcov_os ukcov__os_openbsd = {
	.flavor = UKCOV_OPENBSD,
	.name = "openbsd",
	.ioctl = openbsd_ioctl,
	.mmap_check = openbsd_mmap_check,
	.last_close_locked = openbsd_last_close,
};
