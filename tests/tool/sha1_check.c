/*
 * tests/tool/sha1_check.c -- tools/sha1.c on its own.
 *
 *   sha1-check FILE...
 *	print "HASH FILE" per file, HASH being sha1_file_hex_upper()'s
 *	answer, or "FILE: error" and exit 1.
 *
 * The .symcov "binary-hash" is only ever computed for a binary that
 * also opens as ELF, so some of sha1.c (an empty file, which mmap()
 * refuses with EINVAL) cannot be reached through ukcov; the suite
 * compares this with sha1sum(1) instead.  Uninstrumented, as all test
 * harness code.
 */
#include "sha1.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		char out[41];
		int r;

		/* Whatever sha1.c leaves unwritten shows as '?'. */
		memset(out, '?', sizeof(out) - 1);
		out[sizeof(out) - 1] = '\0';
		r = sha1_file_hex_upper(argv[i], out);
		if (r < 0) {
			printf("%s: %s\n", argv[i], strerror(-r));
			status = 1;
		} else {
			printf("%s %s\n", out, argv[i]);
		}
	}
	return status;
}
