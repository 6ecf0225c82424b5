/*
 * tests/afl/peer.c -- the afl-fuzz end of AFL++'s fork server, small
 * enough to check byte by byte (uninstrumented; tests/suites.d/75-afl.sh).
 * afl-fuzz 4.04c speaks only the old hello; this peer speaks either,
 * and dumps what the target wrote into the maps.
 *
 *   peer [-1] [-c] [-s FILE] [-m BYTES] [-r RUNS] [-n] -- PROG ARGS...
 *
 *   -1        expect the version-1 handshake (sets UKCOV_AFL_PROTOCOL=1)
 *   -c        attach a CmpLog map (__AFL_CMPLOG_SHM_ID) and dump it
 *   -s FILE   offer FILE's bytes as a shared-memory test case
 *   -m BYTES  size of the edge map (default 65536)
 *   -r RUNS   inputs to run (default 1)
 *   -n        no fork server: run PROG once with the maps, report its
 *             exit status (a bad environment must not stop a program)
 *   -t        after the runs, "threads N": the threads of the last
 *             child, still stopped in persistent mode
 *
 * Prints "hello", "options", "mapsize" of the handshake, then per run
 * "pid" (the child's) and "status" (the wait status afl-fuzz would see), "edges" (non-zero map
 * bytes) and "map" (an FNV-1a hash of the map); with -c the CmpLog
 * entries, "ins SHAPE V0 V1" and "rtn LEN V0HEX V1HEX".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#define CTL_FD 198
#define ST_FD  199
#define CMP_W  ((size_t)65536)
#define CMP_H  ((size_t)32)
#define CMP_HDR ((size_t)8)
#define CMP_OPS ((size_t)32)
#define CMP_MAP_BYTES (CMP_W * CMP_HDR + CMP_W * CMP_H * CMP_OPS)
#define SHM_INPUT_MAX ((size_t)1 << 20)

static int ctl_w, st_r;

static void die(const char *what)
{
	fprintf(stderr, "peer: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *new_shm(size_t size, const char *env)
{
	char id[32];
	int shm = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
	void *p;

	if (shm < 0)
		die("shmget");
	p = shmat(shm, NULL, 0);
	if (p == (void *)-1)
		die("shmat");
	/* Removed now: it lives while attached, so nothing leaks. */
	shmctl(shm, IPC_RMID, NULL);
	snprintf(id, sizeof(id), "%d", shm);
	setenv(env, id, 1);
	return p;
}

static uint32_t get32(void)
{
	uint32_t v;

	if (read(st_r, &v, 4) != 4) {
		fprintf(stderr, "peer: the target hung up\n");
		exit(3);
	}
	return v;
}

static void put32(uint32_t v)
{
	if (write(ctl_w, &v, 4) != 4)
		die("write");
}

static pid_t start(char **argv)
{
	int ctl[2], st[2];
	pid_t pid;

	if (pipe(ctl) || pipe(st))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (dup2(ctl[0], CTL_FD) < 0 || dup2(st[1], ST_FD) < 0)
			die("dup2");
		close(ctl[0]); close(ctl[1]); close(st[0]); close(st[1]);
		execv(argv[0], argv);
		die(argv[0]);
	}
	close(ctl[0]);
	close(st[1]);
	ctl_w = ctl[1];
	st_r = st[0];
	return pid;
}

/* afl-forkserver.c: the old hello answered when it offers test cases
 * in shared memory, or the version-1 handshake. */
static void handshake(int v1, int shm_input)
{
	uint32_t hello = get32(), opts;

	printf("hello 0x%08x\n", hello);
	if (!v1) {
		if (hello & 0x01000000u)
			put32(shm_input ? 0x81000001u : 0);
		return;
	}
	if (hello != 0x41464c01u)
		exit(4);
	put32(hello ^ 0xffffffffu);
	opts = get32();
	printf("options 0x%08x\n", opts);
	if (opts & 1)
		printf("mapsize %u\n", get32());
	if (get32() != hello) {
		printf("no closing version\n");
		exit(4);
	}
}

static void dump_map(const uint8_t *map, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t edges = 0;

	for (size_t i = 0; i < size; i++) {
		edges += map[i] != 0;
		h = (h ^ map[i]) * 0x100000001b3ull;
	}
	printf("edges %zu\nmap %016" PRIx64 "\n", edges, h);
}

static void hex(const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/* cmplog.h 4.04c: hits 0-23, id 24-47, shape 48-52, type 53-54. */
static void dump_cmp(const uint8_t *cmp)
{
	for (size_t k = 0; k < CMP_W; k++) {
		uint64_t hd;
		const uint8_t *ops = cmp + CMP_W * CMP_HDR +
				     (size_t)k * CMP_H * CMP_OPS;
		unsigned type, shape, hits;

		memcpy(&hd, cmp + (size_t)k * CMP_HDR, 8);
		type = (unsigned)(hd >> 53) & 3;
		shape = (unsigned)(hd >> 48) & 31;
		hits = (unsigned)hd & 0xffffff;
		for (unsigned i = 0; type == 1 && i < hits && i < CMP_H; i++) {
			uint64_t v0, v1;

			memcpy(&v0, ops + i * CMP_OPS, 8);
			memcpy(&v1, ops + i * CMP_OPS + 8, 8);
			printf("ins %u %" PRIx64 " %" PRIx64 "\n", shape, v0, v1);
		}
		for (unsigned i = 0; type == 2 && i < hits && i < 8; i++) {
			const uint8_t *f = ops + (size_t)i * 64;

			printf("rtn %u ", f[31]);
			hex(f, f[31] & 0x7f);
			printf(" ");
			hex(f + 32, f[63] & 0x7f);
			printf("\n");
		}
	}
}

static int count_threads(pid_t pid)
{
	char path[64];
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void load_input(uint8_t *shm, const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die(path);
	n = read(fd, shm + 4, SHM_INPUT_MAX);
	if (n < 0)
		die("read");
	memcpy(shm, &(uint32_t){ (uint32_t)n }, 4);
	close(fd);
}

int main(int argc, char **argv)
{
	int v1 = 0, cmplog = 0, runs = 1, nofs = 0, threads = 0, c, status;
	size_t mapsize = 65536;
	const char *input = NULL;
	uint8_t *map, *cmp = NULL, *shm = NULL;
	pid_t srv, child = 0;

	while ((c = getopt(argc, argv, "1cs:m:r:nt")) != -1) {
		switch (c) {
		case '1': v1 = 1; break;
		case 'c': cmplog = 1; break;
		case 's': input = optarg; break;
		case 'm': mapsize = strtoul(optarg, NULL, 0); break;
		case 'r': runs = atoi(optarg); break;
		case 'n': nofs = 1; break;
		case 't': threads = 1; break;
		default: return 2;
		}
	}
	if (optind >= argc)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	map = new_shm(mapsize, "__AFL_SHM_ID");
	if (cmplog)
		cmp = new_shm(CMP_MAP_BYTES, "__AFL_CMPLOG_SHM_ID");
	if (input) {
		shm = new_shm(SHM_INPUT_MAX + 4, "__AFL_SHM_FUZZ_ID");
		load_input(shm, input);
	}
	if (v1)
		setenv("UKCOV_AFL_PROTOCOL", "1", 1);
	if (nofs) {
		child = fork();
		if (child == 0) {
			execv(argv[optind], argv + optind);
			die(argv[optind]);
		}
		waitpid(child, &status, 0);
		printf("status %d\n", status);
		dump_map(map, mapsize);
		return 0;
	}
	srv = start(argv + optind);
	handshake(v1, input != NULL);
	for (int r = 0; r < runs; r++) {
		memset(map, 0, mapsize);
		if (cmp)
			memset(cmp, 0, CMP_W * CMP_HDR);
		put32(0);
		child = (pid_t)get32();
		status = (int)get32();
		printf("pid %d\nstatus %d\n", (int)child, status);
		dump_map(map, mapsize);
		if (cmp)
			dump_cmp(cmp);
	}
	if (threads)
		printf("threads %d\n", count_threads(child));
	close(ctl_w);
	waitpid(srv, &status, 0);
	return 0;
}
