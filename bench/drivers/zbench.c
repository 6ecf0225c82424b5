/*
 * bench/drivers/zbench.c -- a deterministic zlib workload: generate
 * text-like data, deflate it at levels 1, 6 and 9, inflate it again and
 * check the CRC.  Prints the CRC and a hash of the compressed sizes.
 *
 * usage: zbench [MIB]    (MiB of input; 8 by default)
 */
#include <stdio.h>
#include <stdlib.h>
#include "zlib.h"

static void make_text(unsigned char *buf, size_t n)
{
	static const char *const words[] = {
		"the ", "coverage ", "kernel ", "buffer ", "trace ", "pc ", "edge ",
		"of ", "and ", "0x7f3a ", "runtime ", "thread\n", "mmap ", "counter ",
	};
	unsigned x = 1;

	for (size_t i = 0; i < n;) {
		x = x * 1103515245u + 12345u;
		if ((x >> 16) % 8 == 0) {
			buf[i++] = (unsigned char)(x >> 8);
			continue;
		}
		for (const char *w = words[(x >> 12) % 14]; *w && i < n; w++)
			buf[i++] = (unsigned char)*w;
	}
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 8) << 20;
	static const int levels[] = { 1, 6, 9 };
	uLong bound = compressBound(n), crc, sizes = 0;
	unsigned char *src = malloc(n), *back = malloc(n), *dst = malloc(bound);

	if (!src || !back || !dst)
		return 1;	/* exit frees them */
	make_text(src, n);
	crc = crc32(0, src, n);
	for (int l = 0; l < 3; l++) {
		uLongf dlen = bound, blen = n;

		if (compress2(dst, &dlen, src, n, levels[l]) != Z_OK)
			return 2;
		if (uncompress(back, &blen, dst, dlen) != Z_OK || blen != n ||
		    crc32(0, back, n) != crc)
			return 3;
		sizes = sizes * 31 + dlen;
	}
	printf("zbench bytes=%zu crc=%08lx sizes=%lx\n", n, crc, sizes);
	free(src);
	free(back);
	free(dst);
	return 0;
}
