/*
 * demo/demo.c -- collect the coverage of one call, the way a kcov user
 * does on Linux, and save it as a ukcov dump for symbolization.
 *
 * This file is not instrumented; parse.c is.
 *   usage: demo OUT.dump ["settings string"]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ukcov/linux/kcov.h>

#include "parse.h"

#define COVER_SIZE (64 << 10)

int main(int argc, char **argv)
{
	const char *input = argc > 2 ? argv[2] : "level=3; retries=5; color=7";
	struct settings set;
	uint64_t *cover, n;
	int fd, out, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: demo OUT.dump [SETTINGS]\n");
		return 2;
	}
	/* The kernel's interface: libukcov serves the path. */
	fd = open("/sys/kernel/debug/kcov", O_RDWR);
	if (fd == -1)
		perror("open"), exit(1);
	if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
		perror("ioctl"), exit(1);
	cover = mmap(NULL, COVER_SIZE * sizeof(uint64_t),
		     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED)
		perror("mmap"), exit(1);
	if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
		perror("ioctl"), exit(1);
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);

	rc = parse_settings(input, &set);	/* the one traced call */

	n = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
	if (ioctl(fd, KCOV_DISABLE, 0))
		perror("ioctl"), exit(1);
	printf("parse_settings(\"%s\") = %d (level %d, retries %d, unknown %d)\n",
	       input, rc, set.level, set.retries, set.unknown);
	printf("%llu PCs recorded\n", (unsigned long long)n);

	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || ukcov_dump(out, cover, COVER_SIZE, UKCOV_DUMP_PC) ||
	    close(out))
		perror(argv[1]), exit(1);
	return 0;
}
