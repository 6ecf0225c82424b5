/*
 * tools/ukcov.h -- the command-line options and the commands of ukcov(1).
 */
#ifndef UKCOV_TOOLS_UKCOV_H
#define UKCOV_TOOLS_UKCOV_H

#include "coverage.h"
#include "sancov_file.h"

struct options {
	const char *output;		/* -o FILE; NULL = stdout */
	const char *strip_prefix;	/* --strip-path-prefix */
	const char *ignorelist;		/* --ignorelist (sancov -blacklist) */
	bool demangle, skip_dead, default_ignorelist;
	const char *mode;		/* run: unique | pc | cmp | cmp-unique */
	unsigned long size;		/* run: buffer words */
	unsigned long bitmap;		/* run: bitmap words (unique), 0 auto */
	const char *threads;		/* run: main | all */
	const char *remote;		/* run: --remote HANDLE[,HANDLE...] */
	bool common;			/* run: --common (with --remote) */
	bool raw;			/* run: print the raw trace */
	bool follow;			/* run: the whole process tree */
	bool lines;			/* print: symbolize each point */
	const char *source_root;	/* reports: where sources live */
	bool allow_missing_sources;	/* report: render without text */
	const char *title;		/* report title */
	const char *test_name;		/* lcov TN: */
	const char *modules;		/* cmp: module table for PCs */
	const char *port;		/* serve: TCP port */
	const char *bind;		/* serve: listening address */
	bool need_hash;			/* output shows the binary's SHA-1 */
	bool sancov_spelling;		/* the command was named the sancov
					 * way (-print-coverage-stats) */
	bool model;			/* lines and functions from basic
					 * blocks and DWARF (lines.h) */
	char **args;			/* positional arguments */
	int nargs;
};

typedef int (*command_fn)(struct options *o);

int cmd_print(struct options *o);
int cmd_print_points(struct options *o);
int cmd_merge(struct options *o);
int cmd_diff(struct options *o);
int cmd_missing(struct options *o);
int cmd_covered_functions(struct options *o);
int cmd_not_covered_functions(struct options *o);
int cmd_stats(struct options *o);
int cmd_symbolize(struct options *o);
int cmd_rawunpack(struct options *o);
int cmd_lcov(struct options *o);
int cmd_cobertura(struct options *o);
int cmd_report(struct options *o);
int cmd_cmp(struct options *o);
int cmd_trace(struct options *o);
int cmd_run(struct options *o);
int cmd_serve(struct options *o);
int cmd_fuzz_main(int argc, char **argv);
void serve_usage(FILE *f);

/*
 * Classify the inputs of a symbolizing command (binaries, .sancov files,
 * .symcov files, ukcov dumps), symbolize and unite them into out.
 * Returns 0, or an exit code after printing why.
 */
int load_symbolized(struct options *o, struct symcov *out,
		    struct strtab *strs);


/* Write sb to -o or stdout; returns 0 or EXIT_DATA after a message. */
int emit(const struct options *o, const struct strbuf *sb);

#endif
