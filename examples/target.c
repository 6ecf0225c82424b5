/*
 * examples/target.c -- the instrumented code that the examples trace in
 * place of the kernel's read(2).
 *
 * The examples themselves are built without instrumentation, as user
 * programs are on a kcov kernel; only this file is compiled with
 * -fsanitize-coverage=trace-pc,trace-cmp.  target_read() is a pretend
 * read(2): like the system call it looks the descriptor up first, so the
 * seeds' read(-1, NULL, 0) becomes target_read(-1, NULL, 0) and takes
 * the EBADF path.  The switch gives trace-cmp one record per case
 * (0, 3 and 7 against the descriptor); the rest gives trace-pc and
 * trace-cmp more blocks and compares for other arguments.
 */
#include <errno.h>
#include <stddef.h>

long target_read(int fd, void *buf, unsigned long count);

long target_read(int fd, void *buf, unsigned long count)
{
	const char *src;
	unsigned long i;

	switch (fd) {
	case 0:
		src = "stdin";
		break;
	case 3:
		src = "kcov";
		break;
	case 7:
		src = "seven";
		break;
	default:
		return -EBADF;
	}
	if (count == 0)
		return 0;
	if (buf == NULL)
		return -EFAULT;
	for (i = 0; i < count && src[i] != '\0'; i++)
		((char *)buf)[i] = src[i];
	return (long)i;
}
