/*
 * tests/tool/src/uguard_main.c -- never instrumented.  KCOV_UNIQUE_ENABLE
 * on a trace-pc-guard build (uguard_target.c): each guard once per
 * reset, a second identical run adds nothing, bit g of the bitmap is
 * guard g (the Linux proposal's indexing), KCOV_RESET_TRACE gives the
 * same records again.  Then, in a second thread (a fresh key table),
 * the path that checks keys: a bitmap whose guard bits are already set
 * at enable (an exec'd image's, or a scribble) must not make the
 * bit alone say "seen" (lib/unique.c, "may bit g alone"), and after the
 * user's own reset the bits are guard numbers again.  Zeroed guards
 * record nothing while the bitmap is trusted.  Prints "ok
 * RECORDS GUARDS" or what failed, and exits 0 only if everything held.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

#define ENTRIES 1024
#define BW 8

int ug_a(int x);
int ug_b(void);

extern uint32_t __start___sancov_guards[], __stop___sancov_guards[];

static int failed;

static void expect(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL %s\n", what);
		failed = 1;
	}
}

static void run(void)
{
	for (int i = 0; i < 5; i++) {
		ug_a(1);
		ug_b();
	}
}

/* Every set bit is the number of a guard of this program's module. */
static int bits_are_guards(const uint64_t *bits, uint64_t *nbits)
{
	*nbits = 0;
	for (unsigned i = 0; i < BW * 64; i++) {
		int is_guard = 0;

		if (!(bits[i / 64] >> (i % 64) & 1))
			continue;
		++*nbits;
		/* The linker's section bounds: one array, whatever cppcheck
		 * infers from two symbols. */
		for (uint32_t *g = __start___sancov_guards;
		     // cppcheck-suppress comparePointers
		     g < __stop___sancov_guards; g++)
			is_guard |= *g == i;
		if (!is_guard)
			return 0;
	}
	return 1;
}

static int fd;
static uint64_t *buf, *tr, n1, first[16];

static int same_as_first(void)
{
	return tr[0] == n1 && memcmp(first, tr + 1, n1 * 8) == 0;
}

/* Trusted unique mode (the bitmap was just reset): a zeroed guard --
 * one the program disabled, as compiler-rt's callbacks skip guard 0, or
 * one of a module whose init call never numbered it -- records nothing
 * and sets no bit, however often it is hit; numbered again, each guard
 * is still known as seen. */
static void zeroed_guards(void)
{
	uint32_t saved[64];
	// cppcheck-suppress comparePointers
	size_t n = (size_t)(__stop___sancov_guards - __start___sancov_guards);
	uint64_t before = tr[0];

	if (n > 64) {
		expect(0, "at most 64 guards");
		return;
	}
	memcpy(saved, __start___sancov_guards, n * sizeof(*saved));
	memset(__start___sancov_guards, 0, n * sizeof(*saved));
	run();
	ug_a(0);
	run();
	expect(tr[0] == before, "zeroed guards record nothing (trusted bitmap)");
	expect((buf[0] & 1) == 0, "... and set no bit 0");
	memcpy(__start___sancov_guards, saved, n * sizeof(*saved));
	run();
	expect(tr[0] == before, "numbered again: each guard still seen");
}

static void *keys_checked(void *arg)
{
	uint64_t nbits;

	(void)arg;
	memset(buf, 0, BW * sizeof(*buf));
	tr[0] = 0;
	// cppcheck-suppress comparePointers
	for (uint32_t *g = __start___sancov_guards; g < __stop___sancov_guards; g++)
		buf[*g / 64] |= (uint64_t)1 << (*g % 64);
	if (ukcov_ioctl(fd, KCOV_UNIQUE_ENABLE, (unsigned long)BW)) {
		perror("KCOV_UNIQUE_ENABLE (second thread)");
		failed = 1;
		return NULL;
	}
	run();
	expect(same_as_first(), "guard bits set at enable: every guard still recorded");
	run();
	expect(tr[0] == n1, "... once each");
	memset(buf, 0, BW * sizeof(*buf));		/* the user's reset */
	tr[0] = 0;
	run();
	expect(same_as_first(), "after the user's reset: the same records");
	expect(bits_are_guards(buf, &nbits) && nbits == n1,
	       "... and the set bits are the guard numbers (keys checked)");
	ukcov_ioctl(fd, KCOV_DISABLE, 0UL);
	return NULL;
}

int main(void)
{
	uint64_t n2, nbits;
	pthread_t th;

	fd = ukcov_open(UKCOV_LINUX);

	if (fd < 0 || ukcov_ioctl(fd, KCOV_INIT_TRACE, (unsigned long)ENTRIES)) {
		perror("ukcov_open/KCOV_INIT_TRACE");
		return 2;
	}
	buf = mmap(NULL, (size_t)ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buf == MAP_FAILED || ukcov_ioctl(fd, KCOV_UNIQUE_ENABLE, (unsigned long)BW)) {
		perror("mmap/KCOV_UNIQUE_ENABLE");
		return 2;
	}
	tr = buf + BW;
	run();
	n1 = tr[0];
	expect(n1 > 0 && n1 <= 16, "records after the first run");
	memcpy(first, tr + 1, n1 * 8);
	run();
	expect(tr[0] == n1, "a second identical run adds 0 records");
	expect(bits_are_guards(buf, &nbits), "set bits are guard numbers");
	expect(nbits == n1, "one bit per record");
	ug_a(0);
	expect(tr[0] > n1, "the else branch is a new point");
	n2 = tr[0];
	ug_a(0);
	expect(tr[0] == n2, "... recorded once");
	expect(ukcov_ioctl(fd, KCOV_RESET_TRACE, 0UL) == 0, "KCOV_RESET_TRACE");
	expect(tr[0] == 0, "count reset");
	run();
	expect(same_as_first(), "after a reset, exactly the same records");
	zeroed_guards();
	ukcov_ioctl(fd, KCOV_DISABLE, 0UL);
	if (pthread_create(&th, NULL, keys_checked, NULL) == 0)
		pthread_join(th, NULL);
	else
		expect(0, "pthread_create");
	if (!failed)
		printf("ok %lu %ld\n", (unsigned long)n1,
		       // cppcheck-suppress comparePointers
		       (long)(__stop___sancov_guards - __start___sancov_guards));
	return failed;
}
