/*
 * tools/fuzz.c -- "ukcov fuzz [options] [CORPUS_DIR...] -- HARNESS [ARGS]":
 * the loop.  Options are libFuzzer's names and spelling (-name=value).
 *
 * An input is kept when its unique PC coverage has a point no kept
 * input had.  Each kept input then runs twice with a CMP trace; the
 * comparisons with a constant that both runs saw become hints
 * (fuzz_mut.c), and every place of the input that holds one operand
 * gets the other spliced over it, one mutant each, as syzkaller's
 * hints job does.  The operands of the compare routines (memcmp,
 * strcmp...) that both runs saw are spliced the same way, as
 * libFuzzer's TORC table is used.  Between hint jobs, a random kept
 * input gets 1-5 byte mutations.
 */
#include "fuzz.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <nettle/sha1.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define EXIT_FUZZ_USAGE 2

struct fz_opts {
	long long runs;		/* -1: no limit */
	long long max_total_time;
	long long seed;
	long long max_len;
	long long jobs;
	long long timeout;	/* seconds */
	long long use_cmp;
	long long ignore_crashes;
	const char *dict;
	const char *artifact_prefix;
	char **dirs;
	int ndirs;
	char **harness;
};

/* One open-addressing set of stable PCs: what the corpus covers. */
struct pcset {
	uint64_t *slot;
	size_t cap, n;
};

struct corpus {
	struct fz_bytes *in;
	bool *hinted;
	size_t n;
	size_t bytes;
};

struct fuzzer {
	struct fz_opts o;
	struct fz_exec ex;
	struct fz_rng rng;
	struct fz_dict dict;
	struct pcset cov;
	struct pcset crash_sigs;
	struct corpus corp;
	struct fz_bytes *queue;	/* hint mutants still to run */
	size_t nqueue, qpos;
	double t0, last_line;
	uint64_t crashes;
	unsigned warned_drops;
	int rc;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Adds pc (not 0); true if it was new. */
static bool pcset_add(struct pcset *s, uint64_t pc)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct pcset big = { xcalloc(s->cap ? 2 * s->cap : 1024, 8),
				     s->cap ? 2 * s->cap : 1024, 0 };

		for (size_t k = 0; k < s->cap; k++)
			if (s->slot[k])
				pcset_add(&big, s->slot[k]);
		free(s->slot);
		*s = big;
	}
	for (i = mix(pc) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == pc)
			return false;
	s->slot[i] = pc;
	s->n++;
	return true;
}

static void sha1_hex(const uint8_t *p, size_t n, char out[41])
{
	static const char hx[] = "0123456789abcdef";
	uint8_t d[SHA1_DIGEST_SIZE];
	struct sha1_ctx c;

	sha1_init(&c);
	sha1_update(&c, n, p);
	sha1_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < SHA1_DIGEST_SIZE; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
	out[40] = '\0';
}

/* ---- options ---- */

static const char fuzz_usage_text[] =
"usage: ukcov fuzz [-flag=value ...] [CORPUS_DIR ...] -- HARNESS [ARGS]\n"
"  -runs=N             stop after N executions of the harness (-1: never)\n"
"  -max_total_time=S   stop after S seconds (0: never)\n"
"  -seed=N             random seed (0: from the clock)\n"
"  -max_len=N          longest input (default 4096)\n"
"  -timeout=S          an input running longer is a timeout (default 1200)\n"
"  -dict=FILE          AFL/libFuzzer dictionary\n"
"  -artifact_prefix=P  crash-/timeout- files go to P<kind>-<sha1>\n"
"  -use_cmp=0|1        comparison hints from the CMP trace (default 1)\n"
"  -ignore_crashes=0|1 go on after a crash, one file per crash stack\n"
"  -jobs=N             N fuzzers at once, seeds S..S+N-1, logs fuzz-J.log\n"
"HARNESS is a libFuzzer-style target whose main calls\n"
"__ukcov_fuzz_serve (ukcov-fuzz(1)).  New inputs go to the first CORPUS_DIR.\n";

struct int_flag {
	const char *name;
	size_t off;
	long long min, max;
};

#define IFLAG(n, lo, hi) { #n, offsetof(struct fz_opts, n), lo, hi }
static const struct int_flag int_flags[] = {
	IFLAG(runs, -1, LLONG_MAX),
	IFLAG(max_total_time, 0, 1LL << 40),
	IFLAG(seed, 0, UINT32_MAX),
	IFLAG(max_len, 1, 1LL << 26),
	IFLAG(jobs, 1, 256),
	IFLAG(timeout, 1, 1LL << 20),
	IFLAG(use_cmp, 0, 1),
	IFLAG(ignore_crashes, 0, 1),
};

static int usage_error(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "ukcov fuzz: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, " (see ukcov fuzz -help=1)\n");
	return EXIT_FUZZ_USAGE;
}

static int set_int_flag(struct fz_opts *o, const struct int_flag *f,
			const char *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (!*v || *end || errno)
		return usage_error("-%s wants an integer, not '%s'", f->name, v);
	if (x < f->min || x > f->max) {
		return usage_error("-%s=%s is out of range", f->name, v);
	}
	*(long long *)((char *)o + f->off) = x;
	return 0;
}

/* One "-name=value" argument. */
static int parse_flag(struct fz_opts *o, const char *a)
{
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a - 1) : 0;

	if (!eq || n == 0)
		return usage_error("'%s' is not -flag=value%s", a, "");
	for (size_t i = 0; i < sizeof(int_flags) / sizeof(*int_flags); i++)
		if (strlen(int_flags[i].name) == n &&
		    !strncmp(a + 1, int_flags[i].name, n))
			return set_int_flag(o, &int_flags[i], eq + 1);
	if (n == 4 && !strncmp(a + 1, "dict", 4)) {
		o->dict = eq + 1;
		return 0;
	}
	if (n == 15 && !strncmp(a + 1, "artifact_prefix", 15)) {
		o->artifact_prefix = eq + 1;
		return 0;
	}
	return usage_error("unknown flag '%s'%s", a, "");
}

static int parse_fuzz_args(int argc, char **argv, struct fz_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->runs = -1;
	o->max_len = 4096;
	o->jobs = 1;
	o->timeout = 1200;
	o->use_cmp = 1;
	o->artifact_prefix = "./";
	o->dirs = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		int r;

		if (!strcmp(argv[i], "--")) {
			o->harness = argv + i + 1;
			break;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			if ((r = parse_flag(o, argv[i])))
				return r;
		} else {
			o->dirs[o->ndirs++] = argv[i];
		}
	}
	if (!o->harness || !o->harness[0])
		return usage_error("no harness: put it after '--'%s%s", "", "");
	return 0;
}

/* ---- corpus and artifacts ---- */

static void corpus_add(struct corpus *c, const uint8_t *p, size_t n)
{
	c->in = xrealloc(c->in, (c->n + 1) * sizeof(*c->in));
	c->hinted = xrealloc(c->hinted, (c->n + 1) * sizeof(*c->hinted));
	c->in[c->n].p = xmalloc(n ? n : 1);
	memcpy(c->in[c->n].p, p, n);
	c->in[c->n].n = n;
	c->hinted[c->n++] = false;
	c->bytes += n;
}

static int write_unit(const char *dir_or_prefix, const char *kind,
		      const uint8_t *p, size_t n, char **path_out)
{
	char sha[41];
	char *path;
	int r;

	sha1_hex(p, n, sha);
	path = kind ? xasprintf("%s%s-%s", dir_or_prefix, kind, sha)
		    : xasprintf("%s/%s", dir_or_prefix, sha);
	r = write_output(path, p, n);
	if (r < 0)
		msg_error("fuzz: %s: %s", path, strerror(-r));
	if (path_out && r == 0)
		*path_out = path;
	else
		free(path);
	return r;
}

/* The inputs of the corpus directories, as libFuzzer reads them:
 * regular files, cut at -max_len (only that much is read). */
static int load_dir(struct fuzzer *f, const char *dir,
		    struct corpus *seeds)
{
	DIR *d = opendir(dir);
	uint8_t *buf = xmalloc((size_t)f->o.max_len);
	struct dirent *de;

	if (!d) {
		msg_error("fuzz: %s: %s", dir, strerror(errno));
		free(buf);
		return -1;
	}
	while ((de = readdir(d))) {
		char *path = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		size_t len;

		if (!stat(path, &st) && S_ISREG(st.st_mode) &&
		    !read_head(path, buf, (size_t)f->o.max_len, &len))
			corpus_add(seeds, buf, len);
		free(path);
	}
	closedir(d);
	free(buf);
	return 0;
}

/* ---- status lines (libFuzzer's format) ---- */

static void status_line(struct fuzzer *f, const char *what, const char *ms)
{
	double t = now() - f->t0;

	fprintf(stderr, "#%" PRIu64 "\t%s cov: %zu ft: %zu corp: %zu/%zub "
		"exec/s: %.0f%s%s\n", f->ex.execs, what, f->cov.n, f->cov.n,
		f->corp.n, f->corp.bytes,
		t > 0 ? (double)f->ex.execs / t : 0.0, ms ? " MS: " : "",
		ms ? ms : "");
	f->last_line = now();
}

/* ---- crashes ---- */

static uint64_t crash_signature(const struct fz_crash *c, enum fz_outcome o)
{
	uint64_t h = mix((uint64_t)o * 131 + (uint64_t)c->sig * 7 +
			 (uint64_t)c->exit_code);

	h = mix(h ^ c->pc);
	for (uint64_t i = 0; i < c->npcs; i++)
		h = mix(h ^ c->pcs[i]);
	return h ? h : 1;
}

static void print_crash(const struct fuzzer *f, const struct fz_crash *c,
			enum fz_outcome o)
{
	if (o == FZ_TIMEOUT)
		fprintf(stderr, "==ukcov fuzz== ERROR: timeout after %lld "
			"seconds\n", f->o.timeout);
	else if (c->sig)
		fprintf(stderr, "==ukcov fuzz== ERROR: deadly signal %d (%s)\n",
			c->sig, strsignal(c->sig));
	else
		fprintf(stderr, "==ukcov fuzz== ERROR: fuzz target exited "
			"with %d\n", c->exit_code);
	if (!c->pc && !c->npcs)
		return;		/* killed (a timeout) or exited: no stack */
	fprintf(stderr, "==ukcov fuzz== stack: pc 0x%" PRIx64, c->pc);
	for (uint64_t i = 0; i < c->npcs; i++)
		fprintf(stderr, " 0x%" PRIx64, c->pcs[i]);
	fprintf(stderr, "\n");
}

/* A crash or a timeout: the artifact unless its stack was seen; true
 * if the fuzzer stops here. */
static bool on_crash(struct fuzzer *f, const uint8_t *p, size_t n,
		     const struct fz_crash *c, enum fz_outcome o)
{
	const char *kind = o == FZ_TIMEOUT ? "timeout" : "crash";
	char *path = NULL;

	f->crashes++;
	f->rc = 1;
	if (!pcset_add(&f->crash_sigs, crash_signature(c, o))) {
		fprintf(stderr, "#%" PRIu64 "\tDEDUP %s: same stack as an "
			"earlier one\n", f->ex.execs, kind);
		return false;
	}
	print_crash(f, c, o);
	fprintf(stderr, "==ukcov fuzz== %s after %" PRIu64 " executions\n",
		kind, f->ex.execs);
	if (write_unit(f->o.artifact_prefix, kind, p, n, &path) == 0) {
		fprintf(stderr, "artifact_prefix='%s'; Test unit written to "
			"%s\n", f->o.artifact_prefix, path);
		fprintf(stderr, "Reproduce with: %s %s\n", f->o.harness[0],
			path);
		free(path);
	}
	return !f->o.ignore_crashes;
}

/* ---- one execution ---- */

enum run_result { RUN_DULL, RUN_NEW, RUN_STOP, RUN_CRASHED };

static enum run_result run_input(struct fuzzer *f, const uint8_t *p,
				 size_t n, const char *ms)
{
	struct fz_crash c;
	enum fz_outcome o = fz_exec_run(&f->ex, p, n, UKFZ_CMD_PC, &c);
	uint64_t cnt;
	bool fresh = false;

	if (o == FZ_ERROR) {
		f->rc = 1;
		return RUN_STOP;
	}
	if (o != FZ_OK)
		return on_crash(f, p, n, &c, o) ? RUN_STOP : RUN_CRASHED;
	cnt = fz_exec_count(&f->ex, 1);
	if (f->ex.shm->dropped && !f->warned_drops++)
		fprintf(stderr, "WARNING: an input's coverage did not fit: %"
			PRIu64 " points dropped (said once)\n",
			f->ex.shm->dropped);
	for (uint64_t i = 0; i < cnt; i++)
		if (f->ex.out[1 + i] && pcset_add(&f->cov, f->ex.out[1 + i]))
			fresh = true;
	if (!fresh)
		return RUN_DULL;
	corpus_add(&f->corp, p, n);
	if (f->o.ndirs)
		write_unit(f->o.dirs[0], NULL, p, n, NULL);
	if (ms)
		status_line(f, "NEW", ms);
	return RUN_NEW;
}

/* Hint mutants waiting: at most this many bytes; the oldest go first. */
#define QUEUE_BYTES ((size_t)256 << 20)

/* The mutants of the newest hints job run before those still queued. */
static void queue_push_front(struct fuzzer *f, struct fz_bytes *m, size_t n)
{
	size_t rest = f->nqueue - f->qpos, bytes = 0, keep = 0;
	struct fz_bytes *q = xmalloc((n + rest + 1) * sizeof(*q));

	memcpy(q, m, n * sizeof(*q));
	memcpy(q + n, f->queue + f->qpos, rest * sizeof(*q));
	free(f->queue);
	free(m);
	while (keep < n + rest && bytes + q[keep].n <= QUEUE_BYTES)
		bytes += q[keep++].n;
	for (size_t i = keep; i < n + rest; i++)
		free(q[i].p);
	f->queue = q;
	f->nqueue = keep;
	f->qpos = 0;
}

/* Two CMP runs of a kept input; the mutants of their common hints go
 * to the queue.  false if the fuzzer stops. */
static bool hints_job(struct fuzzer *f, size_t idx)
{
	struct fz_hints h[2] = { { 0 }, { 0 } };
	struct fz_rtn_hints r[2] = { { 0 }, { 0 } };
	const struct fz_bytes *in = &f->corp.in[idx];
	struct fz_bytes *fresh = NULL;
	size_t nfresh = 0;
	struct fz_crash c;

	f->corp.hinted[idx] = true;
	for (int k = 0; k < 2; k++) {
		enum fz_outcome o = fz_exec_run(&f->ex, in->p, in->n,
						UKFZ_CMD_CMP, &c);

		if (o == FZ_ERROR) {
			f->rc = 1;
			return false;
		}
		if (o != FZ_OK) {
			fz_hints_free(&h[0]);
			fz_rtn_free(&r[0]);
			return !on_crash(f, in->p, in->n, &c, o);
		}
		fz_hints_from_cmp(&h[k], f->ex.out + 1,
				  fz_exec_count(&f->ex, 4));
		fz_rtn_from(&r[k], f->ex.rtn, fz_exec_rtn_count(&f->ex));
	}
	fz_hints_intersect(&h[0], &h[1]);
	fz_rtn_intersect(&r[0], &r[1]);
	/* The routines' operands first: few, and each can pass a whole
	 * compare of up to 32 bytes at once. */
	fz_rtn_mutants(&r[0], in->p, in->n, (size_t)f->o.max_len, &fresh,
		       &nfresh, 4096);
	fz_hints_mutants(&h[0], in->p, in->n, &fresh, &nfresh, 4096);
	queue_push_front(f, fresh, nfresh);
	fz_hints_free(&h[0]);
	fz_hints_free(&h[1]);
	fz_rtn_free(&r[0]);
	fz_rtn_free(&r[1]);
	return true;
}

static bool at_limit(const struct fuzzer *f)
{
	if (f->o.runs >= 0 && f->ex.execs >= (uint64_t)f->o.runs)
		return true;
	return f->o.max_total_time &&
	       now() - f->t0 >= (double)f->o.max_total_time;
}

/* The next thing to do: a hints job for a kept input that had none
 * (the newest first: a hint that passed one comparison is followed at
 * once to the next), a queued hint mutant, or a random mutation. */
static enum run_result step(struct fuzzer *f, uint8_t *buf)
{
	size_t max = (size_t)f->o.max_len, idx, len;
	char ms[256];

	for (idx = f->corp.n; f->o.use_cmp && idx-- > 0;)
		if (!f->corp.hinted[idx])
			return hints_job(f, idx) ? RUN_DULL : RUN_STOP;
	if (f->qpos < f->nqueue) {
		struct fz_bytes *m = &f->queue[f->qpos++];
		enum run_result r = run_input(f, m->p, m->n, "CMP-hint-");

		free(m->p);
		m->p = NULL;
		return r;
	}
	idx = fz_below(&f->rng, f->corp.n);
	len = f->corp.in[idx].n < max ? f->corp.in[idx].n : max;
	memcpy(buf, f->corp.in[idx].p, len);
	len = fz_mutate(&f->rng, buf, len, max,
			&f->corp.in[fz_below(&f->rng, f->corp.n)], &f->dict,
			ms, sizeof(ms));
	return run_input(f, buf, len, ms);
}

static int fuzz_loop(struct fuzzer *f)
{
	uint8_t *buf = xmalloc((size_t)f->o.max_len);

	while (!at_limit(f)) {
		if (step(f, buf) == RUN_STOP)
			break;
		if (now() - f->last_line >= 2.0)
			status_line(f, "pulse", NULL);
	}
	free(buf);
	if (f->rc == 0 || (f->o.ignore_crashes && f->crashes))
		fprintf(stderr, "Done %" PRIu64 " runs in %.0f second(s)\n",
			f->ex.execs, now() - f->t0);
	return f->rc;
}

/* The corpus directories' inputs (or one empty input), each run once. */
static int load_corpus(struct fuzzer *f)
{
	struct corpus seeds = { 0 };
	int rc = 0;

	for (int i = 0; i < f->o.ndirs; i++)
		if (load_dir(f, f->o.dirs[i], &seeds))
			return EXIT_FUZZ_USAGE;
	if (!seeds.n)
		corpus_add(&seeds, (const uint8_t *)"", 0);
	fprintf(stderr, "INFO: seed: %lld\nINFO: %zu input(s) from %d "
		"director%s\n", f->o.seed, f->o.ndirs ? seeds.n : 0,
		f->o.ndirs, f->o.ndirs == 1 ? "y" : "ies");
	for (size_t i = 0; i < seeds.n && !rc; i++) {
		enum run_result r = run_input(f, seeds.in[i].p, seeds.in[i].n,
					      NULL);

		if (r == RUN_STOP)
			rc = f->rc ? f->rc : 1;
		free(seeds.in[i].p);
	}
	free(seeds.in);
	free(seeds.hinted);
	if (!rc && !f->corp.n)	/* nothing covered: still mutate one */
		corpus_add(&f->corp, (const uint8_t *)"", 0);
	return rc;
}

/* -jobs=N: N fuzzers in parallel, as libFuzzer's jobs: job J has seed
 * S+J and writes its lines to fuzz-J.log; they share the corpus
 * directories they were given (each reads them once, at its start).
 * The exit status is the worst of theirs.  0 in a job (which goes on
 * to fuzz), the status in the parent. */
static int run_jobs(struct fz_opts *o, bool *is_job)
{
	pid_t *pids = xcalloc((size_t)o->jobs, sizeof(*pids));
	int rc = 0;

	for (long long j = 0; j < o->jobs; j++) {
		char log[64];

		snprintf(log, sizeof(log), "fuzz-%lld.log", j);
		fflush(NULL);
		pids[j] = fork();
		if (pids[j] == 0) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC |
					   O_CLOEXEC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(1);
			close(fd);
			o->seed += j;
			o->jobs = 1;
			free(pids);
			*is_job = true;
			return 0;
		}
		if (pids[j] < 0) {
			msg_error("fuzz: fork: %s", strerror(errno));
			rc = 1;
			break;
		}
		fprintf(stderr, "Job %lld: seed %lld, log %s\n", j,
			o->seed + j, log);
	}
	for (long long j = 0; j < o->jobs; j++) {
		int st = 0;

		if (pids[j] <= 0)
			continue;
		while (waitpid(pids[j], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = rc ? rc : (WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	free(pids);
	return rc;
}

static void fuzzer_free(struct fuzzer *f)
{
	for (size_t i = 0; i < f->corp.n; i++)
		free(f->corp.in[i].p);
	free(f->corp.in);
	free(f->corp.hinted);
	for (size_t i = f->qpos; i < f->nqueue; i++)
		free(f->queue[i].p);
	free(f->queue);
	for (size_t i = 0; i < f->dict.n; i++)
		free(f->dict.w[i].p);
	free(f->dict.w);
	free(f->cov.slot);
	free(f->crash_sigs.slot);
	free(f->o.dirs);
}

int cmd_fuzz_main(int argc, char **argv)
{
	struct fuzzer f;
	char err[512];
	int rc;

	memset(&f, 0, sizeof(f));
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "-help=1") || !strcmp(argv[i], "--help")) {
			fputs(fuzz_usage_text, stdout);
			return 0;
		}
	if ((rc = parse_fuzz_args(argc, argv, &f.o))) {
		fuzzer_free(&f);
		return rc;
	}
	if (f.o.dict && fz_dict_load(f.o.dict, &f.dict, err, sizeof(err))) {
		fprintf(stderr, "ukcov fuzz: -dict: %s\n", err);
		fuzzer_free(&f);
		return EXIT_FUZZ_USAGE;
	}
	if (!f.o.seed)
		f.o.seed = (long long)(((uint64_t)time(NULL) ^
					(uint64_t)getpid() << 16) & UINT32_MAX);
	if (f.o.jobs > 1) {
		bool is_job = false;

		rc = run_jobs(&f.o, &is_job);
		if (!is_job) {
			fuzzer_free(&f);
			return rc;
		}
	}
	f.rng.s = mix((uint64_t)f.o.seed + 0x9e3779b97f4a7c15ULL) | 1;
	if (fz_exec_init(&f.ex, f.o.harness, (uint64_t)f.o.max_len,
			 (unsigned)f.o.timeout * 1000)) {
		fuzzer_free(&f);
		return 1;
	}
	f.t0 = f.last_line = now();
	rc = load_corpus(&f);
	if (!rc) {
		status_line(&f, "INITED", NULL);
		rc = fuzz_loop(&f);
	}
	fz_exec_stop(&f.ex);
	fuzzer_free(&f);
	return rc;
}
