/*
 * lib/afl_rtn.c -- the compare routines of a CmpLog build: ukcov-cc
 * links the program with --wrap=memcmp (and bcmp, strcmp, strncmp,
 * strcasecmp, strncasecmp, strstr, memmem) and -fno-builtin-*, as
 * libFuzzer hooks these routines (compiler-rt
 * sanitizer_common_interceptors.inc, the weak hooks), so each call the
 * program makes comes here.  While a CmpLog map is attached the
 * thread that runs the input logs the operands (lib/afl_cmplog.c);
 * otherwise a call costs one load and a jump to libc's routine.
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

#define CALLER() ((uint64_t)(uintptr_t)__builtin_return_address(0))
#define LOGGING() unlikely(__atomic_load_n(&ukcov__afl_cmp, __ATOMIC_RELAXED) != NULL)

UKCOV_EXPORT int __wrap_memcmp(const void *a, const void *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_mem(CALLER(), a, b, n);
	return REAL(memcmp)(a, b, n);
}

UKCOV_EXPORT int __wrap_bcmp(const void *a, const void *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_mem(CALLER(), a, b, n);
	return REAL(bcmp)(a, b, n);	/* NOLINT(clang-analyzer-security.insecureAPI.bcmp) */
}

UKCOV_EXPORT int __wrap_strcmp(const char *a, const char *b)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_str(CALLER(), a, b, (size_t)-1);
	return REAL(strcmp)(a, b);
}

UKCOV_EXPORT int __wrap_strncmp(const char *a, const char *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_str(CALLER(), a, b, n);
	return REAL(strncmp)(a, b, n);
}

UKCOV_EXPORT int __wrap_strcasecmp(const char *a, const char *b)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_str(CALLER(), a, b, (size_t)-1);
	return REAL(strcasecmp)(a, b);
}

UKCOV_EXPORT int __wrap_strncasecmp(const char *a, const char *b, size_t n)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_str(CALLER(), a, b, n);
	return REAL(strncasecmp)(a, b, n);
}

/* The needle against the haystack's start: AFL++'s routine pass logs
 * strstr's operands the same way. */
UKCOV_EXPORT char *__wrap_strstr(const char *h, const char *needle)	/* NOLINT(bugprone-reserved-identifier) */
{
	if (LOGGING())
		ukcov__afl_rtn_str(CALLER(), h, needle, (size_t)-1);
	return REAL(strstr)(h, needle);
}

UKCOV_EXPORT void *__wrap_memmem(const void *h, size_t hn, const void *needle,	/* NOLINT(bugprone-reserved-identifier) */
				 size_t nn)
{
	if (LOGGING())
		ukcov__afl_rtn_mem(CALLER(), h, needle, hn < nn ? hn : nn);
	return REAL(memmem)(h, hn, needle, nn);
}
