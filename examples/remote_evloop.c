/*
 * examples/remote_evloop.c -- an event loop with a global handle per
 * connection (ukcov_remote_start(3)).
 *
 * One loop thread serves two connections (socket pairs) with poll(2).
 * Each connection has a global handle, subsystem 2 ("connections" of
 * this application), instance = the connection's number, and the loop
 * runs each connection's callback inside a section for its handle.
 * Two collector threads each register one connection's handle.
 * Connection 0's requests take target_read()'s copying path,
 * connection 1's its EBADF path, so each collector must hold
 * exactly its own connection's PCs, as many copies as requests, PC by
 * PC.  Prints "remote_evloop: ok" and exits 0, or says what is wrong.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

#define ENTRIES (64 << 10)
#define REQUESTS 10
#define SUBSYS_CONN (2ULL << 56)

long target_read(int fd, void *buf, unsigned long count);

struct conn {
	int sock[2];		/* [0] the loop's end, [1] the client's */
	int arg;		/* what its requests ask target_read */
	uint64_t handle;
	int fd;			/* its collector's descriptor */
	uint64_t *cover;
	uint64_t *one;		/* one request's PCs, traced directly */
	uint64_t n1;
};

static struct conn conns[2];

static uint64_t *open_buffer(int *fd)
{
	void *p;

	*fd = ukcov_open(UKCOV_LINUX);
	if (*fd < 0 || ukcov_ioctl(*fd, KCOV_INIT_TRACE, ENTRIES) != 0)
		perror("ukcov"), exit(1);
	p = mmap(NULL, ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		perror("mmap"), exit(1);
	return p;
}

/* The callback a readable connection runs. */
static void on_request(struct conn *c)
{
	char req, buf[8];

	if (read(c->sock[0], &req, 1) != 1)
		return;
	ukcov_remote_start(c->handle);
	target_read(c->arg, buf, sizeof(buf));
	ukcov_remote_stop();
	(void)!write(c->sock[0], &req, 1);	/* the reply */
}

static void *event_loop(void *arg)
{
	struct pollfd pfd[2];
	int served = 0;

	(void)arg;
	while (served < 2 * REQUESTS) {
		for (int i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ conns[i].sock[0], POLLIN, 0 };
		if (poll(pfd, 2, -1) < 0)
			return NULL;
		for (int i = 0; i < 2; i++)
			if (pfd[i].revents & POLLIN) {
				on_request(&conns[i]);
				served++;
			}
	}
	return NULL;
}

static pthread_barrier_t ready, done;

/* A collector thread: registers its connection's handle and stays
 * until the requests are over (its exit would unregister the handle,
 * as a task's exit does in Linux). */
static void *collect(void *arg)
{
	struct conn *c = arg;
	uint64_t raw[4];	/* struct kcov_remote_arg, one handle */
	struct kcov_remote_arg *ra = (struct kcov_remote_arg *)raw;

	memset(raw, 0, sizeof(raw));
	ra->trace_mode = KCOV_TRACE_PC;
	ra->area_size = ENTRIES;
	ra->num_handles = 1;
	ra->handles[0] = c->handle;
	if (ukcov_ioctl(c->fd, KCOV_REMOTE_ENABLE, ra) != 0)
		perror("KCOV_REMOTE_ENABLE"), exit(1);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	ukcov_ioctl(c->fd, KCOV_DISABLE, 0);
	return NULL;
}

static int check(const struct conn *c, int i)
{
	uint64_t n = __atomic_load_n(&c->cover[0], __ATOMIC_ACQUIRE);

	if (c->n1 == 0 || n != REQUESTS * c->n1) {
		fprintf(stderr, "remote_evloop: connection %d: %llu PCs, "
			"want %d x %llu\n", i, (unsigned long long)n, REQUESTS,
			(unsigned long long)c->n1);
		return 1;
	}
	for (uint64_t k = 0; k < n; k++)
		if (c->cover[1 + k] != c->one[1 + k % c->n1]) {
			fprintf(stderr, "remote_evloop: connection %d: PC %llu "
				"is 0x%llx, want 0x%llx\n", i,
				(unsigned long long)k,
				(unsigned long long)c->cover[1 + k],
				(unsigned long long)c->one[1 + k % c->n1]);
			return 1;
		}
	return 0;
}

/* Do the two paths differ?  Otherwise the test could not tell the
 * connections apart. */
static int paths_differ(void)
{
	const struct conn *a = &conns[0], *b = &conns[1];

	return a->n1 != b->n1 ||
	       memcmp(&a->one[1], &b->one[1], a->n1 * 8) != 0;
}

int main(void)
{
	pthread_t loop, coll[2];
	char buf[8], r = 'r';
	int fd1, bad;

	for (int i = 0; i < 2; i++) {
		struct conn *c = &conns[i];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, c->sock) != 0)
			perror("socketpair"), exit(1);
		c->arg = i == 0 ? 3 : -1;
		c->handle = SUBSYS_CONN | (uint64_t)i;
		/* One request's PCs, traced on this thread. */
		c->one = open_buffer(&fd1);
		if (ukcov_ioctl(fd1, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
			perror("KCOV_ENABLE"), exit(1);
		target_read(c->arg, buf, sizeof(buf));
		c->n1 = __atomic_load_n(&c->one[0], __ATOMIC_ACQUIRE);
		ukcov_ioctl(fd1, KCOV_DISABLE, 0);
		c->cover = open_buffer(&c->fd);
	}
	if (!paths_differ()) {
		fprintf(stderr, "remote_evloop: the two paths look alike\n");
		return 1;
	}
	pthread_barrier_init(&ready, NULL, 3);
	pthread_barrier_init(&done, NULL, 3);
	for (int i = 0; i < 2; i++)
		pthread_create(&coll[i], NULL, collect, &conns[i]);
	pthread_barrier_wait(&ready);
	pthread_create(&loop, NULL, event_loop, NULL);
	/* The clients: one request at a time on each connection. */
	for (int k = 0; k < REQUESTS; k++)
		for (int i = 0; i < 2; i++)
			if (write(conns[i].sock[1], &r, 1) != 1 ||
			    read(conns[i].sock[1], &r, 1) != 1)
				perror("request"), exit(1);
	pthread_join(loop, NULL);
	bad = check(&conns[0], 0) | check(&conns[1], 1);
	pthread_barrier_wait(&done);
	for (int i = 0; i < 2; i++)
		pthread_join(coll[i], NULL);
	if (bad)
		return 1;
	printf("remote_evloop: ok, %d requests on each of 2 connections\n",
	       REQUESTS);
	return 0;
}
