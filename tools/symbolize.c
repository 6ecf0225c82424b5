/*
 * tools/symbolize.c -- the libdwfl symbolizer behind sym_open/sym_lookup.
 *
 * Speed comes from a per-module index of subprogram address ranges built
 * once (sorted, binary-searched); an address then walks only its own
 * function's DIE subtree for inlined calls.  libdw answers line queries
 * even for addresses no CU covers, so a line is reported only for
 * addresses inside an indexed function or a CU that dwarf_haspc confirms.
 */
#include "symbolize_dw.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define INVALID "<invalid>"	/* llvm::DILineInfo::BadString */
#define MAX_DEPTH 64		/* inline nesting we follow (hostile DWARF) */

char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

struct fn_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die die;
};

/* The inlined calls of one function, flattened once (LLVM builds the
 * same kind of address map per unit).  Walking the DIE tree per address
 * costs a dwarf_siblingof per child; big functions have thousands. */
struct inl_node {
	Dwarf_Die die;
	int parent;		/* index, -1: the function itself */
	int depth;
};

struct inl_range {
	Dwarf_Addr lo, hi;
	int node;
};

struct inl_index {
	void *fn_addr;		/* die.addr of the function indexed */
	struct inl_node *nodes;
	size_t nnodes, capnodes;
	struct inl_range *ranges;
	size_t nranges, capranges;
};

struct sym_module {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	struct strtab *strs;
	bool demangle;
	struct fn_range *fns;
	size_t nfns, capfns;
	struct ptrmap names;	/* raw DWARF/symtab name -> printable */
	struct ptrmap paths;	/* libdw file name -> absolute (interned) */
	struct inl_index inl;	/* of the last function looked up */
	struct sym_frame frames[MAX_DEPTH + 1];
	char *missing;		/* why there is no DWARF, or NULL */
};

static char *debuginfo_path;	/* NULL: libdwfl's default search path */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Demangle an Itanium C++ name (_Z...); NULL if it is not one. malloc'd. */
static char *sym_demangle(const char *name)
{
	int status = 0;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	return __cxa_demangle(name, NULL, NULL, &status);
}

/* A printable (and demangled if asked) name, interned and cached. */
static const char *printable_name(struct sym_module *m, const char *raw)
{
	const void *cached;
	const char *v;
	char *dm;

	if (ptrmap_get(&m->names, raw, &cached))
		return cached;
	dm = m->demangle ? sym_demangle(raw) : NULL;
	v = strtab_add(m->strs, dm ? dm : raw);
	free(dm);
	ptrmap_put(&m->names, raw, v);
	return v;
}

/* llvm DWARFDie::getSubroutineName(LinkageName): the linkage name through
 * abstract_origin/specification, else the plain name. */
static const char *die_func_name(struct sym_module *m, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(
			dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return n ? printable_name(m, n) : strtab_add(m->strs, INVALID);
}

static void add_range(struct sym_module *m, Dwarf_Addr lo, Dwarf_Addr hi,
		      Dwarf_Die *die)
{
	if (lo == 0 || hi <= lo)	/* gc'd function: no code */
		return;
	if (m->nfns == m->capfns) {
		m->capfns = m->capfns ? m->capfns * 2 : 1024;
		m->fns = xrealloc(m->fns, m->capfns * sizeof(*m->fns));
	}
	m->fns[m->nfns++] = (struct fn_range){ lo, hi, *die };
}

/* Index the subprograms among the children of die (CU, namespaces and
 * classes: where C and C++ compilers put function definitions). */
static void index_children(struct sym_module *m, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0)
				add_range(m, lo, hi, &c);
		} else if (tag == DW_TAG_namespace ||
			   tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type ||
			   tag == DW_TAG_union_type) {
			index_children(m, &c, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int cmp_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static void build_index(struct sym_module *m)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(m->mod, cu, &bias)))
		index_children(m, cu, 0);
	if (m->nfns > 1)
		qsort(m->fns, m->nfns, sizeof(*m->fns), cmp_range);
}

/* The innermost indexed function containing a (DWARF address). */
static Dwarf_Die *find_function(struct sym_module *m, Dwarf_Addr a)
{
	size_t lo = 0, hi = m->nfns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->fns[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = first entry starting after a; look back over overlaps. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (m->fns[i].hi > a)
			return &m->fns[i].die;
	return NULL;
}

struct chain {
	Dwarf_Die die[MAX_DEPTH];
	int n;
	Dwarf_Die cu;		/* the CU, when die[] is empty */
};

static void inl_add(struct inl_index *x, Dwarf_Die *die, int parent)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int node = (int)x->nnodes;

	if (x->nnodes == x->capnodes) {
		x->capnodes = x->capnodes ? x->capnodes * 2 : 64;
		x->nodes = xrealloc(x->nodes, x->capnodes * sizeof(*x->nodes));
	}
	x->nodes[x->nnodes++] = (struct inl_node){
		*die, parent, parent < 0 ? 1 : x->nodes[parent].depth + 1 };
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (x->nranges == x->capranges) {
			x->capranges = x->capranges ? x->capranges * 2 : 64;
			x->ranges = xrealloc(x->ranges,
					     x->capranges * sizeof(*x->ranges));
		}
		x->ranges[x->nranges++] = (struct inl_range){ lo, hi, node };
	}
}

/* Collect every inlined subroutine below parent_die.  All other children
 * (lexical blocks, with or without addresses) are walked through, as
 * llvm's address map does; nested subprograms are not ours. */
static void inl_collect(struct inl_index *x, Dwarf_Die *parent_die,
			int parent, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(parent_die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine) {
			inl_add(x, &c, parent);
			inl_collect(x, &c, (int)x->nnodes - 1, depth + 1);
		} else if (tag != DW_TAG_subprogram && dwarf_haschildren(&c)) {
			inl_collect(x, &c, parent, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* Append the inlined subroutines containing a inside fn, outermost
 * first: the deepest node whose range holds a, and its ancestors. */
static void find_inlines(struct sym_module *m, Dwarf_Die *fn, Dwarf_Addr a,
			 struct chain *ch)
{
	struct inl_index *x = &m->inl;
	int best = -1, path[MAX_DEPTH] = { 0 }, n = 0;

	if (x->fn_addr != fn->addr) {
		x->nnodes = x->nranges = 0;
		x->fn_addr = fn->addr;
		inl_collect(x, fn, -1, 0);
	}
	for (size_t i = 0; i < x->nranges; i++) {
		const struct inl_range *r = &x->ranges[i];

		if (a >= r->lo && a < r->hi &&
		    (best < 0 || x->nodes[r->node].depth >
					 x->nodes[best].depth))
			best = r->node;
	}
	for (; best >= 0 && n < MAX_DEPTH; best = x->nodes[best].parent)
		path[n++] = best;
	while (n > 0 && ch->n < MAX_DEPTH)
		ch->die[ch->n++] = x->nodes[path[--n]].die;
}

/* The CU holding a.  Without .debug_aranges (clang's default) libdw 0.188
 * cannot map addresses to CUs itself, so ask each CU's ranges. */
static bool find_cu(struct sym_module *m, Dwarf_Addr a, Dwarf_Die *out)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(m->mod, cu, &bias)))
		if (dwarf_haspc(cu, a) > 0) {
			*out = *cu;
			return true;
		}
	return false;
}

/* Fallback for functions the index missed (nested functions, odd
 * producers): dwarf_getscopes on the CU that really contains a. */
static bool chain_from_scopes(struct sym_module *m, Dwarf_Addr a,
			      struct chain *ch)
{
	Dwarf_Die cu, *scopes = NULL;
	int n;

	if (!find_cu(m, a, &cu))
		return false;
	n = dwarf_getscopes(&cu, a, &scopes);
	for (int i = n - 1; i >= 0 && ch->n < MAX_DEPTH; i--) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram ||
		    tag == DW_TAG_inlined_subroutine)
			ch->die[ch->n++] = scopes[i];
	}
	free(scopes);
	if (ch->n == 0)	/* keep the CU for the line lookup */
		ch->cu = cu;
	return true;
}

/* True if p starts with the directory d followed by '/'. */
static bool under_dir(const char *p, const char *d)
{
	size_t n = strlen(d);

	return n && strncmp(p, d, n) == 0 && p[n] == '/';
}

/* libdw joined a file name with its line-table directory, but not with
 * the compilation directory: a relative name here came from a relative
 * directory (or none).  In DWARF 4 directory 0 is DW_AT_comp_dir itself,
 * already joined; a relative result that starts with a relative comp_dir
 * and with none of the include directories is such a file. */
static bool joined_with_comp_dir(Dwarf_Die *cu, const char *p,
				 const char *comp_dir)
{
	Dwarf_Half version = 5;
	Dwarf_Files *files;
	const char *const *dirs;
	size_t nfiles, ndirs;

	if (dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL,
			  NULL) != 0 || version >= 5 ||
	    !under_dir(p, comp_dir))
		return false;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 ||
	    dwarf_getsrcdirs(files, &dirs, &ndirs) != 0)
		return true;
	for (size_t i = 1; i < ndirs; i++)
		if (dirs[i] && under_dir(p, dirs[i]))
			return false;
	return true;
}

/*
 * The file name llvm-symbolizer prints for a line-table file (LLVM 14
 * DWARFDebugLine::Prologue::getFileNameByIndex, AbsoluteFilePath): an
 * absolute name as it is, else DW_AT_comp_dir / directory / name unless
 * the directory is absolute.  Joined as llvm::sys::path::append: one '/'
 * between parts.  Dots are left in (sancov removes them later).
 */
static const char *absolute_file(struct sym_module *m, Dwarf_Die *cu,
				 const char *p)
{
	Dwarf_Attribute at;
	const char *comp_dir, *r;
	const void *cached;
	char *s;

	if (!p)
		return strtab_add(m->strs, INVALID);
	if (ptrmap_get(&m->paths, p, &cached))
		return cached;
	comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (p[0] == '/' || !comp_dir || !comp_dir[0] ||
	    joined_with_comp_dir(cu, p, comp_dir)) {
		r = strtab_add(m->strs, p);
	} else {
		size_t n = strlen(comp_dir);

		s = xasprintf("%s%s%s", comp_dir,
			      comp_dir[n - 1] == '/' ? "" : "/", p);
		r = strtab_add(m->strs, s);
		free(s);
	}
	ptrmap_put(&m->paths, p, r);
	return r;
}

static const char *call_file(struct sym_module *m, Dwarf_Die *inl)
{
	Dwarf_Attribute at;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;
	Dwarf_Die cu;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &at), &idx) != 0 ||
	    !dwarf_diecu(inl, &cu, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
		return strtab_add(m->strs, INVALID);
	return absolute_file(m, &cu, dwarf_filesrc(files, idx, NULL, NULL));
}

static uint32_t attr_u32(Dwarf_Die *d, int name)
{
	Dwarf_Attribute at;
	Dwarf_Word w;

	if (dwarf_formudata(dwarf_attr(d, name, &at), &w) != 0)
		return 0;
	return (uint32_t)w;
}

/* Frame 0's location: the CU's line table row for a (DWARF address). */
static void line_location(struct sym_module *m, Dwarf_Die *cu, Dwarf_Addr a,
			  struct sym_frame *f)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, a);
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	int line = 0, col = 0;

	if (l) {
		dwarf_lineno(l, &line);
		dwarf_linecol(l, &col);
	}
	f->file = absolute_file(m, cu, file);
	f->line = line > 0 ? (uint32_t)line : 0;
	f->col = col > 0 ? (uint32_t)col : 0;
}

/* No DWARF for addr: the symbol table's name, llvm's "<invalid>:0". */
static size_t symtab_frame(struct sym_module *m, uint64_t addr)
{
	struct sym_frame *f = &m->frames[0];
	GElf_Off off;
	GElf_Sym sym;
	const char *n = dwfl_module_addrinfo(m->mod, addr, &off,
					     &sym, NULL, NULL, NULL);

	f->file = strtab_add(m->strs, INVALID);
	f->func = n ? printable_name(m, n) : strtab_add(m->strs, INVALID);
	f->line = f->col = 0;
	return 1;
}

size_t sym_lookup(struct sym_module *m, uint64_t addr,
		  const struct sym_frame **frames)
{
	struct chain ch = { .n = 0 };
	Dwarf_Addr da = addr - m->bias;	/* DWARF address */
	Dwarf_Die *fn = m->dw ? find_function(m, da) : NULL;
	size_t nf = 0;

	*frames = m->frames;
	if (fn) {
		ch.die[ch.n++] = *fn;
		find_inlines(m, fn, da, &ch);
	} else if (!m->dw || !chain_from_scopes(m, da, &ch)) {
		return symtab_frame(m, addr);
	}
	if (ch.n && !dwarf_diecu(&ch.die[0], &ch.cu, NULL, NULL))
		return symtab_frame(m, addr);
	line_location(m, &ch.cu, da, &m->frames[0]);
	if (ch.n == 0) {
		GElf_Off off;
		GElf_Sym sym;
		const char *n = dwfl_module_addrinfo(m->mod, addr,
						     &off, &sym, NULL, NULL,
						     NULL);

		m->frames[0].func = n ? printable_name(m, n)
				      : strtab_add(m->strs, INVALID);
		return 1;
	}
	/* Innermost first: frame k names chain[n-1-k], located at the call
	 * site recorded in chain[n-k]. */
	for (int i = ch.n - 1; i >= 0; i--, nf++) {
		struct sym_frame *f = &m->frames[nf];

		f->func = die_func_name(m, &ch.die[i]);
		if (nf == 0)
			continue;
		f->file = call_file(m, &ch.die[i + 1]);
		f->line = attr_u32(&ch.die[i + 1], DW_AT_call_line);
		f->col = attr_u32(&ch.die[i + 1], DW_AT_call_column);
	}
	return nf;
}

const char *sym_missing_debug(struct sym_module *m)
{
	return m->missing;
}

static void note_missing_debug(struct sym_module *m, const char *path)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(m->mod, &id, &vaddr);
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s: no DWARF debug info (%s); looked in the file "
		  "itself", path, dwfl_errmsg(-1));
	if (n > 0) {
		sb_printf(&sb, ", /usr/lib/debug/.build-id/%02x/", id[0]);
		for (int i = 1; i < n; i++)
			sb_printf(&sb, "%02x", id[i]);
		sb_puts(&sb, ".debug");
	}
	sb_puts(&sb, " and the .gnu_debuglink places (same directory, "
		".debug/, /usr/lib/debug/); function names come from the "
		"symbol table, files and lines are unknown");
	m->missing = sb.s;
}

struct sym_module *sym_open(const char *path, struct strtab *strs,
			    bool demangle, char err[ERRLEN])
{
	struct sym_module *m = xcalloc(1, sizeof(*m));

	m->strs = strs;
	m->demangle = demangle;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		goto fail;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, path_basename(path), path, -1, 0,
				 false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod)
		goto fail;
	m->dw = dwfl_module_getdwarf(m->mod, &m->bias);
	if (m->dw)
		build_index(m);
	else
		note_missing_debug(m, path);
	return m;
fail:
	snprintf(err, ERRLEN, "cannot read for symbolization: %s",
		 dwfl_errmsg(-1));
	sym_close(m);
	return NULL;
}

void sym_close(struct sym_module *m)
{
	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->fns);
	ptrmap_free(&m->names);
	ptrmap_free(&m->paths);
	free(m->inl.nodes);
	free(m->inl.ranges);
	free(m->missing);
	free(m);
}

/* ---- for the block model (lines.c) ---- */

Dwarf *sym_dwarf(struct sym_module *m, Dwarf_Addr *bias)
{
	*bias = m->bias;
	return m->dw;
}

Dwfl_Module *sym_dwfl_module(struct sym_module *m)
{
	return m->mod;
}

const char *sym_die_name(struct sym_module *m, Dwarf_Die *die)
{
	return die_func_name(m, die);
}

const char *sym_file_name(struct sym_module *m, Dwarf_Die *cu,
			  const char *raw)
{
	return absolute_file(m, cu, raw);
}
