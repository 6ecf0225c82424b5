/*
 * bench/remote-bench.c -- the cost of remote coverage sections
 * (issue 7): run alone as "make bench-remote", and as part of
 * "make bench".
 *
 *   remote-bench [ROUNDS]
 *   remote-bench icount empty|noop|merge N   (for valgrind: N of one
 *                                    operation on a worker, no timing)
 *
 * Prints, each the median of ROUNDS timed runs (CLOCK_MONOTONIC):
 *   noop      ukcov_remote_start(unregistered) + ukcov_remote_stop()
 *   empty     an empty section for a registered handle, start + stop
 *   xempty    the same in a fork child: the collector is in another
 *             process (the machine's registry, a proxy collector)
 *   xsection  a section of 64 PCs in the fork child, per section
 *   merge     per record: a section of 4096 PCs merged into the
 *             collector's buffer, minus the same section when the
 *             buffer is full (nothing copied), divided by 4096; and,
 *             for scale, the same 4096 records written by a thread
 *             tracing its own buffer
 *   pool      jobs/s of a 2-worker pool: plain jobs, jobs inside
 *             sections for an unregistered handle, and for a
 *             registered one (the collector's buffer takes them all)
 * Only bench/remote-target.c is instrumented.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

void rb_leaf(void);
int rb_job(int x);

#define HANDLE (KCOV_SUBSYSTEM_USB | 1)
#define UNREG (KCOV_SUBSYSTEM_USB | 2)
#define RECS 4096

static int rounds = 9;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static uint64_t *buffer(int *fd, uint64_t entries)
{
	void *p;

	*fd = ukcov_open(UKCOV_LINUX);
	if (*fd < 0 || ukcov_ioctl(*fd, KCOV_INIT_TRACE, entries) != 0)
		perror("ukcov"), exit(1);
	p = mmap(NULL, entries * 8, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		perror("mmap"), exit(1);
	return p;
}

static uint64_t *collector_buf;

/* ns per start+stop pair for handle h, on this (worker) thread. */
static double sections(uint64_t h, long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		ukcov_remote_start(h);
		ukcov_remote_stop();
	}
	return (now_ns() - t0) / (double)n;
}

static uint64_t collector_entries;

/* ns per section of RECS records, merged (or, full: nothing copied). */
static double full_sections(long n, int full)
{
	uint64_t count = full ? collector_entries - 1 : 0;
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		__atomic_store_n(&collector_buf[0], count, __ATOMIC_RELAXED);
		ukcov_remote_start(HANDLE);
		for (int k = 0; k < RECS; k++)
			rb_leaf();
		ukcov_remote_stop();
	}
	return (now_ns() - t0) / (double)n;
}

/* ns per RECS records written by a thread tracing itself. */
static double own_records(long n)
{
	int fd;
	uint64_t *b = buffer(&fd, 2 * RECS);
	double t0, t;

	ukcov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		__atomic_store_n(&b[0], 0, __ATOMIC_RELAXED);
		for (int k = 0; k < RECS; k++)
			rb_leaf();
	}
	t = (now_ns() - t0) / (double)n;
	ukcov_ioctl(fd, KCOV_DISABLE, 0);
	munmap(b, 2 * RECS * 8);
	close(fd);
	return t;
}

struct results {
	double noop, empty, sec, sec_full, own, xempty, xsec;
};

/* ns per section of 64 PCs, merged. */
static double small_sections(long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		if (i % 1024 == 0)
			__atomic_store_n(&collector_buf[0], 0, __ATOMIC_RELAXED);
		ukcov_remote_start(HANDLE);
		for (int k = 0; k < 64; k++)
			rb_leaf();
		ukcov_remote_stop();
	}
	return (now_ns() - t0) / (double)n;
}

/* The cross-process figures, measured by a fork child (its sections
 * find the parent's collector through the registry) and sent back. */
static void cross_process(double *xempty, double *xsec)
{
	double v[2][64], res[2];
	int p[2];
	pid_t pid;

	if (pipe(p) != 0)
		perror("pipe"), exit(1);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < rounds; i++) {
			v[0][i] = sections(HANDLE, 200000);
			v[1][i] = small_sections(20000);
		}
		res[0] = median(v[0], rounds);
		res[1] = median(v[1], rounds);
		_exit(write(p[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	if (pid < 0 || read(p[0], res, sizeof(res)) != sizeof(res))
		perror("cross-process child"), exit(1);
	waitpid(pid, NULL, 0);
	*xempty = res[0];
	*xsec = res[1];
}

static void *measure(void *p)
{
	struct results *r = p;
	double v[5][64];

	for (int i = 0; i < rounds; i++) {
		v[0][i] = sections(UNREG, 1000000);
		v[1][i] = sections(HANDLE, 1000000);
		v[2][i] = full_sections(2000, 0);
		v[3][i] = full_sections(2000, 1);
		v[4][i] = own_records(2000);
	}
	r->noop = median(v[0], rounds);
	r->empty = median(v[1], rounds);
	r->sec = median(v[2], rounds);
	r->sec_full = median(v[3], rounds);
	r->own = median(v[4], rounds);
	return NULL;
}

/* ---- the pool: 2 workers take jobs from a shared counter ---- */

#define JOBS 400000
enum { PLAIN, UNREGISTERED, REGISTERED };
static int pool_mode;
static long next_job;

static void *pool_worker(void *p)
{
	long j;

	(void)p;
	while ((j = __atomic_fetch_add(&next_job, 1, __ATOMIC_RELAXED)) < JOBS) {
		if (pool_mode == PLAIN) {
			rb_job((int)j);
			continue;
		}
		ukcov_remote_start(pool_mode == REGISTERED ? HANDLE : UNREG);
		rb_job((int)j);
		ukcov_remote_stop();
	}
	return NULL;
}

static double pool_rate(int mode)
{
	pthread_t th[2];
	double t0;

	pool_mode = mode;
	next_job = 0;
	__atomic_store_n(&collector_buf[0], 0, __ATOMIC_RELAXED);
	t0 = now_ns();
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, pool_worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return JOBS / ((now_ns() - t0) / 1e9);
}

struct icount_op {
	const char *what;
	long n;
};

static void *icount_main(void *p)
{
	const struct icount_op *o = p;

	if (strcmp(o->what, "empty") == 0)
		sections(HANDLE, o->n);
	else if (strcmp(o->what, "noop") == 0)
		sections(UNREG, o->n);
	else
		full_sections(o->n, strcmp(o->what, "merge") != 0);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t raw[4] = { 0 };
	struct kcov_remote_arg *arg = (struct kcov_remote_arg *)raw;
	struct results r;
	pthread_t th;
	double rate[3][64], merge;
	uint64_t entries = 16 << 20;	/* the pool's jobs fit */
	int fd;

	if (argc == 2)
		rounds = atoi(argv[1]);
	if (rounds < 1 || rounds > 64)
		rounds = 9;
	collector_entries = entries;
	collector_buf = buffer(&fd, entries);
	arg->trace_mode = KCOV_TRACE_PC;
	arg->area_size = 2 * RECS;
	arg->num_handles = 1;
	arg->handles[0] = HANDLE;
	if (ukcov_ioctl(fd, KCOV_REMOTE_ENABLE, arg) != 0)
		perror("KCOV_REMOTE_ENABLE"), exit(1);
	if (argc == 4 && strcmp(argv[1], "icount") == 0) {
		struct icount_op o = { argv[2], atol(argv[3]) };

		pthread_create(&th, NULL, icount_main, &o);
		pthread_join(th, NULL);
		return 0;
	}
	pthread_create(&th, NULL, measure, &r);
	pthread_join(th, NULL);
	cross_process(&r.xempty, &r.xsec);
	merge = (r.sec - r.sec_full) / RECS;
	for (int i = 0; i < rounds; i++)
		for (int m = PLAIN; m <= REGISTERED; m++)
			rate[m][i] = pool_rate(m);
	printf("remote-bench: medians of %d rounds\n", rounds);
	printf("noop section (unregistered handle): %.1f ns\n", r.noop);
	printf("empty section (start+stop):         %.1f ns\n", r.empty);
	printf("cross-process empty section:        %.1f ns\n", r.xempty);
	printf("cross-process section of 64 PCs:    %.1f ns\n", r.xsec);
	printf("section of %d PCs: %.0f ns merged, %.0f ns into a full "
	       "buffer; the same PCs traced by the thread itself: %.0f ns\n",
	       RECS, r.sec, r.sec_full, r.own);
	printf("merge per record:                   %.3f ns\n", merge);
	printf("pool, jobs/s: plain %.0f, unregistered sections %.0f (%.3fx), "
	       "registered sections %.0f (%.3fx)\n", median(rate[PLAIN], rounds),
	       median(rate[UNREGISTERED], rounds),
	       median(rate[PLAIN], rounds) / median(rate[UNREGISTERED], rounds),
	       median(rate[REGISTERED], rounds),
	       median(rate[PLAIN], rounds) / median(rate[REGISTERED], rounds));
	ukcov_ioctl(fd, KCOV_DISABLE, 0);
	return 0;
}
