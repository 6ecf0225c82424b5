/*
 * <ukcov/freebsd/kcov.h> -- FreeBSD's kcov interface, names and values as
 * in sys/sys/kcov.h and sys/sys/coverage.h.  Requests take their argument
 * by value (_IOWINT).  The device path is /dev/kcov.
 */
#ifndef UKCOV_FREEBSD_KCOV_H_8830
#define UKCOV_FREEBSD_KCOV_H_8830

#include <stdint.h>
#include <ukcov/kcov.h>

#define KCOV_MAXENTRIES (1 << 24)	/* 16M */
#define KCOV_ENTRY_SIZE 8

#define KCOV_MODE_TRACE_PC  0
#define KCOV_MODE_TRACE_CMP 1

/* _IOWINT('c', 2), _IO('c', 3), _IOWINT('c', 4) */
#define KIOENABLE     0x20046302UL
#define KIODISABLE    0x20006303UL
#define KIOSETBUFSIZE 0x20046304UL

#define KCOV_CMP_CONST       (1 << 0)
#define KCOV_CMP_SIZE(x)     ((x) << 1)
#define KCOV_CMP_MASK        (3 << 1)
#define KCOV_CMP_GET_SIZE(x) (((x) >> 1) & 3)

#endif /* UKCOV_FREEBSD_KCOV_H_8830 */
