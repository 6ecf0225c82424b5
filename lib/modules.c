/*
 * lib/modules.c -- the module table of the running process, for tools
 * that read absolute PCs collected here (ukcov run).
 *
 * If UKCOV_MODULES names a file, each snapshot appends one line per
 * executable segment of every loaded object (docs/FORMATS.md §4):
 *
 *	M <pid> <build-id hex|-> <load bias> <start> <end> <path>
 *
 * (hex numbers without 0x; start/end absolute; path with '\' and bytes
 * below 0x20 escaped as \\ and \xHH).  Called after an exec takeover and
 * at exit, possibly from a signal handler's exit(): so no malloc, no
 * stdio, no locks of our own -- a stack buffer and one write(2) per line
 * on an O_APPEND descriptor, which keeps lines of concurrent writers
 * whole.
 */
#include "internal.h"
#include "textline.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->n)
		n = sizeof(l->buf) - l->n;
	memcpy(l->buf + l->n, s, n);
	l->n += n;
}

void put_hex(struct line *l, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[15 - n++] = hx[v & 15];
		v >>= 4;
	} while (v);
	put(l, tmp + 16 - n, (size_t)n);
}

void put_dec(struct line *l, unsigned v)
{
	char tmp[12];
	int n = 0;

	do {
		tmp[11 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(l, tmp + 12 - n, (size_t)n);
}

void put_path(struct line *l, const char *p)
{
	static const char hx[] = "0123456789abcdef";

	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\\') {
			put(l, "\\\\", 2);
		} else if (c < 0x20) {
			char e[4] = { '\\', 'x', hx[c >> 4], hx[c & 15] };

			put(l, e, 4);
		} else {
			put(l, p, 1);
		}
	}
}

/* The NT_GNU_BUILD_ID note of a loaded object, from its PT_NOTE
 * segments (already mapped, so no file access). */
void put_build_id(struct line *l, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name = (nh->n_namesz + 3) & ~3u;
			size_t desc = (nh->n_descsz + 3) & ~3u;
			const unsigned char *d;

			p += sizeof(*nh);
			if (name > (size_t)(end - p) ||
			    desc > (size_t)(end - p) - name)
				break;
			d = (const unsigned char *)p + name;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(p, "GNU", 4) == 0 && nh->n_descsz > 0) {
				for (size_t k = 0; k < nh->n_descsz; k++) {
					if (d[k] < 16)
						put(l, "0", 1);
					put_hex(l, d[k]);
				}
				return;
			}
			p += name + desc;
		}
	}
	put(l, "-", 1);
}

/* The main program's name without /proc (a chroot, a container
 * without it): the path the kernel was asked to execute (AT_EXECFN,
 * set by Linux's create_elf_tables), else libc's argv[0].  compiler-rt
 * names a .sancov file after the module's basename, never "?"; a
 * relative name still gives that basename. */
static const char *exe_name_without_proc(void)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);

	if (fn && *fn)
		return fn;
	if (program_invocation_name && *program_invocation_name)
		return program_invocation_name;
	return "?";
}

const char *object_path(const struct dl_phdr_info *info, char *exe,
			size_t exe_size)
{
	ssize_t n;

	if (info->dlpi_name && info->dlpi_name[0])
		return info->dlpi_name;
	/* The main program has an empty name. */
	n = readlink("/proc/self/exe", exe, exe_size - 1);
	if (n > 0) {
		exe[n] = '\0';
		return exe;
	}
	return exe_name_without_proc();
}

static int snapshot_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct line *l = arg;
	char exe[4096];
	const char *path = object_path(info, exe, sizeof(exe));

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		uint64_t start, end;

		if (!exec_segment(info, i, &start, &end))
			continue;
		l->n = 0;
		put(l, "M ", 2);
		put_dec(l, (unsigned)l->pid);
		put(l, " ", 1);
		put_build_id(l, info);
		put(l, " ", 1);
		put_hex(l, info->dlpi_addr);
		put(l, " ", 1);
		put_hex(l, start);
		put(l, " ", 1);
		put_hex(l, end);
		put(l, " ", 1);
		put_path(l, path);
		if (put_end(l) < 0)
			return 1;
	}
	return 0;
}

/* Finish a line and write it whole with one write(2); a line that did
 * not fit is dropped rather than cut. */
int put_end(struct line *l)
{
	if (l->n >= sizeof(l->buf))
		return 0;
	put(l, "\n", 1);
	return write(l->fd, l->buf, l->n) < 0 ? -1 : 0;
}

/* Write all n bytes (async-signal-safe): 0, or the errno (EIO for a
 * write that wrote nothing). */
int ukcov__write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The line snprintf formatted into msg (n: what it returned; size:
 * msg's) on stderr with one write(2), so that lines of several threads
 * do not interleave.  A line longer than msg is cut and still ends with
 * its newline: the next message starts a line of its own. */
void ukcov__say_line(char *msg, size_t size, int n)
{
	size_t len;

	if (n <= 0 || size < 2)
		return;
	len = (size_t)n;
	if (len >= size) {
		len = size - 1;
		msg[len - 1] = '\n';
	}
	(void)!write(2, msg, len);
}

/*
 * Open path, the value of the environment variable var, to append to
 * (creating it 0600 if create).  The name came from whoever started the
 * process: a symlink planted there is not followed (open(2) O_NOFOLLOW:
 * ELOOP), and that is said once per *said, one line, async-signal-safe.
 * The descriptor, or -1.
 */
int ukcov__env_open_append(const char *var, const char *path, int create,
			   int *said)
{
	static const char tail[] = " is a symbolic link; not followed, "
				   "nothing written";
	int fd = ukcov__real_open(path, O_WRONLY | O_APPEND |
				  UKCOV_ENV_OPEN_FLAGS |
				  (create ? O_CREAT : 0), 0600);
	struct line l = { .n = 0, .fd = 2 };

	if (fd >= 0 || errno != ELOOP ||
	    __atomic_exchange_n(said, 1, __ATOMIC_RELAXED))
		return fd;
	put(&l, "ukcov: ", 7);
	put(&l, var, strlen(var));
	put(&l, ": ", 2);
	put_path(&l, path);
	put(&l, tail, strlen(tail));
	(void)put_end(&l);
	errno = ELOOP;
	return -1;
}

#define TABLE_OPEN (O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* fd if it is a regular file (of inode ino, if not 0), else closed: -1. */
static int table_check(int fd, uint64_t ino)
{
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
			(ino && (uint64_t)st.st_ino != ino))) {
		ukcov__real_close(fd);
		fd = -1;
	}
	return fd;
}

/* A collector's /proc/<pid>/fd/<n> (ino != 0) is looked at through
 * O_PATH and opened only if it is still that regular file: after the
 * number was reused it may be a FIFO without a reader, whose open
 * blocks, or a terminal, which would become our controlling one.  A
 * named file is created or opened without blocking and without
 * following a link, and used only if it is a regular file.  -1 if not
 * to be written. */
static int table_open(const char *path, uint64_t ino)
{
	char self[64];
	struct stat st;
	int fd, pfd;

	if (!ino)
		return table_check(ukcov__real_open(path, TABLE_OPEN | O_CREAT |
						    O_NOFOLLOW, 0600), 0);
	pfd = ukcov__real_open(path, O_PATH | O_CLOEXEC, 0);
	if (pfd < 0)
		return -1;
	fd = -1;
	if (fstat(pfd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_ino == ino) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		fd = ukcov__real_open(self, TABLE_OPEN, 0);
	}
	ukcov__real_close(pfd);
	return table_check(fd, ino);
}

static void snapshot_into(int fd)
{
	struct line l;

	if (fd < 0)
		return;
	l.fd = fd;
	l.pid = (int)getpid();
	dl_iterate_phdr(snapshot_object, &l);
	ukcov__real_close(fd);
}

/* A process of a traced tree writes its table to its own file
 * (tree.c), not to the traced program's UKCOV_MODULES. */
static const char *modules_path;

void ukcov__modules_set_path(const char *path)
{
	modules_path = path;
}

/* Our own table: $UKCOV_MODULES (whatever the user named, but not
 * through a link, and only a regular file), or the tree's file. */
void ukcov__modules_snapshot(void)
{
	static int said;	/* [A] */
	const char *path = modules_path ? modules_path
					: ukcov__env("UKCOV_MODULES");

	if (path && *path)
		snapshot_into(table_check(ukcov__env_open_append(
			"UKCOV_MODULES", path, 1, &said), 0));
}

/* The same into a remote collector's table of its feeders (remote.c),
 * a path another process's control block named: with ino != 0 the
 * collector's feeders memfd (feeders.c), and a file with another inode
 * (the collector closed the memfd and reused the number) is left
 * alone; table_open checks it before anything is written. */
void ukcov__modules_snapshot_peer(const char *path, uint64_t ino)
{
	if (path && *path)
		snapshot_into(table_open(path, ino));
}
