/*
 * lib/tree.c -- "ukcov run" over a whole process tree: every process
 * the traced program starts (by fork, by exec, through a shell or make)
 * records too, in the same mode.
 *
 * The traced program records into the kcov descriptor that ukcov run
 * enabled and it took over at exec (exec.c).  Its children cannot: a
 * descriptor belongs to one thread, and a forked child starts disabled
 * (Linux kcov_task_init).  So ukcov run also sets
 *
 *	UKCOV_TREE=MODE,ENTRIES,BITMAP_WORDS,THREADS,DIR
 *
 * (BITMAP_WORDS "+BASE": the default bitmap, sized here for this
 * process's own text, tree_default_words)
 *
 * and every process of the tree that took no descriptor over -- a
 * forked child, an image it exec'd, a program a shell started --
 * records into buffers of its own, one file per thread, in DIR:
 *
 *	DIR/img.<pid>.<n>	  image n of process pid: its module table
 *				  (modules.c's lines), at start and exit
 *	DIR/buf.<pid>.<n>.<tid>	  a header page (threadblock.h), then a
 *				  buffer with the descriptor's layout
 *				  (the bitmap of a unique mode, the trace)
 *
 * A buffer is a MAP_SHARED mapping of its file, so what a process
 * recorded is there however it ends (exit, _exit, exec, a signal,
 * SIGKILL), with nothing to flush.  The file is allocated in full
 * before it is mapped (posix_fallocate), so a full file system refuses
 * the buffer instead of raising SIGBUS at a page's first touch; a
 * thread that is done with its buffer trims the file to what it
 * recorded.  THREADS is 1 for ukcov run --threads all: then every
 * thread of a tree process has a buffer, else the first one only.
 * DIR is the tool's private directory (mkdtemp, 0700); files are
 * created O_EXCL|O_NOFOLLOW.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "threadblock.h"

static struct {
	int on;			/* UKCOV_TREE named a usable tree */
	int mode;		/* UKCOV_MODE_PC or UKCOV_MODE_CMP */
	int threads;		/* every thread has a buffer */
	int image;		/* this image's n, -1: none yet */
	uint64_t entries;
	uint64_t uniq_words;	/* bitmap words of a unique mode, or 0 */
	char dir[PATH_MAX - 64];
	char modules[PATH_MAX];	/* DIR/img.<pid>.<n> */
} tree = { .image = -1 };

static void tree_complain(const char *what)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg),
			 "ukcov: process %d not traced: %s: %s\n",
			 (int)getpid(), what, strerror(errno));

	ukcov__say_line(msg, sizeof(msg), n);
}

/* "+BASE" as the bitmap: the default bitmap, sized for this process's
 * own executable as tools/run.c default_bitmap sizes the traced
 * program's: BASE words of hashed slots, a direct bit per byte of the
 * text (unique.c, "Direct bits") and two words to spare, at most a
 * quarter of the buffer.  The traced program is often a shell or make:
 * its bitmap would leave a larger test program no direct bits. */
static uint64_t tree_default_words(int mode, uint64_t entries, uint64_t base)
{
	uint64_t w = base, q = entries / 4;

	if (mode == 1 && ukcov__uniq_text_words())
		w += ukcov__uniq_text_words() + 2;
	return w > q ? (q ? q : 1) : w;
}

/* "MODE,ENTRIES,[+]WORDS,THREADS,DIR"; 0 if usable. */
static int tree_parse(const char *v)
{
	unsigned long long entries, words;
	int mode, threads, head = 0, off = 0, text = 0;

	if (sscanf(v, "%d,%llu,%n", &mode, &entries, &head) != 2 || head == 0)
		return -1;
	/* %llu would take a sign too: only the bitmap's "+" is known. */
	if (v[head] == '+') {
		text = 1;
		head++;
	}
	if (v[head] < '0' || v[head] > '9' ||
	    sscanf(v + head, "%llu,%d,%n", &words, &threads, &off) != 2 ||
	    off == 0)
		return -1;
	off += head;
	/* MODE as in the header: 1 pc, 2 cmp. */
	if ((mode != 1 && mode != 2) || entries < 2 || entries > (1ULL << 31) ||
	    threads < 0 || threads > 1 || v[off] != '/' ||
	    strlen(v + off) >= sizeof(tree.dir) || (text && words == 0))
		return -1;
	if (text)
		words = tree_default_words(mode, entries, words);
	if (words && ukcov__uniq_check_words(entries, words))
		return -1;
	tree.mode = mode == 2 ? UKCOV_MODE_CMP : UKCOV_MODE_PC;
	tree.entries = entries;
	tree.uniq_words = words;
	tree.threads = threads;
	memcpy(tree.dir, v + off, strlen(v + off) + 1);	/* length checked */
	return 0;
}

static size_t buffer_bytes(void)
{
	return UKCOV_TREEBUF_HEADER_BYTES + (size_t)tree.entries * 8;
}

/* This process image's module table file, DIR/img.<pid>.<n> with the
 * first n free (an exec keeps the pid); later snapshots (exit) go
 * there too. */
static int tree_new_image(void)
{
	int pid = (int)getpid();

	for (int n = 0; n < 4096; n++) {
		int fd;

		snprintf(tree.modules, sizeof(tree.modules), "%s/img.%d.%d",
			 tree.dir, pid, n);
		fd = ukcov__real_open(tree.modules, O_WRONLY | O_CREAT | O_EXCL |
				      O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			ukcov__real_close(fd);
			tree.image = n;
			ukcov__modules_set_path(tree.modules);
			ukcov__modules_snapshot();
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	tree_complain(tree.dir);
	return -1;
}

/* A thread's buffer, DIR/buf.<pid>.<n>.<tid>: its header filled, the
 * file allocated in full; NULL if the tree cannot take it. */
static uint64_t *tree_new_buffer(pid_t tid)
{
	char path[PATH_MAX];
	uint64_t *hdr;
	int fd, err;

	snprintf(path, sizeof(path), "%s/buf.%d.%d.%d", tree.dir,
		 (int)getpid(), tree.image, (int)tid);
	fd = ukcov__real_open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			      O_CLOEXEC, 0600);
	if (fd < 0) {
		tree_complain(path);
		return NULL;
	}
	err = posix_fallocate(fd, 0, (off_t)buffer_bytes());
	hdr = err ? MAP_FAILED
		  : ukcov__real_mmap(NULL, buffer_bytes(),
				     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED) {
		errno = err ? err : errno;
		tree_complain(path);
		ukcov__real_close(fd);
		unlink(path);
		return NULL;
	}
	ukcov__real_close(fd);
	hdr[UKCOV_TR_PID] = (uint64_t)getpid();
	hdr[UKCOV_TR_TID] = (uint64_t)tid;
	hdr[UKCOV_TR_IMAGE] = (uint64_t)tree.image;
	hdr[UKCOV_TR_MODE] = tree.mode == UKCOV_MODE_CMP ? 2 : 1;
	hdr[UKCOV_TR_ENTRIES] = tree.entries;
	hdr[UKCOV_TR_BITMAP] = tree.uniq_words;
	hdr[UKCOV_TR_DROPPED] = 0;
	/* Last: the tool takes a file with its magic as complete. */
	__atomic_store_n(&hdr[UKCOV_TR_MAGIC], UKCOV_TREEBUF_MAGIC,
			 __ATOMIC_RELEASE);
	return hdr;
}

/* Arm the calling thread with a buffer of the tree. */
static void tree_arm_self(void)
{
	struct ukcov_thread *t = &__ukcov_thread;
	uint64_t *hdr = tree_new_buffer(ukcov__gettid());

	if (!hdr)
		return;
	ukcov__thread_follow_arm(t, hdr + UKCOV_TREEBUF_HEADER_BYTES / 8,
				 tree.entries, tree.mode, tree.uniq_words,
				 &hdr[UKCOV_TR_DROPPED]);
}

int ukcov__tree_active(void)
{
	return tree.on && tree.image >= 0;
}

int ukcov__tree_follows_threads(void)
{
	return ukcov__tree_active() && tree.threads;
}

/*
 * At start, after the exec takeover.  A process that took the
 * descriptor over (took_over) is the traced program, or an image it
 * exec'd: it records there, as without a tree, and only its children
 * join the tree.  Any other process with UKCOV_TREE records into a
 * buffer of the tree from here on.
 */
void ukcov__tree_init(int took_over)
{
	const char *v = ukcov__env("UKCOV_TREE");

	if (!v || !*v || tree_parse(v) < 0)
		return;
	tree.on = 1;
	if (took_over || tree_new_image() < 0)
		return;
	tree_arm_self();
}

/* A forked child is a new process of the tree: its forking thread
 * records into a buffer of its own.  The parent's buffers are shared
 * mappings the child inherited; it never writes them (the fork
 * handlers dropped the thread's pointers before this). */
void ukcov__tree_after_fork_child(void)
{
	if (!tree.on)
		return;
	tree.image = -1;
	if (tree_new_image() < 0)
		return;
	tree_arm_self();
}

/* A new thread of a tree process, under --threads all: its buffer
 * (follow.c calls this at the thread's start). */
void ukcov__tree_arm_thread(void)
{
	tree_arm_self();
}

/*
 * A thread is done with its buffer (thread exit, or the process's
 * exit for the thread that calls exit, once it no longer records):
 * trim the file to the header, the bitmap's pages dropped, and the
 * records, then unmap it.  Other threads still running at exit keep
 * theirs mapped and whole: they may be writing into them.
 */
void ukcov__tree_release(uint64_t *area, int unmap)
{
	uint64_t *hdr = area - UKCOV_TREEBUF_HEADER_BYTES / 8;
	uint64_t words = tree.uniq_words;
	uint64_t *trace = area + words;
	uint64_t n = __atomic_load_n(&trace[0], __ATOMIC_ACQUIRE);
	uint64_t per = tree.mode == UKCOV_MODE_CMP ? 4 : 1;
	uint64_t cap = (tree.entries - words - 1) / per;
	size_t keep = UKCOV_TREEBUF_HEADER_BYTES +
		      (size_t)(words + 1 + (n < cap ? n : cap) * per) * 8;
	char path[PATH_MAX];
	int fd;

	if (!unmap)
		return;
	snprintf(path, sizeof(path), "%s/buf.%d.%d.%d", tree.dir,
		 (int)hdr[UKCOV_TR_PID], tree.image, (int)hdr[UKCOV_TR_TID]);
	munmap(hdr, buffer_bytes());
	fd = ukcov__real_open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (words)
		(void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				UKCOV_TREEBUF_HEADER_BYTES, (off_t)words * 8);
	(void)!ftruncate(fd, (off_t)keep);
	ukcov__real_close(fd);
}
