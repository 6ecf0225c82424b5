/*
 * tools/sha1.c -- a straightforward SHA-1 (FIPS 180-4 §6.1).
 */
#include "sha1.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct sha1 {
	uint32_t h[5];
	uint64_t len;
	uint8_t buf[64];
	size_t nbuf;
};

static uint32_t rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

static void sha1_block(struct sha1 *c, const uint8_t *p)
{
	uint32_t w[80], a = c->h[0], b = c->h[1], d3 = c->h[2], d = c->h[3],
			 e = c->h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20)
			f = (b & d3) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ d3 ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & d3) | (b & d) | (d3 & d), k = 0x8f1bbcdc;
		else
			f = b ^ d3 ^ d, k = 0xca62c1d6;
		t = rol(a, 5) + f + e + k + w[i];
		e = d, d = d3, d3 = rol(b, 30), b = a, a = t;
	}
	c->h[0] += a, c->h[1] += b, c->h[2] += d3, c->h[3] += d, c->h[4] += e;
}

static void sha1_update(struct sha1 *c, const uint8_t *p, size_t n)
{
	c->len += n;
	if (c->nbuf) {
		size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;

		memcpy(c->buf + c->nbuf, p, k);
		c->nbuf += k, p += k, n -= k;
		if (c->nbuf < 64)
			return;
		sha1_block(c, c->buf);
		c->nbuf = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		sha1_block(c, p);
	memcpy(c->buf, p, n);
	c->nbuf = n;
}

void sha1_hex_upper(const void *data, size_t len, char out[41])
{
	struct sha1 c = { { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
			    0xc3d2e1f0 }, 0, { 0 }, 0 };
	uint64_t bits = 0;
	uint8_t pad[72] = { 0x80 };
	size_t padlen;

	sha1_update(&c, data, len);
	bits = c.len * 8;
	padlen = (c.nbuf < 56 ? 56 : 120) - c.nbuf;
	for (int i = 0; i < 8; i++)
		pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_update(&c, pad, padlen + 8);
	for (int i = 0; i < 20; i++) {
		static const char hx[] = "0123456789ABCDEF";
		uint8_t byte = (uint8_t)(c.h[i / 4] >> (24 - 8 * (i % 4)));

		out[2 * i] = hx[byte >> 4];
		out[2 * i + 1] = hx[byte & 15];
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
