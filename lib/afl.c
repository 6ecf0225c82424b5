/*
 * lib/afl.c -- AFL++'s fork server in libukcov: a program linked with
 * libukcov runs under afl-fuzz, afl-showmap and afl-tmin unchanged.
 *
 * With __AFL_SHM_ID in the environment the constructor attaches the
 * edge map and, when afl-fuzz holds the pipes 198/199, speaks its
 * protocol (4.04c's hello with FS_OPT_* options, or the version-1
 * handshake of AFL++ 4.20+; facts from AFL++'s afl-compiler-rt.o.c and
 * afl-forkserver.c) and forks one child per input, or resumes a
 * persistent one (__afl_persistent_loop).
 *
 * Coverage is libukcov's own per-thread kcov: the child arms a Linux
 * flavor descriptor on the thread that runs the input, in PC mode (or
 * CMP mode in CmpLog runs, lib/afl_cmplog.c), and at the end of the
 * input turns the trace into edges (docs/DESIGN.md, "AFL++"), with
 * those of the threads it started and of the remote sections run for
 * its common handle: threads that do other work, a pool or a timer,
 * write nothing, so they cannot make AFL++'s coverage unstable.
 *
 *     afl-fuzz          fork server (this constructor)        child
 *     ctl 198 ------->  read "go", fork or SIGCONT  ------->  arm, run input,
 *     st 199  <-------  pid, then wait status      <-------  flush, exit/SIGSTOP
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "afl.h"
#include <ukcov/afl.h>
#include <ukcov/linux/kcov.h>

/* A trace of the input thread: 8 MiB of PCs (a sparse memfd: only the
 * pages an input writes are real).  An input that runs more edges than
 * this keeps its first ones. */
#define AFL_TRACE_WORDS (1u << 20)

/*
 * The process's AFL++ state.  Written by the constructor and, in the
 * child, by the input thread; read by the fatal-signal flush of that
 * same thread.
 */
static struct {
	uint8_t *map;		/* __AFL_SHM_ID, or NULL: not under AFL++ */
	uint8_t *shm_input;	/* __AFL_SHM_FUZZ_ID (u32 length, data) */
	int deferred;		/* the driver starts the server (ukcov_afl_defer) */
	int started;		/* ukcov_afl_start ran */
	int persistent;		/* __AFL_PERSISTENT: afl-fuzz resumes a
				 * stopped child instead of forking */
	int child;		/* this process runs inputs */
	int loop_started;	/* __afl_persistent_loop's first call */
	unsigned loop_left;	/* inputs left to this child */
	int fd;			/* the input thread's descriptor, or -1 */
	int mode;		/* KCOV_TRACE_PC or KCOV_TRACE_CMP */
	unsigned map_bits;	/* log2 of the map's size (map_bits_for) */
	uint64_t *area;		/* its buffer */
	unsigned input;		/* inputs begun in this child */
	int in_input;		/* an input runs: threads started now are
				 * its own (not the driver's throwaway
				 * call's) */
} afl = { .fd = -1 };

unsigned long ukcov__afl_input_thread;

/* The collector of remote sections ("remote sections" below). */
static struct {
	int fd;
	uint64_t *area;
	int ready;		/* under lock: 1 armed, -1 failed */
	pthread_mutex_t lock;
	pthread_cond_t cond;
} coll = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
	   .cond = PTHREAD_COND_INITIALIZER };

/* One line on stderr, whole, with one write(2). */
static void afl_say(const char *fmt, const char *what, const char *why)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), fmt, what, why);

	ukcov__say_line(msg, sizeof(msg), n);
}

/* ---- shared memory from the environment ---- */

/* The segment named by $name (a decimal shmget id), checked to hold at
 * least need bytes; NULL (said once, in one line) if it does not. */
void *ukcov__afl_shm(const char *name, size_t need)
{
	const char *v = ukcov__env(name);
	struct shmid_ds ds;
	char *end;
	unsigned long id;
	void *p;

	if (!v)
		return NULL;
	errno = 0;
	id = strtoul(v, &end, 10);
	if (!*v || *end || errno || id > 0x7fffffff) {
		afl_say("ukcov: afl: %s=%s is no shared memory id; "
			"running without it\n", name, v);
		return NULL;
	}
	if (shmctl((int)id, IPC_STAT, &ds) != 0) {
		afl_say("ukcov: afl: %s: %s; running without it\n", name,
			strerror(errno));
		return NULL;
	}
	if (ds.shm_segsz < need) {
		char why[96];

		snprintf(why, sizeof(why), "%zu bytes, fewer than the %zu needed",
			 (size_t)ds.shm_segsz, need);
		afl_say("ukcov: afl: %s: %s; running without it\n", name, why);
		return NULL;
	}
	p = shmat((int)id, NULL, 0);
	if (p == (void *)-1) {
		afl_say("ukcov: afl: %s: %s; running without it\n", name,
			strerror(errno));
		return NULL;
	}
	return p;
}

/* ---- module-relative PCs ---- */

/*
 * Edges are hashed from PCs relative to their module's load address,
 * so that two runs of one input give one map whatever ASLR chose
 * (afl-showmap starts the program afresh each time).  The table is
 * read once per child, when the recording is armed; a PC outside it
 * (a module loaded later) is used as it is.
 */
#define AFL_MODULES 64
static struct afl_module {
	uint64_t lo, hi, base;
} modules[AFL_MODULES];
static int nmodules;

static int note_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum && nmodules < AFL_MODULES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		modules[nmodules].lo = info->dlpi_addr + ph->p_vaddr;
		modules[nmodules].hi = modules[nmodules].lo + ph->p_memsz;
		modules[nmodules].base = info->dlpi_addr;
		nmodules++;
	}
	return 0;
}

static uint64_t module_offset(uint64_t pc)
{
	for (int i = 0; i < nmodules; i++)
		if (pc - modules[i].lo < modules[i].hi - modules[i].lo)
			return (pc - modules[i].base) ^ ((uint64_t)i << 40);
	return pc;
}

/* ---- the map's size ---- */

/*
 * The coverage points of the loaded modules: the direct calls to the
 * PC and guard callbacks in their code (on x86-64, e8 and a 32-bit
 * displacement).  An e8 byte inside another instruction that happens
 * to land there only makes the count, and the map, larger.  -1 where
 * they cannot be counted.
 */
#if defined(__x86_64__)
/* Weak: in a static link the runtime must not pull the callbacks'
 * object out of libukcov.a by itself (tests/suites.d/65-static.sh). */
extern const struct ukcov_point_callbacks __ukcov_point_callbacks
	__attribute__((weak));

static int count_calls(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *n = arg;
	uintptr_t pc = (uintptr_t)__ukcov_point_callbacks.trace_pc;
	uintptr_t guard = (uintptr_t)__ukcov_point_callbacks.trace_pc_guard;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    ph->p_memsz < 5)
			continue;
		for (uint64_t j = 0; j + 5 <= ph->p_memsz; j++) {
			int32_t rel;
			uintptr_t to;

			if (p[j] != 0xe8)
				continue;
			memcpy(&rel, p + j + 1, 4);
			to = (uintptr_t)(p + j + 5) + (uintptr_t)(intptr_t)rel;
			*n += to == pc || to == guard;
		}
	}
	return 0;
}

static int64_t count_points(void)
{
	uint64_t n = 0;

	if (!&__ukcov_point_callbacks)
		return -1;
	dl_iterate_phdr(count_calls, &n);
	return (int64_t)n;
}
#else
static int64_t count_points(void)
{
	return -1;
}
#endif

/* 16 bytes per point keeps the edges' hashes mostly apart; afl-fuzz's
 * work per input grows with the map, so it is no larger. */
static unsigned map_bits_for(int64_t points)
{
	unsigned bits = AFL_MAP_MIN_BITS;

	if (points < 0)
		return AFL_MAP_MAX_BITS;
	while (bits < AFL_MAP_MAX_BITS && (1ll << bits) < points * 16)
		bits++;
	return bits;
}

/* ---- the input thread's recording ---- */

/* A kcov descriptor armed on the calling thread in mode; its buffer,
 * or NULL.  *fd: the descriptor, -1 if none. */
static uint64_t *arm_desc(int mode, int *fd)
{
	struct ukcov_desc *d;
	void *p;

	*fd = ukcov__open_desc(UKCOV_LINUX, 1);
	if (*fd < 0)
		return NULL;
	d = ukcov__fd_lookup(*fd);
	if (!d || ukcov__do_ioctl(*fd, KCOV_INIT_TRACE, AFL_TRACE_WORDS))
		return NULL;
	p = ukcov__do_mmap(d, NULL, AFL_TRACE_WORDS * 8ul,
			   PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (ukcov__do_ioctl(*fd, KCOV_ENABLE, (unsigned long)mode)) {
		munmap(p, AFL_TRACE_WORDS * 8ul);
		return NULL;
	}
	__atomic_store_n((uint64_t *)p, 0, __ATOMIC_RELAXED);
	return p;
}

/* Arm the calling thread: it runs the input. */
static int rec_arm(int mode)
{
	afl.mode = mode;
	afl.area = arm_desc(mode, &afl.fd);
	if (!afl.area)
		return -1;
	ukcov__afl_input_thread = (unsigned long)pthread_self();
	return 0;
}

/*
 * Threads the input starts (afl_thread_create) record too, each
 * with its own descriptor in a slot here, tagged with the input that
 * started it; a slot of an earlier input is released when the next
 * input starts (its thread, if still running, then records into the
 * runtime's mapping that nobody reads).  Slot states: FREE -> ARMING
 * (the new thread, CAS) -> ARMED (the new thread) -> FREE (the input
 * thread, at the next input).
 */
#define AFL_THREADS 64
enum { SLOT_FREE, SLOT_ARMING, SLOT_ARMED };
static struct afl_slot {
	int state;		/* SLOT_*, atomic */
	int fd;
	unsigned input;		/* afl.input when its thread started */
	uint64_t *area;
} slots[AFL_THREADS];

static void slots_release_old(void)
{
	for (int i = 0; i < AFL_THREADS; i++) {
		struct afl_slot *sl = &slots[i];

		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SLOT_ARMED ||
		    sl->input == afl.input)
			continue;
		munmap(sl->area, AFL_TRACE_WORDS * 8ul);
		ukcov__real_close(sl->fd);
		sl->area = NULL;
		__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
	}
}

/* Called by a new thread of the input, before its start routine. */
static void slot_arm(unsigned input)
{
	for (int i = 0; i < AFL_THREADS; i++) {
		struct afl_slot *sl = &slots[i];
		int free_state = SLOT_FREE;

		if (!__atomic_compare_exchange_n(&sl->state, &free_state,
						 SLOT_ARMING, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		sl->input = input;
		sl->area = arm_desc(afl.mode, &sl->fd);
		if (!sl->area) {
			if (sl->fd >= 0)
				ukcov__real_close(sl->fd);
			__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
			return;
		}
		__atomic_store_n(&sl->state, SLOT_ARMED, __ATOMIC_RELEASE);
		return;
	}
}

static void rec_reset(void)
{
	afl.input++;
	slots_release_old();
	if (afl.area)
		__atomic_store_n(&afl.area[0], 0, __ATOMIC_RELAXED);
	if (coll.area)
		__atomic_store_n(&coll.area[0], 0, __ATOMIC_RELAXED);
	afl.in_input = 1;
}

static inline uint32_t pc_hash(uint64_t pc)
{
	return (uint32_t)((module_offset(pc) * UKCOV_PCSET_HASH) >>
			  (64 - afl.map_bits));
}

/* AFL's edge: the hash of the point, xor the previous one's shifted
 * right by one (so that A->B and B->A differ, and A->A is not 0); the
 * hit count saturates. */
static void map_from_pcs(uint8_t *map, const uint64_t *area, uint64_t n)
{
	uint32_t prev = 0;

	for (uint64_t i = 1; i <= n; i++) {
		uint32_t cur = pc_hash(area[i]);
		uint8_t *b = &map[cur ^ prev];

		*b += *b != 255;
		prev = cur >> 1;
	}
}

/* One thread's trace into the maps. */
static void flush_area(const uint64_t *area)
{
	uint64_t n, cap = AFL_TRACE_WORDS - 1;

	if (afl.mode == KCOV_TRACE_CMP) {
		ukcov__afl_cmp_from_trace(area, AFL_TRACE_WORDS);
		return;
	}
	n = __atomic_load_n(&area[0], __ATOMIC_ACQUIRE);
	map_from_pcs(afl.map, area, n < cap ? n : cap);
}

static void flush_remote(void);

/* The input is over: its threads' traces go to the maps.
 * Async-signal-safe (it runs from the fatal-signal handler too). */
static void rec_flush(void)
{
	if (!afl.area || !afl.map)
		return;
	flush_area(afl.area);
	for (int i = 0; i < AFL_THREADS; i++)
		if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) ==
		    SLOT_ARMED && slots[i].input == afl.input)
			flush_area(slots[i].area);
	flush_remote();
	/* afl-fuzz takes an all-zero map for a program without
	 * instrumentation (afl-compiler-rt.o.c sets this byte too). */
	afl.map[0] |= 1;
}

/* ---- remote sections under the input's common handle ---- */

/*
 * Work the input hands to a thread that already exists (a pool's
 * worker) is coverage of the input when that thread runs it in a
 * remote section for the input thread's common handle, as kcov users
 * do (ukcov_remote_start(3), examples/remote_pool.c).  A collector
 * thread of the child holds KCOV_REMOTE_ENABLE for a common handle of
 * its own, which the input thread then carries (and passes to threads
 * it starts).  Sections merge into the collector's area in the order
 * they end, which concurrent workers do not keep: their PCs count as
 * points (map[h(pc)]), not edges, so that one input gives one map.
 */
/* The collection for handle; 0, or -errno. */
static int collector_enable(uint64_t handle)
{
	struct kcov_remote_arg ra;

	memset(&ra, 0, sizeof(ra));
	ra.trace_mode = (uint32_t)afl.mode;
	ra.area_size = AFL_TRACE_WORDS;
	ra.common_handle = handle;
	if (ukcov__do_ioctl(coll.fd, KCOV_REMOTE_ENABLE, (unsigned long)&ra))
		return -errno;
	return 0;
}

/*
 * The handle's instance: the child's pid, tagged (0xa in the top bits)
 * so as not to meet the small numbers programs choose; the registry is
 * the user's, machine-wide (lib/registry.c), and a handle another
 * process holds gives EEXIST, so a few tags are tried.
 */
static void *collector_main(void *arg)
{
	uint64_t *handle = arg;
	struct ukcov_desc *d;
	int ok = 0;

	coll.fd = ukcov__open_desc(UKCOV_LINUX, 1);
	d = coll.fd >= 0 ? ukcov__fd_lookup(coll.fd) : NULL;
	if (d && !ukcov__do_ioctl(coll.fd, KCOV_INIT_TRACE, AFL_TRACE_WORDS)) {
		void *p = ukcov__do_mmap(d, NULL, AFL_TRACE_WORDS * 8ul,
					 PROT_READ | PROT_WRITE, MAP_SHARED,
					 coll.fd, 0);

		for (uint64_t tag = 0; p != MAP_FAILED && !ok && tag < 4; tag++) {
			uint64_t inst = 0xa0000000u | tag << 22 |
					((uint64_t)getpid() & 0x3fffff);

			*handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, inst);
			ok = collector_enable(*handle) == 0;
		}
		if (ok)
			coll.area = p;
	}
	pthread_mutex_lock(&coll.lock);
	coll.ready = ok ? 1 : -1;
	pthread_cond_broadcast(&coll.cond);
	/* The collection lives as long as this thread: for good. */
	for (;;)
		pthread_cond_wait(&coll.cond, &coll.lock);
	return NULL;
}

/* Does a module other than libukcov import the section API?  Its name
 * is then in the module's dynamic string table. */
static int imports_sections(struct dl_phdr_info *info, size_t size, void *arg)
{
	static const char *const names[] = { "ukcov_remote_start",
					     "ukcov_common_handle" };
	uintptr_t self = (uintptr_t)&imports_sections;
	const char *strtab = NULL;
	size_t strsz = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && self - lo < ph->p_memsz)
			return 0;	/* libukcov itself defines them */
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const ElfW(Dyn) *dyn;

		if (ph->p_type != PT_DYNAMIC)
			continue;
		dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		for (; dyn->d_tag != DT_NULL; dyn++) {
			if (dyn->d_tag == DT_STRTAB)
				strtab = (const char *)dyn->d_un.d_ptr;
			else if (dyn->d_tag == DT_STRSZ)
				strsz = dyn->d_un.d_val;
		}
	}
	/* glibc relocates DT_STRTAB in place; a raw offset is below the
	 * load address. */
	if (strtab && (uintptr_t)strtab < info->dlpi_addr)
		strtab += info->dlpi_addr;
	for (size_t i = 0; strtab && i < 2; i++)
		if (memmem(strtab, strsz, names[i], strlen(names[i]) + 1))
			*(int *)arg = 1;
	return 0;
}

/* Start the collector, only for a program that runs sections: a thread
 * more makes each persistent input's SIGSTOP cost about twice as much.
 * The calling (input) thread takes its handle, unless the program gave
 * it one (UKCOV_COMMON_HANDLE). */
static void collector_start(void)
{
	static uint64_t handle;
	int uses = 0;
	pthread_t t;

	if (__ukcov_thread.common_handle)
		return;
	dl_iterate_phdr(imports_sections, &uses);
	if (!uses)
		return;
	if (ukcov__real_pthread_create(&t, NULL, collector_main, &handle))
		return;
	pthread_mutex_lock(&coll.lock);
	while (!coll.ready)
		pthread_cond_wait(&coll.cond, &coll.lock);
	pthread_mutex_unlock(&coll.lock);
	if (coll.ready > 0)
		__ukcov_thread.common_handle = handle;
}

/* Sections' PCs, as points. */
static void map_from_points(uint8_t *map, const uint64_t *area, uint64_t n)
{
	for (uint64_t i = 1; i <= n; i++) {
		uint8_t *b = &map[pc_hash(area[i])];

		*b += *b != 255;
	}
}

static void flush_remote(void)
{
	uint64_t n, cap = AFL_TRACE_WORDS - 1;

	if (!coll.area)
		return;
	if (afl.mode == KCOV_TRACE_CMP) {
		ukcov__afl_cmp_from_trace(coll.area, AFL_TRACE_WORDS);
		return;
	}
	n = __atomic_load_n(&coll.area[0], __ATOMIC_ACQUIRE);
	map_from_points(afl.map, coll.area, n < cap ? n : cap);
}

/* ---- threads the input starts ---- */

/* Does a thread the caller starts now belong to the input? */
static int afl_follows(void)
{
	return afl.in_input && ukcov__afl_input_thread &&
	       ukcov__afl_input_thread == (unsigned long)pthread_self();
}

struct afl_start {
	void *(*fn)(void *);
	void *arg;
	unsigned input;
	uint64_t common_handle;	/* the creator's (Linux kcov_task_init) */
};

static void *afl_thread_start(void *p)
{
	struct afl_start s = *(struct afl_start *)p;

	free(p);
	__ukcov_thread.common_handle = s.common_handle;
	slot_arm(s.input);
	return s.fn(s.arg);
}

static int afl_thread_create(pthread_t *th, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg,
			     ukcov_pthread_create_fn next)
{
	struct afl_start *s = malloc(sizeof(*s));
	int rc;

	if (!s)
		return next(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->input = afl.input;
	s->common_handle = __ukcov_thread.common_handle;
	rc = next(th, attr, afl_thread_start, s);
	if (rc)
		free(s);
	return rc;
}

static void rec_stop(void)
{
	afl.in_input = 0;
	if (afl.fd >= 0)
		(void)ukcov__do_ioctl(afl.fd, KCOV_DISABLE, 0);
	ukcov__afl_input_thread = 0;
	afl.area = NULL;
}

/* ---- the child's end ---- */

static void flush_at_exit(void)
{
	rec_flush();
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				     SIGABRT, SIGTRAP };

/* A crash's edges go to the map too: afl-fuzz tells crashes apart by
 * them.  The handler is reset before it runs, so the signal, raised
 * again, kills the child as it would have. */
static void flush_on_fatal(int sig)
{
	rec_flush();
	afl.area = NULL;
	raise(sig);
}

/* Only where the signal would kill the child anyway: a handler already
 * there (a sanitizer's, the program's) keeps its signal. */
static void hook_fatal(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = flush_on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(*fatal_signals);
	     i++) {
		if (ukcov__real_sigaction(fatal_signals[i], NULL, &old) != 0 ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		(void)ukcov__real_sigaction(fatal_signals[i], &sa, NULL);
	}
}

/* In a new child, on the thread that will run the input. */
static void child_begin(void)
{
	int mode = ukcov__afl_cmp ? KCOV_TRACE_CMP : KCOV_TRACE_PC;

	afl.child = 1;
	nmodules = 0;
	dl_iterate_phdr(note_module, NULL);
	if (rec_arm(mode) != 0) {
		afl_say("ukcov: afl: %s: %s; the map stays empty\n",
			"cannot record the input", strerror(errno));
		return;
	}
	collector_start();
	/* A plain program's input is all it does; the driver's begins at
	 * its loop, after the throwaway call. */
	afl.in_input = !afl.deferred;
	atexit(flush_at_exit);
	hook_fatal();
}

/* ---- the fork server ---- */

/* A persistent child stops itself after each input; should the server
 * die (afl-fuzz gone), nobody would resume or reap it, so it goes with
 * the server. */
static void child_orphan_dies(pid_t server)
{
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != server)
		_exit(1);
}

static int fs_read(uint32_t *v)
{
	return read(AFL_CTL_FD, v, 4) == 4 ? 0 : -1;
}

static int fs_write(uint32_t v)
{
	return write(AFL_ST_FD, &v, 4) == 4 ? 0 : -1;
}

/* AFL++ 4.04c: one word of FS_OPT_* options; afl-fuzz answers only
 * when shared-memory test cases were offered.  1: not under a fork
 * server (nobody holds the pipe), -1: the server hung up. */
static int hello_404(int shm_input, int *use_shm)
{
	uint32_t st = AFL_OPT_ENABLED | AFL_OPT_NEWCMPLOG | AFL_OPT_MAPSIZE |
		      AFL_OPT_SET_MAP(1u << afl.map_bits), reply;

	if (shm_input)
		st |= AFL_OPT_SHDMEM;
	if (fs_write(st) != 0)
		return 1;
	*use_shm = 0;
	if (!shm_input)
		return 0;
	if (fs_read(&reply) != 0)
		return -1;
	*use_shm = (reply & (AFL_OPT_ENABLED | AFL_OPT_SHDMEM)) ==
		   (AFL_OPT_ENABLED | AFL_OPT_SHDMEM);
	return 0;
}

/* AFL++ 4.20+: "AFL\1", its complement back, options, the map size,
 * "AFL\1" again.  Shared-memory test cases need no answer there. */
static int hello_v1(int shm_input, int *use_shm)
{
	uint32_t reply;

	if (fs_write(AFL_V1_MAGIC) != 0)
		return 1;
	if (fs_read(&reply) != 0 || reply != (AFL_V1_MAGIC ^ 0xffffffffu))
		return -1;
	if (fs_write(AFL_V1_OPT_MAPSIZE | (shm_input ? AFL_V1_OPT_SHDMEM : 0)) ||
	    fs_write(1u << afl.map_bits) || fs_write(AFL_V1_MAGIC))
		return -1;
	*use_shm = shm_input;
	return 0;
}

/* afl-fuzz's pipes are there: fds 198 and 199 are pipes.  A program
 * that inherited the map's id but not from afl-fuzz may hold 199 for a
 * file of its own, which must not receive a hello. */
static int fs_present(void)
{
	struct stat st;

	return fstat(AFL_ST_FD, &st) == 0 && S_ISFIFO(st.st_mode) &&
	       fstat(AFL_CTL_FD, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Which handshake: 4.04c's, which current afl-fuzz still accepts,
 * unless UKCOV_AFL_PROTOCOL=1 asks for the version-1 one. */
static int fs_hello(int shm_input, int *use_shm)
{
	const char *p = ukcov__env("UKCOV_AFL_PROTOCOL");

	if (!fs_present())
		return 1;
	if (p && !strcmp(p, "1"))
		return hello_v1(shm_input, use_shm);
	return hello_404(shm_input, use_shm);
}

/* The server's loop; returns only in a child.  A stopped persistent
 * child is resumed, unless afl-fuzz killed it meanwhile (its "go" word
 * then is non-zero, and the dead child is reaped first). */
static void fs_serve(void)
{
	pid_t child = -1, server = getpid();
	int stopped = 0, status;
	uint32_t killed;

	for (;;) {
		if (fs_read(&killed) != 0) {
			/* afl-fuzz is gone: so is a stopped child (not yet
			 * reaped, so its pid is still its own), reaped here
			 * rather than left to whoever inherits it. */
			if (stopped && kill(child, SIGKILL) == 0)
				(void)waitpid(child, &status, 0);
			_exit(1);
		}
		if (stopped && killed) {
			stopped = 0;
			if (waitpid(child, &status, 0) < 0)
				_exit(1);
		}
		if (!stopped) {
			child = fork();
			if (child < 0)
				_exit(1);
			if (child == 0) {
				child_orphan_dies(server);
				ukcov__real_close(AFL_CTL_FD);
				ukcov__real_close(AFL_ST_FD);
				return;
			}
		} else {
			kill(child, SIGCONT);
		}
		if (fs_write((uint32_t)child) != 0)
			_exit(1);
		if (waitpid(child, &status, afl.persistent ? WUNTRACED : 0) < 0)
			_exit(1);
		stopped = WIFSTOPPED(status);
		if (fs_write((uint32_t)status) != 0)
			_exit(1);
	}
}

/* The server's SIGCHLD at its default, whatever the program chose, so
 * that waitpid sees the children (libc's, not the runtime's own wrapper). */
static void set_sigchld_default(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	ukcov__real_sigaction(SIGCHLD, &sa, NULL);
}

UKCOV_EXPORT void ukcov_afl_start(int flags)
{
	const char *p;
	int use_shm = 0, rc;

	if (afl.started++ || !afl.map)
		return;
	p = ukcov__env("__AFL_PERSISTENT");
	afl.persistent = p != NULL;
	(void)ukcov__afl_cmp_attach();
	rc = fs_hello(flags & UKCOV_AFL_SHM_INPUT, &use_shm);
	if (rc < 0)
		_exit(1);
	if (rc == 0) {
		if (use_shm)
			afl.shm_input = ukcov__afl_shm("__AFL_SHM_FUZZ_ID",
						       AFL_SHM_INPUT_MAX + 4);
		set_sigchld_default();
		fs_serve();
	}
	child_begin();
}

UKCOV_EXPORT void ukcov_afl_defer(void)
{
	afl.deferred = 1;
}

UKCOV_EXPORT int ukcov_afl_active(void)
{
	return afl.map != NULL;
}

UKCOV_EXPORT int ukcov_afl_input(const uint8_t **data, size_t *len)
{
	uint32_t n;

	if (!afl.shm_input)
		return 0;
	memcpy(&n, afl.shm_input, 4);
	*data = afl.shm_input + 4;
	*len = n < AFL_SHM_INPUT_MAX ? n : AFL_SHM_INPUT_MAX;
	return 1;
}

/*
 * AFL++'s persistent loop (afl-compiler-rt.o.c __afl_persistent_loop):
 * true for each input a child runs.  The first call forgets what the
 * child did before (start-up, the driver's throwaway call); each later
 * one writes the last input's edges, stops the child (SIGSTOP: afl-fuzz
 * sees the input done) and, resumed, starts the next.  Without
 * __AFL_PERSISTENT, or outside AFL++, the loop runs once.
 */
UKCOV_EXPORT int __afl_persistent_loop(unsigned int max)
{
	if (!afl.loop_started) {
		afl.loop_started = 1;
		afl.loop_left = max;
		rec_reset();
		return 1;
	}
	if (afl.persistent && afl.child && afl.loop_left && --afl.loop_left) {
		rec_flush();
		raise(SIGSTOP);
		rec_reset();
		return 1;
	}
	/* What follows the loop is not the input's. */
	rec_flush();
	rec_stop();
	return 0;
}

static const struct ukcov_create_hook afl_create_hook = {
	.claims = afl_follows,
	.create = afl_thread_create,
};

/* After the runtime's constructor (101): its thread state is ready. */
__attribute__((constructor(102))) static void afl_init(void)
{
	if (!ukcov__env("__AFL_SHM_ID"))
		return;
	afl.map_bits = map_bits_for(count_points());
	afl.map = ukcov__afl_shm("__AFL_SHM_ID", 1u << afl.map_bits);
	if (!afl.map)
		return;
	ukcov__follow_set_create_hook(&afl_create_hook);
	if (afl.deferred)
		return;
	ukcov_afl_start(0);
}
