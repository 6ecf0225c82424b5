/*
 * tools/sancov_file.h -- LLVM's .sancov files (docs/FORMATS.md §1):
 * an 8-byte magic 0xC0BFFFFFFFFFFF64 (64-bit offsets) or ...FF32 (32-bit),
 * host byte order, then module-relative PCs (return address - 1).
 */
#ifndef UKCOV_TOOLS_SANCOV_FILE_H
#define UKCOV_TOOLS_SANCOV_FILE_H

#include "util.h"

#define SANCOV_MAGIC_HI 0xC0BFFFFFu
#define SANCOV_BITS64   0xFFFFFF64u
#define SANCOV_BITS32   0xFFFFFF32u

/* True if buf starts like a .sancov file (bytes 4..7, what sancov tests). */
bool sancov_has_magic(const void *buf, size_t len);

/*
 * The most offsets one .sancov may hold: the coverage points of one
 * x86-64 module.  Every point is a call to the callback, 5 bytes at
 * least, and rel32 calls reach +-2 GiB, so the instrumented code spans
 * at most 4 GiB (docs/FORMATS.md §1).
 */
#define SANCOV_MAX_POINTS ((UINT64_C(1) << 32) / 5)

/*
 * Parse a .sancov image.  Tolerant like sancov: duplicates and unsorted
 * offsets are accepted (left as they are), zeros are dropped; a file that
 * ends inside an offset is an error.  Returns 0, or -1 with err.
 */
int sancov_parse(const void *buf, size_t len, struct pcvec *pcs, int *bits,
		 char err[ERRLEN]);

/* Read and parse path, streamed; on failure print "FILE: problem" and
 * return -1.  A file with more than max offsets is refused before it is
 * read; module (or NULL) names the binary whose size gave max. */
int sancov_load_max(const char *path, struct pcvec *pcs, int *bits,
		    uint64_t max, const char *module);
/* The same with max = SANCOV_MAX_POINTS. */
int sancov_load(const char *path, struct pcvec *pcs, int *bits);

/* Serialize sorted unique offsets in the given bitness (32 or 64). */
void sancov_serialize(struct strbuf *sb, const struct pcvec *pcs, int bits);

/*
 * The module a coverage file belongs to, as sancov derives it: group 1 of
 * the regex (.*)\.[0-9]+\.sancov on the file's basename.  Returns a new
 * string, or NULL if the name does not match.
 */
char *sancov_module_name(const char *path);

#endif
