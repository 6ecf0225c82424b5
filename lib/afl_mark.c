/*
 * lib/afl_mark.c -- the name afl-fuzz looks for in a program's file.
 *
 * afl-fuzz 4.04c (afl-fuzz-init.c, check_binary) refuses a program
 * whose file does not contain "__AFL_SHM_ID", its sign that the program
 * attaches the map.  libukcov attaches it (lib/afl.c), but a program
 * that links the shared runtime holds no such string itself: this
 * object, linked into the executable from libukcov_cb.a (or libukcov.a)
 * because ukcov-cc names its symbol (-u), carries it.  afl-fuzz
 * matches the name with its NUL, so it ends the string.
 */
#include "internal.h"
#include <ukcov/afl.h>

UKCOV_EXPORT __attribute__((used)) const char __ukcov_afl_mark[] =
	"__AFL_SHM_ID";

/* In a static link (libukcov.a) nothing else pulls lib/afl.c, whose
 * constructor starts the fork server, out of the archive. */
__attribute__((used)) static int (*const afl_runtime_ref)(void) =
	ukcov_afl_active;
