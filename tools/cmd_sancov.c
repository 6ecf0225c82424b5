/*
 * tools/cmd_sancov.c -- the commands that mirror LLVM sancov and
 * sancov.py: print, print-coverage-pcs, merge, diff, missing, the
 * symbolizing views, rawunpack.
 */
#include "ukcov.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "elfpoints.h"
#include "printer.h"
#include "report.h"

static int need_args(const struct options *o, int min, const char *what)
{
	if (o->nargs >= min)
		return 0;
	msg_error("missing %s (see ukcov --help)", what);
	return EXIT_USAGE;
}

static void print_pcs(struct strbuf *sb, const struct pcvec *pv)
{
	char hx[20] = "0x";

	for (size_t i = 0; i < pv->n; i++) {
		int n = hex_u64(hx + 2, pv->v[i]);

		hx[n + 2] = '\n';
		sb_add(sb, hx, (size_t)n + 3);
	}
}

/* A dump prints module by module, each sorted; with --lines each point
 * symbolized by the binary with its module's build-id (bins: the
 * binaries among print's arguments). */
static int print_dump(const char *path, bool lines, struct bin_candidate *bins,
		      size_t nbins, struct strbuf *sb)
{
	struct dump d;

	if (dump_load(path, &d) < 0)
		return -1;
	for (size_t i = 0; i < d.nmods; i++)
		pcvec_sort_unique(&d.mods[i].pcs, true);
	if (lines) {
		print_symbolized(&d, NULL, path, bins, nbins, sb);
	} else {
		for (size_t i = 0; i < d.nmods; i++)
			print_pcs(sb, &d.mods[i].pcs);
	}
	dump_free(&d);
	return 0;
}

struct print_input {
	const char *path;
	bool dump, elf;
};

static int print_one(const struct print_input *in, bool lines,
		     struct bin_candidate *bins, size_t nbins,
		     struct strbuf *sb)
{
	struct pcvec pv = { 0 };
	int bits = 0;

	if (in->dump)
		return print_dump(in->path, lines, bins, nbins, sb);
	if (sancov_load(in->path, &pv, &bits) < 0)
		return -1;
	pcvec_sort_unique(&pv, true);
	print_pcs(sb, &pv);
	pcvec_free(&pv);
	return 0;
}

/* sancov -print: each file sorted and de-duplicated on its own, files
 * one after another (not merged: that is what merge is for).  With
 * --lines, binaries among the files symbolize the dumps' modules. */
int cmd_print(struct options *o)
{
	struct print_input *in = xcalloc((size_t)o->nargs + 1, sizeof(*in));
	struct bin_candidate *bins = xcalloc((size_t)o->nargs + 1,
					     sizeof(*bins));
	struct strbuf sb = { 0 };
	size_t nbins = 0;
	int r = need_args(o, 1, ".sancov file");

	for (int i = 0; i < o->nargs; i++) {
		char head[16];
		size_t n;

		in[i].path = o->args[i];
		if (read_head(o->args[i], head, sizeof(head), &n) < 0)
			continue;	/* sancov_load names the problem */
		in[i].dump = dump_looks_like(head, n);
		in[i].elf = o->lines && is_elf_image(head, n);
		if (in[i].elf)
			bins[nbins++].path = o->args[i];
	}
	for (int i = 0; i < o->nargs && !r; i++)
		if (!in[i].elf && print_one(&in[i], o->lines, bins, nbins,
					    &sb) < 0)
			r = EXIT_DATA;
	if (!r)
		r = emit(o, &sb);
	sb_free(&sb);
	free(bins);
	free(in);
	return r;
}

int cmd_print_points(struct options *o)
{
	struct strbuf sb = { 0 };
	int r = need_args(o, 1, "binary");

	for (int i = 0; i < o->nargs && !r; i++) {
		struct pcvec pv = { 0 };

		if (elfpoints_load(o->args[i], &pv) < 0)
			r = EXIT_DATA;
		print_pcs(&sb, &pv);
		pcvec_free(&pv);
	}
	if (!r)
		r = emit(o, &sb);
	sb_free(&sb);
	return r;
}

static int emit_sancov(const struct options *o, const struct pcvec *pv,
		       int bits)
{
	struct strbuf sb = { 0 };
	int r;

	if (!o->output && isatty(STDOUT_FILENO)) {
		msg_error("refusing to write a binary .sancov to a terminal; "
			  "use -o FILE or redirect stdout");
		return EXIT_USAGE;
	}
	sancov_serialize(&sb, pv, bits);
	r = emit(o, &sb);
	sb_free(&sb);
	return r;
}

/* Inputs of merge/diff, all of one kind. */
enum raw_kind { RK_SANCOV, RK_DUMP, RK_SYMCOV, RK_ELF };

/* By the first bytes only: an input may be huge (or claim to be). */
static int raw_kind(const char *path, enum raw_kind *k)
{
	char head[64];
	size_t len;
	int r = read_head(path, head, sizeof(head), &len);

	if (r < 0) {
		msg_error("%s: %s", path, strerror(-r));
		return -1;
	}
	*k = dump_looks_like(head, len) ? RK_DUMP
	     : is_elf_image(head, len)	? RK_ELF
	     : symcov_looks_like(head, len) ? RK_SYMCOV
					    : RK_SANCOV;
	return 0;
}

static int merge_sancov(struct options *o)
{
	struct pcvec all = { 0 };
	char *module = NULL;
	int bits = 32, r = 0;

	for (int i = 0; i < o->nargs && !r; i++) {
		char *m = sancov_module_name(o->args[i]);
		int b = 0;

		if (m && module && strcmp(m, module) != 0) {
			msg_error("%s: coverage of module '%s', not '%s': a "
				  ".sancov holds one module (merge dumps, or "
				  "symbolize, to combine modules)", o->args[i],
				  m, module);
			r = EXIT_DATA;
		} else if (sancov_load(o->args[i], &all, &b) < 0) {
			r = EXIT_DATA;
		} else if (b == 64) {
			bits = 64;
		}
		if (m && !module)
			module = m;
		else
			free(m);
	}
	pcvec_sort_unique(&all, true);
	if (!r)
		r = emit_sancov(o, &all, bits);
	free(module);
	pcvec_free(&all);
	return r;
}

static int merge_dumps(struct options *o)
{
	struct dump out = { 0 };
	struct strbuf sb = { 0 };
	int r = 0;

	for (int i = 0; i < o->nargs && !r; i++) {
		struct dump d;

		if (dump_load(o->args[i], &d) < 0) {
			r = EXIT_DATA;
			break;
		}
		dump_union(&out, &d);
		dump_free(&d);
	}
	if (!r) {
		dump_canonicalize(&out);
		dump_serialize(&out, &sb);
		r = emit(o, &sb);
	}
	sb_free(&sb);
	dump_free(&out);
	return r;
}

/* merge: a true union.  .sancov -> .sancov, dumps -> dump, .symcov (or
 * binaries with coverage, sancov's -merge) -> .symcov. */
int cmd_merge(struct options *o)
{
	enum raw_kind first = RK_SANCOV, k;
	bool symbolized = false;
	int r = need_args(o, 1, "input files");

	for (int i = 0; i < o->nargs && !r; i++) {
		if (raw_kind(o->args[i], &k) < 0)
			return EXIT_DATA;
		if (k == RK_SYMCOV || k == RK_ELF)
			symbolized = true;
		else if (i && k != first && !symbolized) {
			msg_error("%s: cannot merge a %s with a %s", o->args[i],
				  k == RK_DUMP ? "dump" : ".sancov file",
				  first == RK_DUMP ? "dump" : ".sancov file");
			return EXIT_DATA;
		}
		if (i == 0)
			first = k;
	}
	if (r)
		return r;
	if (symbolized)
		return cmd_symbolize(o);
	return first == RK_DUMP ? merge_dumps(o) : merge_sancov(o);
}

/* diff A B: what A covers and B does not (sancov -diff, LLVM 22), as a
 * .sancov in A's bitness. */
int cmd_diff(struct options *o)
{
	struct pcvec a = { 0 }, b = { 0 }, d = { 0 };
	int bits = 0, bits_b = 0, r = 0;

	if (o->nargs != 2) {
		msg_error("diff takes exactly two .sancov files, A and B");
		return EXIT_USAGE;
	}
	if (sancov_load(o->args[0], &a, &bits) < 0 ||
	    sancov_load(o->args[1], &b, &bits_b) < 0)
		r = EXIT_DATA;
	pcvec_sort_unique(&a, true);
	pcvec_sort_unique(&b, true);
	for (size_t i = 0; i < a.n; i++)
		if (!pcvec_contains(&b, a.v[i]))
			pcvec_push(&d, a.v[i]);
	if (!r)
		r = emit_sancov(o, &d, bits);
	pcvec_free(&a);
	pcvec_free(&b);
	pcvec_free(&d);
	return r;
}

/* Covered offsets from stdin: one hex number per line (sancov -print). */
static int read_stdin_pcs(struct pcvec *pv)
{
	char line[128];
	size_t no = 0;

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strcspn(line, "\r\n");
		uint64_t v;

		no++;
		if (n == 0)
			continue;
		if (!parse_hex_u64(line, n, &v)) {
			msg_error("<stdin>: line %zu: expected a hex PC", no);
			return -1;
		}
		pcvec_push(pv, v);
	}
	return 0;
}

/* missing BIN [COV...]: coverage points of BIN nobody covered
 * (sancov.py missing, with ukcov's point finder). */
int cmd_missing(struct options *o)
{
	struct pcvec pts = { 0 }, cov = { 0 }, miss = { 0 };
	struct strbuf sb = { 0 };
	int r = need_args(o, 1, "binary");

	if (!r && elfpoints_load(o->args[0], &pts) < 0)
		r = EXIT_DATA;
	for (int i = 1; i < o->nargs && !r; i++) {
		int bits = 0;

		if (sancov_load(o->args[i], &cov, &bits) < 0)
			r = EXIT_DATA;
	}
	if (!r && o->nargs == 1 && read_stdin_pcs(&cov) < 0)
		r = EXIT_DATA;
	pcvec_sort_unique(&cov, true);
	for (size_t i = 0; i < pts.n && !r; i++)
		if (!pcvec_contains(&cov, pts.v[i]))
			pcvec_push(&miss, pts.v[i]);
	if (!r && pts.n - miss.n < cov.n)
		msg_warn("%zu covered PCs are not coverage points of %s",
			 cov.n - (pts.n - miss.n), o->args[0]);
	print_pcs(&sb, &miss);
	if (!r)
		r = emit(o, &sb);
	sb_free(&sb);
	pcvec_free(&pts);
	pcvec_free(&cov);
	pcvec_free(&miss);
	return r;
}

/* Run the symbolizing pipeline and hand the result to a view. */
static int with_symbolized(struct options *o,
			   void (*view)(const struct symcov *, struct strbuf *))
{
	struct strtab strs = { 0 };
	struct symcov sc;
	struct strbuf sb = { 0 };
	int r = need_args(o, 1, "inputs");

	if (!r)
		r = load_symbolized(o, &sc, &strs);
	if (!r) {
		view(&sc, &sb);
		r = emit(o, &sb);
		symcov_free(&sc);
	}
	sb_free(&sb);
	strtab_free(&strs);
	return r;
}

static void view_covered(const struct symcov *sc, struct strbuf *sb)
{
	symcov_print_functions(sc, true, sb);
}

static void view_not_covered(const struct symcov *sc, struct strbuf *sb)
{
	symcov_print_functions(sc, false, sb);
}

static void view_stats(const struct symcov *sc, struct strbuf *sb)
{
	struct cov_stats st;

	symcov_stats(sc, &st);
	sb_printf(sb, "all-edges: %zu\ncov-edges: %zu\nall-functions: %zu\n"
		  "cov-functions: %zu\n", st.all_points, st.cov_points,
		  st.all_fns, st.cov_fns);
	if (sc->model)
		report_print_totals(sc, sb);
}

int cmd_covered_functions(struct options *o)
{
	return with_symbolized(o, view_covered);
}

int cmd_not_covered_functions(struct options *o)
{
	return with_symbolized(o, view_not_covered);
}

int cmd_stats(struct options *o)
{
	/* sancov -print-coverage-stats prints its four lines only. */
	o->model = !o->sancov_spelling;
	return with_symbolized(o, view_stats);
}

int cmd_symbolize(struct options *o)
{
	o->need_hash = true;
	return with_symbolized(o, symcov_write_json);
}

/* ---- rawunpack ---- */

/* Write (or unite into) <module path>.<pid>.sancov for one module.  A
 * trace-pc log, <pid>.pc.sancov.raw, unpacks to the same name: the tool
 * and LLVM sancov find a module's binary by the name before .<pid>.sancov,
 * and a process with guard and trace-pc code in one module gets one file
 * (the union), as coverage=1 writes it. */
static int unpack_module(const struct dump_module *m, const char *raw,
			 int bits)
{
	const char *base = path_basename(raw);
	size_t n = strlen(base) - strlen(".sancov.raw");
	char *dst;
	struct pcvec pv = { 0 };
	struct strbuf sb = { 0 };
	int old_bits = 0, r = 0;

	if (n >= 3 && strncmp(base + n - 3, ".pc", 3) == 0)
		n -= 3;
	dst = xasprintf("%s.%.*s.sancov", m->path, (int)n, base);

	if (access(dst, F_OK) == 0 && sancov_load(dst, &pv, &old_bits) < 0)
		r = -1;
	pcvec_append(&pv, &m->pcs);
	pcvec_sort_unique(&pv, true);
	if (!r) {
		sancov_serialize(&sb, &pv, bits);
		if ((r = write_output(dst, sb.s, sb.n)) < 0)
			msg_error("%s: %s", dst, strerror(-r));
		else
			msg_note("writing %zu PCs to %s", m->pcs.n, dst);
	}
	sb_free(&sb);
	pcvec_free(&pv);
	free(dst);
	return r < 0 ? -1 : 0;
}

/* The map (text), then the raw PCs, whose size the map bounds. */
static int read_rawmap(const char *raw, const char *map, struct dump *d,
		       int *bits, size_t *outside)
{
	char *buf = NULL, err[ERRLEN];
	size_t len, nul;
	struct stat st;
	int r = read_text_file(map, &buf, &len, &nul);

	if (r < 0) {
		msg_error("%s: %s", map, strerror(-r));
	} else if (nul != SIZE_MAX) {
		msg_error("%s: not a .sancov.map: NUL byte at byte offset %zu "
			  "(a text format)", map, nul);
		r = -1;
	} else if ((r = rawmap_read_map(buf, len, d, bits, err)) < 0) {
		msg_error("%s: %s", map, err);
	}
	free(buf);
	buf = NULL;
	if (r < 0)
		return -1;
	if (stat(raw, &st) == 0 && S_ISREG(st.st_mode) &&
	    rawmap_check_size(d, *bits, (uint64_t)st.st_size, err) < 0)
		r = -1;
	else if ((r = read_whole_file(raw, &buf, &len)) < 0)
		snprintf(err, ERRLEN, "%s", strerror(-r));
	else
		r = rawmap_add_pcs(buf, len, d, *bits, outside, err);
	if (r < 0) {
		msg_error("%s: %s", raw, err);
		dump_free(d);
	}
	free(buf);
	return r < 0 ? -1 : 0;
}

static int rawunpack_one(const char *raw)
{
	size_t n = strlen(raw), outside = 0;
	char *map;
	struct dump d;
	int bits = 0, r;

	if (n < 11 || strcmp(raw + n - 11, ".sancov.raw") != 0) {
		msg_error("%s: unexpected raw file name (want NAME.sancov.raw "
			  "next to NAME.sancov.map)", raw);
		return -1;
	}
	map = xasprintf("%.*smap", (int)(n - 3), raw);
	r = read_rawmap(raw, map, &d, &bits, &outside);
	if (r == 0) {
		msg_note("reading map %s, unpacking %s", map, raw);
		if (outside)
			msg_warn("%s: %zu PCs outside of any known mapping",
				 raw, outside);
		for (size_t i = 0; i < d.nmods && r == 0; i++)
			if (d.mods[i].pcs.n)
				r = unpack_module(&d.mods[i], raw, bits);
		dump_free(&d);
	}
	free(map);
	return r;
}

int cmd_rawunpack(struct options *o)
{
	int r = need_args(o, 1, ".sancov.raw file");

	for (int i = 0; i < o->nargs && !r; i++)
		if (rawunpack_one(o->args[i]) < 0)
			r = EXIT_DATA;
	return r;
}
