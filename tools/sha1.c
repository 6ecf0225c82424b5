/*
 * tools/sha1.c -- the SHA-1 of a binary for .symcov's "binary-hash",
 * computed with nettle (Debian's nettle-dev).
 */
#include "sha1.h"

#include <errno.h>
#include <nettle/sha1.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void sha1_hex_upper(const void *data, size_t len, char out[41])
{
	static const char hx[] = "0123456789ABCDEF";
	uint8_t digest[SHA1_DIGEST_SIZE];
	struct sha1_ctx c;

	sha1_init(&c);
	sha1_update(&c, len, data);
	sha1_digest(&c, sizeof(digest), digest);
	for (size_t i = 0; i < SHA1_DIGEST_SIZE; i++) {
		out[2 * i] = hx[digest[i] >> 4];
		out[2 * i + 1] = hx[digest[i] & 15];
	}
	out[40] = '\0';
}

int sha1_file_hex_upper(const char *path, char out[41])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (st.st_size == 0) {
		close(fd);
		sha1_hex_upper("", 0, out);
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	sha1_hex_upper(p, (size_t)st.st_size, out);
	munmap(p, (size_t)st.st_size);
	return 0;
}
