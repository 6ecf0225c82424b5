/*
 * lib/fuzz_exec.c -- the executor half of "ukcov fuzz": runs a
 * libFuzzer-style harness, one input at a time, under kcov.
 *
 * A driver's main calls
 *
 *	if (__ukcov_fuzz_serve(LLVMFuzzerTestOneInput) < 0)
 *		... not under "ukcov fuzz": run the files given as args ...
 *
 * (tests/fuzz/driver.c; the -fsanitize=fuzzer driver of ukcov-cc calls
 * it the same way).  It returns -1 at once unless $UKCOV_FUZZ names the
 * channels that "ukcov fuzz" made (lib/fuzz_proto.h), and 0 when the
 * tool closes the command pipe.
 *
 * In between, the input runs in this process and on this thread, with a
 * per-input reset, the way syzkaller's executor runs a program under
 * kcov: either unique PC coverage (KCOV_UNIQUE_ENABLE, each point once
 * per input, the novelty signal) or a CMP trace (KCOV_TRACE_CMP, the
 * operands that the tool turns into hints).  A thread has one kcov
 * descriptor and one mode (Linux kcov_ioctl: EBUSY), so the two are two
 * executions, as syzkaller collects comparisons in runs of their own.
 * The descriptor stays enabled across inputs of one mode: between
 * inputs only the bitmap and the count are zeroed.
 *
 * The input's other threads: a collector thread owns a remote
 * collection (KCOV_REMOTE_ENABLE) of the common handle that the serving
 * thread passes on to the threads it creates, as Linux's kcov_task_init
 * passes kcov_handle on; the remote sections they run under it
 * (ukcov_remote_start(ukcov_common_handle())) are merged into that
 * collection and count for the input.  Worker pools and timers started
 * before, or working under other handles, do not.  Linux's owner of a
 * remote collection does not trace itself, hence the second thread; it
 * follows the serving thread's mode (PC or CMP).
 *
 * In CMP executions the compare routines that ukcov-cc wraps (memcmp,
 * strcmp and the others of lib/afl_rtn.c) leave their operands in the
 * shared block too (ukcov__fuzz_rtn): libc is not instrumented, so no
 * CMP record shows them.
 *
 * A crash kills the process; the tool sees the death and starts a new
 * executor.  docs/PERFORMANCE.md ("ukcov fuzz") has the measurement
 * that chose this over a fork per input.  The fatal-signal handler
 * leaves the faulting PC and the trace's last points in the shared
 * block, the stack signature the tool deduplicates crashes by.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <ukcov/linux/kcov.h>

#include "afl.h"
#include "fuzz_proto.h"
#include "internal.h"

/* The trace after the bitmap; both are whole pages of words, as Linux
 * kcov_mmap wants the buffer. */
#define FZ_TRACE_WORDS  (1UL << 18)
#define FZ_PAGE_WORDS   512UL
#define FZ_REMOTE_WORDS (1UL << 16)
/* The common handles executors take, the first one no live process
 * holds: "ukf" and a number below FZ_REMOTE_HANDLES.  A crashed
 * executor never unregisters; the next one that probes its handle
 * reclaims the slot (lib/registry.c handle_taken), so executors keep
 * reusing a few slots of the machine's registry instead of leaving one
 * per crash. */
#define FZ_REMOTE_BASE    0x756b6600U
#define FZ_REMOTE_HANDLES 256
#define FZ_MAX_MODULES  64

typedef int (*fz_test_fn)(const uint8_t *, size_t);

struct fz_module {
	uintptr_t lo, hi;	/* executable segments' extent */
	uintptr_t base;		/* load bias */
};

/* The executor's state: set up once, then touched only by the serving
 * thread and its fatal-signal handler. */
static struct {
	int ctl, st;			/* command and status pipes */
	struct ukfz_shm *shm;		/* the tool's block */
	uint8_t *in;
	uint64_t *out;
	uint64_t in_max, out_words;	/* checked at setup, never reread */
	int kfd;			/* this thread's kcov descriptor */
	uint64_t *kbuf;
	int armed;			/* UKFZ_CMD_* enabled, or 0 */
	uint64_t bitmap_words;		/* unique mode's bitmap */
	uint64_t entries;		/* the whole buffer */
	struct fz_module mods[FZ_MAX_MODULES];
	int nmods;
	pid_t pid;			/* the serving process */
	pthread_t server;		/* the serving thread */
	uint64_t *rtn_count;		/* routine operands (count word) */
	struct ukfz_rtn *rtn;
	uint64_t rtn_max;		/* checked at setup, never reread */
	int rtn_live;			/* a CMP execution is running */
} fz = { .ctl = -1, .st = -1, .kfd = -1 };

/* The remote collection of the input's other threads.  want/have under
 * lock; the buffer's count is zeroed by the serving thread between
 * inputs, and appended to by the sections' merges. */
static struct {
	int fd;				/* its kcov descriptor */
	uint64_t *buf;
	uint64_t handle;		/* the common handle, 0 before the
					 * first enable (collector only) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int want;			/* UKFZ_CMD_* the serving thread runs */
	int have;			/* UKFZ_CMD_* enabled; -1: failed */
	int err;			/* the failed enable's errno */
} fzr = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
	  .cond = PTHREAD_COND_INITIALIZER };

static int fz_fail(const char *what)
{
	/* One line, then the driver falls back to its stand-alone mode. */
	dprintf(2, "ukcov fuzz executor: %s\n", what);
	errno = EINVAL;
	return -1;
}

/* "CTL,STATUS,SHM": three decimal fds, nothing else. */
static int fz_parse_env(const char *s, int fds[3])
{
	for (int i = 0; i < 3; i++) {
		long v = 0;
		int digits = 0;

		for (; *s >= '0' && *s <= '9' && digits < 10; s++, digits++)
			v = v * 10 + (*s - '0');
		if (!digits || v > INT_MAX)
			return -1;
		fds[i] = (int)v;
		if (*s != (i < 2 ? ',' : '\0'))
			return -1;
		s++;
	}
	return 0;
}

static int fz_is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Map the tool's block and check its layout against the file's real
 * size; the lengths kept are what this process bounds itself by. */
static const char *fz_map_shm(int fd)
{
	struct stat st;
	const struct ukfz_shm *h;
	uint64_t size, in_max, out_off, out_words, rtn_off, rtn_max;
	int seals;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return "the shared block is not a regular file";
	/* A block that could shrink under the mapping would turn a load
	 * into SIGBUS: the tool seals its size (memfd_create(2)). */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) !=
				 (F_SEAL_SHRINK | F_SEAL_GROW))
		return "the shared block's size is not sealed";
	if (st.st_size < (off_t)(UKFZ_IN_OFF + 4096) ||
	    st.st_size > (off_t)1 << 34)
		return "the shared block has a bad size";
	size = (uint64_t)st.st_size;
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return "cannot map the shared block";
	in_max = h->in_max;
	out_off = h->out_off;
	out_words = h->out_words;
	rtn_off = h->rtn_off;
	rtn_max = h->rtn_max;
	if (h->magic != UKFZ_MAGIC || h->size != size ||
	    in_max > size - UKFZ_IN_OFF || out_off < UKFZ_IN_OFF + in_max ||
	    out_off % 8 || out_off > size || out_words < 1 + 4 ||
	    out_words > (size - out_off) / 8 || rtn_off % 8 ||
	    rtn_off < out_off + out_words * 8 || rtn_off > size - 8 ||
	    rtn_max > UKFZ_RTN_MAX ||
	    rtn_max > (size - rtn_off - 8) / sizeof(struct ukfz_rtn)) {
		munmap((void *)h, size);
		return "the shared block's header is inconsistent";
	}
	fz.shm = (struct ukfz_shm *)h;
	fz.in = (uint8_t *)h + UKFZ_IN_OFF;
	fz.out = (uint64_t *)((uint8_t *)h + out_off);
	fz.in_max = in_max;
	fz.out_words = out_words;
	fz.rtn_count = (uint64_t *)((uint8_t *)h + rtn_off);
	fz.rtn = (struct ukfz_rtn *)(fz.rtn_count + 1);
	fz.rtn_max = rtn_max;
	return NULL;
}

static int fz_add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct fz_module m = { UINTPTR_MAX, 0, info->dlpi_addr };

	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + p->p_vaddr < m.lo)
			m.lo = info->dlpi_addr + p->p_vaddr;
		if (info->dlpi_addr + p->p_vaddr + p->p_memsz > m.hi)
			m.hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
	}
	if (m.lo < m.hi && fz.nmods < FZ_MAX_MODULES)
		fz.mods[fz.nmods++] = m;
	return 0;
}

/* A PC that means the same after a restart under ASLR: module number
 * (load order) and offset.  A PC outside every module stays as is. */
static uint64_t fz_stable_pc(uint64_t pc)
{
	for (int i = 0; i < fz.nmods; i++)
		if (pc >= fz.mods[i].lo && pc < fz.mods[i].hi)
			return ((uint64_t)(i + 1) << UKFZ_MODULE_SHIFT) |
			       (pc - fz.mods[i].base);
	return pc;
}

/* Where the records of the armed mode are: count word, capacity. */
static uint64_t *fz_trace(uint64_t *cap)
{
	if (fz.armed == UKFZ_CMD_PC) {
		*cap = FZ_TRACE_WORDS - 1;
		return fz.kbuf + fz.bitmap_words;
	}
	*cap = (fz.entries - 1) / 4;
	return fz.kbuf;
}

static uint64_t fz_count(const uint64_t *trace, uint64_t cap)
{
	uint64_t n = __atomic_load_n(&trace[0], __ATOMIC_ACQUIRE);

	return n < cap ? n : cap;
}

static uintptr_t fz_context_pc(const void *uc)
{
#if defined(__x86_64__)
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

/* Fatal signal: leave the crash's stack signature, then die of it.
 * Async-signal-safe: loads, stores and raise. */
static void fz_on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct ukfz_shm *h = fz.shm;
	uint64_t cap, n, k = 0;
	const uint64_t *tr;

	(void)si;
	h->crash_sig = (uint64_t)sig;
	h->crash_pc = fz_stable_pc(fz_context_pc(uc));
	if (fz.armed) {
		tr = fz_trace(&cap);
		n = fz_count(tr, cap);
		for (uint64_t i = n; i > 0 && k < UKFZ_CRASH_PCS; i--) {
			uint64_t pc = fz.armed == UKFZ_CMD_PC ? tr[i]
							       : tr[4 * i];
			h->crash_pcs[k++] = fz_stable_pc(pc);
		}
	}
	h->crash_npcs = k;
	/* SA_RESETHAND restored the default action; a fault re-raised by
	 * returning would do too, a raise()d signal would not. */
	raise(sig);
}

/* The handler runs on a stack of its own, so that a harness that
 * overflows the serving thread's stack still leaves its signature. */
static int fz_alt_stack(void)
{
	stack_t ss = { .ss_size = (size_t)64 << 10 };

	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == MAP_FAILED)
		return 0;
	return sigaltstack(&ss, NULL) == 0 ? SA_ONSTACK : 0;
}

static void fz_catch_fatal(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
				    SIGTRAP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fz_on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | fz_alt_stack();
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* One bit per byte of the executable's text and the 64 words more that
 * make the unique mode exact without hashing (ukcov(4), "direct
 * bits"), at least a page: zeroing the bitmap is the whole per-input
 * reset, so it is no larger than the harness needs.  Points in shared
 * objects are hashed into the same bits. */
static uint64_t fz_bitmap_words(void)
{
	uint64_t text = fz.nmods ? fz.mods[0].hi - fz.mods[0].lo : 0;
	uint64_t w = text / 64 + 64;

	if (w > (1UL << 22))
		w = 1UL << 22;
	return (w + FZ_PAGE_WORDS - 1) / FZ_PAGE_WORDS * FZ_PAGE_WORDS;
}

static int fz_kcov_setup(void)
{
	fz.bitmap_words = fz_bitmap_words();
	fz.entries = fz.bitmap_words + FZ_TRACE_WORDS;
	fz.kfd = ukcov_open(UKCOV_LINUX);
	if (fz.kfd < 0)
		return -1;
	if (ukcov_ioctl(fz.kfd, KCOV_INIT_TRACE, (unsigned long)fz.entries))
		return -1;
	fz.kbuf = mmap(NULL, fz.entries * 8, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fz.kfd, 0);
	return fz.kbuf == MAP_FAILED ? -1 : 0;
}

/* KCOV_REMOTE_ENABLE of the common handle in a mode, by the owner;
 * the first time, of the first handle of the pool that is free. */
static int fz_remote_enable(int cmd)
{
	struct kcov_remote_arg arg = {
		.trace_mode = cmd == UKFZ_CMD_PC ? KCOV_TRACE_PC : KCOV_TRACE_CMP,
		.area_size = FZ_REMOTE_WORDS,
		.num_handles = 0,
	};
	int rc = -1;

	if (fzr.handle) {
		arg.common_handle = fzr.handle;
		return ukcov_ioctl(fzr.fd, KCOV_REMOTE_ENABLE, &arg);
	}
	for (uint32_t k = 0; k < FZ_REMOTE_HANDLES; k++) {
		arg.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON,
						       FZ_REMOTE_BASE + k);
		rc = ukcov_ioctl(fzr.fd, KCOV_REMOTE_ENABLE, &arg);
		if (rc == 0 || errno != EEXIST)
			break;
	}
	if (rc == 0)
		fzr.handle = arg.common_handle;
	return rc;
}

/* The collector thread: re-enables its collection in the mode the
 * serving thread asks for, and otherwise sleeps. */
static void *fz_remote_owner(void *unused)
{
	int have = 0;

	(void)unused;
	pthread_mutex_lock(&fzr.lock);
	for (;;) {
		int want;

		while (fzr.want == have || have < 0)
			pthread_cond_wait(&fzr.cond, &fzr.lock);
		want = fzr.want;
		pthread_mutex_unlock(&fzr.lock);
		if (have > 0)
			ukcov_ioctl(fzr.fd, KCOV_DISABLE, 0UL);
		have = fz_remote_enable(want) ? -1 : want;
		pthread_mutex_lock(&fzr.lock);
		fzr.err = errno;
		fzr.have = have;
		pthread_cond_broadcast(&fzr.cond);
	}
	return NULL;
}

/* The collection in the mode of the next input: 0, or -1 if it could
 * not be (then the input's own thread is all that counts). */
static int fz_remote_mode(int cmd)
{
	int have;

	if (fzr.fd < 0)
		return -1;
	pthread_mutex_lock(&fzr.lock);
	fzr.want = cmd;
	pthread_cond_broadcast(&fzr.cond);
	while (fzr.have != cmd && fzr.have >= 0)
		pthread_cond_wait(&fzr.cond, &fzr.lock);
	have = fzr.have;
	pthread_mutex_unlock(&fzr.lock);
	if (have < 0) {
		dprintf(2, "ukcov fuzz executor: no remote collection of the "
			"input's threads: %s\n", strerror(fzr.err));
		fzr.fd = -1;
		return -1;
	}
	/* The threads this thread creates inherit the handle (follow.c). */
	__ukcov_thread.common_handle = fzr.handle;
	return 0;
}

static void fz_remote_setup(void)
{
	pthread_t th;

	fzr.fd = ukcov_open(UKCOV_LINUX);
	if (fzr.fd < 0)
		return;
	if (ukcov_ioctl(fzr.fd, KCOV_INIT_TRACE, FZ_REMOTE_WORDS) ||
	    (fzr.buf = mmap(NULL, FZ_REMOTE_WORDS * 8, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fzr.fd, 0)) == MAP_FAILED ||
	    pthread_create(&th, NULL, fz_remote_owner, NULL)) {
		close(fzr.fd);
		fzr.fd = -1;
		return;
	}
	pthread_detach(th);
}

/* Enable this thread in the mode of the command, or reset the trace of
 * the mode that is on.  The reset is the user's (ukcov(4): zeroing the
 * bitmap and the count is the whole reset), not KCOV_RESET_TRACE: the
 * request costs microseconds, the stores of a page-sized bitmap tens
 * of nanoseconds (docs/PERFORMANCE.md, "ukcov fuzz"). */
static int fz_arm(int cmd)
{
	if (fz.armed == cmd) {
		if (cmd == UKFZ_CMD_PC)
			memset(fz.kbuf, 0, (fz.bitmap_words + 1) * 8);
		else
			__atomic_store_n(&fz.kbuf[0], 0, __ATOMIC_RELAXED);
		return 0;
	}
	if (fz.armed && ukcov_ioctl(fz.kfd, KCOV_DISABLE, 0UL))
		return -1;
	fz.armed = 0;
	memset(fz.kbuf, 0, (fz.bitmap_words + 1) * 8);
	if (cmd == UKFZ_CMD_PC
		    ? ukcov_ioctl(fz.kfd, KCOV_UNIQUE_ENABLE,
				  (unsigned long)fz.bitmap_words)
		    : ukcov_ioctl(fz.kfd, KCOV_ENABLE, (unsigned long)
				  KCOV_TRACE_CMP))
		return -1;
	fz.armed = cmd;
	return 0;
}

/* n records of w words from a trace into the block at *at, as stable
 * PCs; returns how many fitted. */
static uint64_t fz_copy_records(const uint64_t *recs, uint64_t n,
				uint64_t w, uint64_t *at)
{
	uint64_t room = (fz.out_words - 1 - *at) / w;
	uint64_t *o = fz.out + 1 + *at;

	if (n > room)
		n = room;
	for (uint64_t i = 0; i < n; i++, o += w, recs += w) {
		if (w == 4) {
			o[0] = recs[0];
			o[1] = recs[1];
			o[2] = recs[2];
		}
		o[w - 1] = fz_stable_pc(recs[w - 1]);
	}
	*at += n * w;
	return n;
}

/* The records of the input just run: its own thread's, then those its
 * other threads' sections merged into the remote collection. */
static void fz_copy_out(void)
{
	uint64_t cap, n, w = fz.armed == UKFZ_CMD_PC ? 1 : 4, at = 0, got;
	const uint64_t *tr = fz_trace(&cap);
	uint64_t dropped;

	n = fz_count(tr, cap);
	got = fz_copy_records(tr + 1, n, w, &at);
	dropped = n - got;
	if (fzr.fd >= 0) {
		n = fz_count(fzr.buf, (FZ_REMOTE_WORDS - 1) / w);
		got = fz_copy_records(fzr.buf + 1, n, w, &at);
		dropped += n - got;
	}
	fz.shm->dropped = dropped;
	__atomic_store_n(&fz.out[0], at / w, __ATOMIC_RELEASE);
}

static int fz_read_cmd(uint32_t *cmd)
{
	size_t got = 0;

	while (got < sizeof(*cmd)) {
		ssize_t r = read(fz.ctl, (char *)cmd + got, sizeof(*cmd) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -1 : (got ? -1 : 0);
		got += (size_t)r;
	}
	return 1;
}

static int fz_write_word(uint32_t v)
{
	ssize_t r;

	do
		r = write(fz.st, &v, sizeof(v));
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)sizeof(v) ? 0 : -1;
}

/* Whether the calling thread does the input's work: the serving thread,
 * or one that inherited the common handle from it. */
static int fz_rtn_thread(void)
{
	return pthread_equal(pthread_self(), fz.server) ||
	       (fzr.handle && __ukcov_thread.common_handle == fzr.handle);
}

/* A compare routine's operands (lib/afl_cmplog.c cut them to
 * UKFZ_RTN_BYTES), during a CMP execution only: the tool splices them
 * into the input as libFuzzer does the operands of its memcmp hook
 * (compiler-rt FuzzerTracePC.cpp, TORC/MemMemTable).  The slot is taken
 * atomically since the input's threads may call at once. */
void ukcov__fuzz_rtn(uint64_t pc, const void *a, size_t la, const void *b,
		     size_t lb, unsigned flags)
{
	struct ukfz_rtn *r;
	uint64_t i;

	if (!__atomic_load_n(&fz.rtn_live, __ATOMIC_ACQUIRE) ||
	    !fz_rtn_thread())
		return;
	i = __atomic_fetch_add(fz.rtn_count, 1, __ATOMIC_RELAXED);
	if (i >= fz.rtn_max)
		return;
	r = &fz.rtn[i];
	r->pc = fz_stable_pc(pc);
	r->len_a = (uint8_t)la;
	r->len_b = (uint8_t)lb;
	r->flags = (uint8_t)flags;
	memcpy(r->a, a, la);
	memcpy(r->b, b, lb);
}

/* One input: a private copy of exactly its length (an overread is the
 * harness's bug, as under libFuzzer), run in the asked mode. */
static int fz_run_one(fz_test_fn test_one, uint32_t cmd)
{
	uint64_t len = __atomic_load_n(&fz.shm->in_len, __ATOMIC_ACQUIRE);
	uint8_t *copy;

	if (len > fz.in_max)
		return fz_fail("input longer than the shared block");
	copy = malloc(len ? len : 1);
	if (!copy)
		return fz_fail("out of memory for an input");
	memcpy(copy, fz.in, len);
	if (fz.armed != (int)cmd)
		fz_remote_mode((int)cmd);
	if (fzr.fd >= 0)
		__atomic_store_n(&fzr.buf[0], 0, __ATOMIC_RELEASE);
	if (fz_arm((int)cmd)) {
		free(copy);
		return fz_fail("cannot enable kcov on the serving thread");
	}
	if (cmd == UKFZ_CMD_CMP) {
		__atomic_store_n(fz.rtn_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&fz.rtn_live, 1, __ATOMIC_RELEASE);
	}
	test_one(copy, len);
	__atomic_store_n(&fz.rtn_live, 0, __ATOMIC_RELEASE);
	/* A child the harness forked and let return must not serve: it
	 * shares the pipes, and two readers of one command stream would
	 * take each other's inputs. */
	if (getpid() != fz.pid)
		_exit(0);
	fz_copy_out();
	free(copy);
	return fz_write_word(UKFZ_ST_DONE);
}

static int fz_setup(void)
{
	const char *env = ukcov__env(UKFZ_ENV), *why;
	int fds[3];

	if (!env)
		return 1;
	if (fz_parse_env(env, fds))
		return fz_fail("$" UKFZ_ENV " is not CTL,STATUS,SHM");
	if (!fz_is_pipe(fds[0]) || !fz_is_pipe(fds[1]))
		return fz_fail("$" UKFZ_ENV ": command/status fds are not pipes");
	if ((why = fz_map_shm(fds[2])))
		return fz_fail(why);
	fz.ctl = fds[0];
	fz.st = fds[1];
	fz.pid = getpid();
	fz.server = pthread_self();
	dl_iterate_phdr(fz_add_module, NULL);
	if (fz_kcov_setup()) {
		dprintf(2, "ukcov fuzz executor: kcov: %s\n", strerror(errno));
		return fz_fail("cannot set up a kcov descriptor");
	}
	fz_remote_setup();
	fz_catch_fatal();
	/* The compare routines' wrappers now pass their operands on
	 * (lib/afl_rtn.c); in PC executions ukcov__fuzz_rtn drops them. */
	__atomic_store_n(&ukcov__rtn_on, 1, __ATOMIC_RELAXED);
	return fz_write_word(UKFZ_HELLO) ? fz_fail("the tool went away") : 0;
}

UKCOV_EXPORT int __ukcov_fuzz_serve(fz_test_fn test_one)
{
	uint32_t cmd;
	int r = 1;

	if (!test_one || (r = fz_setup()) != 0) {
		errno = r > 0 ? ENOENT : EINVAL;
		return -1;
	}
	while ((r = fz_read_cmd(&cmd)) > 0) {
		if (cmd != UKFZ_CMD_PC && cmd != UKFZ_CMD_CMP)
			return fz_fail("unknown command from the tool");
		if (fz_run_one(test_one, cmd))
			return -1;
	}
	if (fz.armed)
		ukcov_ioctl(fz.kfd, KCOV_DISABLE, 0UL);
	fz.armed = 0;
	return r < 0 ? fz_fail("reading a command failed") : 0;
}
