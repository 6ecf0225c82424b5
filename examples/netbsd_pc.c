/*
 * examples/netbsd_pc.c -- the example of NetBSD's kcov(4) (Siddharth
 * Muralee; BSD-2-Clause), as it stands there, with three changes:
 * <ukcov/netbsd/kcov.h> in place of <sys/kcov.h>; no <sys/ioccom.h>,
 * which is NetBSD's (glibc has the _IO* macros in <sys/ioctl.h>); and
 * the traced call read(-1, NULL, 0) is a call into instrumented code,
 * target_read() in examples/target.c.  Linked with -lukcov; run with
 * UKCOV_FLAVOR=netbsd (and UKCOV_DEVICE=ukcov).
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/mman.h>

#include <ukcov/netbsd/kcov.h>

long target_read(int fd, void *buf, unsigned long count);

int
main(void)
{
	kcov_int_t *cover, i, n;
	uint64_t size = 1024 * 100;
	int fd;
	int mode;

	fd = open("/dev/kcov", O_RDWR);
	if (fd == -1)
		err(1, "open");
	if (ioctl(fd, KCOV_IOC_SETBUFSIZE, &size) == -1)
		err(1, "ioctl: KCOV_IOC_SETBUFSIZE");
	cover = mmap(NULL, size * KCOV_ENTRY_SIZE,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED)
		err(1, "mmap");
	mode = KCOV_MODE_TRACE_PC;
	if (ioctl(fd, KCOV_IOC_ENABLE, &mode) == -1)
		err(1, "ioctl: KCOV_IOC_ENABLE");
	cover[0] = 0;
	target_read(-1, NULL, 0); /* code paths to be traced */
	n = cover[0];
	if (ioctl(fd, KCOV_IOC_DISABLE) == -1)
		err(1, "ioctl: KCOV_IOC_DISABLE");
	for (i = 0; i < n; i++)
		printf("%p\n", (void *)cover[i + 1]);
	if (munmap(cover, size * KCOV_ENTRY_SIZE) == -1)
		err(1, "munmap");

	return 0;
}
