/*
 * tests/core/t_threads.c -- per-thread ownership (§6 item 5: "code run
 * by the thread that enabled a descriptor produces records in its
 * buffer, and work done by any other thread produces none there") and
 * thread exit (§6 item 4: it auto-disables and keeps the contents).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "kc.h"
#include "tests.h"

/* Another thread's work never lands in my buffer: it runs the targets
 * while I trace (not tracing itself, then tracing its own descriptor). */
static void t_isolation(const struct kc *k)
{
	uint64_t *mine, *theirs;
	int fd = kc_setup(k, KC_ENTRIES, &mine);
	int fd2 = kc_setup(k, KC_ENTRIES, &theirs);
	struct actor *a = actor_start();
	struct kc_op op50 = { k, fd2, 50 }, en = { k, fd2, k->f->mode_pc };

	kc_enable_ok(k, fd, 0);
	actor_run(a, op_leaf, &op50);
	call_n(target_leaf2, 3);
	CHECK_EQ(actor_run(a, op_enable, &en), 0);
	actor_run(a, op_leaf, &op50);
	target_leaf2();
	CHECK_EQ(actor_run(a, op_disable, &en), 0);
	kc_disable_ok(k, fd);
	actor_stop(a);
	expect_only_pcs(mine, 4, (const void *)target_leaf2);
	expect_only_pcs(theirs, 50, (const void *)target_leaf);
}

/* N threads, each with its own descriptor, run at the same time (a
 * barrier holds them until all are enabled); each buffer holds exactly
 * its thread's records. */
struct worker {
	const struct kc *k;
	pthread_barrier_t *bar;
	int fd;
	unsigned idx;
	uint64_t *buf;
};

static void *worker_main(void *p)
{
	struct worker *w = p;

	kc_enable_ok(w->k, w->fd, 0);
	pthread_barrier_wait(w->bar);
	call_n(target_leaf, 10 + w->idx);
	call_n(target_leaf2, w->idx);
	pthread_barrier_wait(w->bar);
	kc_disable_ok(w->k, w->fd);
	return NULL;
}

static void many_threads(const struct kc *k, unsigned n)
{
	struct worker w[32];
	pthread_t th[32];
	pthread_barrier_t bar;
	unsigned i;

	pthread_barrier_init(&bar, NULL, n);
	for (i = 0; i < n; i++) {
		w[i].k = k;
		w[i].bar = &bar;
		w[i].idx = i;
		w[i].fd = kc_setup(k, KC_ENTRIES, &w[i].buf);
		CHECK_EQ(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (i = 0; i < n; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	for (i = 0; i < n; i++) {
		CHECK_EQ(rec_count(w[i].buf), 10 + 2 * i);
		expect_pcs_in(w[i].buf, 0, 10 + i, (const void *)target_leaf);
		expect_pcs_in(w[i].buf, 10 + i, i, (const void *)target_leaf2);
	}
}

static void t_threads_2(const struct kc *k)
{
	many_threads(k, 2);
}

static void t_threads_8(const struct kc *k)
{
	many_threads(k, 8);
}

static void t_threads_32(const struct kc *k)
{
	many_threads(k, 32);
}

/* Thread exit auto-disables: afterwards nobody owns the descriptor
 * (DISABLE from here is "not enabled"), another thread enables it, and
 * the buffer still holds the exited thread's records. */
static void t_exit_autodisable(const struct kc *k)
{
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf);
	struct actor *a = actor_start(), *b;
	struct kc_op en = { k, fd, k->f->mode_pc }, five = { k, fd, 5 };

	CHECK_EQ(actor_run(a, op_enable, &en), 0);
	actor_run(a, op_leaf, &five);
	actor_stop(a);			/* exits without DISABLE */
	CHECK_EQ(rec_count(buf), 5);
	CHECK_ERR(kc_disable(k, fd), k->f->e_disable);
	/* Reuse by another thread: contents kept, records appended. */
	b = actor_start();
	CHECK_EQ(actor_run(b, op_enable, &en), 0);
	actor_run(b, op_leaf, &five);
	actor_stop(b);
	kc_enable_ok(k, fd, 0);
	call_n(target_leaf2, 3);
	kc_disable_ok(k, fd);
	CHECK_EQ(rec_count(buf), 13);
	expect_pcs_in(buf, 0, 10, (const void *)target_leaf);
	expect_pcs_in(buf, 10, 3, (const void *)target_leaf2);
}

/* The exiting thread also frees itself: it could enable again had it
 * lived, and a new thread may enable a second descriptor right away. */
static long exit_holding_two(void *p)
{
	const struct kc_op *op = p;
	int fd2 = (int)op->arg;

	kc_enable_ok(op->k, op->fd, 0);
	CHECK_ERR(kc_enable_pc(op->k, fd2), op->k->f->e_second_fd);
	target_leaf();
	return 0;
}

static void t_exit_then_other_fd(const struct kc *k)
{
	uint64_t *b1, *b2;
	int fd1 = kc_setup(k, KC_ENTRIES, &b1);
	int fd2 = kc_setup(k, KC_ENTRIES, &b2);
	struct kc_op op = { k, fd1, fd2 }, en2 = { k, fd2, k->f->mode_pc };
	struct kc_op one = { k, fd2, 1 };
	struct actor *a;

	thread_run(exit_holding_two, &op);
	a = actor_start();
	CHECK_EQ(actor_run(a, op_enable, &en2), 0);
	actor_run(a, op_leaf, &one);
	actor_stop(a);
	expect_only_pcs(b1, 1, (const void *)target_leaf);
	expect_only_pcs(b2, 1, (const void *)target_leaf);
	expect_ready_state(k, fd1, b1);
}

/* 16 threads enable one descriptor at the same instant: exactly one
 * wins, every other gets the "busy" errno (docs/KERNELS.md table 1: Linux
 * EINVAL, FreeBSD EBUSY, NetBSD EBUSY, OpenBSD ENXIO), and only the
 * winner's calls are recorded. */
#define RACERS 16

struct racer {
	const struct kc *k;
	pthread_barrier_t *bar;
	int fd, rc, err;
};

static void *racer_main(void *p)
{
	struct racer *r = p;

	pthread_barrier_wait(r->bar);
	errno = 0;
	r->rc = kc_enable_pc(r->k, r->fd);
	r->err = errno;
	target_leaf();
	pthread_barrier_wait(r->bar);	/* all tried before anyone exits */
	return NULL;
}

static void t_enable_race(const struct kc *k)
{
	struct racer r[RACERS];
	pthread_t th[RACERS];
	pthread_barrier_t bar;
	uint64_t *buf;
	int fd = kc_setup(k, KC_ENTRIES, &buf), i, wins = 0;

	pthread_barrier_init(&bar, NULL, RACERS);
	for (i = 0; i < RACERS; i++) {
		r[i] = (struct racer){ k, &bar, fd, 0, 0 };
		CHECK_EQ(pthread_create(&th[i], NULL, racer_main, &r[i]), 0);
	}
	for (i = 0; i < RACERS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	for (i = 0; i < RACERS; i++) {
		if (r[i].rc == 0)
			wins++;
		else
			CHECK_EQ(r[i].err, k->f->e_enable_busy);
	}
	CHECK_EQ(wins, 1);
	expect_only_pcs(buf, 1, (const void *)target_leaf);
	expect_ready_state(k, fd, buf);
}

void register_thread_tests(void)
{
	reg_flavors("threads.isolation", t_isolation, 0);
	reg_flavors("threads.many_2", t_threads_2, 0);
	reg_flavors("threads.many_8", t_threads_8, 0);
	reg_flavors("threads.many_32", t_threads_32, 0);
	reg_flavors("threads.exit_autodisable", t_exit_autodisable, 0);
	reg_flavors("threads.exit_then_other_fd", t_exit_then_other_fd, 0);
	reg_flavors("threads.enable_race", t_enable_race, 0);
}
