/*
 * tools/symbolize.h -- address -> source frames for one ELF module, with
 * elfutils libdwfl/libdw in-process (never a subprocess per address).
 *
 * The frames of an address follow llvm-symbolizer's inlining view, which
 * sancov uses: frame 0 is the innermost function with the line-table
 * location; frame k names the k-th enclosing (caller) function with the
 * DW_AT_call_file/line/column of the inlined call.  Without debug info an
 * address gets one frame: file "<invalid>", line 0, and the symbol table's
 * function name.
 */
#ifndef UKCOV_TOOLS_SYMBOLIZE_H
#define UKCOV_TOOLS_SYMBOLIZE_H

#include "util.h"
#include "strtab.h"

struct sym_frame {
	const char *file;	/* interned in the module's strtab */
	const char *func;
	uint32_t line, col;
};

struct sym_module;

/*
 * Open path for symbolization at base 0 (addresses are ELF virtual
 * addresses).  Strings are interned in strs (owned by the caller).
 * Returns NULL with err set if the file is not a readable ELF file.
 */
struct sym_module *sym_open(const char *path, struct strtab *strs,
			    bool demangle, char err[ERRLEN]);

/*
 * Frames for addr, innermost first; *frames stays valid until the next
 * call.  Returns the number of frames (always >= 1).
 */
size_t sym_lookup(struct sym_module *m, uint64_t addr,
		  const struct sym_frame **frames);

/* NULL if the module has DWARF; otherwise a sentence saying that debug
 * info is missing and where it was looked for. */
const char *sym_missing_debug(struct sym_module *m);

void sym_close(struct sym_module *m);

#endif
