/*
 * tools/cmd_report.h -- what `ukcov report` and `ukcov serve` share: the
 * inputs named on every page, and report_opts from the command line.
 */
#ifndef UKCOV_TOOLS_CMD_REPORT_H
#define UKCOV_TOOLS_CMD_REPORT_H

#include "report.h"
#include "ukcov.h"

struct report_inputs {
	char **text;	/* "binary PATH, build-id HEX", "dump PATH: ..." */
	size_t n;
};

void report_inputs_describe(const struct options *o, struct report_inputs *ri);
void report_inputs_free(struct report_inputs *ri);
/* ro points into o and ri: they must outlive it. */
void report_opts_from(const struct options *o, const struct report_inputs *ri,
		      struct report_opts *ro);
/* One warning for the file pages rendered without their source. */
void report_warn_missing(const struct report_opts *ro, const struct site *s);

#endif
