/*
 * lib/os_linux.c -- Linux kcov: kernel/kcov.c (kcov_ioctl,
 * kcov_ioctl_locked, kcov_mmap), arguments by value.
 */
#include <errno.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include <ukcov/linux/kcov.h>

static int linux_init_trace(struct ukcov_desc *d, int fd, unsigned long size)
{
	/* "Size must be at least 2 to hold current position and one PC."
	 * kcov_ioctl checks it before the state, so a second INIT_TRACE
	 * with a bad size is EINVAL, not EBUSY. */
	if (size < 2 || size > INT_MAX / sizeof(unsigned long))
		return -EINVAL;
	if (d->cb->state != UKCOV_ST_OPEN)
		return -EBUSY;
	return ukcov__setbuf_locked(d, fd, size);
}

static int linux_enable(struct ukcov_desc *d, int fd, unsigned long mode)
{
	/* mode != KCOV_MODE_INIT || !area: no buffer yet, or enabled by
	 * any thread already. */
	if (d->cb->state != UKCOV_ST_READY)
		return -EINVAL;
	/* kcov->t != NULL || current->kcov != NULL: the thread traces a
	 * descriptor, owns a remote collection, or is inside a remote
	 * section (kcov_start set its kcov); see also unique_enable. */
	if (ukcov__thread_has_kcov(&__ukcov_thread))
		return -EBUSY;
	if (mode != KCOV_TRACE_PC && mode != KCOV_TRACE_CMP)
		return -EINVAL;
	return ukcov__enable_locked(d, fd, mode == KCOV_TRACE_PC ?
				   UKCOV_MODE_PC : UKCOV_MODE_CMP);
}

/*
 * KCOV_UNIQUE_ENABLE, proposed ("Coverage deduplication for KCOV",
 * v4 07/10, kcov_handle_unique_enable), checks in its order:
 *   mode != KCOV_MODE_INIT || !area        EINVAL (no buffer, enabled)
 *   kcov->t != NULL || current->kcov       EBUSY
 *   !bitmap_words || bitmap_words >= size - 1   EINVAL
 * The kernel's ENOTSUPP without CONFIG_KCOV_UNIQUE never happens here:
 * every build has unique coverage (trace-pc builds through the
 * thread's key table, lib/unique.c).  UKCOV_IOC_UNIQUE_ENABLE_CMP is
 * ukcov's CMP twin with the same rules.
 */
static int linux_unique_enable(struct ukcov_desc *d, int fd,
			       unsigned long words, int mode)
{
	if (d->cb->state != UKCOV_ST_READY)
		return -EINVAL;
	if (ukcov__thread_has_kcov(&__ukcov_thread))
		return -EBUSY;
	if (ukcov__uniq_check_words(d->cb->entries, words))
		return -EINVAL;
	return ukcov__enable_uniq_locked(d, fd, mode, words);
}

/*
 * KCOV_RESET_TRACE, proposed (v4 10/10):
 *   arg != 0 || current->kcov != kcov      EINVAL
 *   kcov->mode < KCOV_MODE_TRACE_PC        EINVAL (not reached: an
 *                                          owner is always enabled)
 * then the bitmap is zeroed and trace[0] = 0.  Owner only, as proposed:
 * a non-owner reset (syzkaller issue 6262) would race with the owner's
 * lock-free append; see ukcov(4).
 */
static int linux_reset_trace(struct ukcov_desc *d, unsigned long arg)
{
	if (arg != 0 || __ukcov_thread.owned != d ||
	    !ukcov__owned_by_me_locked(d->cb))
		return -EINVAL;
	/* A remote owner's kcov->mode is its trace mode: the reset is
	 * serialized with the sections' merges, as under kcov->lock. */
	if (d->cb->mode == UKCOV_MODE_REMOTE)
		return ukcov__remote_reset_trace(&__ukcov_thread);
	if (d->cb->mode != UKCOV_MODE_PC && d->cb->mode != UKCOV_MODE_CMP)
		return -EINVAL;
	/* The thread's own armed count bounds the clear, not the shared
	 * block's (a peer may have rewritten it). */
	ukcov__uniq_reset_buffer(d->buf, __ukcov_thread.uniq_words);
	if (__ukcov_thread.uniq_words) {
		ukcov__uniq_trust_after_reset(&__ukcov_thread, d->buf);
		ukcov__imap_update(&__ukcov_thread);
	}
	return 0;
}

static int linux_disable(struct ukcov_desc *d, unsigned long arg)
{
	/* arg != 0 || current->kcov != kcov: also a non-owner thread and
	 * a descriptor that is not enabled. */
	if (arg != 0 || __ukcov_thread.owned != d ||
	    !ukcov__owned_by_me_locked(d->cb))
		return -EINVAL;
	ukcov__owner_disable_locked(d);
	return 0;
}

static int linux_ioctl(struct ukcov_desc *d, int fd, unsigned long req,
		       unsigned long arg)
{
	switch (req) {
	case KCOV_INIT_TRACE:
		return linux_init_trace(d, fd, arg);
	case KCOV_ENABLE:
		return linux_enable(d, fd, arg);
	case KCOV_DISABLE:
		return linux_disable(d, arg);
	case KCOV_UNIQUE_ENABLE:
		return linux_unique_enable(d, fd, arg, UKCOV_MODE_PC);
	case UKCOV_IOC_UNIQUE_ENABLE_CMP:
		return linux_unique_enable(d, fd, arg, UKCOV_MODE_CMP);
	case KCOV_RESET_TRACE:
		return linux_reset_trace(d, arg);
	case KCOV_REMOTE_ENABLE:
		return ukcov__remote_enable_locked(d, fd, arg);
	default:
		return -ENOTTY;
	}
}

/* kcov_mmap: a buffer, offset 0 and a vma exactly size*8 bytes long;
 * no protection check, any number of mappings. */
static int linux_mmap_check(const struct ukcov_cb *cb, size_t len, int prot,
			    int flags, off_t *off)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t vma = ((uint64_t)len + page - 1) & ~((uint64_t)page - 1);

	(void)prot;
	(void)flags;
	if (cb->state == UKCOV_ST_OPEN || *off != 0 || vma != cb->entries * 8)
		return -EINVAL;
	return 0;
}

/* kcov_close only drops a reference: an enabled thread keeps tracing
 * until it disables or exits. */
static void linux_last_close(struct ukcov_desc *d)
{
	(void)d;
}

const struct ukcov_os ukcov__os_linux = {
	.flavor = UKCOV_LINUX,
	.name = "linux",
	.ioctl = linux_ioctl,
	.mmap_check = linux_mmap_check,
	.last_close_locked = linux_last_close,
};
