/*
 * <ukcov/openbsd/kcov.h> -- OpenBSD's kcov interface, names and values as
 * in sys/sys/kcov.h rev 1.9.  Requests take a pointer to their argument.
 * The device path is /dev/kcov.
 */
#ifndef UKCOV_OPENBSD_KCOV_H_6603
#define UKCOV_OPENBSD_KCOV_H_6603

#include <stdint.h>
#include <ukcov/kcov.h>

struct kio_remote_attach {
	int subsystem;
	int id;
};

/* _IOW('K', 1, unsigned long), _IOW('K', 2, int), _IO('K', 3),
 * _IOW('K', 4, struct kio_remote_attach *) */
#define KIOSETBUFSIZE   0x80084b01UL
#define KIOENABLE       0x80044b02UL
#define KIODISABLE      0x20004b03UL
#define KIOREMOTEATTACH 0x80084b04UL

#define KCOV_MODE_NONE      0
#define KCOV_MODE_TRACE_PC  1
#define KCOV_MODE_TRACE_CMP 2

#define KCOV_CMP_CONST   0x1
#define KCOV_CMP_SIZE(x) ((x) << 1)
#define KCOV_CMP_MASK    (3 << 1)

#define KCOV_REMOTE_COMMON 0

#define KCOV_BUF_MAX_NMEMB (512 << 10)

#endif /* UKCOV_OPENBSD_KCOV_H_6603 */
