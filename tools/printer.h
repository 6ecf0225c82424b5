/*
 * tools/printer.h -- the one symbolized printer of ukcov: "ukcov run",
 * "ukcov cmp" and "ukcov print --lines" print each point as
 *   module+0xoffset function file:line:column
 * (the innermost frame, as llvm-symbolizer names it).  A module is
 * symbolized with the binary that has its build-id (tools/binmatch.h);
 * when there is none, or it lacks debug info, the tool says so once per
 * module and prints the point without symbols.  It takes the options
 * of the symbolizing commands that apply to one point: --no-demangle
 * and --strip-path-prefix (ukcov(1)); no ignorelist, since it prints
 * every record, as a trace.
 */
#ifndef UKCOV_TOOLS_PRINTER_H
#define UKCOV_TOOLS_PRINTER_H

#include "binmatch.h"
#include "strtab.h"

struct options;

/* Every point of d, module by module, then the absolute PCs in unknown
 * (may be NULL), then the CMP records, one per line. */
void print_symbolized(const struct dump *d, const struct pcvec *unknown,
		      const char *source, struct bin_candidate *bins,
		      size_t nbins, const struct options *o, struct strbuf *sb);

/* One point at a time (ukcov trace): "module+0xoffset function
 * file:line:column", or "0xaddress" for mod -1. */
struct printer;
struct printer *printer_new(const struct dump *d, const char *source,
			    const struct options *o);
void printer_put_point(struct printer *p, struct strbuf *sb, int mod,
		       uint64_t off);
void printer_delete(struct printer *p);

#endif
