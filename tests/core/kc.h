/*
 * tests/core/kc.h -- what the core tests share: the four flavors'
 * requests and errno rules (from the kernels' sources: Linux
 * kernel/kcov.c, FreeBSD sys/kern/kern_kcov.c, NetBSD sys/kern/subr_kcov.c,
 * OpenBSD sys/dev/kcov.c and their kcov(4) pages; never from lib/), the two ways to drive a descriptor (the native API,
 * or the interposed open()/ioctl() of the device paths), record checks
 * and small thread/process helpers.
 */
#ifndef CORE_KC_H
#define CORE_KC_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include <ukcov/kcov.h>
#include <ukcov/sancov.h>

#include "harness.h"
#include "targets/targets.h"

#define PAGE 4096UL

/* One kernel's kcov, as docs/KERNELS.md describes it. */
struct flavor {
	int id;				/* UKCOV_LINUX ... */
	const char *name;		/* "linux" ... (also UKCOV_FLAVOR) */
	const char *path;		/* its device path */
	unsigned long req_setbuf, req_enable, req_disable;
	unsigned long req_unknown;	/* a request no kernel knows */
	int by_ptr;			/* NetBSD, OpenBSD: pointer arguments */
	int mode_pc, mode_cmp;
	uint64_t min_entries, max_entries;
	/* errnos, docs/KERNELS.md "Across kernels" table 1 and the kernels'
	 * tables: */
	int e_enable_nobuf;	/* ENABLE before SETBUFSIZE */
	int e_enable_twice;	/* the owner enables it again */
	int e_enable_busy;	/* another thread/process traces it */
	int e_second_fd;	/* the thread already traces another fd */
	int e_disable;		/* DISABLE: not enabled, or not the owner */
	int e_second_setbuf;	/* SETBUFSIZE again (valid size) */
	int e_unknown;		/* unknown request */
	int e_mmap_nobuf;	/* mmap before a buffer */
	int close_stops;	/* §6 table 3: last close stops tracing */
};

enum { FL_LINUX, FL_FREEBSD, FL_NETBSD, FL_OPENBSD, FL_COUNT };
extern const struct flavor flavors[FL_COUNT];

/* A test's parameters: a flavor and the API that drives it. */
struct kc {
	const struct flavor *f;
	int native;		/* ukcov_open/ukcov_ioctl, else open/ioctl */
};
/* kcs[fl][native]: the eight combinations. */
extern const struct kc kcs[FL_COUNT][2];
/* The preload variant has no native API. */
extern const int core_have_native;
/* 1 if the callbacks are linked into the executable (not the
 * LD_PRELOAD variant): records then name them as the call target. */
extern const int core_callbacks_in_exe;

/* Register fn once per flavor (native API, names "group.name/flavor")
 * or once per flavor and API ("group.name/flavor/native|dev"). */
void reg_flavors(const char *name, void (*fn)(const struct kc *),
		 unsigned need);
void reg_flavors_apis(const char *name, void (*fn)(const struct kc *),
		      unsigned need);
/* The same for one flavor only. */
void reg_one(const char *name, void (*fn)(const struct kc *), int fl,
	     int native, unsigned need);

/* ---- driving a descriptor (each returns the raw result, -1/errno) ---- */
int kc_open(const struct kc *k);
long kc_req(const struct kc *k, int fd, unsigned long req, unsigned long arg);
/* Linux KCOV_REMOTE_ENABLE with these n handles (NULL: none, n may be
 * anything) and common handle; errno as the request left it. */
long kc_remote_enable(const struct kc *k, int fd, uint32_t mode, uint32_t area,
		      uint64_t common, uint32_t n, const uint64_t *handles);
int kc_setbuf(const struct kc *k, int fd, uint64_t entries);
int kc_enable(const struct kc *k, int fd, long mode);
int kc_disable(const struct kc *k, int fd);
int kc_dropped_raw(const struct kc *k, int fd, uint64_t *n);
int kc_flavor(int fd);			/* ukcov_flavor; -2 without native */
#define kc_enable_pc(k, fd)  kc_enable((k), (fd), (k)->f->mode_pc)
#define kc_enable_cmp(k, fd) kc_enable((k), (fd), (k)->f->mode_cmp)

/* Checked: these fail the test unless the call succeeds. */
int kc_open_ok(const struct kc *k);
void kc_setbuf_ok(const struct kc *k, int fd, uint64_t entries);
void kc_enable_ok(const struct kc *k, int fd, int cmp);
void kc_disable_ok(const struct kc *k, int fd);
uint64_t kc_dropped(const struct kc *k, int fd);
/* mmap(roundup(entries*8, PAGE)) read/write at offset 0. */
uint64_t *kc_map(int fd, uint64_t entries);
/* open + SETBUFSIZE(entries) + map. */
int kc_setup(const struct kc *k, uint64_t entries, uint64_t **buf);
/* A buffer size every flavor can mmap: a multiple of 512 entries. */
#define KC_ENTRIES 512

/* ---- records ---- */
uint64_t rec_count(const uint64_t *buf);
void rec_reset(uint64_t *buf);
/* Records [first, first+n) of a PC buffer are return addresses of
 * __sanitizer_cov_trace_pc calls inside fn. */
void expect_pcs_in(const uint64_t *buf, uint64_t first, uint64_t n,
		   const void *fn);
/* Exactly n records, all in fn. */
void expect_only_pcs(const uint64_t *buf, uint64_t n, const void *fn);
/* CMP record i is {type, a1, a2, pc after a call to cb inside fn}. */
void expect_cmp(const uint64_t *buf, uint64_t i, uint64_t type, uint64_t a1,
		uint64_t a2, const void *fn, const void *cb);
/* pc is a return address right after a direct call to cb (x86-64), and
 * lies in target code inside function fn. */
void expect_ret_addr(uint64_t pc, const void *fn, const void *cb);
const char *fn_name(uint64_t pc);

/* Call target_leaf (or any void target) n times. */
void call_n(void (*fn)(void), unsigned n);

/* ---- state probes: "bad input changes nothing" ---- */
/* OPEN: no buffer to map; then a valid SETBUFSIZE succeeds. */
void expect_open_state(const struct kc *k, int fd);
/* READY with buf mapped: DISABLE is refused, an enable records, and a
 * disable returns it to READY. */
void expect_ready_state(const struct kc *k, int fd, uint64_t *buf);
/* RUNNING in PC mode, owned by the calling thread: a call records. */
void expect_tracing(uint64_t *buf);

/* Operations to run on an actor or another thread. */
struct kc_op {
	const struct kc *k;
	int fd;
	long arg;
};
long op_enable(void *op);	/* arg: raw mode */
long op_disable(void *op);
long op_leaf(void *op);		/* arg: number of target_leaf calls */

/* ---- helpers ---- */
/* A thread that runs functions on request, one at a time: lets a test
 * keep a second thread (an owner) alive between its own steps. */
struct actor;
struct actor *actor_start(void);
/* Run fn(arg) on the actor and return its result; errno is the
 * actor's errno after fn. */
long actor_run(struct actor *a, long (*fn)(void *), void *arg);
void actor_stop(struct actor *a);	/* the thread exits */
/* Run fn(arg) on a fresh thread to completion. */
long thread_run(long (*fn)(void *), void *arg);

/* One-byte signalling between processes (deterministic sync). */
void pipe_ok(int p[2]);
void send_byte(int fd, char c);
char recv_byte(int fd);
/* A forked child and a pipe each way; peer_tell/peer_wait send and
 * await one byte from either side. */
struct peer {
	pid_t pid;
	int rd, wr;
};
pid_t peer_fork(struct peer *p);	/* 0 in the child */
void peer_tell(const struct peer *p);
void peer_wait(const struct peer *p);
/* Wait for pid; returns its raw status. */
int wait_status(pid_t pid);
/* Wait until pid has ended, without reaping it; returns its status in
 * waitpid's encoding. */
int wait_zombie(pid_t pid);
void expect_exit0(pid_t pid);
/* Linux KCOV_REMOTE_ENABLE of one handle, PC mode, area KC_ENTRIES. */
long kc_remote_enable1(const struct kc *k, int fd, uint64_t h);
/* In a peer's child: enables fd for h, tells the parent, waits, disables
 * and exits 0 (2: the enable failed, 3: the disable). */
void kc_collector_child(const struct kc *k, int fd, uint64_t h,
			const struct peer *p);

/* stderr into a pipe from begin to end; end returns what was written
 * (NUL-terminated, cut to size). */
void capture_stderr_begin(void);
void capture_stderr_end(char *msg, size_t size);

/* Read/write the descriptor's bytes directly (it is a memfd): sees the
 * whole page, including what no flavor lets one map. */
void fd_read(int fd, void *dst, size_t len, off_t off);
void fd_write(int fd, const void *src, size_t len, off_t off);

/* process_vm_readv/writev answer ENOSYS in this process from now on. */
void kc_deny_process_vm(void);
/* This process's mappings of a ukcov memfd ("/memfd:ukcov (deleted)"). */
int kc_descriptor_maps(void);

/* errno of the kernel's own ioctl(fd, req, 0) for a non-ukcov fd. */
int kc_kernel_ioctl_errno(int fd, unsigned long req);

#endif
