# ukcov -- top-level GNU Makefile.
#
#   make                  build/libukcov.{a,so}, build/libukcov_cb.a, the tools
#   make test             every test; the last line is "N passed, N failed"
#   make bench            the benchmark (see bench/README.md)
#   make install PREFIX=/usr/local DESTDIR=
#   make lint             cppcheck + clang-tidy on lib/, tools/, tests/;
#                         single-file internals static (check-static.sh);
#                         lib/ calls only downward (scripts/layers.py)
#   make mutants          mutation testing (slow; docs/TESTING.md)
#   make compile_commands.json
#
# Each part of the tree keeps its rules in its own .mk file, included below.

PREFIX     ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
LIBDIR     ?= $(EXEC_PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(EXEC_PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=
INSTALL    ?= install

CC     ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
# make CROSS=aarch64-linux-gnu-: the runtime and the core tests for
# another architecture, with Debian's cross gcc (make test-aarch64,
# tests/suites.d/16-aarch64.sh, runs them under qemu-user).  The tool
# stays the host's.
ifneq ($(CROSS),)
CC := $(CROSS)gcc
CORE_HCC := $(CROSS)gcc
CORE_TCC_gcc := $(CROSS)gcc
CORE_TCC_clang := clang --target=$(patsubst %-,%,$(CROSS))
endif
B      := build
TOP    := $(abspath .)

VERSION   := 0.1.0
SOMAJOR   := 0

# The runtime is never instrumented: whatever the user's CFLAGS say, the
# library objects get these flags and no -fsanitize-coverage.
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
LIB_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden \
              -ftls-model=initial-exec -fno-sanitize=all \
              -fno-stack-protector \
              -D_GNU_SOURCE -Iinclude -Ilib $(WARN)
LIB_LDLIBS := -lpthread
# make UKCOV_NO_ASM=1: the C versions of the assembly callbacks
# (lib/callbacks.c), for testing them on x86-64.
ifneq ($(UKCOV_NO_ASM),)
LIB_CFLAGS += -DUKCOV_NO_ASM
endif

.PHONY: all lib tools test check bench install uninstall clean deps demo
all: lib tools

deps:
	@scripts/deps.sh

include lib/lib.mk
-include tools/tools.mk
-include plugins/plugins.mk
-include tests/tests.mk
-include bench/bench.mk
-include man/man.mk
include demo/demo.mk

check: test

$(B):
	@mkdir -p $@

clean:
	rm -rf $(B) compile_commands.json

# Static analysis (cppcheck and clang-tidy) of lib/, tools/ and the
# tests' C code, one verdict per tool and file, and the check that
# single-file internals are static (scripts/check-static.sh, on the
# built objects); make test runs it too (tests/suites.d/05-lint.sh).
.PHONY: lint
lint: lib tools
	@B=$(B) scripts/lint.sh

# Mutation testing (docs/TESTING.md): each hand-written mutant of
# tests/mutants/*.txt and a seeded sample of generated ones applied to
# a scratch copy, its tests run; too slow for make test.
.PHONY: mutants
mutants:
	@scripts/deps.sh
	@python3 tests/mutants/mutgen_test.py
	@scripts/mutants.py

# The compilation database for clangd and clang-tidy: every object is
# recompiled (-B) under bear, in place; nothing is cleaned.
.PHONY: compile_commands.json
compile_commands.json:
	bear --output $@ -- $(MAKE) --no-print-directory -B all

# make CROSS=... install: the runtime for that target (headers,
# libukcov.{a,so}, ukcov.pc for the cross compiler with PKG_CONFIG_LIBDIR)
# and the man pages; the tool and its wrapper stay the host's.
install: $(if $(CROSS),lib,all)
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/ukcov/linux $(DESTDIR)$(INCLUDEDIR)/ukcov/freebsd \
	    $(DESTDIR)$(INCLUDEDIR)/ukcov/netbsd $(DESTDIR)$(INCLUDEDIR)/ukcov/openbsd \
	    $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 include/ukcov/*.h $(DESTDIR)$(INCLUDEDIR)/ukcov/
	for os in linux freebsd netbsd openbsd; do \
	    $(INSTALL) -m 644 include/ukcov/$$os/kcov.h $(DESTDIR)$(INCLUDEDIR)/ukcov/$$os/; done
	$(INSTALL) -m 644 $(B)/libukcov.a $(B)/libukcov_cb.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(B)/libukcov.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libukcov.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libukcov.so.$(SOMAJOR)
	lib/gen-ldscript.sh $(LIBDIR) > $(DESTDIR)$(LIBDIR)/libukcov.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    lib/ukcov.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/ukcov.pc
	$(MAKE) --no-print-directory install-extra

.PHONY: install-extra
install-extra:: ;
