/*
 * examples/remote_pool.c -- a thread pool whose jobs carry the
 * submitter's common handle (ukcov_remote_start(3)).
 *
 * The pool's workers exist before anyone collects coverage, so they
 * inherit nothing: the job carries ukcov_common_handle() of the thread
 * that submitted it, and the worker runs the job inside a section for
 * that handle.  The collector submits jobs; another "client" submits
 * jobs without a handle.  The collector's buffer must then hold
 * exactly its own jobs' PCs: as many copies of one job's PCs as it
 * submitted, PC by PC, and nothing of the other client's jobs.
 * Prints "remote_pool: ok" and exits 0, or says what is wrong.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

#define ENTRIES (64 << 10)
#define WORKERS 4
#define JOBS 16

long target_read(int fd, void *buf, unsigned long count);

struct job {
	int fd;			/* target_read's argument */
	uint64_t handle;	/* the submitter's common handle, or 0 */
	struct job *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct job *queue;
static int pending, quit, go;

static void *worker(void *arg)
{
	char buf[8];
	struct job *j;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!queue && !quit)
			pthread_cond_wait(&cv, &mu);
		if (!queue) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		j = queue;
		queue = j->next;
		pthread_mutex_unlock(&mu);

		ukcov_remote_start(j->handle);	/* 0: a no-op */
		target_read(j->fd, buf, sizeof(buf));
		ukcov_remote_stop();

		free(j);
		pthread_mutex_lock(&mu);
		if (--pending == 0)
			pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
}

static void submit(int fd)
{
	struct job *j = malloc(sizeof(*j));

	if (!j)
		exit(1);
	j->fd = fd;
	j->handle = ukcov_common_handle();
	pthread_mutex_lock(&mu);
	j->next = queue;
	queue = j;
	pending++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void *other_client(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < JOBS; i++)
		submit(7);
	return NULL;
}

static void wait_idle(void)
{
	pthread_mutex_lock(&mu);
	while (pending)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

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

int main(void)
{
	uint64_t raw[4];	/* struct kcov_remote_arg, no handle */
	struct kcov_remote_arg *arg = (struct kcov_remote_arg *)raw;
	pthread_t th[WORKERS], other;
	uint64_t *one, *cover, n1, n, i;
	char buf[8];
	int fd1, fd, bad = 0;

	for (i = 0; i < WORKERS; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	/* The other client starts before the collection (a thread created
	 * after it would inherit the collector's common handle); it waits
	 * for the go. */
	pthread_mutex_lock(&mu);
	pthread_create(&other, NULL, other_client, NULL);

	/* One job's PCs, traced on this thread. */
	one = open_buffer(&fd1);
	if (ukcov_ioctl(fd1, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
		perror("KCOV_ENABLE"), exit(1);
	target_read(3, buf, sizeof(buf));
	n1 = __atomic_load_n(&one[0], __ATOMIC_ACQUIRE);
	ukcov_ioctl(fd1, KCOV_DISABLE, 0);

	/* Collect through a common handle: the pid, as kcov.rst advises
	 * for several processes. */
	cover = open_buffer(&fd);
	memset(raw, 0, sizeof(raw));
	arg->trace_mode = KCOV_TRACE_PC;
	arg->area_size = ENTRIES;
	arg->common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON,
						(uint64_t)getpid());
	if (ukcov_ioctl(fd, KCOV_REMOTE_ENABLE, arg) != 0)
		perror("KCOV_REMOTE_ENABLE"), exit(1);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);

	for (i = 0; i < JOBS; i++)
		submit(3);
	pthread_join(other, NULL);
	wait_idle();

	n = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
	if (n1 == 0 || n != JOBS * n1) {
		fprintf(stderr, "remote_pool: %llu PCs, want %d x %llu\n",
			(unsigned long long)n, JOBS, (unsigned long long)n1);
		bad = 1;
	}
	for (i = 0; !bad && i < n; i++)
		if (cover[1 + i] != one[1 + i % n1]) {
			fprintf(stderr, "remote_pool: PC %llu is 0x%llx, "
				"want 0x%llx\n", (unsigned long long)i,
				(unsigned long long)cover[1 + i],
				(unsigned long long)one[1 + i % n1]);
			bad = 1;
		}
	ukcov_ioctl(fd, KCOV_DISABLE, 0);
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	if (bad)
		return 1;
	printf("remote_pool: ok, %d sections of %llu PCs\n", JOBS,
	       (unsigned long long)n1);
	return 0;
}
