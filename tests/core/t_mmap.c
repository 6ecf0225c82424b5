/*
 * tests/core/t_mmap.c -- mmap(2) of a descriptor under each kernel's
 * rules (docs/KERNELS.md: each kernel's "mmap" row and table 2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

#define RW (PROT_READ | PROT_WRITE)

static void *map_ok(int fd, size_t len, int prot, off_t off)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		FAIL("mmap(len %zu, prot %d, off %lld): %s", len, prot,
		     (long long)off, errname(errno));
	return p;
}

static void map_refused(int fd, size_t len, int prot, off_t off, int e)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	if (p != MAP_FAILED)
		FAIL("mmap(len %zu, prot %d, off %lld) succeeded, want %s",
		     len, prot, (long long)off, errname(e));
	if (errno != e)
		FAIL("mmap(len %zu, prot %d, off %lld): %s, want %s", len,
		     prot, (long long)off, errname(errno), errname(e));
}

/* Every kernel refuses to map a descriptor without a buffer: Linux
 * "area == NULL" EINVAL, FreeBSD "kvaddr == 0" EINVAL, NetBSD size >
 * bufsize 0 ENOMEM, OpenBSD offset >= 0 EINVAL. */
static void t_before_buffer(const struct kc *k)
{
	int fd = kc_open_ok(k);

	map_refused(fd, PAGE, RW, 0, k->f->e_mmap_nobuf);
	map_refused(fd, PAGE, PROT_READ, 0, k->f->e_mmap_nobuf);
	expect_open_state(k, fd);
}

/* Writes through one mapping, and records, show in the other. */
static void expect_same_buffer(const struct kc *k, int fd, uint64_t *a,
			       uint64_t *b)
{
	a[5] = 0x1234;
	CHECK_EQ(b[5], 0x1234);
	rec_reset(a);
	kc_enable_ok(k, fd, 0);
	target_leaf();
	kc_disable_ok(k, fd);
	expect_only_pcs(b, 1, (const void *)target_leaf);
}

/* Linux kcov_mmap: offset 0 and a vma of exactly size*8 bytes (the
 * length is page-rounded first); no protection check, so PROT_READ
 * works; any number of mappings; mmap after ENABLE too. */
static void t_linux(const struct kc *k)
{
	int fd = kc_open_ok(k), small = kc_open_ok(k);
	uint64_t *a, *b, *ro, n;

	kc_setbuf_ok(k, fd, 1024);		/* 8192 bytes */
	map_refused(fd, 4096, RW, 0, EINVAL);
	map_refused(fd, 12288, RW, 0, EINVAL);
	map_refused(fd, 8192, RW, 4096, EINVAL);
	map_refused(fd, 4096, RW, 4096, EINVAL);
	a = map_ok(fd, 8192, RW, 0);
	b = map_ok(fd, 8000, RW, 0);		/* vma is 8192 */
	ro = map_ok(fd, 8192, PROT_READ, 0);
	expect_same_buffer(k, fd, a, b);
	CHECK_EQ(ro[1], a[1]);
	kc_enable_ok(k, fd, 0);
	b = map_ok(fd, 8192, PROT_READ, 0);
	target_leaf();
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(b), 2);
	/* size*8 not a multiple of the page: every mmap fails (derived,
	 * §1.1), while tracing works all the same. */
	kc_setbuf_ok(k, small, 100);
	map_refused(small, 800, RW, 0, EINVAL);
	map_refused(small, 4096, RW, 0, EINVAL);
	kc_enable_ok(k, small, 0);
	target_leaf();
	kc_disable_ok(k, small);
	fd_read(small, &n, 8, 0);
	CHECK_EQ(n, 1);
}

/* FreeBSD kcov_mmap_single: exactly PROT_READ|PROT_WRITE (EINVAL
 * otherwise), size/8 == entries, and the object offset forced to 0. */
static void t_freebsd(const struct kc *k)
{
	uint64_t *a, *b;
	int fd = kc_open_ok(k);

	kc_setbuf_ok(k, fd, 1024);
	map_refused(fd, 8192, PROT_READ, 0, EINVAL);
	map_refused(fd, 8192, PROT_WRITE, 0, EINVAL);
	map_refused(fd, 8192, RW | PROT_EXEC, 0, EINVAL);
	map_refused(fd, 8192, PROT_NONE, 0, EINVAL);
	map_refused(fd, 4096, RW, 0, EINVAL);
	map_refused(fd, 12288, RW, 0, EINVAL);
	a = map_ok(fd, 8192, RW, 0);
	b = map_ok(fd, 8192, RW, 4096);		/* offset forced to 0 */
	expect_same_buffer(k, fd, a, b);
}

/* NetBSD kcov_fops_mmap: PROT_EXEC EACCES; off or size beyond 256K
 * entries EINVAL; beyond the page-rounded buffer ENOMEM; partial and
 * offset mappings inside it work. */
static void t_netbsd(const struct kc *k)
{
	uint64_t *a, *b, *second;
	int fd = kc_open_ok(k);
	size_t max = (256UL << 10) * 8;

	kc_setbuf_ok(k, fd, 1000);		/* 8000 bytes, bufsize 8192 */
	map_refused(fd, 8192, RW | PROT_EXEC, 0, EACCES);
	map_refused(fd, 4096, PROT_READ | PROT_EXEC, 0, EACCES);
	map_refused(fd, max + PAGE, RW, 0, EINVAL);
	map_refused(fd, PAGE, RW, (off_t)(max + PAGE), EINVAL);
	map_refused(fd, PAGE, RW, -(off_t)PAGE, EINVAL);	/* off < 0 */
	map_refused(fd, 12288, RW, 0, ENOMEM);
	map_refused(fd, 8192, RW, 4096, ENOMEM);
	map_refused(fd, 4096, RW, 8192, ENOMEM);
	a = map_ok(fd, 8192, RW, 0);
	b = map_ok(fd, 4096, PROT_READ, 0);	/* partial, read-only */
	second = map_ok(fd, 4096, RW, 4096);	/* offset */
	expect_same_buffer(k, fd, a, b);
	a[512] = 0x777;
	CHECK_EQ(second[0], 0x777);
}

/* OpenBSD kcovmmap, per page: each page offset must be below
 * (n-1)*8.  n = 513: (n-1)*8 = 4096, so one page only; n = 514: two. */
static void t_openbsd(const struct kc *k)
{
	uint64_t *a, *b;
	int fd513 = kc_open_ok(k), fd514 = kc_open_ok(k), fd2 = kc_open_ok(k);

	kc_setbuf_ok(k, fd513, 513);
	map_refused(fd513, 8192, RW, 0, EINVAL);
	map_refused(fd513, 4096, RW, 4096, EINVAL);
	a = map_ok(fd513, 4096, RW, 0);
	CHECK_EQ(a[0], 0);
	kc_setbuf_ok(k, fd514, 514);
	map_refused(fd514, 12288, RW, 0, EINVAL);
	map_refused(fd514, 4096, RW, 8192, EINVAL);
	b = map_ok(fd514, 8192, RW, 0);
	a = map_ok(fd514, 4096, RW, 4096);
	b[512] = 0x999;
	CHECK_EQ(a[0], 0x999);
	a = map_ok(fd514, 4096, PROT_READ, 0);
	expect_same_buffer(k, fd514, b, a);
	kc_setbuf_ok(k, fd2, 2);		/* (n-1)*8 = 8: page 0 */
	map_ok(fd2, 4096, RW, 0);
	map_refused(fd2, 8192, RW, 0, EINVAL);
}

void register_mmap_tests(void)
{
	reg_flavors_apis("mmap.before_buffer", t_before_buffer, 0);
	reg_one("mmap.rules", t_linux, FL_LINUX, core_have_native, 0);
	reg_one("mmap.rules", t_freebsd, FL_FREEBSD, core_have_native, 0);
	reg_one("mmap.rules", t_netbsd, FL_NETBSD, core_have_native, 0);
	reg_one("mmap.rules", t_openbsd, FL_OPENBSD, core_have_native, 0);
}
