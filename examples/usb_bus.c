/*
 * examples/usb_bus.c -- the "kernel" that examples/linux_remote.c
 * collects from: the hub thread of USB bus 1, started before main().
 * Like Linux's hub_event() worker, each event it handles is one remote
 * section for the bus's global handle, kcov_remote_handle(
 * KCOV_SUBSYSTEM_USB, 1).  The work is target_read() of
 * examples/target.c, the only instrumented code.  Until a collector
 * registers the handle, the sections are no-ops.
 */
#include <pthread.h>
#include <unistd.h>

#include <ukcov/kcov.h>
#include <ukcov/linux/kcov.h>

long target_read(int fd, void *buf, unsigned long count);

static void *hub_event(void *arg)
{
	char buf[8];

	(void)arg;
	for (;;) {
		ukcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_USB, 1));
		target_read(3, buf, sizeof(buf));
		ukcov_remote_stop();
		usleep(10000);
	}
	return NULL;
}

__attribute__((constructor)) static void usb_bus_start(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, hub_event, NULL) == 0)
		pthread_detach(th);
}
