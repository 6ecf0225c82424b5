/*
 * lib/textline.h -- building text lines on the stack and writing each
 * with one write(2): no malloc, no stdio, usable at exit and after a
 * crash.  Shared by the module snapshots and ukcov_dump().
 */
#ifndef UKCOV_TEXTLINE_H
#define UKCOV_TEXTLINE_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#define LINE_MAX_BYTES (4096 + 256)	/* a PATH_MAX path and the numbers */

struct line {
	char buf[LINE_MAX_BYTES];
	size_t n;
	int fd;
	int pid;
};

#define put ukcov__line_put
#define put_hex ukcov__line_put_hex
#define put_dec ukcov__line_put_dec
#define put_path ukcov__line_put_path
#define put_build_id ukcov__line_put_build_id
#define put_end ukcov__line_end
#define object_path ukcov__object_path

void put(struct line *l, const char *s, size_t n);
void put_hex(struct line *l, uint64_t v);	/* lowercase, no 0x */
void put_dec(struct line *l, unsigned v);
void put_path(struct line *l, const char *p);	/* '\' and < 0x20 escaped */
void put_build_id(struct line *l, const struct dl_phdr_info *info); /* or "-" */
int put_end(struct line *l);
const char *object_path(const struct dl_phdr_info *info, char *exe,
			size_t exe_size);

/* The absolute range of program header i if it is an executable
 * PT_LOAD segment: 1, else 0. */
static inline int exec_segment(const struct dl_phdr_info *info, int i,
			       uint64_t *start, uint64_t *end)
{
	const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

	if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
		return 0;
	*start = info->dlpi_addr + ph->p_vaddr;
	*end = *start + ph->p_memsz;
	return 1;
}

#endif
