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
#   $(B)/ukcov-inline-gcc.so     gcc plugin (gcc-12-plugin-dev), for the
#                                gcc that "gcc" runs
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

# The gcc plugin is built by the g++ of the gcc it is for, against that
# gcc's plugin headers.
PLUGIN_GCC    ?= gcc
PLUGIN_GXX    ?= g++
GCC_PLUGIN_INC := $(shell $(PLUGIN_GCC) -print-file-name=plugin 2>/dev/null)/include
GCC_PLUGIN := $(B)/ukcov-inline-gcc.so

ifneq ($(wildcard $(GCC_PLUGIN_INC)/gcc-plugin.h),)
plugins: $(GCC_PLUGIN)

$(GCC_PLUGIN): plugins/gcc/ukcov_inline_gcc.cc include/ukcov/inline.h | $(B)
	$(PLUGIN_GXX) -I$(GCC_PLUGIN_INC) -Iinclude -O2 -g -Wall -Wextra \
	    -Wno-unused-parameter -fno-rtti -fPIC -shared $< -o $@
else
plugins:
	@echo "skipped the gcc inline plugin: no gcc-12-plugin-dev ($(PLUGIN_GCC) -print-file-name=plugin)"
endif

install-extra:: install-plugins
install-plugins: plugins
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)
	for p in $(wildcard $(CLANG_PLUGIN) $(GCC_PLUGIN)); do \
	    $(INSTALL) -m 755 $$p $(DESTDIR)$(LIBDIR)/; done
