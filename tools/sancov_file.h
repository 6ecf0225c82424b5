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
#define ERRLEN 256

/* True if buf starts like a .sancov file (bytes 4..7, what sancov tests). */
bool sancov_has_magic(const void *buf, size_t len);

/*
 * Parse a .sancov image.  Tolerant like sancov: zeros, duplicates and
 * unsorted offsets are accepted (left as they are); a trailing partial
 * word is reported in *trailing.  Returns 0, or -1 with a message in err.
 */
int sancov_parse(const void *buf, size_t len, struct pcvec *pcs, int *bits,
		 size_t *trailing, char err[ERRLEN]);

/* Read and parse path; on failure print "FILE: problem" and return -1. */
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
