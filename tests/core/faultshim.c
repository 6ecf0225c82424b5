/*
 * tests/core/faultshim.c -- allocation failures on demand.
 * LD_PRELOAD'ed after libukcov.so.0, so that both the
 * runtime's direct calls (memfd_create, ftruncate, fallocate, calloc,
 * malloc) and the mmap it finds with dlsym(RTLD_NEXT) come here.
 * ukcov_test_fault_arm(fn, nth, e) makes the nth call of fn fail with
 * errno e; ukcov_test_fault_disarm() says whether it did.
 * ukcov_test_sigaction_hold(entered, release) stops the next sigaction
 * the runtime passes on (with dlsym(RTLD_NEXT)) while it holds its
 * signal table lock: it writes a byte to entered, then waits for one
 * on release.  Test-only: never linked into anything else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

void ukcov_test_fault_arm(const char *fn, int nth, int e);
int ukcov_test_fault_disarm(void);
void ukcov_test_sigaction_hold(int entered, int release);

static char armed[32];
static int nth_call, calls, fail_errno, fired;

void ukcov_test_fault_arm(const char *fn, int nth, int e)
{
	strncpy(armed, fn, sizeof(armed) - 1);
	nth_call = nth;
	calls = 0;
	fail_errno = e;
	fired = 0;
}

int ukcov_test_fault_disarm(void)
{
	armed[0] = 0;
	return fired;
}

static int inject(const char *fn)
{
	if (!armed[0] || strcmp(fn, armed) != 0 || ++calls != nth_call)
		return 0;
	fired = 1;
	errno = fail_errno;
	return 1;
}

#define NEXT(name) ((name##_fn)dlsym(RTLD_NEXT, #name))

typedef int (*memfd_create_fn)(const char *, unsigned);
typedef int (*ftruncate_fn)(int, off_t);
typedef int (*fallocate_fn)(int, int, off_t, off_t);
typedef void *(*mmap64_fn)(void *, size_t, int, int, int, off_t);

int memfd_create(const char *name, unsigned flags)
{
	return inject("memfd_create") ? -1 : NEXT(memfd_create)(name, flags);
}

int ftruncate(int fd, off_t len)
{
	return inject("ftruncate") ? -1 : NEXT(ftruncate)(fd, len);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	/* The runtime gives back a partial allocation with a second,
	 * FALLOC_FL_PUNCH_HOLE call: only allocations fail. */
	if (!(mode & FALLOC_FL_PUNCH_HOLE) && inject("fallocate"))
		return -1;
	return NEXT(fallocate)(fd, mode, off, len);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (inject("mmap"))
		return MAP_FAILED;
	return NEXT(mmap64)(addr, len, prot, flags, fd, off);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap64(addr, len, prot, flags, fd, off);
}

/* glibc's own entry points: dlsym itself may allocate. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);

void *malloc(size_t n)
{
	return inject("malloc") ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return inject("malloc") ? NULL : __libc_calloc(n, size);
}

/* One sigaction, from whichever thread calls first, held until the
 * test says: the fd is taken with an exchange, so only that call. */
static int hold_entered = -1, hold_release = -1;

void ukcov_test_sigaction_hold(int entered, int release)
{
	hold_release = release;
	__atomic_store_n(&hold_entered, entered, __ATOMIC_RELEASE);
}

typedef int (*sigaction_fn)(int, const struct sigaction *,
			    struct sigaction *);

int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	int in = __atomic_exchange_n(&hold_entered, -1, __ATOMIC_ACQ_REL);
	char c = 0;

	if (in >= 0 && write(in, &c, 1) == 1)
		(void)!read(hold_release, &c, 1);
	return NEXT(sigaction)(sig, act, oact);
}
