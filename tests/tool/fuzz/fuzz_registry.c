/* libFuzzer harness: the remote registry reader (lib/registry_slots.c),
 * the code every section start runs on a file that any process of the
 * user may have scribbled on or truncated.
 *
 * Input: 8 bytes of handle, 1 byte of flags, then the file's bytes.
 * Flag bit 0: the file is exactly those bytes (truncated wherever the
 * input ends); else the header is followed by the given slots repeated
 * to the full 1024, so that small inputs make whole registries.
 *
 * Checked: nothing is read beyond what is there; a hit is a live slot
 * of that handle and of another process, at its home or within
 * maxprobe of it, with the bytes the file holds; a bad header is
 * always refused; a probe reads at most maxprobe + 1 slots. */
#include "../../../lib/registry_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct image {
	const uint8_t *b;
	size_t len;
	int exact;
	size_t slot_bytes;	/* read from the slot area */
};

static void image_byte_range(const struct image *im, uint8_t *dst,
			     size_t len, uint64_t off)
{
	size_t i, m = im->len > sizeof(struct reg_header)
			      ? (im->len - sizeof(struct reg_header)) /
					sizeof(struct reg_slot)
			      : 0;

	for (i = 0; i < len; i++) {
		uint64_t o = off + i, s;

		if (o < sizeof(struct reg_header)) {
			dst[i] = o < im->len ? im->b[o] : 0;
			continue;
		}
		o -= sizeof(struct reg_header);
		s = o / sizeof(struct reg_slot);
		dst[i] = m ? im->b[sizeof(struct reg_header) +
				   (s % m) * sizeof(struct reg_slot) +
				   o % sizeof(struct reg_slot)]
			   : 0;
	}
}

static ssize_t image_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct image *im = ctx;

	if (off >= sizeof(struct reg_header))
		im->slot_bytes += len;
	if (im->exact) {
		if (off >= im->len)
			return 0;
		if (len > im->len - off)
			len = im->len - off;
		memcpy(buf, im->b + off, len);
		return (ssize_t)len;
	}
	if (off + len > REG_FILE_SIZE)
		abort();	/* the reader asked beyond the file */
	image_byte_range(im, buf, len, off);
	return (ssize_t)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im = { 0 };
	struct reg_io io = { image_read, &im };
	struct reg_header h;
	struct reg_slot s, again;
	const char *why;
	uint64_t handle;
	unsigned index, dist;
	enum reg_probe r;

	if (size < 9)
		return 0;
	memcpy(&handle, data, 8);
	im.exact = data[8] & 1;
	im.b = data + 9;
	im.len = size - 9;
	r = ukcov__reg_probe(&io, handle, 4242, &s, &index, &why);
	if (r == REG_BROKEN && !why)
		abort();	/* every refusal says why, once */
	if (r != REG_FOUND)
		return 0;
	if (ukcov__reg_read_header(&io, &h, &why) != 0)
		abort();	/* a hit under a header it should refuse */
	dist = (index - reg_home(handle)) & (REG_SLOTS - 1);
	if (index >= REG_SLOTS || dist > h.maxprobe ||
	    im.slot_bytes > (h.maxprobe + 2) * sizeof(struct reg_slot) ||
	    ukcov__reg_slot_kind(&s) != REG_LIVE || s.handle != handle ||
	    s.pid == 4242)
		abort();
	if (io.read(io.ctx, &again, sizeof(again), REG_SLOT_OFF(index)) !=
		    (ssize_t)sizeof(again) ||
	    memcmp(&again, &s, sizeof(s)) != 0)
		abort();
	return 0;
}
