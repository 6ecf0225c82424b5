/*
 * tools/symbolize_dw.h -- the libdw side of a sym_module, for the code
 * that walks DWARF itself (tools/lines.c): the same names and absolute
 * file names as sym_lookup gives.
 */
#ifndef UKCOV_TOOLS_SYMBOLIZE_DW_H
#define UKCOV_TOOLS_SYMBOLIZE_DW_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "symbolize.h"

/* NULL without DWARF; *bias: ELF address = DWARF address + bias. */
Dwarf *sym_dwarf(struct sym_module *m, Dwarf_Addr *bias);
Dwfl_Module *sym_dwfl_module(struct sym_module *m);
/* A function DIE's name as sym_lookup names it (interned). */
const char *sym_die_name(struct sym_module *m, Dwarf_Die *die);
/* The absolute name of a file of cu's line table (interned). */
const char *sym_file_name(struct sym_module *m, Dwarf_Die *cu,
			  const char *raw);

#endif
