/*
 * <ukcov/linux/kcov.h> -- Linux's kcov interface, names and values as in
 * include/uapi/linux/kcov.h (LP64).  Requests take their argument by
 * value: KCOV_INIT_TRACE the number of unsigned long entries, KCOV_ENABLE
 * the mode, KCOV_DISABLE 0.  The device path is /sys/kernel/debug/kcov.
 */
#ifndef UKCOV_LINUX_KCOV_H_2291
#define UKCOV_LINUX_KCOV_H_2291

#include <stdint.h>
#include <ukcov/kcov.h>

struct kcov_remote_arg {
	uint32_t trace_mode;	/* KCOV_TRACE_PC or KCOV_TRACE_CMP */
	uint32_t area_size;	/* Length of coverage buffer in words */
	uint32_t num_handles;	/* Size of handles array */
	uint64_t common_handle __attribute__((aligned(8)));
	uint64_t handles[] __attribute__((aligned(8)));
};

#define KCOV_REMOTE_MAX_HANDLES 0x100

/* _IOR('c', 1, unsigned long), _IO('c', 100), _IO('c', 101),
 * _IOW('c', 102, struct kcov_remote_arg) */
#define KCOV_INIT_TRACE    0x80086301UL
#define KCOV_ENABLE        0x6364UL
#define KCOV_DISABLE       0x6365UL
#define KCOV_REMOTE_ENABLE 0x40186366UL

/*
 * Proposed, not merged: "Coverage deduplication for KCOV", Alexander
 * Potapenko, v4 2025-07-31, patches 07/10 and 10/10.
 * KCOV_UNIQUE_ENABLE = _IOW('c', 103, unsigned long): the argument is
 * the number of buffer words that hold a bitmap; the trace, with its
 * own count word, follows the bitmap.  A point is appended only while
 * its bit is clear.  KCOV_RESET_TRACE = _IO('c', 104), argument 0:
 * zeroes the bitmap and the trace count (owner thread only).
 */
#define KCOV_UNIQUE_ENABLE 0x40086367UL
#define KCOV_RESET_TRACE   0x6368UL

enum {
	/* Coverage collection of program counters. */
	KCOV_TRACE_PC = 0,
	/* Collecting comparison operands mode. */
	KCOV_TRACE_CMP = 1,
};

/* Bit 0: one operand is a compile-time constant.  Bits 1-2: log2 of the
 * operand size in bytes. */
#define KCOV_CMP_CONST   (1 << 0)
#define KCOV_CMP_SIZE(n) ((n) << 1)
#define KCOV_CMP_MASK    KCOV_CMP_SIZE(3)

#define KCOV_SUBSYSTEM_COMMON (0x00ull << 56)
#define KCOV_SUBSYSTEM_USB    (0x01ull << 56)
#define KCOV_SUBSYSTEM_MASK   (0xffull << 56)
#define KCOV_INSTANCE_MASK    (0xffffffffull)

static inline uint64_t kcov_remote_handle(uint64_t subsys, uint64_t inst)
{
	if (subsys & ~KCOV_SUBSYSTEM_MASK || inst & ~KCOV_INSTANCE_MASK)
		return 0;
	return subsys | inst;
}

#endif /* UKCOV_LINUX_KCOV_H_2291 */
