/*
 * examples/openbsd_pc.c -- the example of OpenBSD's kcov(4) (rev 1.9,
 * Anton Lindqvist; ISC), as it stands there, with two changes:
 * <ukcov/openbsd/kcov.h> in place of <sys/kcov.h>, and the traced call
 * read(-1, NULL, 0) is a call into instrumented code, target_read() in
 * examples/target.c.  Linked with -lukcov; run with
 * UKCOV_FLAVOR=openbsd (and UKCOV_DEVICE=ukcov): without it /dev/kcov
 * takes its flavor from the first request, and the 'K' requests that
 * OpenBSD shares with NetBSD mean NetBSD.
 */
#include <sys/ioctl.h>
#include <ukcov/openbsd/kcov.h>
#include <sys/mman.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long target_read(int fd, void *buf, unsigned long count);

int
main(void)
{
	unsigned long *cover, i;
	unsigned long size = 1024;
	int fd, mode;

	fd = open("/dev/kcov", O_RDWR);
	if (fd == -1)
		err(1, "open");

	if (ioctl(fd, KIOSETBUFSIZE, &size) == -1)
		err(1, "ioctl: KIOSETBUFSIZE");
	cover = mmap(NULL, size * sizeof(unsigned long),
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED)
		err(1, "mmap");

	mode = KCOV_MODE_TRACE_PC;
	if (ioctl(fd, KIOENABLE, &mode) == -1)
		err(1, "ioctl: KIOENABLE");
	target_read(-1, NULL, 0);
	if (ioctl(fd, KIODISABLE) == -1)
		err(1, "ioctl: KIODISABLE");

	for (i = 0; i < cover[0]; i++)
		printf("%p\n", (void *)cover[i + 1]);

	if (munmap(cover, size * sizeof(unsigned long)) == -1)
		err(1, "munmap");
	close(fd);

	return 0;
}
