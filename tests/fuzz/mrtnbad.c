/*
 * tests/fuzz/mrtnbad.c -- a hostile harness: it writes the routine
 * records of the shared block itself (docs/FORMATS.md 4e), a count far
 * past the block and a record whose b is 40 bytes long, more than the
 * 32 bytes a record has.  The record's a is the input's first bytes,
 * its b "CRASHME!": a tool that took the length would splice b where
 * the input holds a and the harness would abort.  The tool must drop
 * the record and clamp the count: no crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

static uint8_t *block;

/* The memfd named third in $UKCOV_FUZZ ("CTL,STATUS,SHM"), mapped. */
static uint8_t *map_block(void)
{
	const char *e = getenv("UKCOV_FUZZ"), *c;
	struct stat st;
	void *p;
	int fd;

	if (!e || !(c = strrchr(e, ',')))
		return NULL;
	fd = atoi(c + 1);
	if (fstat(fd, &st) != 0)
		return NULL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t rtn_off;
	uint8_t *r;

	if (size >= 8 && memcmp(data, "CRASHME!", 8) == 0)
		abort();
	if (!block && !(block = map_block()))
		return 0;
	memcpy(&rtn_off, block + 144, 8);
	r = block + rtn_off + 8;
	memset(r, 0, 80);
	r[8] = (uint8_t)(size < 32 ? size : 32);	/* len_a */
	r[9] = 40;			/* len_b: past the 32 bytes */
	memcpy(r + 16, data, r[8]);
	memcpy(r + 48, "CRASHME!", 9);	/* with its NUL: r[56] is b too */
	*(volatile uint64_t *)(block + rtn_off) = (uint64_t)1 << 60;
	return 0;
}
