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
