/*
 * tests/core/harness.h -- a libuv-style test runner for the core suite.
 *
 * Every test runs in its own forked child, in its own process group,
 * with a timeout: a crash or a hang fails that test and nothing else.
 * The runner prints one line per test ("ok NAME" or "not ok NAME:
 * REASON") and, last, "N passed, N failed".
 *
 * This file and everything that includes it is never compiled with
 * -fsanitize-coverage: only tests/core/targets/ is instrumented.
 */
#ifndef CORE_HARNESS_H
#define CORE_HARNESS_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* What a test needs from the binary it runs in. */
#define NEED_CMP    (1u << 0)	/* targets built with trace-cmp */
#define NEED_NATIVE (1u << 1)	/* the native API (ukcov_open/ukcov_ioctl) */

typedef void (*test_fn)(const void *arg);

/* Register a test; name is copied. */
void test_add(const char *name, test_fn fn, const void *arg, unsigned need);
/* Same, with a printf-style name. */
void test_addf(test_fn fn, const void *arg, unsigned need, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Run the registered tests whose needs the binary meets and whose name
 * contains filter (NULL: all).  Prints the report; returns the number
 * of failures. */
int test_run_all(unsigned have, const char *prefix, const char *filter);

/* Fail the running test (from any thread or forked child of it). */
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

const char *errname(int e);

#define FAIL(...) test_fail(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			FAIL("%s", #cond);				\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);	\
		if (a_ != b_)						\
			FAIL("%s == %s: 0x%llx != 0x%llx (%lld != %lld)", \
			     #a, #b, (unsigned long long)a_,		\
			     (unsigned long long)b_, (long long)a_,	\
			     (long long)b_);				\
	} while (0)

/* A call that must succeed (return >= 0, or != MAP_FAILED via CHECK_MAP). */
#define CHECK_OK(call)							\
	do {								\
		errno = 0;						\
		long r_ = (long)(call);					\
		if (r_ < 0)						\
			FAIL("%s: %ld, errno %s", #call, r_, errname(errno)); \
	} while (0)

/* A call that must fail with -1 and exactly errno e. */
#define CHECK_ERR(call, e)						\
	do {								\
		errno = 0;						\
		long r_ = (long)(call);					\
		int e_ = errno, want_ = (e);				\
		if (r_ != -1 || e_ != want_)				\
			FAIL("%s: want -1 %s, got %ld %s", #call,	\
			     errname(want_), r_, r_ == -1 ? errname(e_) : ""); \
	} while (0)

#endif
