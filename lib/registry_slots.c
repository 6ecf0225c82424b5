/*
 * lib/registry_slots.c -- reading the remote registry's bytes
 * (registry_format.h): the header and slot checks and the probe for a
 * handle.  Pure code over a reader, so that the fuzz harness runs
 * exactly what a section start runs.
 *
 * The table is open addressing with linear probing.  A slot is FREE
 * (never used), DELETED (a tombstone: a probe goes on past it, since a
 * handle registered after it may lie behind) or LIVE.  The header's
 * maxprobe bounds every probe, so a miss costs at most maxprobe + 1
 * slots however many tombstones the table holds.
 */
#include <string.h>

#include "registry_format.h"

/* NULL if h is a header this library can use, else why not. */
static const char *ukcov__reg_header_invalid(const struct reg_header *h)
{
	if (h->magic != REG_MAGIC)
		return "corrupt header (magic)";
	if (h->layout != REG_LAYOUT || h->nslots != REG_SLOTS)
		return "corrupt header (layout)";
	if (h->used > REG_SLOTS || h->maxprobe >= REG_SLOTS)
		return "corrupt header (counts)";
	return NULL;
}

/* A live slot names a process and a descriptor; anything else with a
 * handle in it was not written by a registrant. */
enum reg_kind ukcov__reg_slot_kind(const struct reg_slot *s)
{
	if (s->handle == REG_SLOT_FREE)
		return REG_FREE;
	if (s->handle == REG_SLOT_DELETED)
		return REG_DELETED;
	if (s->pid <= 0 || s->fd < 0 || s->start == 0)
		return REG_BAD;
	return REG_LIVE;
}

/* 0 and the header, or -1 and why: short (truncated) or invalid. */
int ukcov__reg_read_header(const struct reg_io *io, struct reg_header *h,
			   const char **why)
{
	if (io->read(io->ctx, h, sizeof(*h), 0) != (ssize_t)sizeof(*h)) {
		*why = "truncated";
		return -1;
	}
	*why = ukcov__reg_header_invalid(h);
	return *why ? -1 : 0;
}

/* Slots [i, i + n) of the file, which must all be there. */
static int read_slots(const struct reg_io *io, unsigned i, unsigned n,
		      struct reg_slot *out)
{
	size_t len = n * sizeof(*out);

	return io->read(io->ctx, out, len, REG_SLOT_OFF(i)) == (ssize_t)len
		       ? 0 : -1;
}

/* Look n slots from i up for handle, a registration of another process
 * than self.  REG_MISS to go on probing. */
static enum reg_probe probe_chunk(const struct reg_slot *s, unsigned n,
				  uint64_t handle, int32_t self,
				  unsigned *hit, const char **why)
{
	unsigned j;

	for (j = 0; j < n; j++) {
		switch (ukcov__reg_slot_kind(&s[j])) {
		case REG_BAD:
			*why = "corrupt slot";
			return REG_BROKEN;
		case REG_LIVE:
			if (s[j].handle == handle && s[j].pid != self) {
				*hit = j;
				return REG_FOUND;
			}
			break;
		default:
			break;
		}
	}
	return REG_MISS;
}

/* The slots of handle's probe, chunk by chunk: REG_FOUND with *index
 * and *out, or why not.  A hit is confirmed by the header's seq, read
 * again: unchanged and even, no writer touched the file meanwhile. */
enum reg_probe ukcov__reg_probe(const struct reg_io *io, uint64_t handle,
				int32_t self, struct reg_slot *out,
				unsigned *index, const char **why)
{
	struct reg_slot chunk[REG_CHUNK];
	struct reg_header h;
	uint64_t seq;
	unsigned k, n, i, hit = 0;
	enum reg_probe r = REG_MISS;

	*why = NULL;
	if (ukcov__reg_read_header(io, &h, why) != 0)
		return REG_BROKEN;
	if (h.seq & 1)
		return REG_BUSY;
	if (h.used == 0)
		return REG_MISS;
	for (k = 0; k <= h.maxprobe && r == REG_MISS; k += n) {
		i = (reg_home(handle) + k) & (REG_SLOTS - 1);
		n = (unsigned)h.maxprobe + 1 - k;
		if (n > REG_CHUNK)
			n = REG_CHUNK;
		if (n > REG_SLOTS - i)
			n = REG_SLOTS - i;	/* wraps: next chunk at 0 */
		if (read_slots(io, i, n, chunk) != 0) {
			*why = "truncated";
			return REG_BROKEN;
		}
		r = probe_chunk(chunk, n, handle, self, &hit, why);
		if (r == REG_FOUND) {
			*out = chunk[hit];
			*index = i + hit;
		}
	}
	if (r != REG_FOUND)
		return r;
	if (io->read(io->ctx, &seq, sizeof(seq),
		     offsetof(struct reg_header, seq)) != (ssize_t)sizeof(seq)) {
		*why = "truncated";
		return REG_BROKEN;
	}
	return seq == h.seq ? REG_FOUND : REG_BUSY;
}
