/*
 * tools/fuzz_run.c -- the harness process of "ukcov fuzz": started with
 * $UKCOV_FUZZ naming a memfd and two pipes (lib/fuzz_proto.h), driven
 * one input at a time, restarted after a crash or a timeout.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define FZ_OUT_WORDS (1 + 4 * (1UL << 18))
#define FZ_HELLO_MS  30000
#define FZ_RTN_MAX 1024	/* routine calls kept per CMP execution */

static uint64_t page_round(uint64_t n)
{
	return (n + 4095) & ~4095ULL;
}

int fz_exec_init(struct fz_exec *e, char **argv, uint64_t max_len,
		 unsigned timeout_ms)
{
	uint64_t out_off = page_round(UKFZ_IN_OFF + max_len);
	uint64_t rtn_off = out_off + page_round(FZ_OUT_WORDS * 8);
	uint64_t size = rtn_off +
			page_round(8 + FZ_RTN_MAX * sizeof(struct ukfz_rtn));
	struct ukfz_shm *h;

	memset(e, 0, sizeof(*e));
	e->argv = argv;
	e->timeout_ms = timeout_ms;
	e->ctl = e->st = -1;
	e->shm_fd = memfd_create("ukcov-fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	/* Sealed at its size: the executor maps it whole and refuses a
	 * block that could shrink under its loads (SIGBUS). */
	if (e->shm_fd < 0 || ftruncate(e->shm_fd, (off_t)size) ||
	    fcntl(e->shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
					  F_SEAL_SEAL)) {
		msg_error("fuzz: shared block: %s", strerror(errno));
		return -1;
	}
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, e->shm_fd, 0);
	if (h == MAP_FAILED) {
		msg_error("fuzz: shared block: %s", strerror(errno));
		return -1;
	}
	h->size = size;
	h->in_max = max_len;
	h->out_off = out_off;
	h->out_words = FZ_OUT_WORDS;
	h->rtn_off = rtn_off;
	h->rtn_max = FZ_RTN_MAX;
	h->magic = UKFZ_MAGIC;
	e->shm = h;
	e->shm_len = size;
	e->in_max = max_len;
	e->out_words = FZ_OUT_WORDS;
	e->out = (const uint64_t *)((uint8_t *)h + out_off);
	e->rtn_count = (uint64_t *)((uint8_t *)h + rtn_off);
	e->rtn = (const struct ukfz_rtn *)(e->rtn_count + 1);
	e->rtn_max = FZ_RTN_MAX;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: the executor's ends without FD_CLOEXEC, named in the
 * environment; everything else of ours is close-on-exec. */
static void exec_child(const struct fz_exec *e, int ctl_r, int st_w)
{
	char env[64];

	fcntl(ctl_r, F_SETFD, 0);
	fcntl(st_w, F_SETFD, 0);
	fcntl(e->shm_fd, F_SETFD, 0);
	snprintf(env, sizeof(env), "%d,%d,%d", ctl_r, st_w, e->shm_fd);
	setenv(UKFZ_ENV, env, 1);
	children_restore();
	execvp(e->argv[0], e->argv);
	fprintf(stderr, "ukcov fuzz: %s: %s\n", e->argv[0], strerror(errno));
	_exit(127);
}

/* Read one status word within ms: 1, 0 on EOF, -2 on timeout. */
static int read_word(int fd, uint32_t *w, unsigned ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < sizeof(*w)) {
		int r = poll(&p, 1, ms ? (int)ms : -1);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -2;
		n = read(fd, (char *)w + got, sizeof(*w) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return 1;
}

/* The executor closed its status pipe: it is dying, or it closed the
 * pipe and lives on.  Wait for its end at most the input's timeout
 * (a pidfd turns readable at exit), then kill it. */
static bool exits_within(pid_t pid, unsigned ms)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	if (fd < 0)
		return true;	/* no pidfd (Linux < 5.3): wait for it */
	do
		r = poll(&p, 1, ms ? (int)ms : -1);
	while (r < 0 && errno == EINTR);
	close(fd);
	return r != 0;
}

static int reap(struct fz_exec *e, bool kill_it)
{
	int status = 0;

	if (!e->pid)
		return 0;
	if (kill_it)
		kill(e->pid, SIGKILL);
	while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR)
		;
	e->pid = 0;
	close_fd(&e->ctl);
	close_fd(&e->st);
	return status;
}

static int start(struct fz_exec *e)
{
	int ctl[2], st[2];
	uint32_t hello = 0;
	int r;

	if (pipe2(ctl, O_CLOEXEC) || pipe2(st, O_CLOEXEC)) {
		msg_error("fuzz: pipe: %s", strerror(errno));
		return -1;
	}
	e->pid = fork();
	if (e->pid == 0)
		exec_child(e, ctl[0], st[1]);
	close(ctl[0]);
	close(st[1]);
	e->ctl = ctl[1];
	e->st = st[0];
	if (e->pid < 0) {
		e->pid = 0;
		msg_error("fuzz: fork: %s", strerror(errno));
		close_fd(&e->ctl);
		close_fd(&e->st);
		return -1;
	}
	r = read_word(e->st, &hello, FZ_HELLO_MS);
	if (r == 1 && hello == UKFZ_HELLO) {
		e->restarts++;
		return 0;
	}
	reap(e, true);
	msg_error("fuzz: %s did not start the executor (its main must call "
		  "__ukcov_fuzz_serve, as ukcov-cc -fsanitize=fuzzer's does)",
		  e->argv[0]);
	return -1;
}

static void fill_crash(const struct fz_exec *e, int status,
		       struct fz_crash *c)
{
	const struct ukfz_shm *h = e->shm;

	memset(c, 0, sizeof(*c));
	if (WIFSIGNALED(status))
		c->sig = WTERMSIG(status);
	else if (WIFEXITED(status))
		c->exit_code = WEXITSTATUS(status);
	/* Only the signal the handler saw is the one it described. */
	if (c->sig && h->crash_sig == (uint64_t)c->sig) {
		c->pc = h->crash_pc;
		c->npcs = h->crash_npcs < UKFZ_CRASH_PCS ? h->crash_npcs
							 : UKFZ_CRASH_PCS;
		memcpy(c->pcs, (const void *)h->crash_pcs,
		       c->npcs * sizeof(*c->pcs));
	}
}

enum fz_outcome fz_exec_run(struct fz_exec *e, const uint8_t *data,
			    size_t len, int mode, struct fz_crash *crash)
{
	uint32_t cmd = (uint32_t)mode, st = 0;
	int r;

	if (!e->pid && start(e))
		return FZ_ERROR;
	if (len > e->in_max)
		len = (size_t)e->in_max;
	memcpy((uint8_t *)e->shm + UKFZ_IN_OFF, data, len);
	e->shm->in_len = len;
	e->shm->crash_sig = 0;
	e->shm->crash_npcs = 0;
	((uint64_t *)e->out)[0] = 0;
	*e->rtn_count = 0;
	e->execs++;
	if (write(e->ctl, &cmd, sizeof(cmd)) != (ssize_t)sizeof(cmd))
		r = 0;		/* the executor closed its end: as EOF */
	else
		r = read_word(e->st, &st, e->timeout_ms);
	if (r == 1 && st == UKFZ_ST_DONE)
		return FZ_OK;
	/* No answer in time, or the pipes closed by a process that does
	 * not end: a timeout either way. */
	if (r == -2 || (r == 0 && !exits_within(e->pid, e->timeout_ms))) {
		reap(e, true);
		memset(crash, 0, sizeof(*crash));
		return FZ_TIMEOUT;
	}
	fill_crash(e, reap(e, r == 1), crash);
	return FZ_CRASH;
}

uint64_t fz_exec_count(const struct fz_exec *e, unsigned words_per_rec)
{
	uint64_t n = __atomic_load_n(&e->out[0], __ATOMIC_ACQUIRE);
	uint64_t room = (e->out_words - 1) / words_per_rec;

	return n < room ? n : room;
}

uint64_t fz_exec_rtn_count(const struct fz_exec *e)
{
	uint64_t n = __atomic_load_n(e->rtn_count, __ATOMIC_ACQUIRE);

	return n < e->rtn_max ? n : e->rtn_max;
}

void fz_exec_stop(struct fz_exec *e)
{
	close_fd(&e->ctl);	/* EOF: the executor returns 0 */
	reap(e, false);
	if (e->shm)
		munmap(e->shm, e->shm_len);
	e->shm = NULL;
	close_fd(&e->shm_fd);
}
