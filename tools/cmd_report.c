/*
 * tools/cmd_report.c -- the report commands of ukcov(1): lcov, cobertura
 * and report (one page, or a directory of pages).  The glue between the
 * command line (struct options) and the renderers of report.h, which
 * know nothing of it; `ukcov serve` shares it.
 */
#include "ukcov.h"

#include <stdlib.h>
#include <string.h>

#include "cmd_report.h"
#include "dump.h"
#include "elfpoints.h"

/* Inputs named on every page; a fuzzer's directory may hold thousands. */
#define MAX_DESCRIBED 24

static char *describe_binary(const char *path)
{
	struct elf_info e;
	char err[ERRLEN], id[129];

	if (elf_read_info(path, &e, err) < 0)
		return xasprintf("binary %s", path);
	build_id_hex(e.build_id, e.build_id_len, id);
	return xasprintf("binary %s, build-id %s", path, id);
}

/* A dump: its file and the modules it has PCs for. */
static char *describe_dump(const char *path)
{
	struct dump d;
	struct strbuf sb = { 0 };
	char *s;

	sb_printf(&sb, "dump %s", path);
	if (dump_load(path, &d) == 0) {
		const char *sep = ": ";

		for (size_t k = 0; k < d.nmods; k++) {
			char id[129];

			if (!d.mods[k].pcs.n)
				continue;
			build_id_hex(d.mods[k].build_id, d.mods[k].build_id_len,
				     id);
			sb_printf(&sb, "%s%s (build-id %s, %zu PCs)", sep,
				  d.mods[k].path, id, d.mods[k].pcs.n);
			sep = ", ";
		}
		dump_free(&d);
	}
	s = xstrdup(sb.s);
	sb_free(&sb);
	return s;
}

static char *describe_input(const char *path)
{
	char head[64];
	size_t n = 0;

	if (read_head(path, head, sizeof(head), &n) < 0)
		n = 0;
	if (is_elf_image(head, n))
		return describe_binary(path);
	if (sancov_has_magic(head, n))
		return xasprintf(".sancov %s", path);
	if (dump_looks_like(head, n))
		return describe_dump(path);
	return xasprintf(".symcov %s", path);
}

void report_inputs_describe(const struct options *o, struct report_inputs *ri)
{
	size_t n = (size_t)o->nargs;

	ri->n = n > MAX_DESCRIBED ? MAX_DESCRIBED + 1 : n;
	ri->text = xcalloc(ri->n + 1, sizeof(*ri->text));
	for (size_t i = 0; i < n && i < MAX_DESCRIBED; i++)
		ri->text[i] = describe_input(o->args[i]);
	if (n > MAX_DESCRIBED)
		ri->text[MAX_DESCRIBED] = xasprintf("and %zu more inputs",
						    n - MAX_DESCRIBED);
}

void report_inputs_free(struct report_inputs *ri)
{
	for (size_t i = 0; i < ri->n; i++)
		free(ri->text[i]);
	free(ri->text);
	ri->text = NULL;
	ri->n = 0;
}

void report_opts_from(const struct options *o, const struct report_inputs *ri,
		      struct report_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->title = o->title;
	ro->source_root = o->source_root;
	ro->strip_prefix = o->strip_prefix;
	ro->test_name = o->test_name;
	ro->allow_missing_sources = o->allow_missing_sources;
	ro->inputs = (const char *const *)ri->text;
	ro->ninputs = ri->n;
	ro->date = report_time();
}

/* Symbolize the inputs, build the report, hand it to fn. */
static int with_built_report(struct options *o,
			     int (*fn)(struct options *o,
				       const struct report_opts *ro,
				       const struct report *rep, void *arg),
			     void *arg)
{
	struct strtab strs = { 0 };
	struct report_inputs ri = { 0 };
	struct report_opts ro;
	struct symcov sc;
	struct report rep;
	int r;

	if (o->nargs < 1) {
		msg_error("missing inputs (see ukcov --help)");
		return EXIT_USAGE;
	}
	o->model = true;
	r = load_symbolized(o, &sc, &strs);
	if (!r) {
		report_build(&sc, &rep);
		report_inputs_describe(o, &ri);
		report_opts_from(o, &ri, &ro);
		r = fn(o, &ro, &rep, arg);
		report_inputs_free(&ri);
		report_free(&rep);
		symcov_free(&sc);
	}
	strtab_free(&strs);
	return r;
}

struct renderer {
	report_render_fn fn;
};

static int render_and_emit(struct options *o, const struct report_opts *ro,
			   const struct report *rep, void *arg)
{
	const struct renderer *rd = arg;
	struct strbuf sb = { 0 };
	int r = rd->fn(ro, rep, &sb);

	if (!r)
		r = emit(o, &sb);
	sb_free(&sb);
	return r;
}

static int with_report(struct options *o, report_render_fn render)
{
	struct renderer rd = { render };

	return with_built_report(o, render_and_emit, &rd);
}

int cmd_lcov(struct options *o)
{
	/* lcov names functions by linkage name (genhtml --demangle-cpp);
	 * demangled C++ signatures contain the ',' that FN: lines split on. */
	o->demangle = false;
	return with_report(o, render_lcov);
}

int cmd_cobertura(struct options *o)
{
	return with_report(o, render_cobertura);
}

void report_warn_missing(const struct report_opts *ro, const struct site *s)
{
	size_t missing = s->missing_sources - s->refused_sources,
	       refused = s->refused_sources;

	if (missing)
		msg_warn("%zu source file%s not found; their pages say so "
			 "(--source-root DIR, --strip-path-prefix P)",
			 missing, missing > 1 ? "s" : "");
	if (refused && ro->source_root)
		msg_warn("%zu source file%s outside --source-root %s: not "
			 "read, %s", refused, refused > 1 ? "s" : "",
			 ro->source_root, refused > 1 ? "their pages say so"
						     : "its page says so");
	else if (refused)
		msg_warn("%zu source file%s not named by the debug info of a "
			 "binary on the command line: not read, %s (or give "
			 "--source-root DIR)", refused, refused > 1 ? "s" : "",
			 refused > 1 ? "their pages say so"
				     : "its page says so");
}

static int write_site(struct options *o, const struct report_opts *ro,
		      const struct report *rep, void *arg)
{
	struct site s;
	int r;

	(void)arg;
	site_build(ro, rep, &s);
	report_warn_missing(ro, &s);
	r = site_write(&s, o->output) < 0 ? EXIT_DATA : 0;
	site_free(&s);
	return r;
}

/* -o PATH is a directory of pages unless it ends in ".html". */
static bool wants_single_page(const char *out)
{
	size_t n = out ? strlen(out) : 0;

	return !out || !strcmp(out, "-") ||
	       (n >= 5 && !strcmp(out + n - 5, ".html"));
}

int cmd_report(struct options *o)
{
	if (wants_single_page(o->output))
		return with_report(o, render_html_page);
	return with_built_report(o, write_site, NULL);
}
