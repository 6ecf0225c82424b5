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

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Application-side remotes, the analogue of NetBSD's in-kernel
 * kcov_remote_register/enter/leave (sys/kern/subr_kcov.c): see
 * ukcov_remote_register(3) and ukcov(4) REMOTE COVERAGE.
 *
 * A registered remote (subsystem, id) owns one buffer of
 * UKCOV_NETBSD_REMOTE_ENTRIES entries (NetBSD's KCOV_BUF_MAX_ENTRIES);
 * every descriptor attached to it with KCOV_IOC_REMOTE_ATTACH maps that
 * same buffer.  Between ukcov_remote_enter and ukcov_remote_leave the
 * calling thread records straight into it while the remote is enabled.
 * Each returns 0, or -1 with errno:
 *   register  EEXIST  (subsystem, id) is registered already, in this
 *                     process or by a live process of this user;
 *             ENOMEM, EMFILE  no memory or no descriptor for the buffer;
 *   enter     ENOENT  the remote is not registered;
 *             EBUSY   the thread traces a descriptor of its own, runs a
 *                     remote section already (no nesting), is inside a
 *                     signal handler, or another thread is inside this
 *                     remote;
 *   leave     EINVAL  the thread did not enter this remote.
 * Every refusal is also reported once per reason on stderr.
 */
#define UKCOV_NETBSD_REMOTE_ENTRIES (256 << 10)
UKCOV_API int ukcov_remote_register(uint64_t subsystem, uint64_t id);
UKCOV_API int ukcov_remote_enter(uint64_t subsystem, uint64_t id);
UKCOV_API int ukcov_remote_leave(uint64_t subsystem, uint64_t id);

#ifdef __cplusplus
}
#endif

#endif /* UKCOV_NETBSD_KCOV_H_4417 */
