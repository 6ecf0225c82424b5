/*
 * lib/afl_rtn.c -- the compare routines of a CmpLog build: ukcov-cc
 * links the program with --wrap=memcmp (and bcmp, strcmp, strncmp,
 * strcasecmp, strncasecmp, strstr, memmem) and -fno-builtin-*, as
 * libFuzzer hooks these routines (compiler-rt
 * sanitizer_common_interceptors.inc, the weak hooks), so each call the
 * program makes comes here.  While something listens (a CmpLog map is
 * attached, lib/afl_cmplog.c, or "ukcov fuzz" runs the program,
 * lib/fuzz_exec.c) the thread that runs the input logs the operands;
 * otherwise a call costs one load, a compare and a jump to libc's
 * routine.  The logging path is a function of its own that the wrapper
 * tail-calls, so the compiler saves no registers on the path that
 * does not log (callgrind, a 16-byte memcmp in a loop: 6 instructions
 * a call in the wrapper, 18 when the logging call was inline;
 * docs/PERFORMANCE.md, "ukcov fuzz").
 *
 * The shared runtime reaches libc by the plain name (--wrap renames
 * only the program's references); libukcov.a, linked with --wrap
 * itself, by __real_NAME (lib/afl_rtn_static.c).
 */
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "afl.h"

#ifdef UKCOV_RTN_STATIC
#define REAL(name) __real_##name
int __real_memcmp(const void *, const void *, size_t);	/* NOLINT(bugprone-reserved-identifier) */
int __real_bcmp(const void *, const void *, size_t);	/* NOLINT(bugprone-reserved-identifier) */
int __real_strcmp(const char *, const char *);		/* NOLINT(bugprone-reserved-identifier) */
int __real_strncmp(const char *, const char *, size_t);	/* NOLINT(bugprone-reserved-identifier) */
int __real_strcasecmp(const char *, const char *);	/* NOLINT(bugprone-reserved-identifier) */
int __real_strncasecmp(const char *, const char *, size_t); /* NOLINT(bugprone-reserved-identifier) */
char *__real_strstr(const char *, const char *);	/* NOLINT(bugprone-reserved-identifier) */
void *__real_memmem(const void *, size_t, const void *, size_t); /* NOLINT(bugprone-reserved-identifier) */
#else
#define REAL(name) name
#endif

/* The linker's names for --wrap (ld(1)); not ours to choose. */
/* NOLINTBEGIN(bugprone-reserved-identifier) */
int __wrap_memcmp(const void *a, const void *b, size_t n);
int __wrap_bcmp(const void *a, const void *b, size_t n);
int __wrap_strcmp(const char *a, const char *b);
int __wrap_strncmp(const char *a, const char *b, size_t n);
int __wrap_strcasecmp(const char *a, const char *b);
int __wrap_strncasecmp(const char *a, const char *b, size_t n);
char *__wrap_strstr(const char *h, const char *needle);
void *__wrap_memmem(const void *h, size_t hn, const void *needle, size_t nn);
/* NOLINTEND(bugprone-reserved-identifier) */

#define LISTENING() unlikely(__atomic_load_n(&ukcov__rtn_on, __ATOMIC_RELAXED))
#define CALLER() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* The logging paths: log, then do the routine's work.  noinline keeps
 * their frame out of the wrappers. */
__attribute__((noinline)) static int rtn_memcmp(const void *a, const void *b,
						size_t n, uint64_t pc)
{
	ukcov__rtn_mem(pc, a, b, n);
	return REAL(memcmp)(a, b, n);
}

__attribute__((noinline)) static int rtn_bcmp(const void *a, const void *b,
					      size_t n, uint64_t pc)
{
	ukcov__rtn_mem(pc, a, b, n);
	/* NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.bcmp) */
	return REAL(bcmp)(a, b, n);
}

__attribute__((noinline)) static int rtn_strcmp(const char *a, const char *b,
						uint64_t pc)
{
	ukcov__rtn_str(pc, a, b, (size_t)-1, 0);
	return REAL(strcmp)(a, b);
}

__attribute__((noinline)) static int rtn_strncmp(const char *a, const char *b,
						 size_t n, uint64_t pc)
{
	ukcov__rtn_str(pc, a, b, n, 0);
	return REAL(strncmp)(a, b, n);
}

__attribute__((noinline)) static int rtn_strcasecmp(const char *a,
						    const char *b, uint64_t pc)
{
	ukcov__rtn_str(pc, a, b, (size_t)-1, 1);
	return REAL(strcasecmp)(a, b);
}

__attribute__((noinline)) static int
rtn_strncasecmp(const char *a, const char *b, size_t n, uint64_t pc)
{
	ukcov__rtn_str(pc, a, b, n, 1);
	return REAL(strncasecmp)(a, b, n);
}

/* The needle against the haystack's start: AFL++'s routine pass logs
 * strstr's operands the same way. */
__attribute__((noinline)) static char *
rtn_strstr(const char *h, const char *needle, uint64_t pc)
{
	ukcov__rtn_str(pc, h, needle, (size_t)-1, 0);
	return REAL(strstr)(h, needle);
}

__attribute__((noinline)) static void *
rtn_memmem(const void *h, size_t hn, const void *needle, size_t nn, uint64_t pc)
{
	ukcov__rtn_mem(pc, h, needle, hn < nn ? hn : nn);
	return REAL(memmem)(h, hn, needle, nn);
}

UKCOV_EXPORT int __wrap_memcmp(const void *a, const void *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_memcmp(a, b, n, CALLER());
	return REAL(memcmp)(a, b, n);
}

UKCOV_EXPORT int __wrap_bcmp(const void *a, const void *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_bcmp(a, b, n, CALLER());
	return REAL(bcmp)(a, b, n);	/* NOLINT(clang-analyzer-security.insecureAPI.bcmp) */
}

UKCOV_EXPORT int __wrap_strcmp(const char *a, const char *b)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_strcmp(a, b, CALLER());
	return REAL(strcmp)(a, b);
}

UKCOV_EXPORT int __wrap_strncmp(const char *a, const char *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_strncmp(a, b, n, CALLER());
	return REAL(strncmp)(a, b, n);
}

UKCOV_EXPORT int __wrap_strcasecmp(const char *a, const char *b)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_strcasecmp(a, b, CALLER());
	return REAL(strcasecmp)(a, b);
}

UKCOV_EXPORT int __wrap_strncasecmp(const char *a, const char *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_strncasecmp(a, b, n, CALLER());
	return REAL(strncasecmp)(a, b, n);
}

UKCOV_EXPORT char *__wrap_strstr(const char *h, const char *needle)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LISTENING())
		return rtn_strstr(h, needle, CALLER());
	return REAL(strstr)(h, needle);
}

UKCOV_EXPORT void *__wrap_memmem(const void *h, size_t hn, const void *needle,	/* NOLINT(bugprone-reserved-identifier) */
				 size_t nn)
{
	if (LISTENING())
		return rtn_memmem(h, hn, needle, nn, CALLER());
	return REAL(memmem)(h, hn, needle, nn);
}
