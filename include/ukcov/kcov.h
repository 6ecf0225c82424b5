/*
 * <ukcov/kcov.h> -- the native ukcov API: kcov descriptors in user space.
 *
 * A ukcov descriptor is a file descriptor that stands for one of the
 * kernels' kcov devices (Linux, FreeBSD, NetBSD, OpenBSD).  It is driven
 * with that OS's ioctl requests (see <ukcov/linux/kcov.h> and friends),
 * mapped with plain mmap(2), and it follows that OS's errno rules.  Code
 * compiled with -fsanitize-coverage=trace-pc and/or trace-cmp and linked
 * with libukcov records into the descriptor that the calling thread
 * enabled.
 *
 * Both functions return like the system calls they imitate: 0 (or a file
 * descriptor) on success, -1 with errno set on failure.
 */
#ifndef UKCOV_KCOV_H_5172
#define UKCOV_KCOV_H_5172

#include <stdint.h>

#if defined(__GNUC__)
#define UKCOV_API __attribute__((visibility("default")))
#else
#define UKCOV_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define UKCOV_VERSION_MAJOR 0
#define UKCOV_VERSION_MINOR 1
#define UKCOV_VERSION_PATCH 0
#define UKCOV_VERSION_STRING "0.1.0"

/* Flavors: which kernel's kcov device a descriptor imitates. */
#define UKCOV_LINUX   1
#define UKCOV_FREEBSD 2
#define UKCOV_NETBSD  3
#define UKCOV_OPENBSD 4

/*
 * Beyond the kernels: the number of records dropped because the buffer
 * was full, since the last UKCOV_IOC_DROPPED or since the descriptor was
 * enabled.  The call clears the count.  Accepted by every flavor, from
 * any thread or process that holds the descriptor; the argument is a
 * pointer to a uint64_t.  Encoded as _IOR('U', 0x01, uint64_t).
 */
#define UKCOV_IOC_DROPPED 0x80085501UL

/*
 * Beyond the kernels: unique comparison coverage.  Like Linux's
 * proposed KCOV_UNIQUE_ENABLE (<ukcov/linux/kcov.h>), the argument is
 * the number of leading buffer words that hold a bitmap, and the rest
 * is a KCOV_TRACE_CMP trace with its own count word; each distinct
 * {type, arg1, arg2, pc} record is appended once until the bitmap and
 * the count are zeroed (or KCOV_RESET_TRACE).  Linux-flavor
 * descriptors only; same errnos as KCOV_UNIQUE_ENABLE.  Encoded as
 * _IOW('U', 0x10, unsigned long).  See ukcov(4).
 */
#define UKCOV_IOC_UNIQUE_ENABLE_CMP 0x40085510UL

/*
 * Open a new descriptor of the given flavor.  Like open(2) without
 * O_CLOEXEC: the descriptor survives exec.  Returns the file descriptor,
 * or -1 with errno EINVAL (unknown flavor), EMFILE/ENFILE or ENOMEM.
 */
UKCOV_API int ukcov_open(int flavor);

/*
 * Issue a kcov request on a ukcov descriptor, with the argument
 * convention of the descriptor's OS: Linux and FreeBSD pass integers by
 * value, NetBSD and OpenBSD pass pointers.  Returns 0, or -1 with exactly
 * the errno the OS returns for the same transition.  A file descriptor
 * that is not open gets EBADF; one that is not a ukcov descriptor gets
 * ENOTTY.
 */
UKCOV_API int ukcov_ioctl(int fd, unsigned long request, ...);

/* The flavor of a ukcov descriptor (UKCOV_LINUX ...), 0 while a /dev/kcov
 * descriptor has not been decided yet, or -1 with errno (EBADF, ENOTTY). */
UKCOV_API int ukcov_flavor(int fd);

/* ukcov_dump() modes: what the buffer holds. */
#define UKCOV_DUMP_PC  0
#define UKCOV_DUMP_CMP 1

/*
 * Write the records of a kcov buffer of `entries` 8-byte words (word 0 =
 * count) to out_fd as a ukcov dump (docs/FORMATS.md): this process's
 * module table (path, build-id, load bias, text range) and the records
 * as module offsets, so that "ukcov covered-functions DUMP" and friends
 * symbolize them, here or on another machine.  The count is bounded by
 * `entries`, never trusted.  Returns 0, or -1 with errno (EINVAL, ENOMEM,
 * or write(2)'s).
 */
UKCOV_API int ukcov_dump(int out_fd, const uint64_t *buffer, uint64_t entries,
			 int mode);

/*
 * Remote coverage annotations (Linux kcov_remote_start/stop; see
 * ukcov_remote_start(3) and ukcov(4) REMOTE COVERAGE).  A collector
 * registers handles with KCOV_REMOTE_ENABLE; code that works for it on
 * another thread (a pool worker, an event-loop callback, a signal
 * handler) brackets that work with ukcov_remote_start(handle) and
 * ukcov_remote_stop(), and the coverage of the section is appended to
 * the collector's buffer at the stop.
 *
 * A handle is (subsystem << 56) | instance: subsystem 0 is the common
 * subsystem (handles a collector passes as common_handle), 1..0xff are
 * the application's global subsystems; bits 32-55 must be zero.  A
 * start for handle 0 or for a handle nobody registered does nothing.
 * Sections do not nest on a thread; a start on a thread that already
 * has a section open, traces itself or owns a remote collection is
 * ignored and reported once on stderr.  A signal handler may run a
 * section of its own inside the interrupted thread's.
 */
UKCOV_API void ukcov_remote_start(uint64_t handle);
UKCOV_API void ukcov_remote_stop(void);
/* ukcov_remote_start(KCOV_SUBSYSTEM_COMMON | id). */
UKCOV_API void ukcov_remote_start_common(uint32_t id);
/* The calling thread's common handle: set by its KCOV_REMOTE_ENABLE,
 * inherited by the threads it creates afterwards and by its fork
 * children; 0 if none, and 0 inside a signal handler. */
UKCOV_API uint64_t ukcov_common_handle(void);

/* The library's version string, e.g. "0.1.0". */
UKCOV_API const char *ukcov_version(void);

#ifdef __cplusplus
}
#endif
#endif /* UKCOV_KCOV_H_5172 */
