/* libFuzzer harness: the control block validator (lib/cbcheck.c), whose
 * input is whatever another process wrote into a descriptor's block.
 * The block is handed over in a buffer of exactly the input's length,
 * so that ASan sees any read past it; an accepted block must bound
 * every mapping and write the runtime makes by it, else abort.
 *
 * Byte 0 steers the fuzzer past the first checks: bit 0 stamps our
 * magic and layout, bit 1 makes bytes entries * 8 rounded to the page,
 * bit 2 passes a file size from the input instead of the right one,
 * bits 4-7 choose the page size (2^(bits + 8), or an odd one). */
#include "../../../lib/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void stamp(uint8_t *block, size_t len, size_t off, const void *v,
		  size_t n)
{
	if (off + n <= len)
		memcpy(block + off, v, n);
}

/* What the runtime relies on when the check says yes. */
static void expect_bounded(const struct ukcov_cb_bounds *b, uint64_t page)
{
	int ok = 1;

	if (b->bytes == 0)
		ok = b->entries == 0 && b->remote_area == 0;
	else
		ok = b->entries >= 1 && b->entries <= b->bytes / 8 &&
		     b->bytes <= UKCOV_CB_OFF && b->bytes % page == 0 &&
		     b->remote_area <= b->entries &&
		     (b->uniq_words == 0 || b->uniq_words < b->entries - 1) &&
		     (b->remote_mode == UKCOV_MODE_NONE ||
		      b->remote_mode == UKCOV_MODE_PC ||
		      b->remote_mode == UKCOV_MODE_CMP);
	if (!ok) {
		fprintf(stderr, "accepted: entries %llu bytes %llu area %llu "
				"uniq %llu mode %d\n",
			(unsigned long long)b->entries,
			(unsigned long long)b->bytes,
			(unsigned long long)b->remote_area,
			(unsigned long long)b->uniq_words, (int)b->remote_mode);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ukcov_cb_bounds b;
	uint64_t file_size = UKCOV_FILE_SIZE, page, v;
	uint32_t layout = sizeof(struct ukcov_cb);
	uint8_t flags, *block;
	size_t len;

	if (size < 1)
		return 0;
	flags = data[0];
	len = size - 1;
	block = malloc(len ? len : 1);
	if (!block)
		return 0;
	memcpy(block, data + 1, len);
	page = (flags >> 4) == 15 ? 4097 : 1ULL << ((flags >> 4) + 8);
	if (flags & 1) {
		v = UKCOV_MAGIC;
		stamp(block, len, offsetof(struct ukcov_cb, magic), &v,
		      sizeof(v));
		stamp(block, len, offsetof(struct ukcov_cb, layout), &layout,
		      sizeof(layout));
	}
	if ((flags & 2) && len >= sizeof(struct ukcov_cb)) {
		memcpy(&v, block + offsetof(struct ukcov_cb, entries),
		       sizeof(v));
		v = (v * 8 + page - 1) & ~(page - 1);
		stamp(block, len, offsetof(struct ukcov_cb, bytes), &v,
		      sizeof(v));
	}
	if ((flags & 4) && len >= 8)
		memcpy(&file_size, block + len - 8, sizeof(file_size));
	if (!ukcov__cb_check(block, len, file_size, page, &b))
		expect_bounded(&b, page);
	free(block);
	return 0;
}
