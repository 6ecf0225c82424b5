/*
 * tools/run_tree.h -- `ukcov run` over a process tree (tools/run_tree.c):
 * the buffers of the traced program's other processes (lib/tree.c).
 */
#ifndef UKCOV_TOOLS_RUN_TREE_H
#define UKCOV_TOOLS_RUN_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dump;

struct tree_stats {
	size_t processes;	/* processes that left a module table */
	size_t images;		/* process images (an exec makes another) */
	size_t buffers;		/* threads that recorded */
	size_t records;
	uint64_t dropped;
	size_t outside;		/* PCs outside their process's modules */
	size_t bad;		/* files refused (corrupt, truncated) */
};

/* Unite every buffer in dir into into; -1 if dir cannot be read. */
int tree_collect(const char *dir, bool cmp, struct dump *into,
		 struct tree_stats *st);
/* Remove dir and the files in it. */
void tree_remove(const char *dir);

#endif
