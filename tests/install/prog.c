/* Uninstrumented harness: links against an installed libukcov through
 * pkg-config and checks that one call is recorded. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ukcov/linux/kcov.h>

int install_target(int x);

int main(void)
{
	int fd = ukcov_open(UKCOV_LINUX);
	uint64_t *cover, n;

	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, 512))
		return 2;
	cover = mmap(NULL, (size_t)512 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cover == MAP_FAILED || ukcov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
		return 3;
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	install_target(4);
	n = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
	if (ukcov_ioctl(fd, KCOV_DISABLE, 0))
		return 4;
	printf("%llu\n", (unsigned long long)n);
	return n > 0 ? 0 : 1;
}
