/*
 * tools/inputs.c -- the inputs of the symbolizing commands.
 *
 * sancov decides what a file is from its name (*.symcov, *.PID.sancov,
 * everything else is a binary).  We look at the content instead (ELF
 * magic, .sancov magic, dump header, JSON), so a binary given where a
 * .sancov is expected, or a .sancov without a pid, is named for what it
 * is.  .sancov files are matched to binaries by sancov's name rule; dump
 * modules by build-id.
 */
#include "inputs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binmatch.h"
#include "dump.h"
#include "elfpoints.h"
#include "sancov_file.h"

static enum input_kind input_kind_of(const void *head, size_t n)
{
	if (is_elf_image(head, n))
		return INPUT_ELF;
	if (sancov_has_magic(head, n))
		return INPUT_SANCOV;
	if (dump_looks_like(head, n))
		return INPUT_DUMP;
	if (symcov_looks_like(head, n))
		return INPUT_SYMCOV;
	return INPUT_UNKNOWN;
}

int input_kind(const char *path, enum input_kind *k)
{
	char head[INPUT_HEAD];
	size_t n;
	int r = read_head(path, head, sizeof(head), &n);

	*k = INPUT_UNKNOWN;
	if (r < 0)
		return r;
	*k = input_kind_of(head, n);
	return 0;
}

/* The symbolizing commands take every kind and nothing else. */
static int classify(const char *path, enum input_kind *k)
{
	int r = input_kind(path, k);

	if (r < 0) {
		msg_error("%s: %s", path, strerror(-r));
		return -1;
	}
	if (*k == INPUT_UNKNOWN) {
		msg_error("%s: not a binary, .sancov, .symcov or ukcov dump "
			  "(unrecognized content)", path);
		return -1;
	}
	return 0;
}

struct binary {
	char *path;		/* owned copy */
	const char *name;	/* basename */
	struct pcvec covered;
	bool has_coverage;
	struct bin_candidate bc;	/* for dump modules' build-ids */
};

struct inputs {
	struct binary *bins;
	size_t nbins;
	const char **symcovs, **dumps, **sancovs;
	size_t nsymcovs, ndumps, nsancovs;
	const char *empty_dump;	/* the first valid dump without a point */
};

static int add_binary(struct inputs *in, const char *path)
{
	const char *name = path_basename(path);

	for (size_t i = 0; i < in->nbins; i++)
		if (!strcmp(in->bins[i].name, name)) {
			msg_error("duplicate binary file with a short name: %s "
				  "(%s and %s; coverage files are matched to "
				  "binaries by name)", name, in->bins[i].path,
				  path);
			return -1;
		}
	in->bins = xrealloc(in->bins, (in->nbins + 1) * sizeof(*in->bins));
	memset(&in->bins[in->nbins], 0, sizeof(*in->bins));
	in->bins[in->nbins].path = xstrdup(path);
	in->bins[in->nbins].name = path_basename(in->bins[in->nbins].path);
	in->bins[in->nbins].bc.path = in->bins[in->nbins].path;
	in->nbins++;
	return 0;
}

static void push(const char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static int sort_inputs(char *const *paths, size_t npaths, struct inputs *in)
{
	for (size_t i = 0; i < npaths; i++) {
		enum input_kind k;

		if (classify(paths[i], &k) < 0)
			return -1;
		if (k == INPUT_ELF && add_binary(in, paths[i]) < 0)
			return -1;
		if (k == INPUT_SANCOV)
			push(&in->sancovs, &in->nsancovs, paths[i]);
		if (k == INPUT_SYMCOV)
			push(&in->symcovs, &in->nsymcovs, paths[i]);
		if (k == INPUT_DUMP)
			push(&in->dumps, &in->ndumps, paths[i]);
	}
	return 0;
}

/* The binary a .sancov file belongs to: NAME.PID.sancov, else NAME.sancov. */
static struct binary *sancov_binary(struct inputs *in, const char *path)
{
	char *mod = sancov_module_name(path);
	const char *base = path_basename(path);
	size_t n = strlen(base);
	struct binary *b = NULL;

	if (!mod && n > 7 && !strcmp(base + n - 7, ".sancov")) {
		mod = xstrdup(base);
		mod[n - 7] = '\0';
	}
	for (size_t i = 0; mod && i < in->nbins && !b; i++)
		if (!strcmp(in->bins[i].name, mod))
			b = &in->bins[i];
	if (!b)
		msg_error("%s: object file for coverage not found: no binary "
			  "named '%s' among the inputs (.sancov files are "
			  "matched by the name before .PID.sancov)", path,
			  mod ? mod : base);
	free(mod);
	return b;
}

/* A .sancov of b holds at most one offset per 5 bytes of b's file: its
 * coverage points are 5-byte calls in the file's code. */
static int read_sancov_of(struct binary *b, const char *path)
{
	uint64_t max = SANCOV_MAX_POINTS;
	struct stat st;
	char *what = NULL;
	int bits = 0, r;

	if (stat(b->path, &st) == 0 && (uint64_t)st.st_size / 5 < max) {
		max = (uint64_t)st.st_size / 5;
		what = xasprintf("%s (%lld bytes)", b->path,
				 (long long)st.st_size);
	}
	r = sancov_load_max(path, &b->covered, &bits, max, what);
	free(what);
	return r;
}

static int read_sancovs(struct inputs *in)
{
	for (size_t i = 0; i < in->nsancovs; i++) {
		struct binary *b = sancov_binary(in, in->sancovs[i]);

		if (!b || read_sancov_of(b, in->sancovs[i]) < 0)
			return -1;
		b->has_coverage = true;
	}
	return 0;
}

/* A dump module's binary: by build-id among the inputs, else the
 * recorded path if it is the same build (docs/FORMATS.md §3). */
static struct binary *module_binary(struct inputs *in, const char *dump,
				    const struct dump_module *m)
{
	struct bin_candidate rec;
	enum bin_verdict v;

	for (size_t i = 0; i < in->nbins; i++)
		if (bin_matches(m, &in->bins[i].bc))
			return &in->bins[i];
	v = bin_check_recorded(m, &rec);
	if (v != BIN_FOUND)
		bin_warn(dump, m, v, &rec, m->pcs.n, "are skipped");
	else if (add_binary(in, m->path) == 0)
		return &in->bins[in->nbins - 1];
	return NULL;
}

static int read_dumps(struct inputs *in)
{
	for (size_t i = 0; i < in->ndumps; i++) {
		struct dump d;
		bool empty;

		if (dump_load(in->dumps[i], &d) < 0)
			return -1;
		empty = !d.ncmps;	/* a CMP dump has records, not PCs */
		for (size_t k = 0; k < d.nmods; k++) {
			struct binary *b;

			if (!d.mods[k].pcs.n)
				continue;
			empty = false;
			b = module_binary(in, in->dumps[i], &d.mods[k]);
			if (!b)
				continue;
			pcvec_append(&b->covered, &d.mods[k].pcs);
			b->has_coverage = true;
		}
		if (empty && !in->empty_dump)
			in->empty_dump = in->dumps[i];
		dump_free(&d);
	}
	return 0;
}

static int cmp_binary(const void *a, const void *b)
{
	return strcmp(((const struct binary *)a)->path,
		      ((const struct binary *)b)->path);
}

/* Symbolize each binary with coverage; symcovs are read as they are. */
static int collect(struct inputs *in, const struct cov_opts *co,
		   struct strtab *strs, struct symcov **v, size_t *n)
{
	for (size_t i = 0; i < in->nsymcovs; i++) {
		v[*n] = xmalloc(sizeof(**v));
		symcov_init(v[*n], strs);
		if (symcov_load(in->symcovs[i], v[(*n)++]) < 0)
			return -1;
	}
	if (in->nbins > 1)
		qsort(in->bins, in->nbins, sizeof(*in->bins), cmp_binary);
	for (size_t i = 0; i < in->nbins; i++) {
		struct binary *b = &in->bins[i];

		if (!b->has_coverage) {
			msg_warn("no coverage file for %s", b->path);
			continue;
		}
		pcvec_sort_unique(&b->covered, true);
		v[*n] = xmalloc(sizeof(**v));
		symcov_init(v[*n], strs);
		if (symcov_from_binary(b->path, &b->covered, b->path, co,
				       v[(*n)++]) < 0)
			return -1;
	}
	return 0;
}

static void free_inputs(struct inputs *in)
{
	for (size_t i = 0; i < in->nbins; i++) {
		pcvec_free(&in->bins[i].covered);
		free(in->bins[i].path);
	}
	free(in->bins);
	free(in->symcovs);
	free(in->dumps);
	free(in->sancovs);
}

int symbolize_inputs(char *const *paths, size_t npaths,
		     const struct cov_opts *opts, struct symcov *out,
		     struct strtab *strs)
{
	struct inputs in = { 0 };
	struct cov_opts co = *opts;
	struct symcov **v = NULL;
	size_t n = 0;
	int r = EXIT_DATA;

	if (sort_inputs(paths, npaths, &in) < 0 || read_sancovs(&in) < 0 ||
	    read_dumps(&in) < 0)
		goto out;
	/* The hash shows in .symcov output and decides unions. */
	co.need_hash = co.need_hash || in.nsymcovs || in.nbins > 1;
	v = xcalloc(in.nsymcovs + in.nbins + 1, sizeof(struct symcov *));
	if (collect(&in, &co, strs, v, &n) < 0)
		goto out;
	if (n == 0 && in.empty_dump) {
		msg_error("%s: a valid dump, but empty: its run recorded no "
			  "covered point", in.empty_dump);
		goto out;
	}
	if (n == 0) {
		msg_error("no valid coverage files given (need a binary with "
			  "its .sancov files or dumps, or .symcov files)");
		goto out;
	}
	symcov_init(out, strs);
	symcov_union(v, n, out);
	r = 0;
out:
	for (size_t i = 0; i < n; i++) {
		symcov_free(v[i]);
		free(v[i]);
	}
	free(v);
	free_inputs(&in);
	return r;
}
