/*
 * tests/static/prog.c -- a fully static program (cc -static ...
 * $(pkg-config --static --libs ukcov)) that uses what the runtime
 * interposes or needs from libc: every exec
 * function, posix_spawn, mmap, pthread_create.  Uninstrumented; only
 * target.c is.
 *
 *   prog exec HOW   a child enables a descriptor, calls static_leaf
 *                   once and execs this program through HOW (execl,
 *                   execlp, execle, execv, execvp, execvpe, execve,
 *                   execveat, fexecve) as "prog image ENV"; the new image
 *                   calls static_leaf twice.  The parent expects 3
 *                   records, all in static_leaf.
 *   prog image      (the exec'd image) as above; exits 0 if the
 *                   environment it got is the one HOW passes.
 *   prog errors DIR the exec family's errnos, as glibc's: a name found
 *                   nowhere on PATH is ENOENT, one found only without
 *                   execute permission (DIR/noexec) EACCES, fexecve of
 *                   fd -1 EINVAL.
 *   prog spawn      posix_spawn and posix_spawnp of "prog noop".
 *   prog mmap       Linux kcov_mmap: a size other than the buffer's
 *                   is EINVAL; the buffer's size maps.
 *   prog threads    the main thread calls static_leaf and creates a
 *                   thread that calls thread_leaf_a and creates a
 *                   thread of its own, which calls thread_leaf_b twice
 *                   (ukcov run --threads all follows both when the link
 *                   has --wrap=pthread_create).
 *   prog common     KCOV_REMOTE_ENABLE with a common handle; a thread
 *                   created after it, and that thread's own thread,
 *                   inherit the handle (Linux kcov_task_init) and run
 *                   a section with it: 2 records, both in static_leaf.
 *                   The runtime sees pthread_create through the link's
 *                   --wrap=pthread_create (pkg-config --static).
 * Prints "ok MODE" and exits 0, or names what failed and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/linux/kcov.h>

#define ENTRIES ((size_t)512)
#define ENVMARK "UKCOV_STATIC_ENV=1"

void static_leaf(void);
void thread_leaf_a(void);
void thread_leaf_b(void);
extern char **environ;

static int fail(const char *what)
{
	fprintf(stderr, "static %s: %s\n", what, strerror(errno));
	return 1;
}

static int open_traced(uint64_t **buf)
{
	int fd = ukcov_open(UKCOV_LINUX);

	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, ENTRIES) != 0)
		return -1;
	*buf = mmap(NULL, ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	return *buf == MAP_FAILED ? -1 : fd;
}

/* The new image: two calls, and the environment HOW passed. */
static int image_main(const char *want_env)
{
	static_leaf();
	static_leaf();
	if (strcmp(want_env, "env") == 0)
		return getenv("UKCOV_STATIC_ENV") ? 0 : 4;
	return 0;
}

static void do_exec(const char *how, const char *self, const char *dir)
{
	char *envp[] = { ENVMARK, NULL };
	char *argv_env[] = { "prog", "image", "env", NULL };
	char *argv_plain[] = { "prog", "image", "plain", NULL };
	int fd;

	if (strcmp(how, "execl") == 0)
		execl(self, "prog", "image", "plain", (char *)NULL);
	else if (strcmp(how, "execlp") == 0)
		execlp("prog", "prog", "image", "plain", (char *)NULL);
	else if (strcmp(how, "execle") == 0)
		execle(self, "prog", "image", "env", (char *)NULL, envp);
	else if (strcmp(how, "execv") == 0)
		execv(self, argv_plain);
	else if (strcmp(how, "execvp") == 0)
		execvp("prog", argv_plain);
	else if (strcmp(how, "execvpe") == 0)
		execvpe("prog", argv_env, envp);
	else if (strcmp(how, "execve") == 0)
		execve(self, argv_env, envp);
	else if (strcmp(how, "execveat") == 0)
		execveat(AT_FDCWD, self, argv_env, envp, 0);
	else if (strcmp(how, "fexecve") == 0 &&
		 (fd = open(self, O_RDONLY | O_CLOEXEC)) >= 0)
		fexecve(fd, argv_env, envp);
	(void)dir;
	fprintf(stderr, "static exec %s: %s\n", how, strerror(errno));
	_exit(5);
}

static int exec_main(const char *how, const char *self)
{
	uint64_t *buf;
	int fd = open_traced(&buf), st;
	char dir[4200], *slash;
	pid_t pid;

	if (fd < 0)
		return fail("open");
	/* execlp, execvp, execvpe find "prog" through PATH, after a
	 * directory that does not exist. */
	snprintf(dir, sizeof(dir), "/nonexistent-ukcov:%s", self);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	setenv("PATH", dir, 1);
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		if (ukcov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
			_exit(6);
		static_leaf();
		do_exec(how, self, dir);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "static exec %s: child status %#x\n", how, st);
		return 1;
	}
	if (__atomic_load_n(&buf[0], __ATOMIC_ACQUIRE) != 3) {
		fprintf(stderr, "static exec %s: %llu records, want 3\n", how,
			(unsigned long long)buf[0]);
		return 1;
	}
	return 0;
}

static int expect_errno(const char *what, int rc, int want)
{
	if (rc == -1 && errno == want)
		return 0;
	fprintf(stderr, "static %s: %d, %s; want -1, %s\n", what, rc,
		strerror(errno), strerror(want));
	return 1;
}

static int errors_main(const char *dir)
{
	char *argv[] = { "x", NULL };
	int bad = 0;

	setenv("PATH", dir, 1);
	bad |= expect_errno("execvp missing",
			    execvp("ukcov-no-such-program", argv), ENOENT);
	bad |= expect_errno("execlp missing",
			    execlp("ukcov-no-such-program", "x", (char *)NULL),
			    ENOENT);
	bad |= expect_errno("execvp noexec", execvp("noexec", argv), EACCES);
	bad |= expect_errno("execvpe noexec",
			    execvpe("noexec", argv, environ), EACCES);
	bad |= expect_errno("execv missing",
			    execv("/nonexistent-ukcov/x", argv), ENOENT);
	bad |= expect_errno("fexecve -1", fexecve(-1, argv, environ), EINVAL);
	bad |= expect_errno("execveat missing",
			    execveat(AT_FDCWD, "/nonexistent-ukcov/x", argv,
				     environ, 0), ENOENT);
	return bad;
}

static int spawn_main(const char *self)
{
	char *argv[] = { "prog", "noop", NULL };
	pid_t pid;
	int st, rc;

	rc = posix_spawn(&pid, self, NULL, NULL, argv, environ);
	if (rc != 0 || waitpid(pid, &st, 0) != pid || st != 0) {
		fprintf(stderr, "static posix_spawn: %s\n", strerror(rc));
		return 1;
	}
	rc = posix_spawnp(&pid, self, NULL, NULL, argv, environ);
	if (rc != 0 || waitpid(pid, &st, 0) != pid || st != 0) {
		fprintf(stderr, "static posix_spawnp: %s\n", strerror(rc));
		return 1;
	}
	return 0;
}

static int mmap_main(void)
{
	uint64_t *buf;
	int fd = open_traced(&buf);
	void *p;

	if (fd < 0)
		return fail("open");
	/* Linux kcov_mmap: "if (kcov->area == NULL || kcov->size != size)
	 * res = -EINVAL" -- served by the interposed mmap. */
	p = mmap(NULL, ENTRIES * 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED || errno != EINVAL) {
		fprintf(stderr, "static mmap of twice the size: %p, %s\n", p,
			strerror(errno));
		return 1;
	}
	p = mmap(NULL, ENTRIES * 8, PROT_READ, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? fail("mmap") : 0;
}

static void *inner_thread_body(void *arg)
{
	(void)arg;
	thread_leaf_b();
	thread_leaf_b();
	return NULL;
}

/* The inner thread exits (and its block is written) before this one. */
static void *thread_body(void *arg)
{
	pthread_t th;
	int rc;

	thread_leaf_a();
	rc = pthread_create(&th, NULL, inner_thread_body, NULL);
	if (rc == 0)
		rc = pthread_join(th, NULL);
	*(int *)arg = rc;
	return NULL;
}

static int threads_main(void)
{
	pthread_t th;
	int rc, inner = -1;

	static_leaf();
	rc = pthread_create(&th, NULL, thread_body, &inner);
	if (rc == 0)
		rc = pthread_join(th, NULL);
	if (rc == 0)
		rc = inner;
	if (rc != 0) {
		fprintf(stderr, "static pthread_create: %s\n", strerror(rc));
		return 1;
	}
	return 0;
}

#define COMMON_HANDLE (KCOV_SUBSYSTEM_COMMON | 0x77)

/* Its inherited common handle, then one section with it. */
static void *common_body(void *arg)
{
	uint64_t *got = arg;
	pthread_t th;

	got[0] = ukcov_common_handle();
	ukcov_remote_start(got[0]);
	static_leaf();
	ukcov_remote_stop();
	if (got[1] == 0)
		return NULL;
	/* The thread's own thread inherits it too. */
	if (pthread_create(&th, NULL, common_body, got + 1) != 0 ||
	    pthread_join(th, NULL) != 0)
		got[1] = ~0ULL;
	return NULL;
}

static int common_main(void)
{
	uint64_t raw[3] = { 0 }, got[3] = { 0, 1, 0 }, *buf;
	struct kcov_remote_arg *arg = (struct kcov_remote_arg *)raw;
	uint64_t pc, i, n;
	pthread_t th;
	int fd = open_traced(&buf);

	if (fd < 0)
		return fail("open");
	arg->trace_mode = KCOV_TRACE_PC;
	arg->area_size = ENTRIES;
	arg->common_handle = COMMON_HANDLE;
	if (ukcov_ioctl(fd, KCOV_REMOTE_ENABLE, (unsigned long)arg) != 0)
		return fail("KCOV_REMOTE_ENABLE");
	if (pthread_create(&th, NULL, common_body, got) != 0 ||
	    pthread_join(th, NULL) != 0)
		return fail("pthread_create");
	if (got[0] != COMMON_HANDLE || got[1] != COMMON_HANDLE) {
		fprintf(stderr, "static common: threads got 0x%llx, 0x%llx; "
			"want 0x%llx\n", (unsigned long long)got[0],
			(unsigned long long)got[1],
			(unsigned long long)COMMON_HANDLE);
		return 1;
	}
	n = __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE);
	if (n != 2) {
		fprintf(stderr, "static common: %llu records, want 2\n",
			(unsigned long long)n);
		return 1;
	}
	for (i = 0; i < n; i++) {
		pc = buf[1 + i];
		if (pc <= (uint64_t)(uintptr_t)static_leaf ||
		    pc > (uint64_t)(uintptr_t)static_leaf + 64) {
			fprintf(stderr, "static common: PC 0x%llx not in "
				"static_leaf\n", (unsigned long long)pc);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *self = "/proc/self/exe";
	char path[4096];
	ssize_t n;
	int rc;

	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "image") == 0)
		return image_main(argc > 2 ? argv[2] : "plain");
	if (strcmp(argv[1], "noop") == 0)
		return 0;
	n = readlink(self, path, sizeof(path) - 1);
	if (n <= 0)
		return fail("readlink");
	path[n] = 0;
	if (strcmp(argv[1], "exec") == 0 && argc == 3)
		rc = exec_main(argv[2], path);
	else if (strcmp(argv[1], "errors") == 0 && argc == 3)
		rc = errors_main(argv[2]);
	else if (strcmp(argv[1], "spawn") == 0)
		rc = spawn_main(path);
	else if (strcmp(argv[1], "mmap") == 0)
		rc = mmap_main();
	else if (strcmp(argv[1], "threads") == 0)
		rc = threads_main();
	else if (strcmp(argv[1], "common") == 0)
		rc = common_main();
	else
		return 2;
	if (rc == 0)
		printf("ok %s\n", argv[1]);
	return rc;
}
