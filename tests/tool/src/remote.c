/*
 * tests/tool/src/remote.c -- fixtures for "ukcov run --remote", built
 * with the ukcov-cc wrapper (instrumented, -lukcov).
 *
 *   remote                  the client: one section for its common
 *                           handle (if any), one on a thread for the
 *                           global handle GLOBAL, one in a fork child
 *   remote --serve FILE     a server on 127.0.0.1: writes its port to
 *                           FILE, serves one request (an 8-byte handle)
 *                           inside a section for that handle, replies
 *                           with the address of rw_server in its space
 *   remote --ask FILE       a client of that server: sends its common
 *                           handle, waits for the reply
 *   remote --collect FILE   a client that collects itself: its own
 *                           descriptor, KCOV_REMOTE_ENABLE with the
 *                           common handle, one request; every PC it gets
 *                           must lie in the server's rw_server
 *   remote --collect FILE OUT  the same, then a fork child runs
 *                           rw_child in a section for the inherited
 *                           common handle, then ukcov_dump() into OUT:
 *                           the dump must carry the server's module
 *                           table (built with -DCOLLECTOR, the
 *                           collector is another executable, with
 *                           another build-id, than the server) and
 *                           the collector's own once
 *
 * Only code inside sections is recorded: main_only never is.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

#define GLOBAL 0x0200000000000007ULL
#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void rw_common(int x) { sink = x > 3 ? x * 2 : x + 1; }
NOINLINE void rw_global(int x) { sink = x > 5 ? x - 1 : x + 2; }
NOINLINE void rw_child(int x) { sink = x < 0 ? -x : x * 3; }
NOINLINE void rw_server(int x) { sink = x & 1 ? x : x / 2; }
NOINLINE void main_only(int x) { sink = x ? x + 7 : 7; }

static void *worker(void *p)
{
	ukcov_remote_start(GLOBAL);
	rw_global(*(int *)p);
	ukcov_remote_stop();
	return NULL;
}

static int client(int argc)
{
	uint64_t h = ukcov_common_handle();
	pthread_t th;
	pid_t pid;
	int st;

	main_only(argc);
	if (h) {
		ukcov_remote_start(h);
		rw_common(argc);
		ukcov_remote_stop();
	}
	pthread_create(&th, NULL, worker, &argc);
	pthread_join(th, NULL);
	pid = fork();
	if (pid == 0) {
		ukcov_remote_start(GLOBAL);
		rw_child(argc);
		ukcov_remote_stop();
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && st == 0 ? 0 : 1;
}

static int serve(const char *file)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	uint64_t h;
	FILE *f;
	int s, c;

	alarm(30);		/* bounded: one request, or give up */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(s, 1) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0)
		return perror("server socket"), 1;
	f = fopen(file, "w");
	if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f))
		return perror(file), 1;
	c = accept(s, NULL, NULL);
	if (c < 0 || read(c, &h, sizeof(h)) != sizeof(h))
		return perror("request"), 1;
	ukcov_remote_start(h);
	rw_server((int)(h & 0xff));
	ukcov_remote_stop();
	h = (uint64_t)(uintptr_t)rw_server;
	return write(c, &h, sizeof(h)) == sizeof(h) ? 0 : 1;
}

/* One request with handle h; *fn: the server's rw_server. */
static int ask_handle(const char *file, uint64_t h, uint64_t *fn)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	FILE *f = fopen(file, "r");
	int port = 0, s;

	alarm(30);
	if (!f || fscanf(f, "%d", &port) != 1)
		return perror(file), 1;
	fclose(f);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    write(s, &h, sizeof(h)) != sizeof(h) ||
	    read(s, fn, sizeof(*fn)) != sizeof(*fn))
		return perror("ask"), 1;
	return 0;
}

static int ask(const char *file)
{
	uint64_t fn;

	return ask_handle(file, ukcov_common_handle(), &fn);
}

#ifdef COLLECTOR
/* Only in the collector: its code and build-id differ from the
 * server's. */
NOINLINE void collector_only(int x) { sink = x * 5; }
#endif

/* A fork child feeds the collection from another process with the
 * same modules at the same addresses, then the buffer is dumped. */
static int dump_to(const char *out, const uint64_t *cover)
{
	FILE *f;
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		ukcov_remote_start(ukcov_common_handle());
		rw_child(3);
		ukcov_remote_stop();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		return perror("fork child"), 1;
	f = fopen(out, "w");
	if (!f || ukcov_dump(fileno(f), cover, 4096, UKCOV_DUMP_PC) != 0 ||
	    fclose(f) != 0)
		return perror(out), 1;
	return 0;
}

/* Collect the server's coverage of our request directly; with out,
 * dump it there. */
static int collect(const char *file, const char *out)
{
	uint64_t raw[3] = { 0 }, *cover, fn, n, i;
	struct kcov_remote_arg *arg = (struct kcov_remote_arg *)raw;
	int fd = ukcov_open(UKCOV_LINUX);

	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, 4096) != 0)
		return perror("kcov"), 1;
	cover = mmap(NULL, (size_t)4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED)
		return perror("mmap"), 1;
	arg->trace_mode = KCOV_TRACE_PC;
	arg->area_size = 4096;
	arg->common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON,
						(uint64_t)getpid());
	if (ukcov_ioctl(fd, KCOV_REMOTE_ENABLE, arg) != 0)
		return perror("KCOV_REMOTE_ENABLE"), 1;
	if (ask_handle(file, arg->common_handle, &fn))
		return 1;
	n = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (cover[1 + i] <= fn || cover[1 + i] > fn + 64)
			return fprintf(stderr, "PC 0x%llx not in rw_server\n",
				       (unsigned long long)cover[1 + i]), 1;
	printf("collected %llu PCs of the server's rw_server\n",
	       (unsigned long long)n);
	if (out && dump_to(out, cover))
		return 1;
	return n > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--serve") == 0)
		return serve(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--ask") == 0)
		return ask(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--collect") == 0)
		return collect(argv[2], NULL);
	if (argc == 4 && strcmp(argv[1], "--collect") == 0)
		return collect(argv[2], argv[3]);
	return client(argc);
}
