/*
 * tools/wrapper.c -- ukcov-cc and ukcov-c++, compiler wrappers in the
 * manner of afl-cc: run the real compiler ($UKCOV_CC / $UKCOV_CXX,
 * default cc / c++) with ukcov's inline plugin for that compiler when it
 * was built (plugins/plugins.mk; $UKCOV_INLINE=0: never, =1: required;
 * never for guard, CMP and fuzzing builds unless required), else with
 * -fsanitize-coverage=trace-pc (trace-pc-guard when $UKCOV_GUARD=1, for
 * clang; plus trace-cmp when $UKCOV_CMP=1) and
 * -fno-optimize-sibling-calls; always -g; and when linking add libukcov:
 * -L<libdir> -Wl,-rpath,<libdir> -lukcov -lpthread, and in a -static
 * link (libukcov.a) the flags of pkg-config --static (lib/ukcov.pc.in).
 *
 * libdir and includedir are found from the wrapper's own location: in
 * the build tree libukcov.so sits next to it (and the headers in
 * ../include); installed, they are ../lib and ../include.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 1;
	char *s = malloc(n);

	if (!s) {
		perror("ukcov-cc");
		exit(1);
	}
	snprintf(s, n, "%s%s", a, b);
	return s;
}

/* Directory of this executable. */
static char *self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0) {
		fprintf(stderr, "ukcov-cc: cannot find myself: %s\n",
			strerror(errno));
		exit(1);
	}
	buf[n] = '\0';
	*strrchr(buf, '/') = '\0';
	return join(buf, "");
}

static int links(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "-S") ||
		    !strcmp(argv[i], "-E") || !strcmp(argv[i], "-M") ||
		    !strcmp(argv[i], "-MM"))
			return 0;
	return argc > 1;
}

static int is_cxx(const char *argv0)
{
	const char *b = strrchr(argv0, '/');
	size_t n;

	b = b ? b + 1 : argv0;
	n = strlen(b);
	return n >= 3 && (!strcmp(b + n - 3, "c++") || !strcmp(b + n - 3,
								"cxx"));
}

/* Is the real compiler clang?  By its name (clang, clang-14,
 * x86_64-linux-gnu-clang...), as the user chose it in $UKCOV_CC. */
static int is_clang(const char *cc)
{
	const char *b = strrchr(cc, '/');

	return strstr(b ? b + 1 : cc, "clang") != NULL;
}

static int links_static(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-static") ||
		    !strcmp(argv[i], "-static-pie"))
			return 1;
	return 0;
}

/* clang's trace-pc-guard numbers the edges and prunes like trace-pc;
 * gcc has only trace-pc (and rejects the guard flag itself). */
static char *coverage_flag(int cmp, int guard)
{
	if (guard)
		return cmp ? "-fsanitize-coverage=trace-pc-guard,trace-cmp"
			   : "-fsanitize-coverage=trace-pc-guard";
	return cmp ? "-fsanitize-coverage=trace-pc,trace-cmp"
		   : "-fsanitize-coverage=trace-pc";
}

/* ---- AFL++ and libFuzzer-style harnesses (docs/DESIGN.md, "AFL++") ---- */

/* The routines whose operands CmpLog logs (lib/afl_rtn.c): calls stay
 * calls (-fno-builtin-NAME, as libFuzzer's clang driver adds them) and
 * reach libukcov's __wrap_NAME (--wrap=NAME). */
static const char *const afl_routines[] = {
	"memcmp", "bcmp", "strcmp", "strncmp", "strcasecmp", "strncasecmp",
	"strstr", "memmem",
};
#define AFL_NROUTINES (sizeof(afl_routines) / sizeof(*afl_routines))
/* Arguments the AFL parts add at most. */
#define AFL_MAX_ARGS (2 * AFL_NROUTINES + 4)

enum { AFL_FUZZER_NONE, AFL_FUZZER_NO_LINK, AFL_FUZZER_LINK };

/* arg (-fsanitize=LIST) without fuzzer and fuzzer-no-link, which would
 * pull libFuzzer's runtime into a clang link (gcc has neither); NULL
 * when nothing is left.  *fuzzer says which one was there. */
static char *afl_strip_fuzzer(const char *arg, int *fuzzer)
{
	const char *list = arg + strlen("-fsanitize=");
	char *out = join("-fsanitize=", ""), *copy = join(list, ""), *save;
	int kept = 0;

	for (char *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *o = out;

		if (!strcmp(t, "fuzzer")) {
			*fuzzer = AFL_FUZZER_LINK;
			continue;
		}
		if (!strcmp(t, "fuzzer-no-link")) {
			if (*fuzzer == AFL_FUZZER_NONE)
				*fuzzer = AFL_FUZZER_NO_LINK;
			continue;
		}
		out = join(o, kept++ ? "," : "");
		free(o);
		o = out;
		out = join(o, t);
		free(o);
	}
	free(copy);
	if (!kept) {
		free(out);
		return NULL;
	}
	return out;
}

/* argv without the fuzzer sanitizers (afl_strip_fuzzer); the new argc.
 * *afl: a fuzzing build (-fsanitize=fuzzer or $UKCOV_AFL=1), which
 * gets trace-cmp for CmpLog and the routines' wrappers. */
static int afl_filter_args(int argc, char **argv, int *fuzzer, int *afl)
{
	const char *env = getenv("UKCOV_AFL");
	int out = 1;

	for (int i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!strncmp(a, "-fsanitize=", 11) && strstr(a, "fuzzer"))
			a = afl_strip_fuzzer(a, fuzzer);
		if (a)
			argv[out++] = a;
	}
	argv[out] = NULL;
	*afl = *fuzzer != AFL_FUZZER_NONE || (env && !strcmp(env, "1"));
	return out;
}

/* The coverage flag, with trace-cmp for CmpLog in a fuzzing build,
 * whose calls to the routines stay calls. */
static int afl_compile_args(char **args, int n, int afl, int cmp, int guard)
{
	args[n++] = coverage_flag(afl || cmp, guard);
	for (size_t i = 0; afl && i < AFL_NROUTINES; i++)
		args[n++] = join("-fno-builtin-", afl_routines[i]);
	return n;
}

/* Link flags: the object that names __AFL_SHM_ID (lib/afl_mark.c), in
 * every link, since every libukcov program speaks AFL++'s protocol;
 * the routine wrappers for a CmpLog build; the driver's main for
 * -fsanitize=fuzzer. */
static int afl_link_args(char **args, int n, const char *libdir, int afl,
			 int fuzzer)
{
	args[n++] = "-Wl,-u,__ukcov_afl_mark";
	if (afl)
		for (size_t i = 0; i < AFL_NROUTINES; i++)
			args[n++] = join("-Wl,--wrap=", afl_routines[i]);
	if (fuzzer == AFL_FUZZER_LINK)
		args[n++] = join(libdir, "/libukcov_fuzzer.a");
	return n;
}

/* What "cc -dumpmachine" prints starts with x86_64: the plugins' only
 * target.  Any failure is a no.  SIGCHLD is at its default meanwhile:
 * ignored (inherited across exec from a parent that ignores it), the
 * kernel would reap the probe, waitpid would fail, and the build would
 * lose its inline instrumentation without a word. */
static int dumps_x86_64(const char *cc)
{
	char *const argv[] = { (char *)cc, "-dumpmachine", NULL };
	extern char **environ;
	char out[64] = "";
	posix_spawn_file_actions_t fa;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	int p[2], st, ok = 0;
	ssize_t got;
	pid_t pid;

	if (pipe(p) != 0)
		return 0;
	sigaction(SIGCHLD, &dfl, &old);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawnp(&pid, cc, &fa, NULL, argv, environ) == 0) {
		close(p[1]);
		p[1] = -1;
		got = read(p[0], out, sizeof(out) - 1);
		if (got > 0)
			out[got] = '\0';
		ok = waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		     WEXITSTATUS(st) == 0 && !strncmp(out, "x86_64-", 7);
	}
	posix_spawn_file_actions_destroy(&fa);
	sigaction(SIGCHLD, &old, NULL);
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	return ok;
}

/* Whether this compilation targets x86-64: a --target or -m32 on the
 * command line decides, else the compiler's default target (a cross
 * compiler, clang built for another host). */
static int targets_x86_64(const char *cc, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *t = NULL;

		if (!strncmp(argv[i], "--target=", 9))
			t = argv[i] + 9;
		else if (!strcmp(argv[i], "-target") && i + 1 < argc)
			t = argv[i + 1];
		else if (!strcmp(argv[i], "-m32") ||
			 !strcmp(argv[i], "-mx32") || !strcmp(argv[i], "-m16"))
			return 0;
		if (t)
			return !strncmp(t, "x86_64", 6);
	}
	return dumps_x86_64(cc);
}

/* Whether the command line asks for link-time optimization (the last
 * of -flto, -flto=..., -fno-lto decides). */
static int wants_lto(int argc, char **argv)
{
	int lto = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-flto") || !strncmp(argv[i], "-flto=", 6))
			lto = 1;
		else if (!strcmp(argv[i], "-fno-lto"))
			lto = 0;
	}
	return lto;
}

/*
 * The inline plugin for compiler cc, beside libukcov in libdir, when
 * the build should use it: NULL for calls.  By default the plugin is
 * used when it was built (docs/PERFORMANCE.md, "Inline
 * instrumentation": faster than the calls with tracing off and in
 * unique mode, what "ukcov run" records), and the calls otherwise;
 * UKCOV_INLINE=0 chooses the calls, =1 requires the plugin (an error
 * when it cannot be used).  By default a compilation for another
 * target than x86-64 (a cross compiler, --target, -m32), and a clang
 * build with -flto, gets the calls.  Guard, CMP and fuzzing builds are calls:
 * the plugins instrument blocks as trace-pc does, and clang 14 emits
 * trace-cmp only together with a block type.
 */
static char *inline_plugin(const char *cc, const char *libdir, int cmp,
			   int guard, int afl, int argc, char **argv)
{
	const char *mode = getenv("UKCOV_INLINE");
	int want = mode && !strcmp(mode, "1");
	char *path;

	if (mode && !strcmp(mode, "0"))
		return NULL;
	if (!want && (afl || guard || cmp))
		return NULL;
	if (afl) {
		fprintf(stderr, "ukcov-cc: UKCOV_INLINE=1: a fuzzing build "
			"(-fsanitize=fuzzer, UKCOV_AFL=1) needs CMP records, "
			"which inline instrumentation does not give; set "
			"UKCOV_INLINE=0\n");
		exit(1);
	}
	if (guard || cmp) {
		fprintf(stderr, "ukcov-cc: UKCOV_INLINE=1: inline "
			"instrumentation has no %s mode; unset UKCOV_%s or "
			"set UKCOV_INLINE=0\n", guard ? "guard" : "CMP",
			guard ? "GUARD" : "CMP");
		exit(1);
	}
	/* clang optimizes an -flto module again at the link, after the
	 * plugin's pass, and its inliner would copy the points' asm
	 * (plugins/clang refuses such a module); gcc's points survive
	 * copies (each numbers itself in the assembler). */
	if (is_clang(cc) && wants_lto(argc, argv)) {
		if (!want)
			return NULL;
		fprintf(stderr, "ukcov-cc: UKCOV_INLINE=1: clang's inline "
				"instrumentation does not support -flto; build "
				"without it or set UKCOV_INLINE=0\n");
		exit(1);
	}
	path = join(libdir, is_clang(cc) ? "/ukcov-inline-clang.so"
					 : "/ukcov-inline-gcc.so");
	if (access(path, R_OK) == 0 && (want || targets_x86_64(cc, argc, argv)))
		return path;
	if (!want) {
		free(path);
		return NULL;
	}
	fprintf(stderr,
		"ukcov-cc: UKCOV_INLINE=1: no inline plugin for %s: "
		"%s: %s (build it with make, or set UKCOV_INLINE=0)\n",
		cc, path, strerror(errno));
	exit(1);
}

/* The instrumentation flags: the inline plugin, or the calls. */
static int add_instrumentation(char **args, int n, const char *cc,
			       const char *libdir, int afl, int argc,
			       char **argv)
{
	const char *cmp = getenv("UKCOV_CMP");
	const char *guard = getenv("UKCOV_GUARD");
	/* A fuzzing build wants CMP records (CmpLog, ukcov fuzz's hints). */
	int want_cmp = (cmp && !strcmp(cmp, "1")) || afl;
	int want_guard = guard && !strcmp(guard, "1");
	char *plugin = inline_plugin(cc, libdir, want_cmp, want_guard, afl,
				     argc, argv);

	if (plugin) {
		args[n++] = join(is_clang(cc) ? "-fpass-plugin=" : "-fplugin=",
				 plugin);
		free(plugin);
		return n;
	}
	n = afl_compile_args(args, n, afl, want_cmp, want_guard);
	/* gcc before 14 turns a coverage call that ends a function into a
	 * tail call (GCC PR 90746; syzkaller issue 4447), and the callback
	 * then records the caller's return address, which is no coverage
	 * point.  clang never does it; the flag is harmless there.  Inline
	 * points are no calls. */
	args[n++] = "-fno-optimize-sibling-calls";
	return n;
}

int main(int argc, char **argv)
{
	const char *cc = is_cxx(argv[0]) ? getenv("UKCOV_CXX")
					 : getenv("UKCOV_CC");
	char *dir = self_dir(), *libdir, *incdir, *probe;
	char **args = calloc((size_t)argc + 15 + AFL_MAX_ARGS, sizeof(*args));
	int n = 0, fuzzer = AFL_FUZZER_NONE, afl;

	if (!cc || !*cc)
		cc = is_cxx(argv[0]) ? "c++" : "cc";
	probe = join(dir, "/libukcov.so");
	incdir = join(dir, "/../include");
	if (access(probe, F_OK) == 0)		/* build tree */
		libdir = dir;
	else					/* installed */
		libdir = join(dir, "/../lib");
	free(probe);
	argc = afl_filter_args(argc, argv, &fuzzer, &afl);
	args[n++] = (char *)cc;
	n = add_instrumentation(args, n, cc, libdir, afl, argc, argv);
	args[n++] = "-g";
	args[n++] = join("-I", incdir);
	free(incdir);
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	if (links(argc, argv)) {
		n = afl_link_args(args, n, libdir, afl, fuzzer);
		args[n++] = join("-L", libdir);
		args[n++] = join("-Wl,-rpath,", libdir);
		args[n++] = "-lukcov";
		args[n++] = "-lpthread";
	}
	if (links(argc, argv) && links_static(argc, argv)) {
		/* As Libs.private in lib/ukcov.pc.in: libukcov.a sees
		 * pthread_create only through --wrap (lib/static_wrap.c), and
		 * its callbacks' object must be pulled in even when a runtime
		 * the compiler driver links first (clang's ubsan_standalone)
		 * already defines the callbacks weakly. */
		args[n++] = "-Wl,--wrap=pthread_create";
		args[n++] = "-Wl,-u,__wrap_pthread_create";
		args[n++] = "-Wl,-u,__ukcov_callbacks";
		/* clang's driver links ubsan_standalone for -fsanitize-coverage,
		 * and that runtime crashes at start-up in a -static program;
		 * libukcov is the coverage runtime, so leave it out. */
		if (is_clang(cc))
			args[n++] = "-fno-sanitize-link-runtime";
	}
	if (libdir != dir)
		free(libdir);
	free(dir);
	args[n] = NULL;
	if (getenv("UKCOV_VERBOSE")) {
		for (int i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? " " : "", args[i]);
		fputc('\n', stderr);
	}
	execvp(cc, args);
	fprintf(stderr, "ukcov-cc: %s: %s\n", cc, strerror(errno));
	free(args);
	return 127;
}
