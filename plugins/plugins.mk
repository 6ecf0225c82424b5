# plugins/plugins.mk -- the compiler plugins that instrument inline
# (include/ukcov/inline.h; docs/DESIGN.md, "Inline instrumentation").
# Included by the top-level Makefile.
#
# Built from source against the installed compiler, never shipped
# prebuilt: a plugin only loads into the compiler it was built for.
# Each is skipped with one line when its development package is
# missing (scripts/deps.sh installs it); ukcov-cc then uses calls.
#
#   $(B)/ukcov-inline-clang.so   clang 14 pass plugin (llvm-14-dev)
#
# They sit beside libukcov.so, in the build tree as installed
# ($(LIBDIR)), so "libdir/NAME" finds them in both (ukcov-cc,
# pkg-config --variable=clang_plugin ukcov).

LLVM_CONFIG ?= llvm-config-14
PLUGIN_CXX  ?= $(or $(shell command -v clang++-14 2>/dev/null),c++)
LLVM_INCDIR := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
CLANG_PLUGIN := $(B)/ukcov-inline-clang.so

.PHONY: plugins install-plugins
tools: plugins

ifneq ($(and $(LLVM_INCDIR),$(wildcard $(LLVM_INCDIR)/llvm/Passes/PassPlugin.h)),)
plugins: $(CLANG_PLUGIN)

# Undefined LLVM symbols resolve against the clang that loads it.
$(CLANG_PLUGIN): plugins/clang/UkcovInline.cpp include/ukcov/inline.h | $(B)
	@mkdir -p $(dir $@)
	$(PLUGIN_CXX) $(shell $(LLVM_CONFIG) --cxxflags) -Iinclude -O2 -g \
	    -Wall -Wextra -Wno-unused-parameter -fPIC -shared $< -o $@
else
plugins:
	@echo "skipped the clang inline plugin: no llvm-14-dev ($(LLVM_CONFIG))"
endif

install-extra:: install-plugins
install-plugins: plugins
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)
	for p in $(wildcard $(CLANG_PLUGIN)); do \
	    $(INSTALL) -m 755 $$p $(DESTDIR)$(LIBDIR)/; done
