/*
 * <ukcov/netbsd/kcov.h> -- NetBSD's kcov interface, names and values as in
 * sys/sys/kcov.h rev 1.10.  Requests take a pointer to their argument.
 * The device path is /dev/kcov.
 */
#ifndef UKCOV_NETBSD_KCOV_H_4417
#define UKCOV_NETBSD_KCOV_H_4417

#include <stdint.h>
#include <ukcov/kcov.h>

struct kcov_ioc_remote_attach {
	uint64_t subsystem;
	uint64_t id;
};

/* _IOW('K', 1, uint64_t), _IOW('K', 2, int), _IO('K', 3),
 * _IOW('K', 10, struct kcov_ioc_remote_attach), _IO('K', 11) */
#define KCOV_IOC_SETBUFSIZE    0x80084b01UL
#define KCOV_IOC_ENABLE        0x80044b02UL
#define KCOV_IOC_DISABLE       0x20004b03UL
#define KCOV_IOC_REMOTE_ATTACH 0x80104b0aUL
#define KCOV_IOC_REMOTE_DETACH 0x20004b0bUL

#define KCOV_REMOTE_VHCI 0
#define KCOV_REMOTE_VHCI_ID(bus, port) \
	(((uint64_t)(bus) << 32ULL) | ((uint64_t)(port) & 0xFFFFFFFFULL))

#define KCOV_MODE_NONE      0
#define KCOV_MODE_TRACE_PC  1
#define KCOV_MODE_TRACE_CMP 2

#define KCOV_CMP_CONST   1
#define KCOV_CMP_SIZE(x) ((x) << 1)
#define KCOV_CMP_MASK    (3 << 1)

typedef volatile uint64_t kcov_int_t;
#define KCOV_ENTRY_SIZE sizeof(kcov_int_t)

#endif /* UKCOV_NETBSD_KCOV_H_4417 */
