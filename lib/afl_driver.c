/*
 * lib/afl_driver.c -- main() for LLVMFuzzerTestOneInput harnesses, the
 * driver `ukcov-cc -fsanitize=fuzzer` links (libukcov_fuzzer.a) in
 * place of libFuzzer's, with AFL++'s libAFLDriver's behaviour
 * (utils/aflpp_driver/aflpp_driver.c):
 *
 *   under ukcov fuzz its executor (lib/fuzz_exec.c) runs the inputs;
 *   under afl-fuzz   the fork server starts after LLVMFuzzerInitialize;
 *                    each child makes one throwaway call (so that what
 *                    a target starts lazily, a pool or a cache, is not
 *                    the first input's coverage), then runs inputs in
 *                    persistent mode, from shared memory when afl-fuzz
 *                    agreed, else from the file argument or stdin;
 *   given files      runs each once, as a libFuzzer binary reproduces;
 *   otherwise        runs what stdin holds, once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ukcov/afl.h>

/* afl-fuzz 4.04c runs a program in persistent mode when its file holds
 * this signature (afl-fuzz-init.c, check_binary; config.h PERSIST_SIG). */
__attribute__((used)) static const char persistent_sig[] =
	"##SIG_AFL_PERSISTENT##";

/* Inputs per child before it exits and the server forks a fresh one. */
#define DRIVER_LOOP 10000
#define DRIVER_MAX_INPUT (1u << 20)	/* AFL++'s MAX_FILE */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);
/* `ukcov fuzz`'s executor (lib/fuzz_exec.c): -1 at once unless that tool
 * started this process. */
int __ukcov_fuzz_serve(int (*test_one)(const uint8_t *, size_t));

/* Before libukcov's constructor: the driver starts the server itself. */
static void driver_preinit(void)
{
	ukcov_afl_defer();
}
__attribute__((section(".preinit_array"), used))
static void (*const driver_preinit_entry)(void) = driver_preinit;

/* All of fd, up to max bytes, into a fresh buffer of exactly its size
 * (so that a sanitizer sees a read past the input). */
static uint8_t *read_all(int fd, size_t max, size_t *len)
{
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap), *nb;
	ssize_t r;

	*len = 0;
	if (!buf)
		return NULL;
	while (n < max) {
		if (n == cap) {
			cap = cap * 2 < max ? cap * 2 : max;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

/* 0, or -1 when no input could be read.  The harness's own return
 * value (libFuzzer's -1: "do not add to the corpus") is not an error. */
static int run_fd(int fd)
{
	size_t len;
	uint8_t *buf = read_all(fd, DRIVER_MAX_INPUT, &len);

	if (!buf)
		return -1;
	(void)LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = run_fd(fd);
	close(fd);
	return rc;
}

/* The file argument afl-fuzz passes for @@, if any. */
static const char *input_path(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			return argv[i];
	return NULL;
}

static void run_shm_input(void)
{
	const uint8_t *data;
	size_t len;
	uint8_t *copy;

	if (!ukcov_afl_input(&data, &len))
		return;
	copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, data, len);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
}

static int run_afl(int argc, char **argv)
{
	static const uint8_t throwaway[4];
	const char *path = input_path(argc, argv);
	const uint8_t *d;
	size_t n;

	ukcov_afl_start(UKCOV_AFL_SHM_INPUT);
	LLVMFuzzerTestOneInput(throwaway, sizeof(throwaway));
	while (__afl_persistent_loop(DRIVER_LOOP)) {
		if (ukcov_afl_input(&d, &n))
			run_shm_input();
		else if (path)
			(void)run_path(path);
		else
			(void)run_fd(0);
	}
	return 0;
}

static int run_files(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;	/* libFuzzer's flags: not ours */
		fprintf(stderr, "Running: %s\n", argv[i]);
		if (run_path(argv[i]) < 0)
			return 1;
		fprintf(stderr, "Executed %s\n", argv[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (__ukcov_fuzz_serve(LLVMFuzzerTestOneInput) == 0)
		return 0;
	if (ukcov_afl_active())
		return run_afl(argc, argv);
	if (input_path(argc, argv))
		return run_files(argc, argv);
	return run_fd(0) < 0 ? 1 : 0;
}
