/*
 * tools/cmd_trace.c -- "ukcov trace FILE": the caller-callee and
 * basic-block trace files of the runtime (docs/FORMATS.md §1d),
 * symbolized.  Neither LLVM's sancov nor sancov.py ever read them.
 *
 *   caller-callee.PID.sancov  one line per pair: CALLER -> CALLEE
 *   trace-points.PID.sancov   one line per point: INDEX POINT
 *   trace-events.PID.sancov   one line per event: THREAD INDEX POINT,
 *                             with trace-points and trace-threads of the
 *                             same pid, next to it (THREAD "-" without
 *                             a trace-threads file, as the old
 *                             single-threaded runtime wrote them)
 *
 * POINT is "module+0xoffset function file:line:column" (tools/printer.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "printer.h"
#include "ukcov.h"

/* The point lines of a file, as (module index, offset); modules by
 * path in d, -1 for "<unknown>" (then the offset is the address). */
struct points {
	int *mod;
	uint64_t *off;
	size_t n;
};

static int module_index(struct dump *d, const char *path, size_t len)
{
	for (size_t i = 0; i < d->nmods; i++)
		if (strlen(d->mods[i].path) == len &&
		    memcmp(d->mods[i].path, path, len) == 0)
			return (int)i;
	{
		char *p = xmalloc(len + 1);
		size_t k;

		memcpy(p, path, len);
		p[len] = '\0';
		k = dump_add_module(d, p, NULL, 0, 0, 0, UINT64_MAX);
		free(p);
		return (int)k;
	}
}

/* "module 0xoffset\n" lines; the module may hold spaces, the offset
 * is after the last one.  0, or -1 after a message. */
static int parse_points(const char *file, const char *buf, size_t len,
			struct dump *d, struct points *pts)
{
	size_t line = 0;

	for (size_t at = 0; at < len; line++) {
		const char *nl = memchr(buf + at, '\n', len - at);
		const char *s = buf + at, *e, *sp;
		uint64_t off;

		if (!nl) {
			msg_error("%s:%zu: the last line has no newline", file,
				  line + 1);
			return -1;
		}
		e = nl;
		for (sp = e; sp > s && sp[-1] != ' '; sp--)
			;
		if (sp <= s + 1 || e - sp < 3 || sp[0] != '0' || sp[1] != 'x' ||
		    !parse_hex_u64(sp + 2, (size_t)(e - sp - 2), &off)) {
			msg_error("%s:%zu: not a point line \"module 0xoffset\"",
				  file, line + 1);
			return -1;
		}
		pts->mod = xrealloc(pts->mod, (pts->n + 1) * sizeof(*pts->mod));
		pts->off = xrealloc(pts->off, (pts->n + 1) * sizeof(*pts->off));
		pts->mod[pts->n] = (sp - 1 - s == 9 && memcmp(s, "<unknown>", 9) == 0)
			? -1 : module_index(d, s, (size_t)(sp - 1 - s));
		pts->off[pts->n] = off;
		/* The module's points, for the count a warning gives. */
		if (pts->mod[pts->n] >= 0)
			pcvec_push(&d->mods[pts->mod[pts->n]].pcs, off);
		pts->n++;
		at = (size_t)(nl - buf) + 1;
	}
	return 0;
}

/* What load_points() filled in, freed. */
static void points_free(struct points *pts, struct dump *d)
{
	free(pts->mod);
	free(pts->off);
	dump_free(d);
}

static int load_points(const char *file, struct dump *d, struct points *pts)
{
	char *buf;
	size_t len;
	int e = read_whole_file(file, &buf, &len), r;

	if (e < 0) {
		msg_error("%s: %s", file, strerror(-e));
		return -1;
	}
	r = parse_points(file, buf, len, d, pts);
	free(buf);
	return r;
}

/* A file of host-order u32s; NULL after a message (missing: quiet if
 * optional, *n = SIZE_MAX). */
static uint32_t *load_u32s(const char *file, size_t *n, bool optional)
{
	char *buf;
	size_t len;
	int e = read_whole_file(file, &buf, &len);
	uint32_t *v;

	if (e < 0) {
		if (!(optional && e == -ENOENT))
			msg_error("%s: %s", file, strerror(-e));
		*n = SIZE_MAX;
		return NULL;
	}
	if (len % 4) {
		msg_error("%s: %zu bytes, not a whole number of 4-byte "
			  "records", file, len);
		free(buf);
		*n = 0;
		return NULL;
	}
	*n = len / 4;
	v = xmalloc(len ? len : 1);
	memcpy(v, buf, len);
	free(buf);
	return v;
}

static void put_point(struct printer *p, struct strbuf *sb,
		      const struct points *pts, size_t i)
{
	printer_put_point(p, sb, pts->mod[i], pts->off[i]);
}

static int print_pairs(const char *file, const struct options *o,
		       struct strbuf *sb)
{
	struct dump d = { 0 };
	struct points pts = { 0 };
	struct printer *p;
	int r = load_points(file, &d, &pts);

	if (r == 0 && pts.n % 2) {
		msg_error("%s: %zu lines, not pairs of lines", file, pts.n);
		r = -1;
	}
	if (r == 0) {
		p = printer_new(&d, file, o);
		for (size_t i = 0; i + 1 < pts.n; i += 2) {
			put_point(p, sb, &pts, i);
			sb_puts(sb, " -> ");
			put_point(p, sb, &pts, i + 1);
			sb_puts(sb, "\n");
		}
		printer_delete(p);
	}
	points_free(&pts, &d);
	return r;
}

/* dir/"what".PID.sancov for the trace file `file` (trace-*.PID.sancov). */
static char *sibling(const char *file, const char *what)
{
	const char *base = path_basename(file), *dot = strchr(base, '.');

	return xasprintf("%.*s%s%s", (int)(base - file), file, what, dot);
}

/* Each point's text once; events repeat them. */
static char **render_points(const char *file, struct dump *d,
			    const struct points *pts, const struct options *o)
{
	struct printer *p = printer_new(d, file, o);
	char **text = xcalloc(pts->n + 1, sizeof(*text));

	for (size_t i = 0; i < pts->n; i++) {
		struct strbuf one = { 0 };

		put_point(p, &one, pts, i);
		text[i] = xstrdup(one.s ? one.s : "");
		sb_free(&one);
	}
	printer_delete(p);
	return text;
}

static int print_events(const char *file, const char *points_file,
			const char *threads_file, const struct options *o,
			struct strbuf *sb)
{
	struct dump d = { 0 };
	struct points pts = { 0 };
	size_t n, nt;
	uint32_t *ev = NULL, *th = NULL;
	char **text = NULL;
	int r = load_points(points_file, &d, &pts);

	if (r == 0 && !(ev = load_u32s(file, &n, false)))
		r = -1;
	if (r == 0 && !(th = load_u32s(threads_file, &nt, true)) &&
	    nt != SIZE_MAX)
		r = -1;
	if (r == 0 && th && nt != n) {
		msg_error("%s: %zu records for %zu events in %s", threads_file,
			  nt, n, file);
		r = -1;
	}
	for (size_t i = 0; r == 0 && i < n; i++)
		if (ev[i] >= pts.n) {
			msg_error("%s: event %zu is point %u; %s has %zu", file,
				  i, ev[i], points_file, pts.n);
			r = -1;
		}
	if (r == 0) {
		text = render_points(points_file, &d, &pts, o);
		for (size_t i = 0; i < n; i++) {
			if (th)
				sb_printf(sb, "%u ", th[i]);
			else
				sb_puts(sb, "- ");
			sb_printf(sb, "%u %s\n", ev[i], text[ev[i]]);
		}
		for (size_t i = 0; i < pts.n; i++)
			free(text[i]);
		free(text);
	}
	free(ev);
	free(th);
	points_free(&pts, &d);
	return r;
}

static int print_points(const char *file, const struct options *o,
			struct strbuf *sb)
{
	struct dump d = { 0 };
	struct points pts = { 0 };
	int r = load_points(file, &d, &pts);

	if (r == 0) {
		char **text = render_points(file, &d, &pts, o);

		for (size_t i = 0; i < pts.n; i++) {
			sb_printf(sb, "%zu %s\n", i, text[i]);
			free(text[i]);
		}
		free(text);
	}
	points_free(&pts, &d);
	return r;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int cmd_trace(struct options *o)
{
	struct strbuf sb = { 0 };
	const char *file, *base;
	int r;

	if (o->nargs != 1) {
		msg_error("trace takes one caller-callee, trace-points or "
			  "trace-events file");
		return EXIT_USAGE;
	}
	file = o->args[0];
	base = path_basename(file);
	if (starts(base, "caller-callee."))
		r = print_pairs(file, o, &sb);
	else if (starts(base, "trace-points."))
		r = print_points(file, o, &sb);
	else if (starts(base, "trace-events.")) {
		char *pf = sibling(file, "trace-points");
		char *tf = sibling(file, "trace-threads");

		r = print_events(file, pf, tf, o, &sb);
		free(pf);
		free(tf);
	} else {
		msg_error("%s: not a caller-callee.PID.sancov, "
			  "trace-points.PID.sancov or trace-events.PID.sancov "
			  "file", file);
		sb_free(&sb);
		return EXIT_USAGE;
	}
	if (r == 0)
		r = emit(o, &sb);
	else
		r = EXIT_DATA;
	sb_free(&sb);
	return r;
}
