/*
 * tests/sancov/gk_main.c -- never instrumented.  Traces gk_target(1),
 * then gk_target(2), through a Linux-flavor kcov descriptor in PC mode
 * and prints each window's records as offsets from the executable's
 * load bias ("w1 OFF..." / "w2 OFF...").  A third call after disabling
 * must add nothing ("after N", the count of the last window).  Then
 * gk_divgep(7, 9, 5) in CMP mode: each record as "cmp TYPE ARG1 ARG2".
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

int gk_target(int x);
int gk_divgep(int x, long long y, int i);

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;
}

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(void)
{
	uintptr_t bias = 0;
	uint64_t *cover, n;
	int fd = ukcov_open(UKCOV_LINUX);

	dl_iterate_phdr(first_bias, &bias);
	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, 512UL) != 0)
		return fail("open/KCOV_INIT_TRACE");
	cover = mmap(NULL, 512 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED)
		return fail("mmap");
	for (int w = 1; w <= 2; w++) {
		__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
		if (ukcov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
			return fail("KCOV_ENABLE");
		gk_target(w);
		n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
		if (ukcov_ioctl(fd, KCOV_DISABLE, 0) != 0)
			return fail("KCOV_DISABLE");
		printf("w%d", w);
		for (uint64_t i = 0; i < n; i++)
			printf(" %lx", (unsigned long)(cover[1 + i] - bias));
		printf("\n");
	}
	gk_target(1);
	printf("after %lu\n", (unsigned long)__atomic_load_n(&cover[0], __ATOMIC_RELAXED));
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	if (ukcov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP) != 0)
		return fail("KCOV_ENABLE cmp");
	gk_divgep(7, 9, 5);
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	if (ukcov_ioctl(fd, KCOV_DISABLE, 0) != 0)
		return fail("KCOV_DISABLE");
	for (uint64_t i = 0; i < n; i++)
		printf("cmp %lx %lx %lx\n", (unsigned long)cover[1 + 4 * i],
		       (unsigned long)cover[2 + 4 * i],
		       (unsigned long)cover[3 + 4 * i]);
	return 0;
}
