/*
 * tools/ukcov.c -- ukcov(1): command dispatch, option parsing, help.
 *
 * Both spellings work: "ukcov print FILE" and sancov's "ukcov -print
 * FILE"; options may be written --strip-path-prefix=X or sancov's
 * -strip_path_prefix=X, booleans as --no-demangle or -demangle=0.
 */
#include "ukcov.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ukcov/kcov.h>

#include "inputs.h"

struct command {
	const char *name;
	const char *sancov_name;	/* sancov's action spelling, or NULL */
	command_fn fn;
};

static const struct command commands[] = {
	{ "run", NULL, cmd_run },
	{ "print", "print", cmd_print },
	{ "merge", "merge", cmd_merge },
	{ "diff", NULL, cmd_diff },
	{ "missing", NULL, cmd_missing },
	{ "print-coverage-pcs", "print-coverage-pcs", cmd_print_points },
	{ "covered-functions", "covered-functions", cmd_covered_functions },
	{ "not-covered-functions", "not-covered-functions",
	  cmd_not_covered_functions },
	{ "stats", "print-coverage-stats", cmd_stats },
	{ "symbolize", "symbolize", cmd_symbolize },
	{ "rawunpack", NULL, cmd_rawunpack },
	{ "lcov", NULL, cmd_lcov },
	{ "cobertura", NULL, cmd_cobertura },
	{ "report", "html-report", cmd_report },
	{ "cmp", NULL, cmd_cmp },
	{ "trace", NULL, cmd_trace },
	{ "serve", NULL, cmd_serve },
};

#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

static const char usage_text[] =
"usage: ukcov COMMAND [OPTIONS] FILE...\n"
"\n"
"Collect:\n"
"  run [--mode unique|pc|cmp|cmp-unique] [--size N] [--bitmap N]\n"
"      [--threads main|all] [--no-follow] [--raw] [-o DUMP] -- PROG ARGS\n"
"                          run PROG and its children with kcov; save each\n"
"                          point covered, once (--mode unique), to DUMP\n"
"                          (- for stdout; default ukcov.PID.dump)\n"
"  run --remote HANDLE[,HANDLE...] [--common] [--mode pc|cmp] [-o DUMP]\n"
"      -- CLIENT ARGS      collect the remote sections of those handles\n"
"                          (any process) while CLIENT runs\n"
"Raw coverage (.sancov, ukcov dumps):\n"
"  print [--lines] FILE... covered PCs, one file after another;\n"
"                          --lines: dumps symbolized (BINs by build-id)\n"
"  merge [-o OUT] FILE...  union of .sancov files, dumps or .symcov files\n"
"  diff [-o OUT] A B       PCs covered in A and not in B\n"
"  missing BIN [COV...]    coverage points of BIN not covered\n"
"  rawunpack FILE.sancov.raw...  split raw PCs + .sancov.map by module\n"
"  trace FILE              caller-callee or trace-* file, symbolized\n"
"  print-coverage-pcs BIN...     every coverage point of the binaries\n"
"Symbolized (inputs: binaries with .sancov files or dumps, .symcov):\n"
"  symbolize               .symcov JSON, as sancov -symbolize\n"
"  covered-functions, not-covered-functions, stats\n"
"  lcov [--test-name T]    lcov tracefile for genhtml\n"
"  cobertura               Cobertura XML (coverage-04.dtd)\n"
"  report [-o DIR|FILE.html]  HTML report: pages in DIR, or one page\n"
"  serve [--port N] [--bind ADDR] INPUT|DIR...  the report over HTTP, live\n"
"  cmp [--modules FILE|BIN...] BUF   decode a kcov CMP buffer or cmp dump\n"
"\n"
"Options:\n"
"  -o, --output FILE       write to FILE instead of stdout\n"
"  --strip-path-prefix P   drop source paths up to and including P\n"
"  --ignorelist FILE       sancov ignorelist (fun:/src: patterns)\n"
"  --no-default-ignorelist, --no-demangle, --no-skip-dead-files\n"
"  --source-root DIR       where report sources are (default: as recorded)\n"
"  --allow-missing-sources report: render files whose source is missing\n"
"  -h, --help              this text;  --version  the version\n"
"\n"
"See ukcov(1).  Exit status: 0 success, 1 bad input, 2 usage error.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

/* Canonical option name: no leading dashes, '_' -> '-'. */
static char *canon(const char *arg, const char **value)
{
	const char *s = arg;
	const char *eq;
	char *name;

	while (*s == '-')
		s++;
	eq = strchr(s, '=');
	*value = eq ? eq + 1 : NULL;
	name = xstrdup(s);
	if (eq)
		name[eq - s] = '\0';
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = '-';
	return name;
}

static bool parse_bool(const char *name, const char *v, bool *out)
{
	if (!v || !strcmp(v, "1") || !strcmp(v, "true")) {
		*out = true;
	} else if (!strcmp(v, "0") || !strcmp(v, "false")) {
		*out = false;
	} else {
		msg_error("option %s: expected 0 or 1, got '%s'", name, v);
		return false;
	}
	return true;
}

struct opt_def {
	const char *name;
	const char *alias;
	int kind;		/* 's' string, 'b' bool, 'n' number */
	size_t off;
};

#define OFF(f) offsetof(struct options, f)
static const struct opt_def opt_defs[] = {
	{ "o", "output", 's', OFF(output) },
	{ "strip-path-prefix", NULL, 's', OFF(strip_prefix) },
	{ "ignorelist", "blacklist", 's', OFF(ignorelist) },
	{ "demangle", NULL, 'b', OFF(demangle) },
	{ "skip-dead-files", NULL, 'b', OFF(skip_dead) },
	{ "use-default-ignorelist", "use-default-blacklist", 'b',
	  OFF(default_ignorelist) },
	{ "default-ignorelist", NULL, 'b', OFF(default_ignorelist) },
	{ "mode", NULL, 's', OFF(mode) },
	{ "size", NULL, 'n', OFF(size) },
	{ "bitmap", NULL, 'n', OFF(bitmap) },
	{ "threads", NULL, 's', OFF(threads) },
	{ "remote", NULL, 's', OFF(remote) },
	{ "common", NULL, 'b', OFF(common) },
	{ "raw", NULL, 'b', OFF(raw) },
	{ "follow", NULL, 'b', OFF(follow) },
	{ "lines", NULL, 'b', OFF(lines) },
	{ "source-root", NULL, 's', OFF(source_root) },
	{ "allow-missing-sources", NULL, 'b', OFF(allow_missing_sources) },
	{ "title", NULL, 's', OFF(title) },
	{ "test-name", NULL, 's', OFF(test_name) },
	{ "modules", NULL, 's', OFF(modules) },
	{ "port", NULL, 's', OFF(port) },
	{ "bind", NULL, 's', OFF(bind) },
};

static const struct opt_def *find_opt(const char *name, bool *negated)
{
	*negated = false;
	if (strncmp(name, "no-", 3) == 0) {
		*negated = true;
		name += 3;
	}
	for (size_t i = 0; i < sizeof(opt_defs) / sizeof(*opt_defs); i++) {
		const struct opt_def *d = &opt_defs[i];

		if (!strcmp(name, d->name) || (d->alias && !strcmp(name,
								   d->alias)))
			return (*negated && d->kind != 'b') ? NULL : d;
	}
	return NULL;
}

static int set_opt(struct options *o, const struct opt_def *d, bool neg,
		   const char *name, const char *v)
{
	char *base = (char *)o + d->off;
	char *end;

	switch (d->kind) {
	case 'b':
		if (!parse_bool(name, v, (bool *)base))
			return EXIT_USAGE;
		if (neg)
			*(bool *)base = !*(bool *)base;
		return 0;
	case 'n':
		*(unsigned long *)base = strtoul(v, &end, 0);
		if (!*v || *end || *(unsigned long *)base == 0) {
			msg_error("option %s: expected a positive number, got "
				  "'%s'", name, v);
			return EXIT_USAGE;
		}
		return 0;
	default:
		*(const char **)base = v;
		return 0;
	}
}

/* One option at argv[*i]; may consume the next argument as its value. */
static int parse_option(struct options *o, int argc, char **argv, int *i)
{
	const char *v;
	char *name = canon(argv[*i], &v);
	bool neg;
	const struct opt_def *d = find_opt(name, &neg);
	int r = 0;

	if (!d) {
		msg_error("unknown option '%s' (see ukcov --help)", argv[*i]);
		r = EXIT_USAGE;
	} else if (d->kind != 'b' && !v) {
		if (*i + 1 >= argc) {
			msg_error("option '%s' needs a value", argv[*i]);
			r = EXIT_USAGE;
		} else {
			v = argv[++*i];
		}
	}
	if (!r)
		r = set_opt(o, d, neg, argv[*i], v);
	free(name);
	return r;
}

static const struct command *find_command(const char *arg, bool dashed)
{
	const char *v;
	char *name = canon(arg, &v);
	const struct command *c = NULL;

	for (size_t i = 0; i < NCOMMANDS && !c; i++) {
		if (dashed ? commands[i].sancov_name && !v &&
				     !strcmp(name, commands[i].sancov_name)
			   : !strcmp(arg, commands[i].name))
			c = &commands[i];
	}
	free(name);
	return c;
}

static void set_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->demangle = o->skip_dead = o->default_ignorelist = true;
	o->mode = "unique";
	o->threads = "main";
	o->follow = true;
	o->size = 1UL << 20;
}

/* "ukcov serve --help": the command's own usage, not the overview. */
static int special_flag(const char *cmd, const char *a)
{
	if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
		if (cmd && !strcmp(cmd, "serve"))
			serve_usage(stdout);
		else
			usage(stdout);
		return 0;
	}
	if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
		printf("ukcov %s\n", UKCOV_VERSION_STRING);
		return 0;
	}
	return -1;
}

/* Parse everything; "--" ends options (what follows is run's PROG). */
static int parse_args(int argc, char **argv, struct options *o,
		      const struct command **cmd)
{
	o->args = xcalloc((size_t)argc + 1, sizeof(*o->args));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct command *c;
		int r;

		if (!strcmp(a, "--")) {
			while (++i < argc)
				o->args[o->nargs++] = argv[i];
			break;
		}
		c = a[0] == '-' ? find_command(a, true)
				: (!*cmd ? find_command(a, false) : NULL);
		if (c && *cmd) {
			msg_error("only one command at a time: '%s' and '%s'",
				  (*cmd)->name, c->name);
			return EXIT_USAGE;
		}
		if (c) {
			*cmd = c;
			o->sancov_spelling = a[0] == '-';
		} else if (a[0] == '-' && a[1]) {
			if ((r = parse_option(o, argc, argv, &i)))
				return r;
		} else {
			o->args[o->nargs++] = argv[i];
			/* run: PROG's own options are not ours. */
			while (*cmd && (*cmd)->fn == cmd_run && ++i < argc)
				o->args[o->nargs++] = argv[i];
		}
	}
	return 0;
}

int emit(const struct options *o, const struct strbuf *sb)
{
	int r = write_output(o->output, sb->s ? sb->s : "", sb->n);

	if (r < 0) {
		msg_error("%s: %s", o->output ? o->output : "<stdout>",
			  strerror(-r));
		return EXIT_DATA;
	}
	return 0;
}

static int make_cov_opts(const struct options *o, struct cov_opts *co)
{
	memset(co, 0, sizeof(*co));
	co->demangle = o->demangle;
	co->skip_dead = o->skip_dead;
	co->strip_prefix = o->strip_prefix;
	co->need_hash = o->need_hash;
	co->model = o->model;
	co->dflt = o->default_ignorelist ? ignorelist_default() : NULL;
	if (o->ignorelist && !(co->user = ignorelist_load(o->ignorelist))) {
		ignorelist_free(co->dflt);
		return EXIT_DATA;
	}
	return 0;
}

static void free_cov_opts(struct cov_opts *co)
{
	ignorelist_free(co->dflt);
	ignorelist_free(co->user);
}

int load_symbolized(struct options *o, struct symcov *out,
		    struct strtab *strs)
{
	struct cov_opts co;
	int r = make_cov_opts(o, &co);

	if (r == 0)
		r = symbolize_inputs(o->args, (size_t)o->nargs, &co, out, strs);
	free_cov_opts(&co);
	return r;
}

int main(int argc, char **argv)
{
	struct options o;
	const struct command *cmd = NULL;
	int r;

	children_waitable();
	if (argc > 1 && !strcmp(argv[1], "fuzz"))	/* libFuzzer's flags */
		return cmd_fuzz_main(argc - 1, argv + 1);
	set_defaults(&o);
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if ((r = special_flag(argv[1], argv[i])) >= 0)
			return r;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	r = parse_args(argc, argv, &o, &cmd);
	if (!r && !cmd) {
		msg_error("no command given (see ukcov --help)");
		r = EXIT_USAGE;
	}
	if (!r)
		r = cmd->fn(&o);
	free(o.args);
	return r;
}
