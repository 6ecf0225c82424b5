/*
 * tools/util.h -- small helpers shared by the ukcov tool's modules:
 * diagnostics, checked allocation, growable PC vectors, whole-file reads.
 *
 * Every diagnostic names the file it is about: "ukcov: error: FILE: what".
 * Exit codes: 0 success, 1 bad input (data errors), 2 usage errors.
 */
#ifndef UKCOV_TOOLS_UTIL_H
#define UKCOV_TOOLS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The size of the message buffer that parsers and readers fill. */
#define ERRLEN 256

#define EXIT_DATA  1
#define EXIT_USAGE 2

void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable array of 64-bit PCs or offsets. */
struct pcvec {
	uint64_t *v;
	size_t n, cap;
};

void pcvec_push(struct pcvec *pv, uint64_t pc);
void pcvec_append(struct pcvec *dst, const struct pcvec *src);
/* Sort ascending and drop duplicates (and zeros if drop_zero). */
void pcvec_sort_unique(struct pcvec *pv, bool drop_zero);
/* Binary search in a sorted vector. */
bool pcvec_contains(const struct pcvec *pv, uint64_t pc);
void pcvec_free(struct pcvec *pv);

/* Read a whole file.  Returns 0, or -errno (buffer is NUL-terminated). */
int read_whole_file(const char *path, char **buf, size_t *len);
/* Read a text file: the read stops at the first NUL byte, whose offset
 * goes to *nul_at (SIZE_MAX if there is none), so a file of zeros costs
 * one chunk however large it claims to be.  0 or -errno. */
int read_text_file(const char *path, char **buf, size_t *len, size_t *nul_at);
/* A source to embed or serve: a regular file of at most max bytes,
 * else -1 with *why saying why ("not a regular file", an errno text);
 * never waits on a FIFO, never reads a device.  0 on success. */
#define SOURCE_MAX_BYTES ((size_t)64 << 20)
int read_regular_file(const char *path, size_t max, char **buf, size_t *len,
		      const char **why);
/* read(2) until n bytes or the end of the file; bytes read, or -1. */
ssize_t read_full(int fd, void *buf, size_t n);
/* The first size bytes (fewer at the end of the file) into buf.  0 or
 * -errno; a directory is -EISDIR. */
int read_head(const char *path, void *buf, size_t size, size_t *n);
/* Read the text file path and hand it to parse; on failure print "FILE:
 * problem" (the read error, a NUL byte, or the parser's message) and
 * return -1.  what names the format ("ukcov dump"). */
typedef int (*parse_fn)(const char *buf, size_t len, void *arg, char *err);
int load_parsed(const char *path, const char *what, parse_fn parse, void *arg);

/* Write a buffer to path, or to stdout when path is NULL or "-". */
int write_output(const char *path, const void *buf, size_t len);

const char *path_basename(const char *path);
/* sancov's stripPathPrefix: path after the first occurrence of prefix
 * (NULL or empty: path itself). */
const char *path_strip_prefix(const char *path, const char *prefix);
/* "%x"-style lowercase hex without prefix into buf (>= 17 bytes). */
int hex_u64(char *buf, uint64_t v);
/* Parse hex with optional 0x; whole string must be consumed. */
bool parse_hex_u64(const char *s, size_t len, uint64_t *out);

/* A growable string buffer: outputs are built in memory and written once,
 * so a failure half-way leaves no half-written output file. */
struct strbuf {
	char *s;
	size_t n, cap;
};

void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *sb);

/* SIGCHLD taken back to its default if the tool was started with it
 * ignored, so that waitpid sees the children; children_restore(), in a
 * forked child before it execs, gives the program the disposition the
 * tool was started with. */
void children_waitable(void);
void children_restore(void);

#endif
