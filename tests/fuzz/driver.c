/*
 * tests/fuzz/driver.c -- never instrumented: main for the libFuzzer-style
 * targets of tests/suites.d/76-fuzz.sh.
 *
 * Under "ukcov fuzz" it hands the harness to the runtime's executor
 * (lib/fuzz_exec.c), which returns -1 at once when the tool did not
 * start this process; the driver that ukcov-cc -fsanitize=fuzzer links
 * makes the same call.  Otherwise it runs each file named on the command
 * line once, as a libFuzzer binary does, so that a crash file
 * reproduces with "./harness crash-...".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __ukcov_fuzz_serve(int (*test_one)(const uint8_t *, size_t));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return 1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 4096);

			if (!nb) {
				fclose(f);
				free(buf);
				return 1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	fprintf(stderr, "Running: %s\n", path);
	LLVMFuzzerTestOneInput(buf, len);
	fprintf(stderr, "Executed %s\n", path);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int r = 0;

	if (__ukcov_fuzz_serve(LLVMFuzzerTestOneInput) == 0)
		return 0;
	for (int i = 1; i < argc; i++)
		r |= run_file(argv[i]);
	return r;
}
