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

/*
 * A buffer of a process of the tree (ukcov run over a process tree,
 * lib/tree.c): the file DIR/buf.<pid>.<n>.<tid> is a header page of
 * these u64 words, then the buffer, entries words in the descriptor's
 * layout (the bitmap of a unique mode, then the trace: a count word
 * and the records).  Its module table is DIR/img.<pid>.<n>.
 */
#define UKCOV_TREEBUF_MAGIC 0x627274766f636b75ULL	/* "ukcovtrb" */
#define UKCOV_TREEBUF_HEADER_BYTES 4096

/* The unique modes' default bitmap before the executable's text bits:
 * 4096 words, 2^18 hashed slots (tools/run.c default_bitmap; a tree
 * process's own default, lib/tree.c). */
#define UKCOV_DEFAULT_BITMAP_BASE 4096u

enum ukcov_treebuf_word {
	UKCOV_TR_MAGIC,		/* UKCOV_TREEBUF_MAGIC, written last */
	UKCOV_TR_PID,
	UKCOV_TR_TID,
	UKCOV_TR_IMAGE,		/* n of img.<pid>.<n> */
	UKCOV_TR_MODE,		/* 1 pc, 2 cmp */
	UKCOV_TR_ENTRIES,	/* words of the buffer after the header */
	UKCOV_TR_BITMAP,	/* bitmap words of a unique mode, 0: a trace */
	UKCOV_TR_DROPPED,	/* records the thread dropped */
	UKCOV_TR_HEADER_WORDS
};

#endif
