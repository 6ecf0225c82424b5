/*
 * lib/follow.c -- "ukcov run --threads all": every thread of the traced
 * program records too.
 *
 * A kcov descriptor belongs to one thread, so the threads the program
 * creates cannot share the inherited one.  When the runtime takes over
 * a descriptor at exec and UKCOV_THREADS_OUT names a file, each new
 * thread gets a private buffer of the same size and mode (the way
 * Linux's remote sections collect into private areas); at thread exit,
 * and at process exit for threads still running, the buffer is appended
 * to that file as one block:
 *
 *	u64 UKCOV_THREADBLOCK_MAGIC, tid, mode (1 pc, 2 cmp), count, dropped,
 *	    bitmap words (0: a plain trace; >0: unique mode, records once
 *	    each per thread)
 *	count records (1 or 4 u64 each)
 *
 * In a unique mode (ukcov run's default) each thread's private buffer
 * has the descriptor's layout: the bitmap, then the trace.
 *
 * A block with tid 0 and count 0 is written at setup, so the tool can
 * tell "no threads" from "this runtime cannot follow threads".  New
 * threads are seen through pthread_create: the shared runtime
 * interposes it by name; libukcov.a sees it only through the link's
 * --wrap=pthread_create (lib/static_wrap.c), since glibc's own
 * pthread_create cannot be reached by name in a static program.  A
 * link without the wrap writes no setup block, and the tool says
 * which flag is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static struct {
	int active;		/* this process follows its threads */
	int mode;		/* UKCOV_MODE_PC or UKCOV_MODE_CMP */
	uint64_t entries;
	uint64_t uniq_words;	/* bitmap words of a unique mode, or 0 */
	char path[PATH_MAX];
} follow;

static size_t area_bytes(uint64_t entries)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return ((size_t)entries * 8 + page - 1) & ~(page - 1);
}

static void write_block(pid_t tid, int mode, const uint64_t *recs,
			uint64_t count, uint64_t dropped)
{
	uint64_t head[UKCOV_TB_HEADER_WORDS] = {
		[UKCOV_TB_MAGIC] = UKCOV_THREADBLOCK_MAGIC,
		[UKCOV_TB_TID] = (uint64_t)tid,
		[UKCOV_TB_MODE] = mode == UKCOV_MODE_CMP ? 2 : 1,
		[UKCOV_TB_COUNT] = count,
		[UKCOV_TB_DROPPED] = dropped,
		[UKCOV_TB_BITMAP] = follow.uniq_words,
	};
	size_t words = mode == UKCOV_MODE_CMP ? 4 : 1;
	static int said;	/* [A] the symlink message */
	int fd = ukcov__env_open_append("UKCOV_THREADS_OUT", follow.path, 1,
					&said);

	if (fd < 0)
		return;
	if (ukcov__write_all(fd, head, sizeof(head)) == 0 && count)
		ukcov__write_all(fd, recs, count * words * 8);
	ukcov__real_close(fd);
}

#ifdef UKCOV_SHARED_RUNTIME
static int sees_thread_starts(void)
{
	return 1;	/* pthread_create below */
}
#else
/* lib/static_wrap.c's, in the link only when --wrap=pthread_create (or
 * pkg-config's -u) pulled that member in, and then every pthread_create
 * of the program comes through it.  A weak reference does not pull the
 * member; hidden, it is resolved at link time: NULL when absent. */
extern int __wrap_pthread_create(pthread_t *th,	/* NOLINT(bugprone-reserved-identifier) */
				 const pthread_attr_t *attr,
				 void *(*fn)(void *), void *arg)
	__attribute__((weak, visibility("hidden")));

static int sees_thread_starts(void)
{
	return __wrap_pthread_create != NULL;
}
#endif

/* Called after an exec takeover armed the main thread. */
void ukcov__follow_setup(int mode, uint64_t entries, uint64_t uniq_words)
{
	const char *path = ukcov__env("UKCOV_THREADS_OUT");

	if (!path || !*path || strlen(path) >= sizeof(follow.path) ||
	    (mode != UKCOV_MODE_PC && mode != UKCOV_MODE_CMP) || entries < 2 ||
	    (uniq_words && ukcov__uniq_check_words(entries, uniq_words)))
		return;
	memcpy(follow.path, path, strlen(path) + 1);	/* length checked above */
	follow.mode = mode;
	follow.entries = entries;
	follow.uniq_words = uniq_words;
	if (!sees_thread_starts())
		return;	/* the tool warns: no setup block */
	follow.active = 1;
	write_block(0, mode, NULL, 0, 0);
}

/* Append what t recorded; with unmap, t is done (thread exit).
 * Called with ukcov__proc_lock held, which keeps blocks whole. */
void ukcov__follow_flush_locked(struct ukcov_thread *t, int unmap)
{
	uint64_t *buf = t->follow_area;

	/* A tree process's buffers are files: nothing to write.  The
	 * thread that exits the process records no more: its buffer is
	 * trimmed too; the others may still be writing into theirs. */
	if (ukcov__tree_active()) {
		unmap |= t == &__ukcov_thread;
		if (unmap) {
			ukcov__thread_clear_hot(t);
			t->follow_area = NULL;
			t->mode = UKCOV_MODE_NONE;
		}
		ukcov__tree_release(buf, unmap);
		return;
	}
	/* The trace follows the bitmap in a unique mode. */
	uint64_t *area = buf + follow.uniq_words;
	uint64_t trace = t->follow_entries - follow.uniq_words;
	/* follow.mode, not t->mode: the thread may have enabled a
	 * descriptor of its own since, which changed its mode. */
	uint64_t cap = follow.mode == UKCOV_MODE_CMP ? (trace - 1) / 4
						     : trace - 1;
	uint64_t n = __atomic_load_n(&area[0], __ATOMIC_ACQUIRE);

	write_block(t->tid, follow.mode, area + 1, n < cap ? n : cap,
		    __atomic_load_n(&t->follow_drops, __ATOMIC_RELAXED));
	if (!unmap) {
		/* Saved once: what comes later is lost with exit_group. */
		t->follow_area = NULL;
		return;
	}
	ukcov__thread_clear_hot(t);
	t->follow_area = NULL;
	t->mode = UKCOV_MODE_NONE;
	munmap(buf, area_bytes(t->follow_entries));
}

/* The thread records into a --threads all buffer, which counts as its
 * tracing for the kernels' rules (a remote section in a tracing task
 * is ignored).  A buffer of a tree process (tree.c) does not: it is
 * ukcov run's observation, and the program's own kcov calls (sections,
 * NetBSD remotes) behave as they would without it. */
int ukcov__follow_traces(const struct ukcov_thread *t)
{
	return t->follow_area != NULL && !ukcov__tree_active();
}

void ukcov__follow_after_fork_child(void)
{
	follow.active = 0;	/* a child is not the traced program */
}

/* A new thread inherits its creator's common handle (Linux
 * kcov_task_init copies current->kcov_handle) and, under ukcov run
 * --threads all, gets a private buffer.  Both need the thread's start:
 * the shared runtime interposes pthread_create; libukcov.a is reached
 * through the linker's --wrap=pthread_create, which pkg-config --static
 * --libs ukcov passes (lib/static_wrap.c). */
struct follow_start {
	void *(*fn)(void *);
	void *arg;
	int follow;		/* give the thread a private buffer */
	uint64_t common_handle;	/* the creator's (Linux kcov_task_init) */
};

static void *follow_thread_start(void *p)
{
	struct follow_start s = *(struct follow_start *)p;
	void *area;

	free(p);
	__ukcov_thread.common_handle = s.common_handle;
	if (!s.follow)
		return s.fn(s.arg);
	if (ukcov__tree_follows_threads()) {
		ukcov__tree_arm_thread();
		return s.fn(s.arg);
	}
	area = mmap(NULL, area_bytes(follow.entries), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area != MAP_FAILED)
		ukcov__thread_follow_arm(&__ukcov_thread, area,
					 follow.entries, follow.mode,
					 follow.uniq_words, NULL);
	return s.fn(s.arg);
}

/* pthread_create through next (libc's), wrapped only when the thread
 * must follow or inherits a remote common handle; otherwise libc's,
 * untouched. */
int ukcov__thread_create(pthread_t *th, const pthread_attr_t *attr,
			 void *(*fn)(void *), void *arg,
			 ukcov_pthread_create_fn next)
{
	struct follow_start *s;
	int rc;

	int follows = follow.active || ukcov__tree_follows_threads();

	if (ukcov__afl_follows())
		return ukcov__afl_thread_create(th, attr, fn, arg, next);
	if ((!follows && !__ukcov_thread.common_handle) ||
	    !(s = malloc(sizeof(*s))))
		return next(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->follow = follows;
	s->common_handle = __ukcov_thread.common_handle;
	rc = next(th, attr, follow_thread_start, s);
	if (rc)
		free(s);
	return rc;
}

#ifdef UKCOV_SHARED_RUNTIME
UKCOV_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr,
				void *(*fn)(void *), void *arg)
{
	return ukcov__thread_create(th, attr, fn, arg,
				    ukcov__real_pthread_create);
}

/* A dynamic link with pkg-config --static's flags (--wrap) lands here:
 * the same wrapper. */
UKCOV_EXPORT int __wrap_pthread_create(pthread_t *th,	/* NOLINT(bugprone-reserved-identifier) */
				       const pthread_attr_t *attr,
				       void *(*fn)(void *), void *arg)
{
	return ukcov__thread_create(th, attr, fn, arg,
				    ukcov__real_pthread_create);
}
#endif
