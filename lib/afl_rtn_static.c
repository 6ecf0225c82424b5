/*
 * lib/afl_rtn_static.c -- lib/afl_rtn.c for libukcov.a: a static link
 * made with --wrap=memcmp renames this archive's references to memcmp
 * too, so libc's routine is __real_memcmp here (ld(1), --wrap).
 */
#define UKCOV_RTN_STATIC 1
#include "afl_rtn.c"	/* NOLINT(bugprone-suspicious-include) */
