/*
 * tools/printer.h -- the one symbolized printer of ukcov: "ukcov run",
 * "ukcov cmp" and "ukcov print --lines" print each point as
 *   module+0xoffset function file:line:column
 * (the innermost frame, as llvm-symbolizer names it).  A module is
 * symbolized with the binary that has its build-id (tools/binmatch.h);
 * when there is none, or it lacks debug info, the tool says so once per
 * module and prints the point without symbols.
 */
#ifndef UKCOV_TOOLS_PRINTER_H
#define UKCOV_TOOLS_PRINTER_H

#include "binmatch.h"
#include "strtab.h"

struct sym_module;

struct printer {
	const struct dump *d;
	const char *source;		/* names the module table in messages */
	struct bin_candidate *bins;	/* from the command line, or NULL */
	size_t nbins;
	struct strtab strs;
	struct sym_module **mods;	/* opened on first use, per module */
	bool *tried;
};

void printer_init(struct printer *p, const struct dump *d, const char *source,
		  struct bin_candidate *bins, size_t nbins);
void printer_free(struct printer *p);

/* One point: module+0xoff [function file:line:column], or an absolute
 * address (mod < 0); no newline. */
void printer_point(struct printer *p, struct strbuf *sb, int mod,
		   uint64_t off);
/* One CMP record on a line: "cmp4 const 0xa 0xb " and its point. */
void printer_cmp(struct printer *p, struct strbuf *sb, const struct cmp_rec *c);

/* Every point of d, module by module, then the absolute PCs in unknown
 * (may be NULL), then the CMP records, one per line. */
void print_symbolized(const struct dump *d, const struct pcvec *unknown,
		      const char *source, struct bin_candidate *bins,
		      size_t nbins, struct strbuf *sb);

#endif
