# tests/core/core.mk -- the core test suite, run by
# tests/suites.d/10-core.sh.
#
# The harness is never instrumented: it gets its own flags, whatever
# CFLAGS say.  Only tests/core/targets/targets.c is compiled with
# -fsanitize-coverage, four times (gcc and clang; trace-pc,trace-cmp and
# trace-pc only).  Binaries, in $(B)/tests/core/:
#   core-{gcc,clang}          -lukcov as users link it (linker script:
#                             callbacks in the executable, runtime shared)
#   core-{gcc,clang}-static   $(B)/libukcov.a, -Wl,--wrap=pthread_create
#                             (as pkg-config --static --libs ukcov)
#   core-{gcc,clang}-pc       trace-pc-only targets, -lukcov
#   core-{gcc,clang}-inline[-static] targets instrumented inline by the
#                             compiler's plugin (plugins/), -lukcov /
#                             libukcov.a
#   preload-{gcc,clang}       nothing of ukcov linked in; run with
#                             LD_PRELOAD=$(B)/libukcov.so.0

CORE_SRC := tests/core
CORE_OUT := $(B)/tests/core
CORE_HARNESS := harness kc main t_errno t_iface t_format t_overflow \
                t_threads t_close t_mmap t_fork t_exec t_signal t_owner t_unique \
                t_remote t_remote_netbsd t_fault t_hostile t_registry
# lib/*.h too: kc.c and t_hostile.c read the control block's layout.
CORE_HDRS := $(wildcard $(CORE_SRC)/*.h $(CORE_SRC)/targets/*.h) \
             $(wildcard include/ukcov/*.h include/ukcov/*/*.h lib/*.h)

CORE_HCC     ?= gcc
# The targets' compilers, by the name in the binary's name; make
# CROSS=aarch64-linux-gnu- sets all three (Makefile).
CORE_TCC_gcc   ?= gcc
CORE_TCC_clang ?= clang
CORE_HCFLAGS := -std=gnu11 -O2 -g -fno-sanitize=all \
                -Iinclude -I$(CORE_SRC) \
                -Wall -Wextra -Wshadow -Wno-missing-field-initializers
CORE_TCFLAGS := -std=gnu11 -O2 -g -fno-sanitize=all -Iinclude -I$(CORE_SRC)
CORE_LDLIBS  := -rdynamic -ldl -lpthread
CORE_SHARED  := -L$(B) -Wl,-rpath,$(abspath $(B)) -lukcov

CORE_OBJS         := $(CORE_HARNESS:%=$(CORE_OUT)/obj/%.o)
CORE_PRELOAD_OBJS := $(CORE_HARNESS:%=$(CORE_OUT)/obj-preload/%.o)

CORE_BINS := $(addprefix $(CORE_OUT)/, core-gcc core-clang \
               core-gcc-static core-clang-static core-gcc-pc core-clang-pc \
               preload-gcc preload-clang)
# Inline targets for each compiler whose plugin is built
# (plugins/plugins.mk), for x86-64 only: the plugins refuse other
# targets (CROSS builds).
CORE_INLINE_CCS :=
ifeq ($(CROSS),)
ifneq ($(wildcard $(LLVM_INCDIR)/llvm/Passes/PassPlugin.h),)
CORE_INLINE_CCS += clang
endif
ifneq ($(wildcard $(GCC_PLUGIN_INC)/gcc-plugin.h),)
CORE_INLINE_CCS += gcc
endif
endif
CORE_BINS += $(foreach c,$(CORE_INLINE_CCS), \
               $(CORE_OUT)/core-$(c)-inline $(CORE_OUT)/core-$(c)-inline-static)
CORE_INLINE_FLAGS_clang := -fpass-plugin=$(CLANG_PLUGIN)
CORE_INLINE_FLAGS_gcc   := -fplugin=$(GCC_PLUGIN)

.PHONY: core-tests
core-tests: $(CORE_BINS)
test-prep:: core-tests

$(CORE_OUT)/obj/%.o: $(CORE_SRC)/%.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_HCC) $(CORE_HCFLAGS) -c $< -o $@

$(CORE_OUT)/obj-preload/%.o: $(CORE_SRC)/%.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_HCC) $(CORE_HCFLAGS) -DCORE_PRELOAD -c $< -o $@

# targets-<cc>-<cmp|pc>.o
$(CORE_OUT)/targets-%-cmp.o: $(CORE_SRC)/targets/targets.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_TCC_$*) $(CORE_TCFLAGS) -fsanitize-coverage=trace-pc,trace-cmp \
	    -DTARGET_HAS_CMP=1 -c $< -o $@

$(CORE_OUT)/targets-%-pc.o: $(CORE_SRC)/targets/targets.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_TCC_$*) $(CORE_TCFLAGS) -fsanitize-coverage=trace-pc \
	    -DTARGET_HAS_CMP=0 -c $< -o $@

# Inline: PC points only (the plugins have no CMP mode).
$(CORE_OUT)/targets-clang-inline.o: $(CLANG_PLUGIN)
$(CORE_OUT)/targets-gcc-inline.o: $(GCC_PLUGIN)
$(CORE_OUT)/targets-%-inline.o: $(CORE_SRC)/targets/targets.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_TCC_$*) $(CORE_TCFLAGS) $(CORE_INLINE_FLAGS_$*) \
	    -DTARGET_HAS_CMP=0 -DTARGET_INLINE=1 -c $< -o $@

CORE_LIB_DEPS := $(B)/libukcov.so $(B)/libukcov.a $(B)/libukcov_cb.a

$(CORE_OUT)/core-%-inline: $(CORE_OBJS) $(CORE_OUT)/targets-%-inline.o $(CORE_LIB_DEPS)
	$(CORE_HCC) $(CORE_OBJS) $(CORE_OUT)/targets-$*-inline.o $(CORE_SHARED) \
	    $(CORE_LDLIBS) -o $@

$(CORE_OUT)/core-%-inline-static: $(CORE_OBJS) $(CORE_OUT)/targets-%-inline.o $(CORE_LIB_DEPS)
	$(CORE_HCC) $(CORE_OBJS) $(CORE_OUT)/targets-$*-inline.o $(B)/libukcov.a \
	    $(CORE_LDLIBS) -Wl,--wrap=pthread_create -o $@

$(CORE_OUT)/core-%-pc: $(CORE_OBJS) $(CORE_OUT)/targets-%-pc.o $(CORE_LIB_DEPS)
	$(CORE_HCC) $(CORE_OBJS) $(CORE_OUT)/targets-$*-pc.o $(CORE_SHARED) \
	    $(CORE_LDLIBS) -o $@

$(CORE_OUT)/core-%-static: $(CORE_OBJS) $(CORE_OUT)/targets-%-cmp.o $(CORE_LIB_DEPS)
	$(CORE_HCC) $(CORE_OBJS) $(CORE_OUT)/targets-$*-cmp.o $(B)/libukcov.a \
	    $(CORE_LDLIBS) -Wl,--wrap=pthread_create -o $@

$(CORE_OUT)/core-gcc $(CORE_OUT)/core-clang: $(CORE_OUT)/core-%: $(CORE_OBJS) \
		$(CORE_OUT)/targets-%-cmp.o $(CORE_LIB_DEPS)
	$(CORE_HCC) $(CORE_OBJS) $(CORE_OUT)/targets-$*-cmp.o $(CORE_SHARED) \
	    $(CORE_LDLIBS) -o $@

# The callbacks, the interposers and ukcov_* stay undefined at link
# time; the dynamic linker finds them in the preloaded libukcov.so.0.
$(CORE_OUT)/preload-%: $(CORE_PRELOAD_OBJS) $(CORE_OUT)/targets-%-cmp.o
	$(CORE_HCC) $(CORE_PRELOAD_OBJS) $(CORE_OUT)/targets-$*-cmp.o \
	    -Wl,--unresolved-symbols=ignore-all $(CORE_LDLIBS) -o $@

# The allocation-failure shim (t_fault.c), preloaded after libukcov.so.0
# by 10-core.sh; never linked into anything.
$(CORE_OUT)/faultshim.so: $(CORE_SRC)/faultshim.c
	@mkdir -p $(dir $@)
	$(CORE_HCC) $(CORE_HCFLAGS) -fPIC -shared $< -ldl -o $@
core-tests: $(CORE_OUT)/faultshim.so
