/*
 * lib/internal.h -- libukcov's internal interfaces.  Nothing here is API.
 *
 * A ukcov descriptor is a memfd.  Offset 0 holds the user-visible buffer
 * (word 0 = record count, then records); a control block at the fixed
 * offset UKCOV_CB_OFF holds the state that every process holding the
 * descriptor shares, the way every holder of a kernel file description
 * shares one struct kcov.  See docs/DESIGN.md for the whole picture.
 *
 * Lock tags.  Every field comment of lib/ starts with how the field is
 * protected, one letter each (as FreeBSD kern_kcov.c's (o)/(l)/(s) and
 * OpenBSD dev/kcov.c's [I]/[M]/[a]); a file may say more in its own
 * "Locking:" comment, never something else:
 *   [I] immutable once the object is published (set before the store
 *       or the list insertion that makes it visible);
 *   [F] set once under the lock, then read without it;
 *   [S] set once before the word that enables its use is published
 *       (release), read after that word (acquire);
 *   [A] atomics only, from any thread (or process, in shared memory);
 *   [W] written only by the owner thread, read by others with atomics;
 *   [T] touched only by the thread it belongs to;
 *   [M] under the control block's process-shared robust mutex
 *       (ukcov__cb_lock);
 *   [P] under ukcov__proc_lock;
 *   [R] under remote.c's reg_lock;
 *   [L] under the one lock of the file that declares the field (the
 *       file's "Locking:" comment names it: sancov.c init_lock,
 *       signals.c table_lock, remote.c a collector's lock);
 *   [N] inserted under that lock, read without it (the list only grows);
 *   [Q] read without the lock as a seqlock: copy, then retry if the
 *       sequence word moved (signals.c);
 *   [D] only while this process dumps (sancov_dump.c's dump flag).
 * Lock order: ukcov__proc_lock, a control block's lock, then remote.c's
 * reg_lock and a collector's lock, or remote_netbsd.c's nb_lock.
 */
#ifndef UKCOV_INTERNAL_H
#define UKCOV_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/types.h>

#include <ukcov/kcov.h>
#include "threadblock.h"

#define UKCOV_HIDDEN __attribute__((visibility("hidden")))
#define UKCOV_EXPORT __attribute__((visibility("default")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The PC a .sancov file, a dump, the PC set and the trace hold for a
 * callback's return address: inside the call instruction, as
 * compiler-rt's StackTrace::GetPreviousInstructionPc
 * (sanitizer_stacktrace.h, which its trace_pc_guard uses) and LLVM
 * sancov's getPreviousInstructionPc (llvm/tools/sancov/sancov.cpp)
 * choose it; the tool's pc_to_point (tools/elfpoints.c) is the same
 * rule.  A constant: the callbacks do no more work for it.  (The kcov
 * buffer keeps the return address itself, as the kernels' do.) */
#if defined(__aarch64__)
#define UKCOV_PREV_PC(ret) ((ret) - 4)
#elif defined(__riscv)
#define UKCOV_PREV_PC(ret) ((ret) - 2)
#else
#define UKCOV_PREV_PC(ret) ((ret) - 1)
#endif

/* An AT_SECURE process (set-user-ID, set-group-ID, file capabilities):
 * its invoker, not its owner, chose the environment and the inherited
 * descriptors, so the runtime reads no environment and takes over no
 * descriptor there. */
static inline int ukcov__secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* Every environment read of the runtime.  glibc's secure_getenv: NULL
 * in an AT_SECURE process, silently, as the dynamic loader drops
 * LD_PRELOAD there; otherwise no UKCOV_* variable could name a file
 * that a set-user-ID root program then creates or appends to.  Inline:
 * callbacks.c is linked into the executable apart from the runtime. */
static inline const char *ukcov__env(const char *name)
{
	return ukcov__secure() ? NULL : getenv(name);
}

/* Flags for a file the runtime opens by a name from the environment:
 * a symlink planted at that name is not followed (ELOOP), and the
 * descriptor neither leaks into an exec nor becomes a terminal's. */
#define UKCOV_ENV_OPEN_FLAGS (O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)

/* Layout of the memfd.  The largest buffer any flavor accepts is Linux's
 * INT_MAX/8 entries (2 GiB), so the control block sits above 4 GiB in a
 * sparse file.  The byte after it carries the holders' POSIX locks. */
#define UKCOV_CB_OFF    (1ULL << 32)
#define UKCOV_CB_SIZE   4096ULL
#define UKCOV_LOCK_OFF  (UKCOV_CB_OFF + UKCOV_CB_SIZE)
#define UKCOV_FILE_SIZE (UKCOV_LOCK_OFF + 4096ULL)
#define UKCOV_MAGIC     0x31766f636b75ULL	/* "ukcov1" */
#define UKCOV_MEMFD_NAME "ukcov"

/* Descriptor states; each OS names them differently (docs/DESIGN.md):
 *   Linux DISABLED/INIT/TRACE, FreeBSD OPEN/READY/RUNNING/DYING,
 *   NetBSD !buf/buf/enabled, OpenBSD NONE/READY/TRACE/DYING. */
enum ukcov_state {
	UKCOV_ST_OPEN = 0,	/* no buffer yet */
	UKCOV_ST_READY,		/* buffer set, not enabled */
	UKCOV_ST_RUNNING,	/* enabled by exactly one thread */
	UKCOV_ST_DYING,		/* last close while running (FreeBSD, OpenBSD) */
};

/* What an enabled thread records. */
enum ukcov_mode {
	UKCOV_MODE_NONE = 0,	/* NetBSD KCOV_MODE_NONE: enabled, records nothing */
	UKCOV_MODE_PC,
	UKCOV_MODE_CMP,
	UKCOV_MODE_REMOTE,	/* Linux KCOV_MODE_REMOTE: the owner of a
				 * KCOV_REMOTE_ENABLE; its own code is not
				 * traced (lib/remote.c) */
};

/*
 * The control block: one per descriptor, shared by every process that
 * holds it (MAP_SHARED at UKCOV_CB_OFF).
 *
 *            SETBUFSIZE          ENABLE
 *     OPEN ------------> READY ----------> RUNNING
 *                          ^ <------------- | |
 *                          |  DISABLE,      | | last close
 *                          |  thread exit,  | | (FreeBSD, OpenBSD)
 *                          |  owner dead    | v
 *                          |              DYING (tracing stopped;
 *                          |                     nobody holds an fd)
 *
 * Locking: [I] immutable once the block is published (magic set);
 *          [M] under lock, a process-shared robust mutex: a holder
 *              killed inside it leaves EOWNERDEAD, and the state it
 *              guards is consistent at every store;
 *          [F] set once under lock, then read without it;
 *          [W] written only by the owner thread, read with atomics.
 */
struct ukcov_cb {
	uint64_t magic;			/* [I] UKCOV_MAGIC, stored last */
	uint32_t layout;		/* [I] sizeof(struct ukcov_cb) */
	int32_t flavor;			/* [F] UKCOV_LINUX..., 0 undecided */
	/* One size on every 64-bit ABI, so that processes of two
	 * architectures share a block (an x86-64 `ukcov run` execs an
	 * aarch64 program through qemu-user): glibc's pthread_mutex_t is
	 * 40 bytes on x86-64 and 48 on aarch64, with the futex word, owner
	 * and kind at the same offsets (sysdeps/nptl/bits/
	 * struct_mutex.h, sysdeps/x86/nptl/bits/struct_mutex.h). */
	union {
		pthread_mutex_t lock;
		char lock_slot[64];
	};
_Static_assert(sizeof(pthread_mutex_t) <= 64, "the lock slot holds the mutex");
	int32_t state;			/* [M] enum ukcov_state */
	int32_t mode;			/* [M] enum ukcov_mode while RUNNING */
	uint64_t entries;		/* [F] buffer size in 8-byte entries */
	uint64_t bytes;			/* [F] page-rounded buffer size */
	int32_t owner_pid;		/* [M] process of the enabled thread */
	int32_t owner_tid;		/* [M] the enabled thread */
	uint64_t owner_start;		/* [M] owner process start time */
	int32_t exec_tid;		/* [M] owner thread now inside exec */
	int32_t exec_carrier;		/* [M] fd carrying it across exec, or -1 */
	uint64_t drops;			/* [W] records dropped, monotonic;
					 * remote merges add atomically */
	uint64_t drops_read;		/* [M] drops already reported */
	uint64_t remote_gen;		/* [M] remote generation (Linux
					 * kcov->sequence): bumped at
					 * REMOTE_ENABLE and at its end */
	uint64_t remote_area;		/* [M] a section's area, in words */
	int32_t remote_mode;		/* [M] UKCOV_MODE_PC or _CMP */
	int32_t remote_attach;		/* [M] OpenBSD KIOREMOTEATTACH: the
					 * attached process, or 0 */
	char remote_modules[256];	/* [M] where processes that feed the
					 * collection append their module
					 * tables ($UKCOV_REMOTE_MODULES of
					 * the collector), or "" */
	uint64_t remote_modules_ino;	/* [M] the inode there, checked by
					 * feeders, or 0 for a named file */
	uint64_t uniq_words;		/* [M] bitmap words while RUNNING in a
					 * unique mode (KCOV_UNIQUE_ENABLE),
					 * 0 otherwise */
	/* NetBSD KCOV_IOC_REMOTE_ATTACH (lib/remote_netbsd.c): kd->remote,
	 * named by its key so that every holder finds it. */
	int32_t nb_attached;		/* [M] 1 while attached */
	uint64_t nb_subsystem;		/* [M] the remote attached to */
	uint64_t nb_id;			/* [M] */
};

/* ---- cbcheck.c: a control block checked as another process's input
 * (docs/FORMATS.md, "Trust") ---- */
struct ukcov_cb_bounds {
	uint64_t entries;	/* the buffer: entries * 8 <= bytes */
	uint64_t bytes;		/* page-rounded, below the block; 0: none */
	uint64_t uniq_words;	/* < entries - 1, or 0 */
	uint64_t remote_area;	/* clamped to entries */
	int32_t remote_mode;	/* UKCOV_MODE_PC, _CMP, or _NONE if bad */
};
/* NULL, with the bounds of one copy of the block, or why it is not
 * used.  block/len: the bytes as read; file_size: fstat's. */
const char *ukcov__cb_check(const void *block, size_t len, uint64_t file_size,
			    uint64_t page, struct ukcov_cb_bounds *out);
/* Map of a peer's block refused: one line on stderr, once per site. */
enum ukcov_peer_site {
	UKCOV_PEER_DESC,	/* a descriptor of this process */
	UKCOV_PEER_PROXY,	/* another process's remote collector */
	UKCOV_PEER_EXEC,	/* a descriptor inherited across exec */
	UKCOV_PEER_SITES,
};
void ukcov__peer_refused(enum ukcov_peer_site site, int fd, const char *why);
/* fd's block, checked against fd's size: NULL or why not. */
const char *ukcov__cb_check_fd(int fd, const struct ukcov_cb *cb,
			       struct ukcov_cb_bounds *out);
/* ukcov__fd_looks_like_ukcov, saying why a lookalike is refused. */
int ukcov__fd_ukcov_why(int fd, const char **why);

/*
 * Per-process view of one descriptor (one memfd inode), shared by the
 * process's fds that refer to it.  All fields under ukcov__proc_lock.
 */
struct ukcov_desc {
	dev_t dev;
	ino_t ino;
	struct ukcov_cb *cb;		/* this process's mapping of the block */
	uint64_t *buf;			/* runtime's own mapping of the buffer */
	size_t buf_len;
	uint64_t entries;		/* cb->entries checked against buf_len
					 * when the buffer was mapped: what this
					 * process bounds its writes by */
	int nfds;			/* fds of this process referring to it */
	int ntracers;			/* threads of this process armed on buf */
	int uniq_direct;		/* a thread of this image armed it with
					 * direct bits (unique.c) */
	struct ukcov_desc *next;
};

/*
 * Per-thread state.  The first fields are what the callbacks read: one
 * TLS load and one compare when tracing is off.  A pointer is non-NULL
 * only while this thread records in that mode and is not inside a
 * signal handler.  The hot fields are written by the thread itself, or
 * cleared (only) by another thread of the process that stops it.
 */
struct ukcov_thread {
	uint64_t *pc_area;		/* hot: PC buffer, or NULL */
	uint64_t *cmp_area;		/* hot: CMP buffer, or NULL */
	uint64_t pc_cap;		/* hot: PC records that fit */
	uint64_t cmp_cap;		/* hot: CMP records that fit */
	uint64_t *drops;		/* hot (cold path): &cb->drops */
	/* Unique modes (lib/unique.c), read only once an area pointer is
	 * non-NULL: uniq_bits is the bitmap at the head of the buffer, or
	 * NULL for a plain trace. */
	uint64_t *uniq_bits;		/* hot: bitmap, or NULL */
	uint64_t *uniq_keys;		/* hot: the thread's key slots */
	uint64_t uniq_mask;		/* hot: slots - 1 */
	uint32_t uniq_shift;		/* hot: 64 - log2(slots) */
	uint32_t uniq_gmax;		/* hot: guards 1..uniq_gmax are seen iff
					 * their bit is set (the bitmap holds
					 * only guard-numbered keys); 0: check
					 * the key too (unique.c) */
	uint64_t *uniq_direct;		/* hot: the bitmap's head, where
					 * trace-pc PCs of the executable have
					 * a bit each (unique.c, "Direct
					 * bits") */
	uint64_t uniq_lo6;		/* hot: the executable's first text
					 * address >> 6 */
	uint64_t uniq_dwords;		/* hot: words of direct bits; 0: every
					 * PC is hashed */
	/* Below: never read by callbacks.  Every hot field above is also
	 * in struct ukcov_hot (checked below). */
	struct ukcov_desc *owned;	/* descriptor this thread enabled */
	int mode;			/* its enum ukcov_mode */
	uint64_t uniq_words;		/* bitmap words of its unique mode, 0:
					 * plain trace */
	int uniq_trusted;		/* the bitmap's set bits are all guards
					 * at their own number (uniq_gmax) */
	uint64_t uniq_dwords_armed;	/* direct words chosen when armed */
	void *uniq_table;		/* private mapping of key slots, kept
					 * across enables; unmapped at exit */
	size_t uniq_table_len;
	int sig_depth;			/* nesting of signal handlers */
	uintptr_t sig_frames[8];	/* trampoline frames, for siglongjmp */
	int registered;			/* on the process's thread list */
	uint64_t *follow_area;		/* private buffer (ukcov run --threads all) */
	uint64_t follow_entries;
	uint64_t follow_drops;
	pid_t tid;
	struct ukcov_thread *next;
	struct ukcov_thread *prev;
	/* Remote coverage (lib/remote.c); written by the thread itself. */
	uint64_t common_handle;		/* Linux task->kcov_handle */
	struct ukcov_collector *remote_coll; /* KCOV_REMOTE_ENABLE owner */
	struct ukcov_remote_tls *rt;	/* sections and cached areas */
	int remote_busy;		/* inside the registry's locks */
	/* NetBSD remote sections (lib/remote_netbsd.c); written by the
	 * thread under ukcov__proc_lock. */
	struct ukcov_nb_remote *nb_remote; /* entered remote (l_kcov), or NULL */
	uint64_t nb_state;		/* its state word at the enter */
	/* Inline maps (lib/imap.c); the thread's own, but imap_slot. */
	uint8_t **imap_slot;		/* &__ukcov_imap of this thread, set
					 * by the thread when it registers */
	uint8_t *imap_region;		/* reserved second mapping, or NULL */
	uintptr_t imap_src;		/* bitmap pages it shows, 0: none */
	size_t imap_len;
};

/*
 * The hot block: exactly the fields the callbacks read, as one value.
 * A remote section (and a signal handler's section inside it) saves
 * the thread's hot block, runs with its own, and restores the saved
 * one at stop (docs/DESIGN.md, "Remote coverage").
 */
struct ukcov_hot {
	uint64_t *pc_area;
	uint64_t *cmp_area;
	uint64_t pc_cap;
	uint64_t cmp_cap;
	uint64_t *drops;
	uint64_t *uniq_bits;	/* NULL in a section: plain trace */
	uint64_t *uniq_keys;
	uint64_t uniq_mask;
	uint32_t uniq_shift;
	uint32_t uniq_gmax;
	uint64_t *uniq_direct;
	uint64_t uniq_lo6;
	uint64_t uniq_dwords;
};
_Static_assert(offsetof(struct ukcov_thread, owned) == sizeof(struct ukcov_hot),
	       "struct ukcov_hot must hold every hot field of ukcov_thread");

/* Defined in thread.c; exported from libukcov.so so that the callbacks
 * linked into an executable from libukcov_cb.a reach it with
 * initial-exec TLS. */
extern __thread struct ukcov_thread __ukcov_thread
	__attribute__((tls_model("initial-exec"), visibility("default")));

/*
 * Process-wide SanitizerCoverage state read by the guard callback
 * (lib/sancov.c).  One word decides "anything to do": with nothing
 * enabled the guard callback is this one load and one compare.
 * Locking: [A] written with atomics by sancov.c, read relaxed by the
 * callbacks; [S] set once before the bit that enables its use.
 */
#define UKCOV_SANCOV_PCS  1u	/* coverage=1: keep each guard's first PC */
#define UKCOV_SANCOV_KCOV 2u	/* a thread of this process has traced PCs
				 * (sticky): look at the TLS area.  Whatever
				 * makes a pc_area non-NULL sets it first
				 * (ukcov__thread_rearm_hot, _load_hot). */
#define UKCOV_SANCOV_PCSET 4u	/* coverage=1: keep trace_pc's PCs in a set */
#define UKCOV_SANCOV_CNT  8u	/* coverage_counters=1: count guard hits */
#define UKCOV_SANCOV_DIRECT 16u	/* coverage_direct=1: guard_pcs is the raw
				 * file (keeps the guard callback off its
				 * coverage=1-only fast path) */
#define UKCOV_SANCOV_TRACE 32u	/* coverage_trace_bb=1: trace_pc and the
				 * guards append events (sancov_trace.c) */
struct ukcov_sancov_hot {
	uint32_t on;			/* [A] the guard callback's bits: KCOV,
					 * PCS, CNT, DIRECT */
	uint32_t pc_on;			/* [A] trace_pc's bits: KCOV, PCSET */
	uint32_t pcset_shift;		/* [S] 64 - log2(pcset slots) */
	uint64_t *guard_pcs;		/* [S] slot g: PC - 1 of guard g's first
					 * hit, 0 if none; slot 0 unused */
	uint64_t *pcset;		/* [S] distinct trace_pc PCs - 1, open
					 * addressing, 0 = free */
	uint8_t *counters;		/* [S] hits of guard g, saturating at
					 * 255 (not atomic, as in compiler-rt's
					 * old 8-bit counters) */
	uint32_t indir_on;		/* [A] trace_pc_indir's word: non-zero
					 * with coverage_caller_callee=1 */
} __attribute__((aligned(64)));
#define UKCOV_PCSET_HASH 0x9E3779B97F4A7C15ULL	/* Fibonacci hashing */

extern struct ukcov_sancov_hot __ukcov_sancov
	__attribute__((visibility("default")));

/* Exported for the init callbacks linked into executables from
 * libukcov_cb.a, which forward to the runtime (lib/sancov.c). */
#define UKCOV_SANCOV_API __attribute__((visibility("default")))
UKCOV_SANCOV_API void __ukcov_sancov_guard_init(uint32_t *start,
						uint32_t *stop);
UKCOV_SANCOV_API void __ukcov_sancov_region_init(int kind, const void *start,
						 const void *stop);
UKCOV_SANCOV_API void __ukcov_sancov_pcset_insert(uint64_t pc);
UKCOV_SANCOV_API void __ukcov_sancov_indir_pair(uint64_t caller,
						uint64_t callee);
UKCOV_SANCOV_API void __ukcov_sancov_trace_event(uint64_t pc);
enum { UKCOV_REGION_COUNTERS = 1, UKCOV_REGION_BOOLS, UKCOV_REGION_PCS };

/* ---- sancov.c ---- */
void ukcov__sancov_note_tracer(void);
void ukcov__sancov_init(void);
void ukcov__sancov_after_fork_child(void);

/* ---- signals.c: the fatal signals that dump coverage first ---- */
void ukcov__signals_hook_fatal(void (*dump)(int sig));

/* ---- callbacks.c ---- */
/* Referenced by callbacks.c and thread.c so that a static link pulls in
 * the runtime's constructor (init.c). */
extern const char ukcov__runtime_anchor;
/* Defined in callbacks.c, named by the -lukcov linker script. */
extern const char __ukcov_callbacks __attribute__((visibility("default")));

/* The coverage callbacks the program calls (callbacks.c, lib/afl.c). */
struct ukcov_point_callbacks {
	void (*trace_pc)(void);
	void (*trace_pc_guard)(uint32_t *guard);
};
extern const struct ukcov_point_callbacks __ukcov_point_callbacks
	__attribute__((visibility("default")));

/* ---- thread.c ---- */
extern pthread_mutex_t ukcov__proc_lock;
pid_t ukcov__gettid(void);
uint64_t ukcov__self_start_time(void);
void ukcov__thread_arm(struct ukcov_thread *t, struct ukcov_desc *d, int mode);
void ukcov__thread_disarm(struct ukcov_thread *t);
void ukcov__thread_rearm_hot(struct ukcov_thread *t);
void ukcov__stop_local_owner(struct ukcov_desc *d, pid_t tid);
void ukcov__thread_stop(struct ukcov_thread *t);
void ukcov__thread_exit_hook(struct ukcov_thread *t);
void ukcov__thread_unregister_locked(struct ukcov_thread *t);
void ukcov__threads_for_each_locked(void (*fn)(struct ukcov_thread *t));
void ukcov__threads_after_fork_child(void);
void ukcov__thread_clear_hot(struct ukcov_thread *t);
void ukcov__thread_save_hot(const struct ukcov_thread *t, struct ukcov_hot *h);
void ukcov__thread_load_hot(struct ukcov_thread *t, const struct ukcov_hot *h);
/* What thread.c calls in the layers above it (docs/DESIGN.md,
 * "Layers"): init.c's constructor hands these over before anything
 * arms; until then a thread has no section and nothing to tell. */
struct ukcov_thread_hooks {
	/* remote.c: the hot block of t's section open at depth, or NULL. */
	const struct ukcov_hot *(*section_hot)(const struct ukcov_thread *t,
					       int depth);
	/* remote_netbsd.c: a NetBSD remote section re-arms itself. */
	void (*nb_rearm)(struct ukcov_thread *t);
	/* sancov.c: a thread of this process is about to record PCs. */
	void (*note_tracer)(void);
	/* init.c: the thread-exit key's destructor (its value: the
	 * exiting thread's struct ukcov_thread). */
	void (*thread_exit)(void *t);
};
void ukcov__thread_set_hooks(const struct ukcov_thread_hooks *h);

/* ---- desc.c: the state machine (transitions under cb->lock) ---- */
int ukcov__cb_lock(struct ukcov_cb *cb);
void ukcov__cb_unlock(struct ukcov_cb *cb);
/* A process's state letter (field 3) and start time (field 22), from
 * /proc/<pid>/task/<pid>/stat (desc.c says why); 0, or -1. */
int ukcov__proc_start(pid_t pid, char *state, uint64_t *start);
void ukcov__reap_dead_owner_locked(struct ukcov_cb *cb);
int ukcov__owned_by_me_locked(const struct ukcov_cb *cb);
int ukcov__setbuf_locked(struct ukcov_desc *d, int fd, uint64_t entries);
int ukcov__enable_locked(struct ukcov_desc *d, int fd, int mode);
int ukcov__enable_uniq_locked(struct ukcov_desc *d, int fd, int mode,
			      uint64_t uniq_words);
void ukcov__disable_locked(struct ukcov_desc *d);
void ukcov__release_owner_locked(struct ukcov_cb *cb);
void ukcov__die_locked(struct ukcov_desc *d);
int ukcov__map_buffer(struct ukcov_desc *d, int fd);
int ukcov__cb_init(int fd, int flavor);
struct ukcov_cb *ukcov__cb_map(int fd);
int ukcov__fd_looks_like_ukcov(int fd);

/* ---- fdtab.c: which fds of this process are ukcov descriptors ---- */
#define UKCOV_FDMAP_SIZE 65536
struct ukcov_desc *ukcov__fd_desc(int fd);	/* lock-free fast lookup */
struct ukcov_desc *ukcov__fd_desc_checked(int fd); /* ...and not stale */
struct ukcov_desc *ukcov__fd_lookup(int fd);	/* registers on first sight */
struct ukcov_desc *ukcov__fd_register_locked(int fd);
void ukcov__fd_dup_locked(int oldfd, int newfd);
void ukcov__fd_forget_locked(int fd);
int ukcov__fd_last_holder(int fd);
void ukcov__fd_hold(int fd);
void ukcov__desc_put_locked(struct ukcov_desc *d);
int ukcov__desc_any_fd_locked(const struct ukcov_desc *d);
void ukcov__fdtab_after_fork_child(void);
void ukcov__fdtab_for_each_locked(void (*fn)(struct ukcov_desc *, int fd));

/* ---- os_*.c: one table per kernel ---- */
struct ukcov_os {
	int flavor;
	const char *name;
	/* Returns 0 or -errno; arg is the raw third ioctl argument. */
	int (*ioctl)(struct ukcov_desc *d, int fd, unsigned long req,
		     unsigned long arg);
	/* Returns 0 or -errno; may rewrite *off (FreeBSD forces 0). */
	int (*mmap_check)(const struct ukcov_cb *cb, size_t len, int prot,
			  int flags, off_t *off);
	/* The last fd of the descriptor is being closed (cb locked). */
	void (*last_close_locked)(struct ukcov_desc *d);
	/* Optional: the fd whose pages an mmap of fd maps (a NetBSD
	 * descriptor attached to a remote maps the remote's), or -errno;
	 * called after mmap_check succeeded, cb locked. */
	int (*mmap_fd_locked)(const struct ukcov_cb *cb, int fd);
};
extern const struct ukcov_os ukcov__os_linux, ukcov__os_freebsd,
	ukcov__os_netbsd, ukcov__os_openbsd;
const struct ukcov_os *ukcov__os(int flavor);
int ukcov__flavor_for_request(unsigned long req);
int ukcov__flavor_by_name(const char *name);
int ukcov__ioctl_common(struct ukcov_desc *d, unsigned long req,
			unsigned long arg, int *handled);
/* ---- copyio.c ---- */
int ukcov__copyin(void *dst, const void *src, size_t n);
int ukcov__copyout(void *dst, const void *src, size_t n);

/* ---- api.c ---- */
int ukcov__open_desc(int flavor, int cloexec);
int ukcov__do_ioctl(int fd, unsigned long req, unsigned long arg);
void *ukcov__do_mmap(struct ukcov_desc *d, void *addr, size_t len, int prot,
		     int flags, int fd, off_t off);
int ukcov__device_flavor(const char *path);

/* ---- real.c: the libc functions the interposers forward to ---- */
int ukcov__real_open(const char *path, int flags, mode_t mode);
int ukcov__real_openat(int dirfd, const char *path, int flags, mode_t mode);
int ukcov__real_close(int fd);
int ukcov__real_ioctl(int fd, unsigned long req, unsigned long arg);
int ukcov__real_dup(int fd);
int ukcov__real_dup3(int oldfd, int newfd, int flags);
int ukcov__real_fcntl(int fd, int cmd, unsigned long arg);
void *ukcov__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off);
int ukcov__real_sigaction(int sig, const void *act, void *oact);
int ukcov__real_close_range(unsigned first, unsigned last, int flags);
int ukcov__real_execve(const char *path, char *const argv[],
		       char *const envp[]);
int ukcov__real_execveat(int dirfd, const char *path, char *const argv[],
			 char *const envp[], int flags);
int ukcov__real_execv(const char *path, char *const argv[]);
int ukcov__real_execvp(const char *file, char *const argv[]);
int ukcov__real_execvpe(const char *file, char *const argv[],
			char *const envp[]);
int ukcov__real_fexecve(int fd, char *const argv[], char *const envp[]);
int ukcov__real_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			       void *(*fn)(void *), void *arg);

/* ---- exec.c: both sides of exec ---- */
void ukcov__exec_takeover(void);

/* ---- interpose.c ---- */
int ukcov__close_desc_fd(int fd);

/* ---- follow.c: every thread of a traced program (ukcov run
 * --threads all) records into a private buffer flushed to a file ---- */
void ukcov__follow_setup(int mode, uint64_t entries, uint64_t uniq_words);
void ukcov__follow_flush_locked(struct ukcov_thread *t, int unmap);
void ukcov__follow_after_fork_child(void);
int ukcov__follow_traces(const struct ukcov_thread *t);
typedef int (*ukcov_pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				       void *(*)(void *), void *);
int ukcov__thread_create(pthread_t *th, const pthread_attr_t *attr,
			 void *(*fn)(void *), void *arg,
			 ukcov_pthread_create_fn next);
/*
 * A thread-start hook of a higher layer: lib/afl.c installs its own when
 * it attaches AFL++'s map, so that a thread the input starts records
 * too.  claims() says whether this pthread_create is the hook's; then
 * create() starts the thread.  follow.c calls it before its own rules.
 */
struct ukcov_create_hook {
	int (*claims)(void);
	int (*create)(pthread_t *th, const pthread_attr_t *attr,
		      void *(*fn)(void *), void *arg,
		      ukcov_pthread_create_fn next);
};
void ukcov__follow_set_create_hook(const struct ukcov_create_hook *h);
/* ld --wrap=pthread_create's name (static_wrap.c, and follow.c for a
 * dynamic link with pkg-config --static's flags). */
int __wrap_pthread_create(pthread_t *th,	/* NOLINT(bugprone-reserved-identifier) */
			  const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);
void ukcov__thread_follow_arm(struct ukcov_thread *t, uint64_t *area,
			      uint64_t entries, int mode, uint64_t uniq_words,
			      uint64_t *drops);

/* ---- tree.c: every process of a traced program's tree (ukcov run,
 * UKCOV_TREE) records into buffers of its own, one file per thread ---- */
void ukcov__tree_init(int took_over);
void ukcov__tree_after_fork_child(void);
int ukcov__tree_active(void);
int ukcov__tree_follows_threads(void);
void ukcov__tree_arm_thread(void);
void ukcov__tree_release(uint64_t *area, int unmap);

/* ---- unique.c: unique coverage (KCOV_UNIQUE_ENABLE and the CMP
 * extension); the hot path is in unique_hot.h ---- */
#define UKCOV_UNIQ_PROBES	32	/* linear-probe bound per PC */
#define UKCOV_UNIQ_CMP_PROBES	64	/* window of a CMP record (unique_hot.h:
					 * one 64-bit mask; a 1-word bitmap's
					 * whole table) */
#define UKCOV_UNIQ_PC_MAX_LOG2	22	/* 4 Mi PC slots, 32 MiB virtual */
#define UKCOV_UNIQ_CMP_MAX_LOG2	20	/* 1 Mi CMP slots, 32 MiB virtual */
int ukcov__uniq_check_words(uint64_t entries, uint64_t words);
int ukcov__uniq_prepare(struct ukcov_thread *t, int mode, uint64_t words);
void ukcov__uniq_caps(struct ukcov_thread *t, uint64_t entries);
uint64_t *ukcov__uniq_hot(struct ukcov_thread *t, uint64_t *buf);
void ukcov__uniq_release(struct ukcov_thread *t);

/* Inline maps (lib/imap.c, include/ukcov/inline.h). */
void ukcov__imap_update(struct ukcov_thread *t);
void ukcov__imap_forget(struct ukcov_thread *t);
void ukcov__imap_thread_start(struct ukcov_thread *t);
void ukcov__imap_release(struct ukcov_thread *t);
void ukcov__imap_process_set(uint32_t first, uint32_t n);
void ukcov__imap_every_point(void);
UKCOV_EXPORT void __ukcov_imap_refresh(void);
void ukcov__uniq_reset_buffer(uint64_t *buf, uint64_t words);
void ukcov__uniq_trust_if_clear(struct ukcov_thread *t, const uint64_t *buf);
void ukcov__uniq_trust_after_reset(struct ukcov_thread *t, const uint64_t *buf);
void ukcov__uniq_text_init(void);
uint64_t ukcov__uniq_text_words(void);
void ukcov__uniq_note_guards(void);
void ukcov__uniq_direct_choose(struct ukcov_thread *t, const uint64_t *buf,
			       int *image_armed);

/* ---- modules.c ---- */
int ukcov__write_all(int fd, const void *p, size_t n);
void ukcov__say_line(char *msg, size_t size, int n);

/* ---- signals.c ---- */
void ukcov__signals_after_fork_child(void);
void ukcov__signals_resync(struct ukcov_thread *t);

/* ---- remote.c: remote coverage sections (Linux KCOV_REMOTE_ENABLE,
 * kcov_remote_start/stop) ---- */
struct ukcov_collector;
struct ukcov_remote_tls;
int ukcov__remote_enable_locked(struct ukcov_desc *d, int fd,
				unsigned long arg);
void ukcov__remote_owner_reset(struct ukcov_thread *t);
void ukcov__owner_disable_locked(struct ukcov_desc *d);
/* The open section of t at signal depth `depth`, or NULL. */
const struct ukcov_hot *ukcov__remote_section_hot(const struct ukcov_thread *t,
						  int depth);
void ukcov__remote_leave_depth(struct ukcov_thread *t, int depth);
void ukcov__remote_thread_exit(struct ukcov_thread *t);
void ukcov__remote_fork_prepare(void);
void ukcov__remote_fork_parent(void);
void ukcov__remote_fork_child(void);
void ukcov__remote_process_exit(void);

/* ---- registry.c: handles for the whole machine, per user ---- */
struct ukcov_reg_entry {
	int32_t pid;		/* the collector's process */
	int32_t fd;		/* its descriptor there */
	uint64_t start;		/* the process's start time */
	uint64_t ino;		/* the descriptor's memfd inode */
	uint64_t gen;		/* cb->remote_gen at registration */
};
int ukcov__registry_add(uint64_t handle, int fd, uint64_t ino, uint64_t gen);
void ukcov__registry_remove(int fd, uint64_t gen);
void ukcov__registry_remove_mine(void);
int ukcov__registry_lookup(uint64_t handle, struct ukcov_reg_entry *out);
int ukcov__registry_open(const struct ukcov_reg_entry *e);
void ukcov__registry_after_fork_child(void);
int ukcov__thread_has_kcov(const struct ukcov_thread *t);
int ukcov__remote_reset_trace(struct ukcov_thread *t);
int ukcov__remote_attach_locked(struct ukcov_desc *d);
int ukcov__remote_attached_enable_locked(struct ukcov_desc *d, int fd,
					 int mode);
void ukcov__remote_attached_disable_locked(struct ukcov_desc *d);
void ukcov__remote_detach_locked(struct ukcov_desc *d);

/* ---- remote_netbsd.c: NetBSD's remotes (kcov_remote_register,
 * _enter, _leave; KCOV_IOC_REMOTE_ATTACH, _DETACH) ---- */
struct ukcov_nb_remote;
#define UKCOV_NB_REMOTE_ENTRIES (256 << 10)	/* KCOV_BUF_MAX_ENTRIES */
struct ukcov_nb_remote *ukcov__nb_find(uint64_t subsystem, uint64_t id);
int ukcov__nb_enable_locked(struct ukcov_nb_remote *r, int mode);
int ukcov__nb_disable_locked(struct ukcov_nb_remote *r);
int ukcov__nb_fd(const struct ukcov_nb_remote *r);
int ukcov__nb_alive(const struct ukcov_nb_remote *r);
void ukcov__nb_rearm(struct ukcov_thread *t);
void ukcov__nb_thread_exit(struct ukcov_thread *t);
void ukcov__nb_fork_child(void);
void ukcov__nb_drops(const struct ukcov_cb *cb, uint64_t **drops,
		     uint64_t **drops_read);
void ukcov__nb_exec_prepare(void);
void ukcov__nb_exec_failed(void);

/* ---- fuzz_exec.c: the executor of "ukcov fuzz" ----
 * Exported for drivers' main, but no API: __ukcov_, as the other
 * entries that only generated or driver code calls (libukcov.map). */
UKCOV_EXPORT int __ukcov_fuzz_serve(int (*test_one)(const uint8_t *,
						   size_t));

/* ---- modules.c (the tool's module table) ---- */
void ukcov__modules_snapshot(void);
void ukcov__modules_set_path(const char *path);
void ukcov__modules_snapshot_peer(const char *path, uint64_t ino);
int ukcov__env_open_append(const char *var, const char *path, int create,
			   int *said);

/* ---- feeders.c (module tables of the processes feeding us) ---- */
void ukcov__feeders_publish(struct ukcov_cb *cb);
int ukcov__feeders_read(char **out, size_t *len);

#endif /* UKCOV_INTERNAL_H */
