/*
 * lib/static_wrap.c -- pthread_create for programs linked with
 * libukcov.a (only there: not in libukcov.so, which interposes
 * pthread_create itself).
 *
 * A fully static program's pthread_create is glibc's, which nothing
 * outside libc.a can interpose by name, so threads it creates would
 * neither inherit the remote common handle (Linux kcov_task_init copies
 * current->kcov_handle to every new task) nor be followed by "ukcov
 * run --threads all" (lib/follow.c).  The linker's
 * --wrap=pthread_create, which `pkg-config --static --libs ukcov`
 * passes, sends the program's calls here, and __real_pthread_create is
 * glibc's.  This member is pulled from the archive only by the
 * reference --wrap makes (and pkg-config's -u __wrap_pthread_create,
 * so that a reference met after libukcov.a, e.g. libstdc++.a's, still
 * finds it): a link without it gets glibc's pthread_create and no
 * unresolved __real_pthread_create.
 */
#include <pthread.h>

#include "internal.h"

/* The linker's names for --wrap (ld(1)); not ours to choose. */
int __real_pthread_create(pthread_t *th,	/* NOLINT(bugprone-reserved-identifier) */
			  const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);

/* Its presence in the link also tells lib/follow.c that thread starts
 * are seen, so "ukcov run --threads all" follows the threads. */
UKCOV_EXPORT int __wrap_pthread_create(pthread_t *th,	/* NOLINT(bugprone-reserved-identifier) */
				       const pthread_attr_t *attr,
				       void *(*fn)(void *), void *arg)
{
	return ukcov__thread_create(th, attr, fn, arg, __real_pthread_create);
}
