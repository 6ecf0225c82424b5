/*
 * tests/inline/self.c -- a program for tests/suites.d/57-inline.sh that
 * enables kcov in the middle of its own main() and traces the blocks
 * that follow in main itself: an inline point after the KCOV_ENABLE
 * call must read the thread's new map, not the one main started with
 * (include/ukcov/inline.h: the map is loaded again after every call).
 * Prints the number of records taken between the enable and the read.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_TRACE_PC 0
#define COVER_SIZE 4096

volatile int sink;

int main(int argc, char **argv)
{
	unsigned long *cover, n;
	int fd = open("/sys/kernel/debug/kcov", O_RDWR);

	if (fd < 0 || ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
		return 1;
	cover = mmap(NULL, COVER_SIZE * sizeof(long), PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED || ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
		return 1;
	for (int i = 0; i < argc + 4; i++)
		if (i & 1)
			sink = i;
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	printf("%lu\n", n);
	return 0;
}
