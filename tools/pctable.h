/*
 * tools/pctable.h -- the points of an image instrumented inline by
 * ukcov's compiler plugins: its __ukcov_pcs section (docs/FORMATS.md).
 */
#ifndef UKCOV_TOOLS_PCTABLE_H
#define UKCOV_TOOLS_PCTABLE_H

#include <libelf.h>

#include "util.h"

/*
 * Append to points each table entry's PC - 1 (the point a kcov record
 * of PC names, as for a call's return address), unsorted.  Returns the
 * number of entries (0: no table), or -1 with err set when the table is
 * malformed: a size that is no multiple of 8, an entry outside every
 * executable section, or a table in an unlinked object.
 */
long pctable_scan(Elf *elf, size_t shstrndx, struct pcvec *points,
		  char err[ERRLEN]);

#endif
