/*
 * examples/freebsd_pc.c -- the example of FreeBSD's kcov(4) (2020, Mark
 * Johnston, BSD-2-Clause), which the page gives as the body of a
 * function, in a main() with the headers it needs.  Two changes:
 * <ukcov/freebsd/kcov.h> in place of <sys/kcov.h>, and the traced call
 * printf("Hello, world!\n") is a call into instrumented code,
 * target_read() in examples/target.c.  Linked with -lukcov; run with
 * UKCOV_FLAVOR=freebsd (and UKCOV_DEVICE=ukcov).
 *
 * As on FreeBSD, the loop below stops one short of buf[0] and so does
 * not print the last PC.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <err.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>

#include <ukcov/freebsd/kcov.h>

long target_read(int fd, void *buf, unsigned long count);

int
main(void)
{
	size_t sz;
	uint64_t *buf;
	int fd;

	fd = open("/dev/kcov", O_RDWR);
	if (fd == -1)
		err(1, "open(/dev/kcov)");
	sz = 1ul << 20; /* 1MB */
	if (ioctl(fd, KIOSETBUFSIZE, sz / KCOV_ENTRY_SIZE) != 0)
		err(1, "ioctl(KIOSETBUFSIZE)");
	buf = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buf == MAP_FAILED)
		err(1, "mmap");

	/* Enable PC tracing. */
	if (ioctl(fd, KIOENABLE, KCOV_MODE_TRACE_PC) != 0)
		err(1, "ioctl(KIOENABLE)");

	/* Clear trace records from the preceding ioctl() call. */
	buf[0] = 0;

	target_read(-1, NULL, 0);

	/* Disable PC tracing. */
	if (ioctl(fd, KIODISABLE, 0) != 0)
		err(1, "ioctl(KIODISABLE)");

	for (uint64_t i = 1; i < buf[0]; i++)
		printf("%#jx\n", (uintmax_t)buf[i]);
	return (0);
}
