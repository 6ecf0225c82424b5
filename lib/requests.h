/*
 * lib/requests.h -- every kcov request number of the four kernels in one
 * namespace, for code that must tell them apart before it knows the
 * flavor.  The per-OS headers cannot be included together: NetBSD's and
 * OpenBSD's names collide with each other and with FreeBSD's.
 */
#ifndef UKCOV_REQUESTS_H
#define UKCOV_REQUESTS_H

#define UKCOV_REQ_LINUX_INIT_TRACE	0x80086301UL
#define UKCOV_REQ_LINUX_ENABLE		0x6364UL
#define UKCOV_REQ_LINUX_DISABLE		0x6365UL
#define UKCOV_REQ_LINUX_REMOTE_ENABLE	0x40186366UL
#define UKCOV_REQ_LINUX_UNIQUE_ENABLE	0x40086367UL	/* proposed 2025 */
#define UKCOV_REQ_LINUX_RESET_TRACE	0x6368UL	/* proposed 2025 */
#define UKCOV_REQ_FREEBSD_ENABLE	0x20046302UL
#define UKCOV_REQ_FREEBSD_DISABLE	0x20006303UL
#define UKCOV_REQ_FREEBSD_SETBUFSIZE	0x20046304UL
#define UKCOV_REQ_K_SETBUFSIZE		0x80084b01UL	/* NetBSD, OpenBSD */
#define UKCOV_REQ_K_ENABLE		0x80044b02UL	/* NetBSD, OpenBSD */
#define UKCOV_REQ_K_DISABLE		0x20004b03UL	/* NetBSD, OpenBSD */
#define UKCOV_REQ_OPENBSD_REMOTEATTACH	0x80084b04UL
#define UKCOV_REQ_NETBSD_REMOTE_ATTACH	0x80104b0aUL
#define UKCOV_REQ_NETBSD_REMOTE_DETACH	0x20004b0bUL

#endif
