/*
 * lib/registry_format.h -- the bytes of the per-user remote registry
 * file (docs/FORMATS.md "Remote registry") and the code that reads
 * them.  Another process of the user may write or truncate the file at
 * any time (same-user peers are not trusted), so every read goes
 * through a reader that may come back short, and every header and slot
 * is checked before use.  No system call here: registry.c supplies pread,
 * the fuzz harness (tests/tool/fuzz/fuzz_registry.c) a buffer.
 */
#ifndef UKCOV_REGISTRY_FORMAT_H
#define UKCOV_REGISTRY_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REG_MAGIC 0x7267657276636b75ULL		/* "ukcvregr" */
#define REG_LAYOUT 2		/* 1: sizeof the file, no seq/maxprobe */
#define REG_SLOTS 1024
#define REG_SLOT_FREE 0ULL
#define REG_SLOT_DELETED (~0ULL)
#define REG_CHUNK 16		/* slots per read while probing */

struct reg_slot {
	uint64_t handle;	/* REG_SLOT_FREE, _DELETED, or a handle */
	int32_t pid;		/* the collector's process */
	int32_t fd;		/* its descriptor there */
	uint64_t start;		/* the process's start time, 1: unknown */
	uint64_t ino;		/* the descriptor's memfd inode */
	uint64_t gen;		/* cb->remote_gen at registration */
};

struct reg_header {
	uint64_t magic;
	uint32_t layout;
	uint32_t nslots;
	uint64_t used;		/* live slots: 0 is a miss without probing */
	uint64_t maxprobe;	/* no live slot lies further from its home */
	uint64_t seq;		/* odd while a writer changes the file */
	uint64_t hint;		/* shmid + 1 of the hint segment, 0: none */
	uint64_t pad[2];
};

#define REG_FILE_SIZE \
	(sizeof(struct reg_header) + REG_SLOTS * sizeof(struct reg_slot))
#define REG_SLOT_OFF(i) \
	(sizeof(struct reg_header) + (uint64_t)(i) * sizeof(struct reg_slot))

/* Reads len bytes at off; returns what it read (short: truncated). */
struct reg_io {
	ssize_t (*read)(void *ctx, void *buf, size_t len, uint64_t off);
	void *ctx;
};

enum reg_kind { REG_FREE, REG_DELETED, REG_LIVE, REG_BAD };

/* What a probe found. */
enum reg_probe {
	REG_FOUND,
	REG_MISS,
	REG_BUSY,	/* a writer was at work: try again, or miss */
	REG_BROKEN,	/* truncated or corrupt: stop using the file */
};

/* The slot a handle's probe starts at (part of the format: every
 * process of every version must agree on it). */
static inline unsigned reg_home(uint64_t handle)
{
	return (unsigned)((handle * 0x9e3779b97f4a7c15ULL) >> 54) &
	       (REG_SLOTS - 1);
}

enum reg_kind ukcov__reg_slot_kind(const struct reg_slot *s);
int ukcov__reg_read_header(const struct reg_io *io, struct reg_header *h,
			   const char **why);
enum reg_probe ukcov__reg_probe(const struct reg_io *io, uint64_t handle,
				int32_t self, struct reg_slot *out,
				unsigned *index, const char **why);

#endif
