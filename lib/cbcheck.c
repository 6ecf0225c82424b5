/*
 * lib/cbcheck.c -- the control block as input from another process.
 *
 * Every process of the user may write every byte of a descriptor's
 * control block (through /proc/<pid>/fd/<n>, or its own mapping), so
 * the fields that size memory are checked here before a process maps
 * or writes anything by them (docs/FORMATS.md, "Trust").  The check
 * works on one copy of the block, read once: a peer that rewrites the
 * block afterwards changes nothing this process bounded by the copy.
 *
 * No other part of the runtime is used here, so that the libFuzzer
 * harness (tests/tool/fuzz/fuzz_ctlblock.c) builds this file alone.
 */
#include <string.h>

#include "internal.h"

/* The largest buffer below the block: the block sits at UKCOV_CB_OFF
 * and the buffer starts at offset 0. */
#define MAX_BYTES UKCOV_CB_OFF

static uint64_t round_page(uint64_t bytes, uint64_t page)
{
	return (bytes + page - 1) & ~(page - 1);
}

/* entries and bytes as ukcov__setbuf_locked stores them: bytes is
 * entries * 8 rounded up to a page, below the block. */
static const char *check_buffer(const struct ukcov_cb *cb, uint64_t page)
{
	if (cb->state == UKCOV_ST_OPEN)
		return NULL;	/* no buffer yet: nothing is mapped by it */
	if (cb->entries == 0)
		return "a buffer of 0 entries";
	if (cb->entries > MAX_BYTES / 8 || cb->bytes > MAX_BYTES)
		return "a buffer larger than the file holds";
	if (cb->bytes != round_page(cb->entries * 8, page))
		return "entries and bytes of the buffer disagree";
	/* KCOV_UNIQUE_ENABLE keeps words < entries - 1 (unique.c). */
	if (cb->uniq_words && (cb->entries < 2 ||
			       cb->uniq_words >= cb->entries - 1))
		return "a unique bitmap larger than the buffer";
	return NULL;
}

const char *ukcov__cb_check(const void *block, size_t len, uint64_t file_size,
			    uint64_t page, struct ukcov_cb_bounds *out)
{
	struct ukcov_cb cb;
	const char *why;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(cb))
		return "the control block is short";
	/* The one read of the shared bytes. */
	memcpy(&cb, block, sizeof(cb));
	if (cb.magic != UKCOV_MAGIC || cb.layout != sizeof(cb))
		return "the control block's magic or layout is not ours";
	if (file_size != UKCOV_FILE_SIZE)
		return "the file is not the size of a descriptor";
	if (page == 0 || (page & (page - 1)) != 0)
		return "bad page size";
	if (cb.state < UKCOV_ST_OPEN || cb.state > UKCOV_ST_DYING)
		return "an unknown state";
	why = check_buffer(&cb, page);
	if (why)
		return why;
	if (cb.state == UKCOV_ST_OPEN)
		return NULL;
	out->entries = cb.entries;
	out->bytes = cb.bytes;
	out->uniq_words = cb.uniq_words;
	/* A section's area never exceeds the buffer (collector_new clamps
	 * it the same way for this process's own collector). */
	out->remote_area = cb.remote_area < cb.entries ? cb.remote_area
						       : cb.entries;
	out->remote_mode = cb.remote_mode == UKCOV_MODE_PC ||
					   cb.remote_mode == UKCOV_MODE_CMP
				   ? cb.remote_mode
				   : UKCOV_MODE_NONE;
	return NULL;
}
