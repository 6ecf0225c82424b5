/*
 * tools/util.c -- diagnostics, allocation, PC vectors, file helpers.
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "ukcov: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

/* Print an error and exit with rc. */
static void die(int rc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	exit(rc);
}

static void *oom_check(void *p)
{
	if (!p)
		die(EXIT_DATA, "out of memory");
	return p;
}

void *xmalloc(size_t n)
{
	return oom_check(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t sz)
{
	return oom_check(calloc(n ? n : 1, sz ? sz : 1));
}

void *xrealloc(void *p, size_t n)
{
	return oom_check(realloc(p, n ? n : 1));
}

char *xstrdup(const char *s)
{
	return oom_check(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		die(EXIT_DATA, "out of memory");
	return s;
}

void pcvec_push(struct pcvec *pv, uint64_t pc)
{
	if (pv->n == pv->cap) {
		pv->cap = pv->cap ? pv->cap * 2 : 64;
		pv->v = xrealloc(pv->v, pv->cap * sizeof(*pv->v));
	}
	pv->v[pv->n++] = pc;
}

void pcvec_append(struct pcvec *dst, const struct pcvec *src)
{
	for (size_t i = 0; i < src->n; i++)
		pcvec_push(dst, src->v[i]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void pcvec_sort_unique(struct pcvec *pv, bool drop_zero)
{
	size_t o = 0;

	if (pv->n > 1)
		qsort(pv->v, pv->n, sizeof(*pv->v), cmp_u64);
	for (size_t i = 0; i < pv->n; i++) {
		if (drop_zero && pv->v[i] == 0)
			continue;
		if (o && pv->v[o - 1] == pv->v[i])
			continue;
		pv->v[o++] = pv->v[i];
	}
	pv->n = o;
}

bool pcvec_contains(const struct pcvec *pv, uint64_t pc)
{
	size_t lo = 0, hi = pv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pv->v[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pv->n && pv->v[lo] == pc;
}

void pcvec_free(struct pcvec *pv)
{
	free(pv->v);
	pv->v = NULL;
	pv->n = pv->cap = 0;
}

/* Open path for reading; a directory is EISDIR.  fd or -errno. */
static int open_input(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || S_ISDIR(st->st_mode)) {
		int e = S_ISDIR(st->st_mode) ? EISDIR : errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Read fd to its end, growing the buffer as data comes (never by the
 * size the file claims: a sparse file may claim 16 GiB).  With nul_at,
 * stop at the first NUL byte and report its offset there. */
static int read_fd(int fd, char **buf, size_t *len, size_t *nul_at,
		   size_t max)
{
	size_t cap = (size_t)64 * 1024, n = 0;
	char *b = xmalloc(cap);

	if (nul_at)
		*nul_at = SIZE_MAX;
	for (;;) {
		ssize_t r;
		const char *z;

		if (n + 1 == cap)
			b = xrealloc(b, cap *= 2);
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			return -e;
		}
		if (r == 0)
			break;
		if ((size_t)r > max - n) {	/* grew past the bound */
			free(b);
			return -EFBIG;
		}
		if (nul_at && (z = memchr(b + n, '\0', (size_t)r))) {
			*nul_at = (size_t)(z - b);
			n = *nul_at;
			break;
		}
		n += (size_t)r;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static int read_file(const char *path, char **buf, size_t *len,
		     size_t *nul_at)
{
	struct stat st;
	int fd = open_input(path, &st), r;

	if (fd < 0)
		return fd;
	r = read_fd(fd, buf, len, nul_at, SIZE_MAX);
	close(fd);
	return r;
}

/*
 * The file is opened before anything is asked of it, and type and size
 * are checked on the descriptor that is then read: a path swapped for a
 * FIFO or a device between a stat and an open cannot slip through.
 * O_NONBLOCK: opening a FIFO does not wait for a writer (fifo(7));
 * O_NOCTTY: a terminal never becomes the controlling one.
 */
int read_regular_file(const char *path, size_t max, char **buf, size_t *len,
		      const char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), r;

	*buf = NULL;
	*len = 0;
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;	/* unknown: refused like a device */
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return -1;
	}
	r = (unsigned long long)st.st_size > max
		    ? -EFBIG : read_fd(fd, buf, len, NULL, max);
	close(fd);
	if (r == -EFBIG)
		*why = "larger than the limit for a source (64 MiB)";
	else if (r < 0)
		*why = strerror(-r);
	return r < 0 ? -1 : 0;
}

int read_whole_file(const char *path, char **buf, size_t *len)
{
	return read_file(path, buf, len, NULL);
}

int read_text_file(const char *path, char **buf, size_t *len, size_t *nul_at)
{
	return read_file(path, buf, len, nul_at);
}

ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int read_head(const char *path, void *buf, size_t size, size_t *n)
{
	struct stat st;
	int fd = open_input(path, &st), e;
	ssize_t r;

	*n = 0;
	if (fd < 0)
		return fd;
	r = read_full(fd, buf, size);
	e = errno;
	close(fd);
	if (r < 0)
		return -e;
	*n = (size_t)r;
	return 0;
}

int load_parsed(const char *path, const char *what, parse_fn parse, void *arg)
{
	char *buf = NULL, err[ERRLEN] = "";
	size_t len = 0, nul;
	int r = read_text_file(path, &buf, &len, &nul);

	if (r < 0) {
		msg_error("%s: %s", path, strerror(-r));
		return -1;
	}
	if (nul != SIZE_MAX) {
		msg_error("%s: not a %s: NUL byte at byte offset %zu (a text "
			  "format)", path, what, nul);
		free(buf);
		return -1;
	}
	r = parse(buf, len, arg, err);
	free(buf);
	if (r < 0)
		msg_error("%s: %s", path, err);
	return r < 0 ? -1 : 0;
}

int write_output(const char *path, const void *buf, size_t len)
{
	FILE *f = stdout;
	int e = 0;

	if (path && strcmp(path, "-") != 0) {
		f = fopen(path, "wb");
		if (!f)
			return -errno;
	}
	if (fwrite(buf, 1, len, f) != len || fflush(f) != 0)
		e = errno ? -errno : -EIO;
	if (f != stdout && fclose(f) != 0 && !e)
		e = -errno;
	return e;
}

const char *path_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

const char *path_strip_prefix(const char *path, const char *prefix)
{
	const char *hit = prefix && *prefix ? strstr(path, prefix) : NULL;

	return hit ? hit + strlen(prefix) : path;
}

int hex_u64(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0, i;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

bool parse_hex_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i == len || len - i > 16)
		return false;
	for (; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->n + n + 1 > sb->cap) {
		while (sb->n + n + 1 > sb->cap)
			sb->cap = sb->cap ? sb->cap * 2 : 256;
		sb->s = xrealloc(sb->s, sb->cap);
	}
	memcpy(sb->s + sb->n, s, n);
	sb->n += n;
	sb->s[sb->n] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int r;

	va_start(ap, fmt);
	r = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	if ((size_t)r < sizeof(small)) {
		sb_add(sb, small, (size_t)r);
		return;
	}
	char *big = xmalloc((size_t)r + 1);

	va_start(ap, fmt);
	vsnprintf(big, (size_t)r + 1, fmt, ap);
	va_end(ap);
	sb_add(sb, big, (size_t)r);
	free(big);
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->n = sb->cap = 0;
}

/*
 * SIGCHLD ignored survives exec (POSIX): a tool started by a parent
 * that ignores it would have its children reaped by the kernel, and
 * every waitpid would fail with ECHILD: `ukcov run` lost the program's
 * exit status and wrote no dump, `ukcov fuzz` took a crash for an exit
 * with status 0.  The tool waits for its children, so it takes the
 * default back; the program it runs gets what the tool was given.
 */
static bool sigchld_ignored;

void children_waitable(void)
{
	struct sigaction sa;

	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
		sigchld_ignored = true;
		signal(SIGCHLD, SIG_DFL);
	}
}

void children_restore(void)
{
	if (sigchld_ignored)
		signal(SIGCHLD, SIG_IGN);
}
