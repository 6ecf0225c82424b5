/*
 * lib/modules.c -- the module table of the running process, for tools
 * that read absolute PCs collected here (ukcov run).  Placeholder: the
 * tool's owner fills this in (see docs/FORMATS.md).
 */
#include "internal.h"

/* Called by the runtime after it takes over an inherited descriptor at
 * exec, and at process exit.  If UKCOV_MODULES names a file, append this
 * process's module table to it.  Must use libc only. */
void ukcov__modules_snapshot(void)
{
}
