/*
 * tools/lines.c -- the source model: lines and functions from blocks.
 *
 * Lines.  Every row of a CU's line table covers [its address, the next
 * row's).  The row's line takes the state of each block whose marked
 * range ([lo, mark_hi): without the coverage call and its set-up, which
 * compilers put on the previous statement's line) it intersects.  A
 * line is covered if a block holding it ran, not covered if every block
 * holding it is known not to have run, partly covered with both; a line
 * where no block ran and one is of unknown state is not reported; line 0
 * (code of no line) is skipped.
 *
 * Functions.  Every DW_TAG_subprogram with code and every
 * DW_TAG_inlined_subroutine is an instance of the function named by its
 * abstract origin, defined at its DW_AT_decl_file/decl_line.  An instance
 * counts the blocks its address ranges intersect: the function ran if
 * one of its instances holds a block that ran; with no block of known
 * state in any instance it has "no points" rather than "never ran".
 */
#include "lines.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "symbolize_dw.h"

#define MAX_DEPTH 64	/* DIE nesting we follow (hostile DWARF) */

struct lb {
	struct sym_module *m;
	Dwarf_Addr bias;
	const struct sm_hooks *h;
	const struct pcvec *points, *covered;
	struct code_map cm;
	struct blk_scratch *scratch;
	struct blkvec blocks;
	struct srcmodel *out;
	struct ptrmap files;	/* raw line-table name -> normalized */
	struct addr_range *rg;
	size_t nrg, caprg;
	uint64_t first_lo;	/* start of the first range as listed */
	bool cu_has_points;	/* the unit being decoded was instrumented */
	bool *instrumented;	/* per unit, in dwfl_module_nextcu order */
	size_t ncus;
	uint64_t decoded, max_decoded;	/* bytes of code decoded */
	size_t visits, max_visits;	/* blocks looked at for rows and
					 * functions */
};

static void *grow(void *v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 64;
	return xrealloc(v, *cap * sz);
}

/* The allocated sections of the module's main file: code and data. */
static int load_code(struct lb *b)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(sym_dwfl_module(b->m), &bias);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		/* Code, and the read-only data holding its jump tables. */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size > sh.sh_size)
			continue;
		b->cm.segs = xrealloc(b->cm.segs, (b->cm.nsegs + 1) *
						  sizeof(*b->cm.segs));
		b->cm.segs[b->cm.nsegs++] = (struct code_seg){
			sh.sh_addr, d->d_buf, d->d_size };
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges of die (ELF addresses, sorted) in b->rg. */
static void die_ranges(struct lb *b, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	b->nrg = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo == 0 || hi <= lo)	/* gc'd: no code */
			continue;
		b->rg = grow(b->rg, &b->caprg, b->nrg, sizeof(*b->rg));
		b->rg[b->nrg++] = (struct addr_range){ lo + b->bias,
						       hi + b->bias };
	}
	b->first_lo = b->nrg ? b->rg[0].lo : 0;
	if (b->nrg > 1)
		qsort(b->rg, b->nrg, sizeof(*b->rg), cmp_range);
}

static const char *norm_file(struct lb *b, Dwarf_Die *cu, const char *raw)
{
	const void *v;
	const char *r;

	if (!raw)
		return NULL;
	if (ptrmap_get(&b->files, raw, &v))
		return v;
	r = b->h->file(b->h->arg, sym_file_name(b->m, cu, raw));
	ptrmap_put(&b->files, raw, r);
	return r;
}

/* The file of the function's definition (DW_AT_decl_file, through the
 * abstract origin, in the unit that holds the attribute). */
static const char *decl_file(struct lb *b, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &at),
			    &idx) != 0 ||
	    !dwarf_cu_die(at.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return norm_file(b, &cu, dwarf_filesrc(files, idx, NULL, NULL));
}

static uint32_t decl_line(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Word w;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_line, &at),
			    &w) != 0)
		return 0;
	return (uint32_t)w;
}

/* The first block (of all, sorted) that ends after a. */
static size_t first_block_after(const struct blkvec *bv, uint64_t a)
{
	size_t lo = 0, hi = bv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bv->v[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry of a function whose ranges are in b->rg (ELF address).
 * Without DW_AT_entry_pc or low_pc (a function split into hot and cold
 * parts has DW_AT_ranges only) it is the first range listed: gcc lists
 * the hot part first, and the cold part may lie below it. */
static uint64_t entry_address(struct lb *b, Dwarf_Die *die)
{
	Dwarf_Addr entry;

	return dwarf_entrypc(die, &entry) == 0 ? entry + b->bias
					       : b->first_lo;
}

/* The line of an out-of-line function's definition takes the state of
 * its entry block, as gcov counts the line of a function's name with
 * its calls (the line table gives it no row of its own when the name
 * and the opening brace are on different lines). */
static void add_decl_line(struct lb *b, Dwarf_Die *die, const char *file,
			  uint32_t line)
{
	uint64_t entry = entry_address(b, die);
	size_t k;
	const struct blk *bk;

	if (!line || !entry)
		return;
	k = first_block_after(&b->blocks, entry);
	if (k >= b->blocks.n)
		return;
	bk = &b->blocks.v[k];
	if (bk->lo > entry || bk->state == BLK_UNKNOWN)
		return;
	b->out->lines = grow(b->out->lines, &b->out->caplines, b->out->nlines,
			     sizeof(*b->out->lines));
	b->out->lines[b->out->nlines++] = (struct sm_line){
		file, line, 1, bk->state == BLK_RAN, 0 };
}

/*
 * Work is bounded whatever the DWARF says.  Real units have about one
 * block per row and per inlined range; DWARF whose subprograms, inlined
 * copies or rows all claim the whole text would make the walks
 * quadratic.  Past the budget the model stops counting and says it is
 * truncated.
 */
static bool within_budget(struct lb *b)
{
	return ++b->visits <= b->max_visits;
}

/* One instance of a function: its key and the blocks in its ranges. */
static void add_instance(struct lb *b, Dwarf_Die *die)
{
	const char *file = decl_file(b, die), *name;
	struct sm_fn *f;
	uint32_t nb = 0, nran = 0;

	if (!file)
		return;
	name = sym_die_name(b->m, die);
	if (!b->h->keep(b->h->arg, file, name))
		return;
	die_ranges(b, die);
	for (size_t i = 0; i < b->nrg; i++)
		for (size_t k = first_block_after(&b->blocks, b->rg[i].lo);
		     k < b->blocks.n && b->blocks.v[k].lo < b->rg[i].hi &&
		     within_budget(b);
		     k++) {
			nb += b->blocks.v[k].state != BLK_UNKNOWN;
			nran += b->blocks.v[k].state == BLK_RAN;
		}
	b->out->fns = grow(b->out->fns, &b->out->capfns, b->out->nfns,
			   sizeof(*f));
	b->out->fns[b->out->nfns++] = (struct sm_fn){ file, name,
						      decl_line(die), nb,
						      nran };
	if (dwarf_tag(die) == DW_TAG_subprogram)
		add_decl_line(b, die, file, decl_line(die));
}

/* The inlined instances below die (through lexical blocks). */
static void add_inlined(struct lb *b, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine)
			add_instance(b, &c);
		if (tag != DW_TAG_subprogram && dwarf_haschildren(&c))
			add_inlined(b, &c, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static bool has_point(const struct pcvec *pv, const struct addr_range *r)
{
	size_t lo = 0, hi = pv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pv->v[mid] < r->lo)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pv->n && pv->v[lo] < r->hi;
}

/* Each byte of code is decoded once in sane DWARF: allow four times
 * the code, counted over the ranges of each subprogram. */
static bool decode_budget(struct lb *b)
{
	for (size_t i = 0; i < b->nrg; i++)
		b->decoded += b->rg[i].hi - b->rg[i].lo;
	return b->decoded <= b->max_decoded;
}

/* Decode each subprogram with code among the children of die (CU,
 * namespaces, classes), or, in the second pass, add its instances. */
static void each_subprogram(struct lb *b, Dwarf_Die *die, int depth,
			    bool instances)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		uint64_t entry;

		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
			each_subprogram(b, &c, depth + 1, instances);
			continue;
		}
		if (tag != DW_TAG_subprogram)
			continue;
		if (instances) {
			die_ranges(b, &c);
			if (b->nrg == 0)
				continue;
			add_instance(b, &c);
			add_inlined(b, &c, 0);
			continue;
		}
		die_ranges(b, &c);
		if (b->nrg == 0)
			continue;
		for (size_t i = 0; i < b->nrg && !b->cu_has_points; i++)
			b->cu_has_points = has_point(b->points, &b->rg[i]);
		entry = entry_address(b, &c);
		if (!decode_budget(b) ||
		    blocks_function(b->scratch, &b->cm, b->rg, b->nrg, entry,
				    b->points, b->covered, &b->blocks) < 0)
			b->out->undecoded++;
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* One line-table fact: a line held by a block. */
struct lfact {
	const char *file;
	uint32_t line;
	uint32_t block;
};

struct lfacts {
	struct lfact *v;
	size_t n, cap;
};

/* Does the row [lo, hi) hold code of block bk?  It does if it meets
 * the block's marked part, or starts inside the block: a row that
 * starts at the coverage call is the call's own line (gcc -O2 puts an
 * inlined block's first line there); one that only runs on into it
 * from before is the previous statement's. */
static bool row_marks(const struct blk *bk, uint64_t lo, uint64_t hi)
{
	uint64_t a = lo > bk->lo ? lo : bk->lo;
	uint64_t e = hi < bk->mark_hi ? hi : bk->mark_hi;

	return a < e || (lo >= bk->lo && lo < bk->hi);
}

static void row_facts(struct lb *b, const char *file, uint32_t line,
		      uint64_t lo, uint64_t hi, struct lfacts *fv)
{
	for (size_t k = first_block_after(&b->blocks, lo);
	     k < b->blocks.n && b->blocks.v[k].lo < hi && within_budget(b);
	     k++) {
		const struct blk *bk = &b->blocks.v[k];

		if (!row_marks(bk, lo, hi))
			continue;
		fv->v = grow(fv->v, &fv->cap, fv->n, sizeof(*fv->v));
		fv->v[fv->n++] = (struct lfact){ file, line, (uint32_t)k };
	}
}

static void add_file(struct srcmodel *sm, const char *file)
{
	if (sm->nfiles && sm->files[sm->nfiles - 1] == file)
		return;
	sm->files = grow(sm->files, &sm->capfiles, sm->nfiles,
			 sizeof(*sm->files));
	sm->files[sm->nfiles++] = file;
}

/* The rows of one CU's line table. */
static void cu_rows(struct lb *b, Dwarf_Die *cu, struct lfacts *fv)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return;
	for (size_t i = 0; i + 1 < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Line *nx = dwarf_onesrcline(lines, i + 1);
		Dwarf_Addr lo, hi;
		bool end = false;
		int line = 0;
		const char *file;
		size_t before = fv->n, k;

		if (!l || !nx || dwarf_lineendsequence(l, &end) != 0 || end ||
		    dwarf_lineno(l, &line) != 0 || line <= 0 ||
		    dwarf_lineaddr(l, &lo) != 0 ||
		    dwarf_lineaddr(nx, &hi) != 0 || hi <= lo)
			continue;
		file = norm_file(b, cu, dwarf_linesrc(l, NULL, NULL));
		if (!file || !b->h->keep(b->h->arg, file, NULL))
			continue;
		lo += b->bias;
		hi += b->bias;
		row_facts(b, file, (uint32_t)line, lo, hi, fv);
		k = first_block_after(&b->blocks, lo);
		if (fv->n > before ||
		    (k < b->blocks.n && b->blocks.v[k].lo < hi))
			add_file(b->out, file);
	}
}

static int cmp_lfact(const void *a, const void *b)
{
	const struct lfact *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->block < y->block ? -1 : x->block > y->block;
}

/* One line from its facts (sorted, distinct blocks), with the blocks
 * of each state: the report decides (report.c model_lines). */
static void add_line(struct lb *b, const struct lfact *f, size_t n)
{
	struct sm_line l = { f[0].file, f[0].line, 0, 0, 0 };

	for (size_t k = 0; k < n; k++) {
		enum blk_state st = b->blocks.v[f[k].block].state;

		l.unknown += st == BLK_UNKNOWN;
		l.blocks += st != BLK_UNKNOWN;
		l.ran += st == BLK_RAN;
	}
	b->out->lines = grow(b->out->lines, &b->out->caplines,
			     b->out->nlines, sizeof(l));
	b->out->lines[b->out->nlines++] = l;
}

/* Facts sorted by (file, line, block): one sm_line per (file, line). */
static void lines_from_facts(struct lb *b, struct lfacts *fv)
{
	size_t n = 0;

	if (!fv->n)
		return;
	qsort(fv->v, fv->n, sizeof(*fv->v), cmp_lfact);
	for (size_t i = 0; i < fv->n; i++)	/* distinct blocks per line */
		if (!n || cmp_lfact(&fv->v[n - 1], &fv->v[i]) != 0)
			fv->v[n++] = fv->v[i];
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && fv->v[j].file == fv->v[i].file &&
				fv->v[j].line == fv->v[i].line;
		     j++)
			;
		add_line(b, &fv->v[i], j - i);
	}
}

static int cmp_blk(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void unique_files(struct srcmodel *sm)
{
	size_t k = 0;

	if (sm->nfiles > 1)
		qsort(sm->files, sm->nfiles, sizeof(*sm->files), cmp_str_ptr);
	for (size_t i = 0; i < sm->nfiles; i++)
		if (!k || strcmp(sm->files[k - 1], sm->files[i]) != 0)
			sm->files[k++] = sm->files[i];
	sm->nfiles = k;
}

int srcmodel_build(struct sym_module *m, const struct pcvec *points,
		   const struct pcvec *covered, const struct sm_hooks *h,
		   struct srcmodel *out)
{
	struct lb b = { .m = m, .h = h, .points = points, .covered = covered,
			.out = out };
	Dwarf *dw = sym_dwarf(m, &b.bias);
	struct lfacts fv = { 0 };
	Dwarf_Die *cu = NULL;
	Dwarf_Addr cubias;

	memset(out, 0, sizeof(*out));
	/* Without DWARF the model is empty (the point model has no lines
	 * either): a stripped library does not take the report's lines
	 * away from the binaries that have them. */
	if (!dw)
		return 0;
	if (load_code(&b) < 0) {
		free(b.cm.segs);
		return -1;
	}
	for (size_t i = 0; i < b.cm.nsegs; i++)	/* code and data */
		b.max_decoded += 4 * (uint64_t)b.cm.segs[i].size;
	b.scratch = blk_scratch_new();
	/* Units without a point (the uninstrumented runtime, libraries
	 * built without coverage) are not part of the report. */
	while ((cu = dwfl_module_nextcu(sym_dwfl_module(m), cu, &cubias))) {
		b.cu_has_points = false;
		each_subprogram(&b, cu, 0, false);
		b.instrumented = xrealloc(b.instrumented, (b.ncus + 1) *
							  sizeof(bool));
		b.instrumented[b.ncus++] = b.cu_has_points;
	}
	if (b.blocks.n > 1)
		qsort(b.blocks.v, b.blocks.n, sizeof(*b.blocks.v), cmp_blk);
	b.max_visits = 64 * b.blocks.n + (1u << 20);
	for (size_t i = 0;
	     (cu = dwfl_module_nextcu(sym_dwfl_module(m), cu, &cubias)); i++) {
		if (i >= b.ncus || !b.instrumented[i])
			continue;
		each_subprogram(&b, cu, 0, true);
		cu_rows(&b, cu, &fv);
	}
	free(b.instrumented);
	lines_from_facts(&b, &fv);
	unique_files(out);
	out->truncated = b.decoded > b.max_decoded ||
			 b.visits > b.max_visits;
	free(fv.v);
	free(b.blocks.v);
	free(b.cm.segs);
	free(b.rg);
	blk_scratch_free(b.scratch);
	ptrmap_free(&b.files);
	return 0;
}

void srcmodel_append(struct srcmodel *dst, const struct srcmodel *src,
		     const char *(*add)(void *arg, const char *s), void *arg)
{
	for (size_t i = 0; i < src->nlines; i++) {
		struct sm_line l = src->lines[i];

		l.file = add(arg, l.file);
		dst->lines = grow(dst->lines, &dst->caplines, dst->nlines,
				  sizeof(l));
		dst->lines[dst->nlines++] = l;
	}
	for (size_t i = 0; i < src->nfns; i++) {
		struct sm_fn f = src->fns[i];

		f.file = add(arg, f.file);
		f.name = add(arg, f.name);
		dst->fns = grow(dst->fns, &dst->capfns, dst->nfns, sizeof(f));
		dst->fns[dst->nfns++] = f;
	}
	for (size_t i = 0; i < src->nfiles; i++) {
		dst->files = grow(dst->files, &dst->capfiles, dst->nfiles,
				  sizeof(*dst->files));
		dst->files[dst->nfiles++] = add(arg, src->files[i]);
	}
	dst->undecoded += src->undecoded;
	dst->truncated |= src->truncated;
}
