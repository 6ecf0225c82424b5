# bench/bench.mk -- "make bench": the benchmark (see bench/README.md).
# Included by the top-level Makefile; honours its build directory $(B).
#
#   make bench                  full run (~17 min on 2 cores, builds cached)
#   make bench BENCH_QUICK=1    quick run (3 rounds, smaller scales, ~2 min)
#   make bench-build            fetch and build only
#   make bench-ubench           the micro-benchmark only
#   make bench-sancov           the SanitizerCoverage runtimes only (clang)
#   make bench-report           reprint the last results
#
# Nothing here runs in "make test".

BENCH_CACHE ?= bench/.cache
BENCH_CPU   ?= 1
BENCH_ARGS  ?=
BENCH_RUN   := python3 bench/run.py --cpu $(BENCH_CPU) --cache $(BENCH_CACHE) $(if $(BENCH_QUICK),--quick) $(BENCH_ARGS)
BENCH_MAKE  := $(MAKE) --no-print-directory -f bench/workloads.mk B=$(B) CACHE=$(BENCH_CACHE)

.PHONY: bench bench-build bench-fetch bench-ubench bench-report bench-sancov

bench-fetch:
	bench/fetch.sh $(BENCH_CACHE)

bench-build: lib bench-fetch
	$(BENCH_MAKE) -j2 all

bench: bench-build
	$(BENCH_RUN) $(B)

bench-ubench: lib
	$(BENCH_MAKE) -j2 ubench tools
	$(BENCH_RUN) --only ubench $(B)

# The SanitizerCoverage runtimes only (clang): empty callbacks,
# compiler-rt, libukcov off / coverage=1 / counters, inline-8bit-counters.
bench-sancov: lib bench-fetch
	$(BENCH_MAKE) -j2 sancov
	$(BENCH_RUN) --only time --configs a,g0,crtg,crtg.cov,ukg.off,ukg.cov,ukg.cnt,i8 $(B)

bench-report:
	$(BENCH_RUN) --report $(B)

# The remote-coverage benchmark (issue 7), a program of its own:
#   make bench-remote [REMOTE_ROUNDS=9]
REMOTE_ROUNDS ?= 9
RB_OUT := $(B)/bench/remote
$(RB_OUT)/remote-target.o: bench/remote-target.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -fsanitize-coverage=trace-pc -c $< -o $@

$(RB_OUT)/remote-bench: bench/remote-bench.c $(RB_OUT)/remote-target.o $(B)/libukcov.so
	$(CC) -std=gnu11 -O2 -Wall -Iinclude $< $(RB_OUT)/remote-target.o \
	    -L$(B) -Wl,-rpath,$(abspath $(B)) -lukcov -lpthread -o $@

.PHONY: bench-remote
bench-remote: $(RB_OUT)/remote-bench
	$(RB_OUT)/remote-bench $(REMOTE_ROUNDS)

bench: bench-remote
