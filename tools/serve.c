/*
 * tools/serve.c -- `ukcov serve`: the multi-page report served from
 * memory over HTTP (libmicrohttpd), the coverage-report-server of LLVM's
 * SanitizerCoverage documentation ("The .symcov file can be browsed
 * overlayed over the source code by running
 * tools/sancov/coverage-report-server.py").  Beyond that script, input
 * directories (a coverage_dir, a fuzzer's output) are watched: new or
 * changed .sancov files and dumps are merged in and open pages reload.
 *
 * Threads: libmicrohttpd's one internal polling thread answers requests;
 * the main thread polls the watched directories, rebuilds the site and
 * swaps it in; a third thread takes SIGINT/SIGTERM with sigwait (both
 * blocked in every thread, so no handler runs anywhere) and ends the
 * process even if the main thread is stuck reading an input.
 *
 * What is served (everything else is 4xx, decided before any file is
 * touched): GET/HEAD of "/", the site's pages, "/version.json" and, with
 * --source-root, regular files under that root at "/source/REL".
 * URLs are decoded once, strictly; control bytes, encoded '/' or '\',
 * empty, "." and ".." segments are refused; a source's real path must
 * stay under the root's real path (symlinks out of it are refused).
 */
#include "ukcov.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cmd_report.h"
#include "dump.h"
#include "elfpoints.h"

/* Like llvm/tools/sancov/coverage-report-server.py (main(): --host
 * 127.0.0.1, --port 8001). */
#define SERVE_DEFAULT_PORT 8001
#define SERVE_MAX_URL 1024		/* longer: 414 */
#define SERVE_MAX_RESPONSE SOURCE_MAX_BYTES	/* bigger: refused */
#define SERVE_CONN_TIMEOUT 5		/* seconds idle per connection */
/* Seconds from accept (or from the end of the last answer) to a
 * complete request line and headers: the idle timeout restarts at every
 * byte, so a peer trickling a header line every few seconds would hold
 * its connection for ever. */
#define SERVE_REQUEST_DEADLINE 10
/* Room for a browser's few connections while many others wait for
 * their deadline (64 trickling peers must not lock everyone out). */
#define SERVE_CONN_LIMIT 256
#define SERVE_CONN_MEMORY (16u << 10)	/* request line + headers */
#define SERVE_POLL_NS 250000000L	/* watch period: 0.25 s */

/* ---- the served state ---- */

/* One open connection, for the request deadline. */
struct conn {
	struct conn *prev, *next;	/* conns_lock */
	int fd;				/* const; MHD's socket */
	struct timespec since;		/* conns_lock: accept, or last answer */
	bool busy;			/* conns_lock: a request is answered */
};

struct served {
	pthread_mutex_t lock;
	struct site site;		/* lock */
	unsigned long generation;	/* lock */
	char *root_real;		/* --source-root's realpath; const */
	char *self;			/* bound address as in a Host header,
					 * "[::1]" for IPv6; const once served */
	unsigned port;			/* const once served */
	pthread_mutex_t conns_lock;
	struct conn *conns;		/* conns_lock */
};

/* ---- watching ---- */

/* One coverage file found in a watched directory. */
struct wfile {
	char *path;
	off_t size;
	struct timespec mtime;
	bool stable;	/* same size and mtime at two polls in a row */
	bool valid;	/* parsed when it became stable */
};

struct watch {
	char **fixed;		/* inputs that are files */
	size_t nfixed;
	char **dirs;		/* inputs that are directories */
	size_t ndirs;
	struct wfile *files;	/* sorted by path */
	size_t nfiles;
	size_t warned_missing;	/* missing sources last warned about */
	size_t warned_refused;
	/* Without --source-root: the source paths the DWARF of the
	 * binaries on the command line names, sorted; a file dropped into
	 * a watched directory names no other (a .symcov saying /etc/passwd
	 * gets a page without text).  NULL: no watched directory. */
	char **trusted;
	size_t ntrusted;
};

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

enum cov_kind { CK_NONE, CK_SANCOV, CK_DUMP, CK_SYMCOV, CK_ELF };

static enum cov_kind kind_of(const char *path)
{
	char head[64];
	size_t n;

	if (read_head(path, head, sizeof(head), &n) < 0 || n == 0)
		return CK_NONE;
	if (sancov_has_magic(head, n))
		return CK_SANCOV;
	if (dump_looks_like(head, n))
		return CK_DUMP;
	if (is_elf_image(head, n))
		return CK_ELF;
	return symcov_looks_like(head, n) ? CK_SYMCOV : CK_NONE;
}

/* A .sancov file's binary must be among the inputs (inputs.c matches
 * them by sancov's name rule, NAME.PID.sancov or NAME.sancov): one
 * without would stop every rebuild, so it is left out, with a warning. */
static bool sancov_has_binary(const struct watch *w, const char *path)
{
	char *mod = sancov_module_name(path);
	const char *base = path_basename(path);
	size_t n = strlen(base);
	bool found = false;

	if (!mod && n > 7 && !strcmp(base + n - 7, ".sancov"))
		mod = xasprintf("%.*s", (int)(n - 7), base);
	for (size_t i = 0; mod && i < w->nfixed && !found; i++)
		found = !strcmp(path_basename(w->fixed[i]), mod);
	if (!found)
		msg_warn("%s: no binary named '%s' among the inputs; left out "
			 "(name the binary on the command line)", path,
			 mod ? mod : base);
	free(mod);
	return found;
}

/* Parse a file once it stopped changing; the loaders print what is
 * wrong ("ukcov: error: FILE: ..."), once per version of the file. */
static bool validate(const struct watch *w, const char *path)
{
	struct pcvec pv = { 0 };
	struct dump d;
	struct strtab strs = { 0 };
	struct symcov sc;
	int bits = 0;
	bool ok = true;

	switch (kind_of(path)) {
	case CK_SANCOV:
		ok = sancov_load(path, &pv, &bits) == 0 &&
		     sancov_has_binary(w, path);
		pcvec_free(&pv);
		break;
	case CK_DUMP:
		ok = dump_load(path, &d) == 0;
		if (ok)
			dump_free(&d);
		break;
	case CK_SYMCOV:
		symcov_init(&sc, &strs);
		ok = symcov_load(path, &sc) == 0;
		symcov_free(&sc);
		strtab_free(&strs);
		break;
	case CK_ELF:
		break;
	default:
		ok = false;	/* not coverage (a fuzzer's corpus file): quiet */
	}
	return ok;
}

static int cmp_wfile(const void *a, const void *b)
{
	return strcmp(((const struct wfile *)a)->path,
		      ((const struct wfile *)b)->path);
}

static void scan_dir(const char *dir, struct wfile **v, size_t *n,
		     size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t dn = strlen(dir);

	if (!d)
		return;
	while (dn > 0 && dir[dn - 1] == '/')
		dn--;	/* "watch/" names "watch/a.dump", not "watch//a.dump" */
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%.*s/%s", (int)dn, dir, e->d_name);
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*v = xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[(*n)++] = (struct wfile){ p, st.st_size, st.st_mtim,
					       false, false };
	}
	closedir(d);
}

static bool same_state(const struct wfile *a, const struct wfile *b)
{
	return a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/*
 * One poll: list the directories, carry over what is known about files
 * that did not change.  A new or changed file is looked at only when it
 * is seen unchanged at the next poll (a writer may be half-way).
 * Returns true if the set of valid inputs changed.
 */
static bool watch_poll(struct watch *w)
{
	struct wfile *v = NULL;
	size_t n = 0, cap = 0, j = 0;
	bool changed = false;

	for (size_t i = 0; i < w->ndirs; i++)
		scan_dir(w->dirs[i], &v, &n, &cap);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_wfile);
	for (size_t i = 0; i < n; i++) {
		const struct wfile *old = NULL;

		while (j < w->nfiles && strcmp(w->files[j].path, v[i].path) < 0)
			changed |= w->files[j++].valid;
		if (j < w->nfiles && !strcmp(w->files[j].path, v[i].path))
			old = &w->files[j++];
		if (old && same_state(old, &v[i]) && old->stable) {
			v[i].stable = true;
			v[i].valid = old->valid;
		} else if (old && same_state(old, &v[i])) {
			v[i].stable = true;
			v[i].valid = validate(w, v[i].path);
			changed |= v[i].valid;
		} else {
			changed |= old && old->valid;
		}
	}
	while (j < w->nfiles)
		changed |= w->files[j++].valid;
	for (size_t i = 0; i < w->nfiles; i++)
		free(w->files[i].path);
	free(w->files);
	w->files = v;
	w->nfiles = n;
	return changed;
}

/* The fixed inputs, then the valid files of the directories. */
static char **watch_inputs(const struct watch *w, int *n)
{
	char **a = xcalloc(w->nfixed + w->nfiles + 1, sizeof(*a));

	*n = 0;
	for (size_t i = 0; i < w->nfixed; i++)
		a[(*n)++] = w->fixed[i];
	for (size_t i = 0; i < w->nfiles; i++)
		if (w->files[i].valid)
			a[(*n)++] = w->files[i].path;
	return a;
}

static void watch_init(struct watch *w, const struct options *o)
{
	memset(w, 0, sizeof(*w));
	w->fixed = xcalloc((size_t)o->nargs + 1, sizeof(*w->fixed));
	w->dirs = xcalloc((size_t)o->nargs + 1, sizeof(*w->dirs));
	for (int i = 0; i < o->nargs; i++) {
		if (is_dir(o->args[i]))
			w->dirs[w->ndirs++] = o->args[i];
		else
			w->fixed[w->nfixed++] = o->args[i];
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file that one binary's points are located in, appended. */
static void binary_sources(const char *bin, const struct options *o,
			   struct strbuf *list)
{
	/* No ignorelist, no dead-file skipping: a superset of the files
	 * any report of this binary names is still only its DWARF's. */
	struct cov_opts co = { .strip_prefix = o->strip_prefix };
	struct pcvec none = { 0 };
	struct strtab strs = { 0 };
	struct symcov sc;

	symcov_init(&sc, &strs);
	if (symcov_from_binary(bin, &none, bin, &co, &sc) == 0)
		for (size_t i = 0; i < sc.nlocs; i++) {
			sb_puts(list, sc.locs[i].file);
			sb_add(list, "", 1);
		}
	symcov_free(&sc);
	strtab_free(&strs);
}

static void watch_trust_binaries(struct watch *w, const struct options *o)
{
	struct strbuf list = { 0 };
	size_t n = 0, k = 0;

	for (size_t i = 0; i < w->nfixed; i++)
		if (kind_of(w->fixed[i]) == CK_ELF)
			binary_sources(w->fixed[i], o, &list);
	for (size_t off = 0; off < list.n; off += strlen(list.s + off) + 1)
		n++;
	w->trusted = xcalloc(n + 1, sizeof(*w->trusted));
	for (size_t off = 0; off < list.n; off += strlen(list.s + off) + 1)
		w->trusted[k++] = xstrdup(list.s + off);
	if (n > 1)
		qsort(w->trusted, n, sizeof(*w->trusted), cmp_str);
	w->ntrusted = 0;
	for (size_t i = 0; i < n; i++) {
		if (w->ntrusted && !strcmp(w->trusted[w->ntrusted - 1],
					   w->trusted[i])) {
			free(w->trusted[i]);
			continue;
		}
		w->trusted[w->ntrusted++] = w->trusted[i];
	}
	sb_free(&list);
}

static void watch_free(struct watch *w)
{
	for (size_t i = 0; w->trusted && i < w->ntrusted; i++)
		free(w->trusted[i]);
	free(w->trusted);
	for (size_t i = 0; i < w->nfiles; i++)
		free(w->files[i].path);
	free(w->files);
	free(w->fixed);
	free(w->dirs);
}

/* ---- building the site ---- */

/* What the site says while no input is valid yet. */
static void waiting_site(const struct watch *w, unsigned long gen,
			 struct site *s)
{
	struct strbuf sb = { 0 };

	memset(s, 0, sizeof(*s));
	sb_printf(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
		  "charset=\"utf-8\"><title>ukcov serve</title></head>\n"
		  "<body data-gen=\"%lu\" data-root=\"\">\n<p id=waiting>No "
		  "coverage yet; watching:</p><ul>\n", gen);
	for (size_t i = 0; i < w->ndirs; i++) {
		sb_puts(&sb, "<li>");
		put_escaped(&sb, w->dirs[i]);
		sb_puts(&sb, "</li>\n");
	}
	sb_puts(&sb, "</ul>\n<script>setInterval(function(){fetch("
		"'version.json',{cache:'no-store'}).then(function(r){return "
		"r.json();}).then(function(j){if(String(j.version)!==document."
		"body.dataset.gen)location.reload();}).catch(function(){});},"
		"500);</script>\n</body></html>\n");
	s->pages = xcalloc(1, sizeof(*s->pages));
	s->npages = 1;
	s->pages[0].path = xstrdup("index.html");
	s->pages[0].body = sb.s;
	s->pages[0].len = sb.n;
	s->pages[0].mime = "text/html; charset=utf-8";
}

/* Symbolize the current inputs and render them; 0 or an exit code. */
static int build_site(struct options *o, struct watch *w,
		      unsigned long gen, struct site *s)
{
	struct strtab strs = { 0 };
	struct report_inputs ri = { 0 };
	struct report_opts ro;
	struct symcov sc;
	struct report rep;
	struct options oo = *o;
	int r;

	oo.model = true;
	oo.args = watch_inputs(w, &oo.nargs);
	if (w->ndirs && oo.nargs == (int)w->nfixed) {
		waiting_site(w, gen, s);
		free(oo.args);
		return 0;
	}
	r = load_symbolized(&oo, &sc, &strs);
	if (!r) {
		report_build(&sc, &rep);
		report_inputs_describe(&oo, &ri);
		report_opts_from(&oo, &ri, &ro);
		ro.generation = gen;
		ro.trusted = (const char *const *)w->trusted;
		ro.ntrusted = w->ntrusted;
		site_build(&ro, &rep, s);
		if (s->missing_sources != w->warned_missing ||
		    s->refused_sources != w->warned_refused)
			report_warn_missing(&ro, s); /* not at every rebuild */
		w->warned_missing = s->missing_sources;
		w->warned_refused = s->refused_sources;
		report_inputs_free(&ri);
		report_free(&rep);
		symcov_free(&sc);
	}
	strtab_free(&strs);
	free(oo.args);
	return r;
}

static void swap_site(struct served *sv, struct site *s, unsigned long gen)
{
	struct site old;

	pthread_mutex_lock(&sv->lock);
	old = sv->site;
	sv->site = *s;
	sv->generation = gen;
	pthread_mutex_unlock(&sv->lock);
	site_free(&old);
}

/* ---- HTTP ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *mime, const void *body, size_t len)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, mime);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				"no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result reply_error(struct MHD_Connection *c,
				   unsigned int status, const char *why)
{
	char body[160];
	int n = snprintf(body, sizeof(body), "%u %s\n", status, why);

	return reply(c, status, "text/plain; charset=utf-8", body,
		     n);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode the URL path once into out (as long as in).  Refused (false):
 * a bad escape, a control byte, an encoded '/' or '\' (a second
 * separator hidden from the segment check), a raw '\'.
 */
static bool decode_path(const char *in, char *out)
{
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;

		if (c == '%') {
			int hi = hexval(in[1]), lo = hi < 0 ? -1 : hexval(in[2]);

			if (lo < 0)
				return false;
			c = (unsigned char)(hi * 16 + lo);
			in += 2;
			if (c == '/' || c == '\\')
				return false;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			return false;
		*out++ = (char)c;
	}
	*out = '\0';
	return true;
}

/* "/a/b.c": no empty, "." or ".." segment. */
static bool clean_segments(const char *p)
{
	if (*p != '/')
		return false;
	if (!p[1])
		return true;	/* "/" */
	while (*p == '/') {
		const char *s = ++p, *e = strchrnul(s, '/');
		size_t n = (size_t)(e - s);

		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		p = e;
	}
	return true;
}

/* A source under the root; its real path must stay under it, and only
 * a regular file is read, by the descriptor that was checked. */
static enum MHD_Result serve_source(struct MHD_Connection *c,
				    const struct served *sv, const char *rel)
{
	char *joined, *real, *text = NULL;
	size_t len = 0;
	const char *why;
	enum MHD_Result r;

	if (!sv->root_real)
		return reply_error(c, MHD_HTTP_NOT_FOUND, "Not Found");
	joined = xasprintf("%s/%s", sv->root_real, rel);
	real = realpath(joined, NULL);
	free(joined);
	if (!real)
		return reply_error(c, MHD_HTTP_NOT_FOUND, "Not Found");
	if (!path_under(real, sv->root_real)) {
		free(real);
		return reply_error(c, MHD_HTTP_FORBIDDEN,
				   "Forbidden: outside the source root");
	}
	if (is_dir(real)) {
		free(real);
		return reply_error(c, MHD_HTTP_NOT_FOUND, "Not Found");
	}
	if (read_regular_file(real, SERVE_MAX_RESPONSE, &text, &len,
			      &why) < 0) {
		free(real);
		return reply_error(c, MHD_HTTP_FORBIDDEN,
				   "Forbidden: not a regular file, "
				   "unreadable or too large");
	}
	r = reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", text, len);
	free(real);
	free(text);
	return r;
}

static enum MHD_Result serve_page(struct MHD_Connection *c,
				  struct served *sv, const char *path)
{
	const struct site_page *p;
	enum MHD_Result r;
	char ver[64];

	if (!strcmp(path, "version.json")) {
		pthread_mutex_lock(&sv->lock);
		snprintf(ver, sizeof(ver), "{\"version\": %lu}\n",
			 sv->generation);
		pthread_mutex_unlock(&sv->lock);
		return reply(c, MHD_HTTP_OK, "application/json", ver,
			     strlen(ver));
	}
	pthread_mutex_lock(&sv->lock);
	p = site_find(&sv->site, *path ? path : "index.html");
	if (!p)
		r = reply_error(c, MHD_HTTP_NOT_FOUND, "Not Found");
	else if (p->len > SERVE_MAX_RESPONSE)
		r = reply_error(c, MHD_HTTP_FORBIDDEN,
				"Forbidden: page too large");
	else
		r = reply(c, MHD_HTTP_OK, p->mime, p->body, p->len);
	pthread_mutex_unlock(&sv->lock);
	return r;
}

/*
 * DNS rebinding: a page of evil.example whose name now resolves to
 * 127.0.0.1 reaches us with "Host: evil.example:PORT".  Only our own
 * names are answered: the bound address, 127.0.0.1, localhost and
 * [::1], with our port or none (RFC 9110 7.2: the port is optional).
 */
static bool host_is_self(const struct served *sv, const char *host)
{
	static const char *const names[] = { "127.0.0.1", "localhost",
					      "[::1]" };
	const char *colon;
	size_t n;
	char port[16];

	if (!host)
		return false;
	colon = strrchr(host, ':');
	if (colon && strchr(colon, ']'))
		colon = NULL;	/* "[::1]": the colons are the address's */
	n = colon ? (size_t)(colon - host) : strlen(host);
	snprintf(port, sizeof(port), "%u", sv->port);
	if (colon && strcmp(colon + 1, port) != 0)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == n && !strncasecmp(host, names[i], n))
			return true;
	return strlen(sv->self) == n && !strncasecmp(host, sv->self, n);
}

/* ---- the request deadline ---- */

static struct timespec now_mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t;
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* Headers complete: the deadline no longer applies (a slow reader of a
 * big page is the idle timeout's business). */
static void conn_mark_busy(struct served *sv, struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);

	pthread_mutex_lock(&sv->conns_lock);
	if (k)
		k->busy = true;
	pthread_mutex_unlock(&sv->conns_lock);
}

/* MHD_OPTION_NOTIFY_COMPLETED: the next request's clock starts now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct served *sv = cls;
	struct conn *k = conn_of(c);

	(void)state;
	(void)why;
	pthread_mutex_lock(&sv->conns_lock);
	if (k) {
		k->busy = false;
		k->since = now_mono();
	}
	pthread_mutex_unlock(&sv->conns_lock);
}

/* MHD_OPTION_NOTIFY_CONNECTION: keep the list the deadline walks.
 * libmicrohttpd calls CLOSED before it closes the socket, so under
 * conns_lock every listed fd is still the connection's. */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode what)
{
	struct served *sv = cls;
	struct conn *k = *ctx;
	const union MHD_ConnectionInfo *i;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		i = MHD_get_connection_info(c,
					    MHD_CONNECTION_INFO_CONNECTION_FD);
		k = xcalloc(1, sizeof(*k));
		k->fd = i ? i->connect_fd : -1;
		k->since = now_mono();
		pthread_mutex_lock(&sv->conns_lock);
		k->next = sv->conns;
		if (sv->conns)
			sv->conns->prev = k;
		sv->conns = k;
		pthread_mutex_unlock(&sv->conns_lock);
		*ctx = k;
		return;
	}
	if (!k)
		return;
	pthread_mutex_lock(&sv->conns_lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		sv->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&sv->conns_lock);
	free(k);
	*ctx = NULL;
}

/* Shut down the connections past the deadline without a complete
 * request; libmicrohttpd sees the end of the socket and closes it. */
static void reap_slow_requests(struct served *sv)
{
	struct timespec now = now_mono();

	pthread_mutex_lock(&sv->conns_lock);
	for (struct conn *k = sv->conns; k; k = k->next)
		if (!k->busy && k->fd >= 0 &&
		    now.tv_sec - k->since.tv_sec >= SERVE_REQUEST_DEADLINE)
			shutdown(k->fd, SHUT_RDWR);
	pthread_mutex_unlock(&sv->conns_lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct served *sv = cls;
	char path[SERVE_MAX_URL + 1];

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	conn_mark_busy(sv, c);
	if (!host_is_self(sv, MHD_lookup_connection_value(
				      c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
		return reply_error(c, MHD_HTTP_MISDIRECTED_REQUEST,
				   "Misdirected Request: unknown Host");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				   "Method Not Allowed");
	if (strlen(url) > SERVE_MAX_URL)
		return reply_error(c, MHD_HTTP_URI_TOO_LONG, "URI Too Long");
	if (!decode_path(url, path) || !clean_segments(path))
		return reply_error(c, MHD_HTTP_BAD_REQUEST, "Bad Request");
	if (!strncmp(path, "/source/", 8))
		return serve_source(c, sv, path + 8);
	return serve_page(c, sv, path + 1);
}

/* Keep the URL as sent: decode_path decodes it once, strictly (the
 * library's own unescaping would let "%00" cut the path short). */
static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return strlen(s);
}

/* ---- the listening socket ---- */

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	bool v6;
};

static bool parse_bind(const char *host, unsigned port, struct listen_addr *a)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		a->len = sizeof(*in4);
		return true;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		a->len = sizeof(*in6);
		a->v6 = true;
		return true;
	}
	return false;
}

static bool is_loopback(const struct listen_addr *a)
{
	if (a->v6)
		return IN6_IS_ADDR_LOOPBACK(
			&((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
	return (ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr) >>
		24) == 127;
}

/* Our own socket, so that "address in use" is a clear error and port 0
 * (any free port) can be printed. Returns the fd or -1 after a message. */
static int open_listener(const char *host, struct listen_addr *a,
			 unsigned *port)
{
	int one = 1, fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
				 0);

	if (fd < 0) {
		msg_error("serve: socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a->ss, a->len) < 0 ||
	    listen(fd, 32) < 0) {
		msg_error("serve: cannot listen on %s port %u: %s", host,
			  *port, strerror(errno));
		close(fd);
		return -1;
	}
	a->len = sizeof(a->ss);
	if (getsockname(fd, (struct sockaddr *)&a->ss, &a->len) == 0)
		*port = ntohs(a->v6 ? ((struct sockaddr_in6 *)&a->ss)->sin6_port
				    : ((struct sockaddr_in *)&a->ss)->sin_port);
	return fd;
}

static struct MHD_Daemon *start_daemon(int fd, bool v6, struct served *sv)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			 (v6 ? MHD_USE_IPv6 : 0);

	return MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, sv, MHD_OPTION_LISTEN_SOCKET,
		fd, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)SERVE_CONN_TIMEOUT, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)SERVE_CONN_LIMIT,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_CONN_MEMORY,
		MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
		MHD_OPTION_END);
}

/* ---- the command ---- */

void serve_usage(FILE *f)
{
	fprintf(f,
"usage: ukcov serve [--port N] [--bind ADDR] [--source-root DIR]\n"
"                   [--strip-path-prefix P] [--title T] INPUT|DIR...\n"
"\n"
"The pages of `ukcov report -o DIR`, served from memory over HTTP until\n"
"SIGINT or SIGTERM.  INPUTs are binaries, .sancov files, dumps and\n"
".symcov files; a DIR is watched and its new coverage files merged in.\n"
"\n"
"  --port N             TCP port (default %d; 0: any free port)\n"
"  --bind ADDR          numeric listening address (default 127.0.0.1)\n"
"  --source-root DIR    sources are read only under DIR (by real path)\n"
"                       and served at /source/PATH\n"
"\n"
"Without --source-root and with a watched DIR, only the sources named by\n"
"the debug info of the binaries on the command line are shown.  Only\n"
"requests with Host 127.0.0.1, localhost, [::1] or ADDR (with the port\n"
"or none) are answered.  See ukcov(1).\n", SERVE_DEFAULT_PORT);
}

static int parse_port(const char *s, unsigned *port)
{
	char *end;
	unsigned long v;

	if (!s) {
		*port = SERVE_DEFAULT_PORT;
		return 0;
	}
	v = strtoul(s, &end, 10);
	if (!*s || *end || v > 65535) {
		msg_error("serve: --port: expected 0..65535, got '%s'", s);
		return EXIT_USAGE;
	}
	*port = (unsigned)v;
	return 0;
}

/*
 * SIGINT and SIGTERM are blocked in every thread and taken by one
 * thread with sigwait: the main thread may be stuck in a read (an input
 * named on the command line that is a FIFO without a writer), and a
 * signal must end serve all the same.  The main thread is given
 * SERVE_STOP_GRACE seconds to stop the server cleanly.
 */
#define SERVE_STOP_GRACE 2

struct stopper {
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* CLOCK_MONOTONIC */
	sigset_t set;		/* const */
	bool stopping;		/* lock: a signal came */
	bool done;		/* lock: the main thread has stopped */
	pthread_t thread;
};

static struct timespec mono_after(long sec, long ns)
{
	struct timespec t = now_mono();

	t.tv_sec += sec + (t.tv_nsec + ns) / 1000000000L;
	t.tv_nsec = (t.tv_nsec + ns) % 1000000000L;
	return t;
}

static void *stopper_main(void *arg)
{
	struct stopper *st = arg;
	struct timespec until;
	int sig, e = 0;

	while (sigwait(&st->set, &sig) != 0)
		;
	pthread_mutex_lock(&st->lock);
	st->stopping = true;
	pthread_cond_broadcast(&st->cond);
	until = mono_after(SERVE_STOP_GRACE, 0);
	while (!st->done && e != ETIMEDOUT)
		e = pthread_cond_timedwait(&st->cond, &st->lock, &until);
	if (!st->done) {
		msg_warn("serve: stopped while an input was being read");
		_exit(0);
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

static int stopper_start(struct stopper *st)
{
	pthread_condattr_t ca;

	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->cond, &ca);
	pthread_condattr_destroy(&ca);
	sigemptyset(&st->set);
	sigaddset(&st->set, SIGINT);
	sigaddset(&st->set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &st->set, NULL);
	if (pthread_create(&st->thread, NULL, stopper_main, st) != 0) {
		msg_error("serve: cannot start a thread: %s", strerror(errno));
		return EXIT_DATA;
	}
	return 0;
}

/* True once a signal came; waits at most ns for one. */
static bool stopper_wait(struct stopper *st, long ns)
{
	struct timespec until = mono_after(0, ns);
	bool stop;
	int e = 0;

	pthread_mutex_lock(&st->lock);
	while (!st->stopping && e != ETIMEDOUT)
		e = pthread_cond_timedwait(&st->cond, &st->lock, &until);
	stop = st->stopping;
	pthread_mutex_unlock(&st->lock);
	return stop;
}

/* The main thread is done: release the stopper (woken by a signal of
 * our own if none came: an early error). */
static void stopper_end(struct stopper *st)
{
	bool stopping;

	pthread_mutex_lock(&st->lock);
	st->done = true;
	stopping = st->stopping;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	if (!stopping)	/* blocked everywhere: its sigwait takes it */
		pthread_kill(st->thread, SIGINT);
	pthread_join(st->thread, NULL);
}

/* Poll and rebuild until SIGINT or SIGTERM. */
static void serve_loop(struct options *o, struct watch *w, struct served *sv,
		       struct stopper *st)
{
	unsigned long gen = 1;

	for (;;) {
		struct site s;

		if (stopper_wait(st, SERVE_POLL_NS))
			return;
		reap_slow_requests(sv);
		if (!w->ndirs || !watch_poll(w))
			continue;
		if (build_site(o, w, gen + 1, &s) == 0)
			swap_site(sv, &s, ++gen);
	}
}

static int serve_prepare(struct options *o, struct served *sv,
			 struct watch *w)
{
	struct site s;
	int r;

	watch_init(w, o);
	if (o->source_root && !(sv->root_real = realpath(o->source_root,
							 NULL))) {
		msg_error("%s: %s", o->source_root, strerror(errno));
		return EXIT_DATA;
	}
	if (w->ndirs && !o->source_root)
		watch_trust_binaries(w, o);
	if (w->ndirs) {
		/* Take what is there now, without waiting for a poll. */
		watch_poll(w);
		for (size_t i = 0; i < w->nfiles; i++) {
			w->files[i].stable = true;
			w->files[i].valid = validate(w, w->files[i].path);
		}
	}
	r = build_site(o, w, 1, &s);
	if (r)
		return r;
	sv->site = s;
	sv->generation = 1;
	return 0;
}

int cmd_serve(struct options *o)
{
	struct served sv = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .conns_lock = PTHREAD_MUTEX_INITIALIZER };
	struct watch w;
	struct listen_addr a;
	struct MHD_Daemon *d = NULL;
	const char *host = o->bind ? o->bind : "127.0.0.1";
	struct stopper stop;
	unsigned port;
	int fd = -1, r;

	if (o->nargs < 1) {
		msg_error("missing inputs (see ukcov --help)");
		return EXIT_USAGE;
	}
	if ((r = parse_port(o->port, &port)))
		return r;
	if (!parse_bind(host, port, &a)) {
		msg_error("serve: --bind: not a numeric IPv4 or IPv6 address: "
			  "'%s'", host);
		return EXIT_USAGE;
	}
	if ((r = stopper_start(&stop)))
		return r;
	r = serve_prepare(o, &sv, &w);
	if (!r && !is_loopback(&a))
		msg_warn("serving on %s, not a loopback address: whoever "
			 "reaches it reads the report and the sources under "
			 "--source-root", host);
	if (!r && (fd = open_listener(host, &a, &port)) < 0)
		r = EXIT_DATA;
	sv.self = xasprintf(a.v6 ? "[%s]" : "%s", host);
	sv.port = port;
	if (!r && !(d = start_daemon(fd, a.v6, &sv))) {
		msg_error("serve: the HTTP server did not start");
		close(fd);
		r = EXIT_DATA;
	}
	if (!r) {
		printf(a.v6 ? "ukcov: serving http://[%s]:%u/\n"
			    : "ukcov: serving http://%s:%u/\n", host, port);
		fflush(stdout);
		serve_loop(o, &w, &sv, &stop);
		MHD_stop_daemon(d);
		close(fd);
	}
	stopper_end(&stop);
	watch_free(&w);
	site_free(&sv.site);
	free(sv.root_real);
	free(sv.self);
	return r;
}
