/*
 * tests/core/kc.c -- flavors, the two APIs, record checks, helpers.
 *
 * The errnos below are docs/KERNELS.md's, row by row; they are the
 * oracle, so they are written out here and never taken from lib/.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>
#include <ukcov/sancov.h>

#include "kc.h"

const struct flavor flavors[FL_COUNT] = {
	[FL_LINUX] = {
		.id = UKCOV_LINUX, .name = "linux",
		.path = "/sys/kernel/debug/kcov",
		.req_setbuf = 0x80086301UL,	/* KCOV_INIT_TRACE */
		.req_enable = 0x6364UL,		/* KCOV_ENABLE */
		.req_disable = 0x6365UL,	/* KCOV_DISABLE */
		.req_unknown = 0x63c8UL,	/* _IO('c', 200) */
		.by_ptr = 0, .mode_pc = 0, .mode_cmp = 1,
		.min_entries = 2, .max_entries = 0x7fffffff / 8,
		.e_enable_nobuf = EINVAL, .e_enable_twice = EINVAL,
		.e_enable_busy = EINVAL, .e_second_fd = EBUSY,
		.e_disable = EINVAL, .e_second_setbuf = EBUSY,
		.e_unknown = ENOTTY, .e_mmap_nobuf = EINVAL,
		.close_stops = 0,
	},
	[FL_FREEBSD] = {
		.id = UKCOV_FREEBSD, .name = "freebsd", .path = "/dev/kcov",
		.req_setbuf = 0x20046304UL,	/* KIOSETBUFSIZE */
		.req_enable = 0x20046302UL,	/* KIOENABLE */
		.req_disable = 0x20006303UL,	/* KIODISABLE */
		.req_unknown = 0x20006305UL,	/* _IO('c', 5) */
		.by_ptr = 0, .mode_pc = 0, .mode_cmp = 1,
		.min_entries = 2, .max_entries = 1UL << 24,
		.e_enable_nobuf = EBUSY, .e_enable_twice = EBUSY,
		.e_enable_busy = EBUSY, .e_second_fd = EINVAL,
		.e_disable = EINVAL, .e_second_setbuf = EBUSY,
		.e_unknown = EINVAL, .e_mmap_nobuf = EINVAL,
		.close_stops = 1,
	},
	[FL_NETBSD] = {
		.id = UKCOV_NETBSD, .name = "netbsd", .path = "/dev/kcov",
		.req_setbuf = 0x80084b01UL,	/* KCOV_IOC_SETBUFSIZE */
		.req_enable = 0x80044b02UL,	/* KCOV_IOC_ENABLE */
		.req_disable = 0x20004b03UL,	/* KCOV_IOC_DISABLE */
		.req_unknown = 0x20004b14UL,	/* _IO('K', 20) */
		.by_ptr = 1, .mode_pc = 1, .mode_cmp = 2,
		.min_entries = 2, .max_entries = 256UL << 10,
		.e_enable_nobuf = ENOBUFS, .e_enable_twice = EBUSY,
		.e_enable_busy = EBUSY, .e_second_fd = EBUSY,
		.e_disable = ENOENT, .e_second_setbuf = EEXIST,
		.e_unknown = EINVAL, .e_mmap_nobuf = ENOMEM,
		.close_stops = 0,
	},
	[FL_OPENBSD] = {
		.id = UKCOV_OPENBSD, .name = "openbsd", .path = "/dev/kcov",
		.req_setbuf = 0x80084b01UL,	/* KIOSETBUFSIZE */
		.req_enable = 0x80044b02UL,	/* KIOENABLE */
		.req_disable = 0x20004b03UL,	/* KIODISABLE */
		.req_unknown = 0x20004b14UL,	/* _IO('K', 20) */
		.by_ptr = 1, .mode_pc = 1, .mode_cmp = 2,
		.min_entries = 1, .max_entries = 512UL << 10,
		.e_enable_nobuf = ENXIO, .e_enable_twice = EBUSY,
		.e_enable_busy = ENXIO, .e_second_fd = EBUSY,
		.e_disable = EPERM, .e_second_setbuf = EBUSY,
		.e_unknown = ENOTTY, .e_mmap_nobuf = EINVAL,
		.close_stops = 1,
	},
};

const struct kc kcs[FL_COUNT][2] = {
	{ { &flavors[0], 0 }, { &flavors[0], 1 } },
	{ { &flavors[1], 0 }, { &flavors[1], 1 } },
	{ { &flavors[2], 0 }, { &flavors[2], 1 } },
	{ { &flavors[3], 0 }, { &flavors[3], 1 } },
};

/* ---- registration ---- */

struct kc_test {
	void (*fn)(const struct kc *);
	const struct kc *k;
};

static void kc_trampoline(const void *arg)
{
	const struct kc_test *t = arg;

	t->fn(t->k);
}

void reg_one(const char *name, void (*fn)(const struct kc *), int fl,
	     int native, unsigned need)
{
	struct kc_test *t = malloc(sizeof(*t));

	if (!t)
		abort();
	t->fn = fn;
	t->k = &kcs[fl][native];
	test_addf(kc_trampoline, t, need | (native ? NEED_NATIVE : 0),
		  "%s/%s", name, flavors[fl].name);
}

void reg_flavors(const char *name, void (*fn)(const struct kc *),
		 unsigned need)
{
	int fl;

	for (fl = 0; fl < FL_COUNT; fl++)
		reg_one(name, fn, fl, core_have_native, need);
}

void reg_flavors_apis(const char *name, void (*fn)(const struct kc *),
		      unsigned need)
{
	char full[200];
	int fl, native;

	for (fl = 0; fl < FL_COUNT; fl++)
		for (native = 1; native >= 0; native--) {
			snprintf(full, sizeof(full), "%s/%s", name,
				 native ? "native" : "dev");
			reg_one(full, fn, fl, native, need);
		}
}

/* ---- the two APIs ---- */

int kc_open(const struct kc *k)
{
#ifndef CORE_PRELOAD
	if (k->native)
		return ukcov_open(k->f->id);
#endif
	/* Always serve the device paths from ukcov, whatever the kernel
	 * has; /dev/kcov needs the flavor. */
	setenv("UKCOV_DEVICE", "ukcov", 1);
	if (strcmp(k->f->path, "/dev/kcov") == 0)
		setenv("UKCOV_FLAVOR", k->f->name, 1);
	return open(k->f->path, O_RDWR);
}

long kc_req(const struct kc *k, int fd, unsigned long req, unsigned long arg)
{
#ifndef CORE_PRELOAD
	if (k->native)
		return ukcov_ioctl(fd, req, arg);
#else
	(void)k;
#endif
	return ioctl(fd, req, arg);
}

/* Room for a struct kcov_remote_arg with every handle (a flexible
 * array member cannot be followed by more storage in a struct). */
struct kc_rarg {
	uint64_t raw[3 + KCOV_REMOTE_MAX_HANDLES + 1];
};

long kc_remote_enable(const struct kc *k, int fd, uint32_t mode, uint32_t area,
		      uint64_t common, uint32_t n, const uint64_t *handles)
{
	struct kc_rarg *r = calloc(1, sizeof(*r));
	struct kcov_remote_arg *a;
	long rc;
	int e;

	CHECK(r != NULL);
	a = (struct kcov_remote_arg *)(void *)r->raw;
	a->trace_mode = mode;
	a->area_size = area;
	a->num_handles = n;
	a->common_handle = common;
	if (handles)
		memcpy(a->handles, handles, n * sizeof(uint64_t));
	rc = kc_req(k, fd, KCOV_REMOTE_ENABLE, (unsigned long)a);
	e = errno;
	free(r);
	errno = e;
	return rc;
}

int kc_setbuf(const struct kc *k, int fd, uint64_t entries)
{
	uint64_t n = entries;

	if (k->f->by_ptr)
		return (int)kc_req(k, fd, k->f->req_setbuf, (unsigned long)&n);
	return (int)kc_req(k, fd, k->f->req_setbuf, (unsigned long)entries);
}

int kc_enable(const struct kc *k, int fd, long mode)
{
	int m = (int)mode;

	if (k->f->by_ptr)
		return (int)kc_req(k, fd, k->f->req_enable, (unsigned long)&m);
	return (int)kc_req(k, fd, k->f->req_enable, (unsigned long)mode);
}

int kc_disable(const struct kc *k, int fd)
{
	return (int)kc_req(k, fd, k->f->req_disable, 0);
}

int kc_dropped_raw(const struct kc *k, int fd, uint64_t *n)
{
	return (int)kc_req(k, fd, UKCOV_IOC_DROPPED, (unsigned long)n);
}

int kc_flavor(int fd)
{
#ifndef CORE_PRELOAD
	return ukcov_flavor(fd);
#else
	(void)fd;
	return -2;
#endif
}

int kc_open_ok(const struct kc *k)
{
	int fd = kc_open(k);

	if (fd < 0)
		FAIL("open %s (%s): %s", k->f->name,
		     k->native ? "native" : k->f->path, errname(errno));
	return fd;
}

void kc_setbuf_ok(const struct kc *k, int fd, uint64_t entries)
{
	if (kc_setbuf(k, fd, entries) != 0)
		FAIL("%s SETBUFSIZE(%llu): %s", k->f->name,
		     (unsigned long long)entries, errname(errno));
}

void kc_enable_ok(const struct kc *k, int fd, int cmp)
{
	if (kc_enable(k, fd, cmp ? k->f->mode_cmp : k->f->mode_pc) != 0)
		FAIL("%s ENABLE(%s): %s", k->f->name, cmp ? "cmp" : "pc",
		     errname(errno));
}

void kc_disable_ok(const struct kc *k, int fd)
{
	if (kc_disable(k, fd) != 0)
		FAIL("%s DISABLE: %s", k->f->name, errname(errno));
}

uint64_t kc_dropped(const struct kc *k, int fd)
{
	uint64_t n = 0xdeadbeef;

	if (kc_dropped_raw(k, fd, &n) != 0)
		FAIL("%s UKCOV_IOC_DROPPED: %s", k->f->name, errname(errno));
	return n;
}

uint64_t *kc_map(int fd, uint64_t entries)
{
	size_t len = (entries * 8 + PAGE - 1) & ~(PAGE - 1);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		FAIL("mmap(%zu) of the buffer: %s", len, errname(errno));
	return p;
}

int kc_setup(const struct kc *k, uint64_t entries, uint64_t **buf)
{
	int fd = kc_open_ok(k);

	kc_setbuf_ok(k, fd, entries);
	*buf = kc_map(fd, entries);
	return fd;
}

/* ---- records ---- */

uint64_t rec_count(const uint64_t *buf)
{
	return __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE);
}

void rec_reset(uint64_t *buf)
{
	__atomic_store_n(&buf[0], 0, __ATOMIC_RELEASE);
}

const char *fn_name(uint64_t pc)
{
	Dl_info info;

	if (dladdr((void *)(uintptr_t)pc, &info) && info.dli_sname)
		return info.dli_sname;
	return "?";
}

static const void *fn_of(uint64_t pc)
{
	Dl_info info;

	if (dladdr((void *)(uintptr_t)pc, &info) && info.dli_sname)
		return info.dli_saddr;
	return NULL;
}

/* The plugin's table of inline points (docs/FORMATS.md, __ukcov_pcs);
 * weak: the other variants have none. */
extern const uint64_t __start___ukcov_pcs[] __attribute__((weak));
extern const uint64_t __stop___ukcov_pcs[] __attribute__((weak));

/* An inline point records its entry of the table, exactly. */
static void expect_inline_pc(uint64_t pc)
{
	/* Two symbols of one section: compared as addresses. */
	size_t n = ((uintptr_t)__stop___ukcov_pcs -
		    (uintptr_t)__start___ukcov_pcs) / sizeof(uint64_t);

	if (!__start___ukcov_pcs || n == 0)
		FAIL("inline targets without a __ukcov_pcs table");
	for (size_t i = 0; i < n; i++)
		if (__start___ukcov_pcs[i] == pc)
			return;
	FAIL("pc 0x%llx in %s is no entry of __ukcov_pcs",
	     (unsigned long long)pc, fn_name(pc));
}

void expect_ret_addr(uint64_t pc, const void *fn, const void *cb)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)pc;
	int32_t rel = 0;

	if (pc < (uintptr_t)__start_ukcov_targets ||
	    pc >= (uintptr_t)__stop_ukcov_targets)
		FAIL("pc 0x%llx (%s) is not in target code [%p, %p)",
		     (unsigned long long)pc, fn_name(pc),
		     (void *)__start_ukcov_targets, (void *)__stop_ukcov_targets);
	if (fn_of(pc) != fn)
		FAIL("pc 0x%llx is in %s, not in the expected function",
		     (unsigned long long)pc, fn_name(pc));
	if (target_inline) {
		expect_inline_pc(pc);
		return;
	}
#ifdef __x86_64__
	/* "PCs exactly after the call instruction" (Dmitry Vyukov,
	 * syzkaller PR 1614; docs/KERNELS.md "Linux"): a 5-byte direct
	 * call ends at pc. */
	if (p[-5] != 0xe8)
		FAIL("pc 0x%llx in %s does not follow a call instruction",
		     (unsigned long long)pc, fn_name(pc));
	memcpy(&rel, p - 4, sizeof(rel));
	if (core_callbacks_in_exe && cb &&
	    (uintptr_t)(p + rel) != (uintptr_t)cb)
		FAIL("pc 0x%llx follows a call to %s, not to the callback",
		     (unsigned long long)pc, fn_name((uintptr_t)(p + rel)));
#else
	(void)p;
	(void)rel;
	(void)cb;
#endif
}

void expect_pcs_in(const uint64_t *buf, uint64_t first, uint64_t n,
		   const void *fn)
{
	uint64_t i;

	for (i = first; i < first + n; i++)
		expect_ret_addr(buf[1 + i], fn,
				(const void *)__sanitizer_cov_trace_pc);
}

void expect_only_pcs(const uint64_t *buf, uint64_t n, const void *fn)
{
	CHECK_EQ(rec_count(buf), n);
	expect_pcs_in(buf, 0, n, fn);
}

void expect_cmp(const uint64_t *buf, uint64_t i, uint64_t type, uint64_t a1,
		uint64_t a2, const void *fn, const void *cb)
{
	const uint64_t *r = &buf[1 + 4 * i];

	if (r[0] != type || r[1] != a1 || r[2] != a2)
		FAIL("cmp record %llu: {0x%llx, 0x%llx, 0x%llx}, want "
		     "{0x%llx, 0x%llx, 0x%llx}", (unsigned long long)i,
		     (unsigned long long)r[0], (unsigned long long)r[1],
		     (unsigned long long)r[2], (unsigned long long)type,
		     (unsigned long long)a1, (unsigned long long)a2);
	expect_ret_addr(r[3], fn, cb);
}

void call_n(void (*fn)(void), unsigned n)
{
	while (n--)
		fn();
}

/* ---- state probes ---- */

void expect_open_state(const struct kc *k, int fd)
{
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	      MAP_FAILED);
	CHECK_EQ(errno, k->f->e_mmap_nobuf);
	kc_setbuf_ok(k, fd, KC_ENTRIES);
}

void expect_ready_state(const struct kc *k, int fd, uint64_t *buf)
{
	uint64_t n = rec_count(buf);

	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf, 2);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), n + 2);
	expect_pcs_in(buf, n, 2, (const void *)target_leaf);
}

void expect_tracing(uint64_t *buf)
{
	uint64_t n = rec_count(buf);

	target_leaf();
	CHECK_EQ(rec_count(buf), n + 1);
	expect_pcs_in(buf, n, 1, (const void *)target_leaf);
}

long op_enable(void *p)
{
	const struct kc_op *op = p;

	return kc_enable(op->k, op->fd, op->arg);
}

long op_disable(void *p)
{
	const struct kc_op *op = p;

	return kc_disable(op->k, op->fd);
}

long op_leaf(void *p)
{
	const struct kc_op *op = p;

	call_n(target_leaf, (unsigned)op->arg);
	return 0;
}

/* ---- actors ---- */

struct actor {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long (*fn)(void *);
	void *arg;
	long result;
	int err;
	int busy, stop;
};

static void *actor_main(void *p)
{
	struct actor *a = p;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->busy && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (!a->busy && a->stop)
			break;
		pthread_mutex_unlock(&a->mu);
		errno = 0;
		a->result = a->fn(a->arg);
		a->err = errno;
		pthread_mutex_lock(&a->mu);
		a->busy = 0;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

struct actor *actor_start(void)
{
	struct actor *a = calloc(1, sizeof(*a));

	CHECK(a != NULL);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	CHECK_EQ(pthread_create(&a->th, NULL, actor_main, a), 0);
	return a;
}

long actor_run(struct actor *a, long (*fn)(void *), void *arg)
{
	long r;

	pthread_mutex_lock(&a->mu);
	a->fn = fn;
	a->arg = arg;
	a->busy = 1;
	pthread_cond_broadcast(&a->cv);
	while (a->busy)
		pthread_cond_wait(&a->cv, &a->mu);
	r = a->result;
	errno = a->err;
	pthread_mutex_unlock(&a->mu);
	return r;
}

void actor_stop(struct actor *a)
{
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	CHECK_EQ(pthread_join(a->th, NULL), 0);
	free(a);
}

struct thread_call {
	long (*fn)(void *);
	void *arg;
	long result;
	int err;
};

static void *thread_call_main(void *p)
{
	struct thread_call *c = p;

	errno = 0;
	c->result = c->fn(c->arg);
	c->err = errno;
	return NULL;
}

long thread_run(long (*fn)(void *), void *arg)
{
	struct thread_call c = { fn, arg, 0, 0 };
	pthread_t th;

	CHECK_EQ(pthread_create(&th, NULL, thread_call_main, &c), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	errno = c.err;
	return c.result;
}

/* ---- processes ---- */

void pipe_ok(int p[2])
{
	CHECK_OK(pipe(p));
}

void send_byte(int fd, char c)
{
	CHECK_EQ(write(fd, &c, 1), 1);
}

char recv_byte(int fd)
{
	char c;
	ssize_t n;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		FAIL("read from pipe: %zd (%s)", n, errname(errno));
	return c;
}

pid_t peer_fork(struct peer *p)
{
	int up[2], down[2];

	pipe_ok(up);
	pipe_ok(down);
	p->pid = fork();
	CHECK_OK(p->pid);
	p->rd = p->pid ? up[0] : down[0];
	p->wr = p->pid ? down[1] : up[1];
	close(p->pid ? up[1] : down[1]);
	close(p->pid ? down[0] : up[0]);
	return p->pid;
}

void peer_tell(const struct peer *p)
{
	send_byte(p->wr, 'x');
}

void peer_wait(const struct peer *p)
{
	CHECK_EQ(recv_byte(p->rd), 'x');
}

long kc_remote_enable1(const struct kc *k, int fd, uint64_t h)
{
	return kc_remote_enable(k, fd, KCOV_TRACE_PC, KC_ENTRIES, 0, 1, &h);
}

void kc_collector_child(const struct kc *k, int fd, uint64_t h,
			const struct peer *p)
{
	if (kc_remote_enable1(k, fd, h) != 0)
		_exit(2);
	peer_tell(p);
	peer_wait(p);
	_exit(kc_disable(k, fd) == 0 ? 0 : 3);
}

int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			FAIL("waitpid(%d): %s", (int)pid, errname(errno));
	return st;
}

int wait_zombie(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			FAIL("waitid(%d): %s", (int)pid, errname(errno));
	if (si.si_code == CLD_EXITED)
		return (si.si_status & 0xff) << 8;
	return si.si_status & 0x7f;
}

void expect_exit0(pid_t pid)
{
	int st = wait_status(pid);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		FAIL("child %d: status 0x%x", (int)pid, st);
}

void fd_read(int fd, void *dst, size_t len, off_t off)
{
	CHECK_EQ(pread(fd, dst, len, off), len);
}

void fd_write(int fd, const void *src, size_t len, off_t off)
{
	CHECK_EQ(pwrite(fd, src, len, off), len);
}

/* stderr into a pipe for the duration of a step. */
static int saved_stderr = -1, err_pipe[2];

void capture_stderr_begin(void)
{
	pipe_ok(err_pipe);
	saved_stderr = dup(2);
	CHECK(saved_stderr >= 0);
	CHECK_OK(dup2(err_pipe[1], 2));
	close(err_pipe[1]);
}

void capture_stderr_end(char *msg, size_t size)
{
	ssize_t n;
	size_t len = 0;

	CHECK_OK(dup2(saved_stderr, 2));
	close(saved_stderr);
	while (len + 1 < size &&
	       (n = read(err_pipe[0], msg + len, size - 1 - len)) > 0)
		len += (size_t)n;
	msg[len] = 0;
	close(err_pipe[0]);
}

int kc_descriptor_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "memfd:ukcov") != NULL;
	fclose(f);
	return n;
}

/* A seccomp filter for this (test) process that answers ENOSYS to
 * process_vm_readv and process_vm_writev, as qemu-user and some
 * container profiles do; checked on a good address first. */
void kc_deny_process_vm(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	uint64_t a = 1, b = 0;
	struct iovec l = { &b, 8 }, r = { &a, 8 };

	CHECK_OK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	/* qemu-user has no seccomp (EINVAL), and no process_vm_readv
	 * either: the ENOSYS below is then its own. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		CHECK_EQ(errno, EINVAL);
	CHECK(process_vm_readv(getpid(), &l, 1, &r, 1, 0) == -1 &&
	      errno == ENOSYS);
}

/* What the kernel itself answers to ioctl(fd, req, 0) on a descriptor
 * that is not ukcov's: ENOTTY, or ENOSYS under qemu-user, which refuses
 * a request it cannot translate before the kernel sees it. */
int kc_kernel_ioctl_errno(int fd, unsigned long req)
{
	errno = 0;
	CHECK_EQ(syscall(SYS_ioctl, fd, req, 0UL), -1);
	CHECK(errno == ENOTTY || errno == ENOSYS);
	return errno;
}
