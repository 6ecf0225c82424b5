/*
 * lib/os.c -- what the four flavors share: picking a flavor and the
 * UKCOV_IOC_DROPPED request (copying arguments in and out: copyio.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "requests.h"

const struct ukcov_os *ukcov__os(int flavor)
{
	switch (flavor) {
	case UKCOV_LINUX:   return &ukcov__os_linux;
	case UKCOV_FREEBSD: return &ukcov__os_freebsd;
	case UKCOV_NETBSD:  return &ukcov__os_netbsd;
	case UKCOV_OPENBSD: return &ukcov__os_openbsd;
	default:            return NULL;
	}
}

/* The flavor whose table is called name ("linux", "freebsd", "netbsd",
 * "openbsd": UKCOV_FLAVOR's values), or 0. */
int ukcov__flavor_by_name(const char *name)
{
	int fl;

	for (fl = UKCOV_LINUX; name && fl <= UKCOV_OPENBSD; fl++)
		if (strcmp(ukcov__os(fl)->name, name) == 0)
			return fl;
	return 0;
}

/* A /dev/kcov descriptor opened without UKCOV_FLAVOR takes its flavor
 * from its first request: FreeBSD's KIO* numbers are FreeBSD's own; the
 * 'K' group is shared by NetBSD and OpenBSD and means NetBSD. */
int ukcov__flavor_for_request(unsigned long req)
{
	if (req == UKCOV_REQ_FREEBSD_ENABLE || req == UKCOV_REQ_FREEBSD_DISABLE ||
	    req == UKCOV_REQ_FREEBSD_SETBUFSIZE)
		return UKCOV_FREEBSD;
	if (((req >> 8) & 0xff) == 'K')
		return UKCOV_NETBSD;
	return 0;
}

/* Requests every flavor accepts.  Sets *handled when req is one. */
int ukcov__ioctl_common(struct ukcov_desc *d, unsigned long req,
			unsigned long arg, int *handled)
{
	struct ukcov_cb *cb = d->cb;
	uint64_t now, n, *drops = &cb->drops, *drops_read = &cb->drops_read;
	int rc;

	*handled = 0;
	if (req != UKCOV_IOC_DROPPED)
		return 0;
	*handled = 1;
	/* A NetBSD descriptor attached to a remote counts the remote's. */
	if (cb->nb_attached)
		ukcov__nb_drops(cb, &drops, &drops_read);
	/* Report first, clear only once the caller has the value. */
	now = __atomic_load_n(drops, __ATOMIC_RELAXED);
	n = now - __atomic_load_n(drops_read, __ATOMIC_RELAXED);
	rc = ukcov__copyout((void *)arg, &n, sizeof(n));
	if (rc == 0)
		__atomic_store_n(drops_read, now, __ATOMIC_RELAXED);
	return rc;
}
