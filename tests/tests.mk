# tests/tests.mk -- "make test" builds everything, then runs every suite in
# tests/suites.d through tests/run-all.sh, which prints the closing line
# "N passed, N failed".  Suites add their build prerequisites to the
# double-colon target test-prep.

.PHONY: test test-prep
test-prep:: all

# Dependencies first (scripts/deps.sh installs them as root), then the
# build in a second make, so that nothing is compiled before they exist.
test:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory test-prep
	@B=$(B) tests/run-all.sh

-include tests/core/core.mk
-include examples/examples.mk

# The runtime built for aarch64 and tested under qemu-user: the core
# suite, the host tool on aarch64 binaries, and the shell suites that
# take CROSS (tests/lib.sh).  make test runs it as suite 16.
.PHONY: test-aarch64
test-aarch64: tools
	@B=$(B) tests/suites.d/16-aarch64.sh
