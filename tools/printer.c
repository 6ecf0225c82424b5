/*
 * tools/printer.c -- symbolized points for run, cmp and print --lines.
 */
#include "printer.h"

#include <stdlib.h>
#include <string.h>

#include <ukcov/linux/kcov.h>

#include "symbolize.h"
#include "ukcov.h"

struct printer {
	const struct dump *d;
	const char *source;		/* names the module table in messages */
	struct bin_candidate *bins;	/* from the command line, or NULL */
	size_t nbins;
	const struct options *o;	/* --no-demangle, --strip-path-prefix */
	struct strtab strs;
	struct sym_module **mods;	/* opened on first use, per module */
	bool *tried;
};

static void printer_init(struct printer *p, const struct dump *d,
			 const char *source, struct bin_candidate *bins,
			 size_t nbins, const struct options *o)
{
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->source = source;
	p->bins = bins;
	p->nbins = nbins;
	p->o = o;
	p->mods = xcalloc(d->nmods + 1, sizeof(struct sym_module *));
	p->tried = xcalloc(d->nmods + 1, sizeof(*p->tried));
}

static void printer_free(struct printer *p)
{
	for (size_t i = 0; i < p->d->nmods; i++)
		sym_close(p->mods[i]);
	free(p->mods);
	free(p->tried);
	strtab_free(&p->strs);
}

/* The points of module i: its PCs and its CMP records. */
static size_t module_points(const struct dump *d, size_t i)
{
	size_t n = d->mods[i].pcs.n;

	for (size_t k = 0; k < d->ncmps; k++)
		n += d->cmps[k].module == (int)i;
	return n;
}

/* Open module i's binary, or say why its points stay unsymbolized. */
static struct sym_module *open_module(struct printer *p, size_t i)
{
	const struct dump_module *m = &p->d->mods[i];
	struct bin_candidate rec;
	const char *path = NULL;
	struct sym_module *sm;
	enum bin_verdict v;
	char err[ERRLEN];

	for (size_t k = 0; k < p->nbins && !path; k++)
		if (bin_matches(m, &p->bins[k]))
			path = p->bins[k].path;
	if (!path && (v = bin_check_recorded(m, &rec)) != BIN_FOUND) {
		bin_warn(p->source, m, v, &rec, module_points(p->d, i),
			 "are printed without symbols");
		return NULL;
	}
	if (!path)
		path = m->path;
	sm = sym_open(path, &p->strs, p->o->demangle, err);
	if (!sm)
		msg_warn("%s: %s", path, err);
	else if (sym_missing_debug(sm))
		msg_warn("%s", sym_missing_debug(sm));
	return sm;
}

static void printer_point(struct printer *p, struct strbuf *sb, int mod,
		   uint64_t off)
{
	const struct sym_frame *f;

	if (mod < 0 || (size_t)mod >= p->d->nmods) {
		sb_printf(sb, "0x%llx", (unsigned long long)off);
		return;
	}
	sb_printf(sb, "%s+0x%llx", path_basename(p->d->mods[mod].path),
		  (unsigned long long)off);
	if (!p->tried[mod]) {
		p->tried[mod] = true;
		p->mods[mod] = open_module(p, (size_t)mod);
	}
	if (p->mods[mod]) {
		sym_lookup(p->mods[mod], off, &f);
		sb_printf(sb, " %s %s:%u:%u", f[0].func,
			  path_strip_prefix(f[0].file, p->o->strip_prefix),
			  f[0].line, f[0].col);
	}
}

static const char *const cmp_names[] = { "cmp1", "cmp2", "cmp4", "cmp8" };

static void printer_cmp(struct printer *p, struct strbuf *sb, const struct cmp_rec *c)
{
	sb_printf(sb, "%s%s 0x%llx 0x%llx ", cmp_names[(c->type >> 1) & 3],
		  c->type & KCOV_CMP_CONST ? " const" : "",
		  (unsigned long long)c->arg1, (unsigned long long)c->arg2);
	printer_point(p, sb, c->module, c->off);
	sb_puts(sb, "\n");
}

void print_symbolized(const struct dump *d, const struct pcvec *unknown,
		      const char *source, struct bin_candidate *bins,
		      size_t nbins, const struct options *o, struct strbuf *sb)
{
	struct printer p;

	printer_init(&p, d, source, bins, nbins, o);
	for (size_t i = 0; i < d->nmods; i++)
		for (size_t k = 0; k < d->mods[i].pcs.n; k++) {
			printer_point(&p, sb, (int)i, d->mods[i].pcs.v[k]);
			sb_puts(sb, "\n");
		}
	for (size_t k = 0; unknown && k < unknown->n; k++)
		sb_printf(sb, "0x%llx\n", (unsigned long long)unknown->v[k]);
	for (size_t i = 0; i < d->ncmps; i++)
		printer_cmp(&p, sb, &d->cmps[i]);
	printer_free(&p);
}

struct printer *printer_new(const struct dump *d, const char *source,
			    const struct options *o)
{
	struct printer *p = xcalloc(1, sizeof(*p));

	printer_init(p, d, source, NULL, 0, o);
	return p;
}

void printer_put_point(struct printer *p, struct strbuf *sb, int mod,
		       uint64_t off)
{
	printer_point(p, sb, mod, off);
}

void printer_delete(struct printer *p)
{
	printer_free(p);
	free(p);
}
