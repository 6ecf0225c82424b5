/*
 * lib/threadblock.h -- the block that libukcov writes for each thread it
 * follows (ukcov run --threads all, lib/follow.c) and that the tool reads
 * back (tools/run.c); docs/FORMATS.md has the layout.  Shared by the
 * runtime and the tool so that both name one magic and one header.
 */
#ifndef UKCOV_THREADBLOCK_H
#define UKCOV_THREADBLOCK_H

#define UKCOV_THREADBLOCK_MAGIC 0x726874766f636b75ULL	/* "ukcovthr" */

/* The header's u64 words, then count records (1 or 4 words each). */
enum ukcov_threadblock_word {
	UKCOV_TB_MAGIC,		/* UKCOV_THREADBLOCK_MAGIC */
	UKCOV_TB_TID,		/* 0: the setup block ("threads followed") */
	UKCOV_TB_MODE,		/* 1 pc, 2 cmp */
	UKCOV_TB_COUNT,		/* records that follow */
	UKCOV_TB_DROPPED,	/* records the thread dropped */
	UKCOV_TB_BITMAP,	/* bitmap words of a unique mode, 0: a trace */
	UKCOV_TB_HEADER_WORDS
};

#endif
