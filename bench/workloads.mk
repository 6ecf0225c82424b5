# bench/workloads.mk -- builds everything the benchmark runs.  Called by
# bench.mk after bench/fetch.sh, as
#   $(MAKE) -f bench/workloads.mk B=build CACHE=bench/.cache all|ubench
#
# Workload objects do not depend on libukcov, so they are kept in the cache
# (CACHE/obj/WORKLOAD/SET/) and survive "make clean"; what is linked against
# the runtimes goes to B/bench/.  Delete CACHE/obj to recompile.
#
# Compile sets (every file of a workload, driver included, gets the flags):
#   G0 gcc -O2             GP gcc trace-pc        GPC gcc trace-pc,trace-cmp
#   C0 clang -O2           CP clang trace-pc      CPC clang trace-pc,trace-cmp
#   CG clang trace-pc-guard
# Linked variants, per compiler cc (bin/WORKLOAD/VARIANT_cc):
#   a      uninstrumented                      b0     trace-pc + empty callbacks
#   ref    trace-pc + rt/refcov.c (append)     uk     trace-pc + libukcov.a
#   uks    trace-pc + -lukcov (linker script)  ukplt  trace-pc + libukcov.so.0 (PLT)
#   b0c    trace-pc,trace-cmp + empty          refc   trace-pc,trace-cmp + refcov
#   ukc    trace-pc,trace-cmp + libukcov.a
# and, clang only: crtg (trace-pc-guard + compiler-rt's guard runtime),
#   ukg (trace-pc-guard + libukcov.a)
#   g0     trace-pc-guard + empty callbacks (clang)
#   i8     inline-8bit-counters,pc-table + libukcov.a (clang, libFuzzer-style)
#   uki    ukcov's inline plugin (GI gcc, CI clang sets) + libukcov.a

B      ?= build
CACHE  ?= bench/.cache
# Every workload function starts on a 64-byte line.  Two links of the
# same objects against different runtimes otherwise place each function
# at another offset within its cache line (and the loops in it), and
# that alone moved a clang guard build of lua by 8% (0.252 against
# 0.272 s, the same objects with and without 32 bytes of padding linked
# first): more than the runtimes differ (docs/PERFORMANCE.md, "Code
# layout").  Aligned, every function has the same offsets in every
# variant, and what is compared is the runtime.
BENCH_CFLAGS ?= -O2 -falign-functions=64
OUT    := $(B)/bench
SRC    := $(CACHE)/src
OBJ    := $(CACHE)/obj
RT_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Wmissing-prototypes -fno-sanitize=all

.PHONY: all tools ubench
.DELETE_ON_ERROR:

# --- sources ---------------------------------------------------------------
LUA_DIR  := $(SRC)/lua-5.4.4/src
ZLIB_DIR := $(SRC)/zlib-1.2.13.dfsg
sqlite_SRCS := $(SRC)/sqlite/sqlite3.c bench/drivers/sqlbench.c
sqlite_DEFS := -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I$(SRC)/sqlite
lua_SRCS    := $(filter-out %/luac.c,$(wildcard $(LUA_DIR)/*.c))
lua_DEFS    := -DLUA_USE_LINUX
zlib_SRCS   := $(foreach f,adler32 compress crc32 deflate inffast inflate inftrees \
                 trees uncompr zutil,$(ZLIB_DIR)/$(f).c) bench/drivers/zbench.c
zlib_DEFS   := -I$(ZLIB_DIR)
WORKLOADS   := sqlite lua zlib
LDLIBS      := -lm -ldl

SET_CC_G0  := gcc
SET_CC_GP  := gcc
SET_CC_GPC := gcc
SET_CC_C0  := clang
SET_CC_CP  := clang
SET_CC_CPC := clang
SET_F_G0   :=
SET_F_GP   := -fsanitize-coverage=trace-pc
SET_F_GPC  := -fsanitize-coverage=trace-pc,trace-cmp
SET_F_C0   :=
SET_F_CP   := -fsanitize-coverage=trace-pc
SET_F_CPC  := -fsanitize-coverage=trace-pc,trace-cmp
SET_CC_CG  := clang
SET_CC_C8  := clang
SET_F_CG   := -fsanitize-coverage=trace-pc-guard
SET_F_C8   := -fsanitize-coverage=inline-8bit-counters,pc-table
# Inline instrumentation (plugins/): the plugins of this build, when
# they were built; their objects are rebuilt when a plugin changes.
SET_CC_GI  := gcc
SET_CC_CI  := clang
GCC_INLINE_PLUGIN   := $(abspath $(B))/ukcov-inline-gcc.so
CLANG_INLINE_PLUGIN := $(abspath $(B))/ukcov-inline-clang.so
SET_F_GI   := -fplugin=$(GCC_INLINE_PLUGIN)
SET_F_CI   := -fpass-plugin=$(CLANG_INLINE_PLUGIN)
SET_DEP_GI := $(GCC_INLINE_PLUGIN)
SET_DEP_CI := $(CLANG_INLINE_PLUGIN)
SETS       := G0 GP GPC C0 CP CPC CG C8 $(if $(wildcard $(GCC_INLINE_PLUGIN)),GI) \
              $(if $(wildcard $(CLANG_INLINE_PLUGIN)),CI)

# objs WORKLOAD SET
objs = $(patsubst %.c,$(OBJ)/$(1)/$(2)/%.o,$(notdir $($(1)_SRCS)))

# Objects are kept between runs (BENCH_CACHE): the flags they were built
# with are kept beside them, and a change of flags rebuilds them all.
# (Its recipe always runs, but it touches the file only when the flags
# differ, and make compares the file's time after the recipe.)
OBJ_FLAGS := $(OBJ)/cflags
$(OBJ_FLAGS): FORCE
	@mkdir -p $(@D)
	@echo '$(BENCH_CFLAGS)' | cmp -s - $@ || echo '$(BENCH_CFLAGS)' >$@
.PHONY: FORCE

# One compile rule per (workload, set, source directory).
define compile_rules
$(OBJ)/$(1)/$(2)/%.o: $(3)/%.c $(OBJ_FLAGS) $(SET_DEP_$(2))
	@mkdir -p $$(@D)
	$(SET_CC_$(2)) $(BENCH_CFLAGS) $(SET_F_$(2)) $($(1)_DEFS) -c $$< -o $$@
endef
$(foreach w,$(WORKLOADS),$(foreach s,$(SETS),$(foreach d,$(sort $(dir $($(w)_SRCS))),\
  $(eval $(call compile_rules,$(w),$(s),$(patsubst %/,%,$(d)))))))

# --- runtimes and tools (never instrumented) -------------------------------
$(OUT)/rt/%.o: bench/rt/%.c bench/rt/refcov.h
	@mkdir -p $(@D)
	gcc $(RT_CFLAGS) -c $< -o $@

UKCOV_A  := $(B)/libukcov.a
UKCOV_SO := $(B)/libukcov.so.0
UKCOV_LD := $(B)/libukcov.so
RPATH    := -Wl,-rpath,$(abspath $(B))
TOOL_CFLAGS := $(RT_CFLAGS) -Iinclude -Ibench -D_GNU_SOURCE

$(OUT)/kcovrun: bench/kcovrun.c bench/rt/refcov.h $(UKCOV_A)
	@mkdir -p $(@D)
	gcc $(TOOL_CFLAGS) $< $(UKCOV_A) -lpthread -o $@

tools: $(OUT)/kcovrun

# --- linked workloads --------------------------------------------------------
# link_rules WORKLOAD CC-NAME SET-PC SET-CMP
define link_rules
$(OUT)/bin/$(1)/a_$(2): $(call objs,$(1),$(3:P=0))
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/b0_$(2): $(call objs,$(1),$(3)) $(OUT)/rt/nop.o
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/ref_$(2): $(call objs,$(1),$(3)) $(OUT)/rt/refcov.o
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/uk_$(2): $(call objs,$(1),$(3)) $(UKCOV_A)
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -lpthread -o $$@
$(OUT)/bin/$(1)/uks_$(2): $(call objs,$(1),$(3)) $(UKCOV_LD)
	@mkdir -p $$(@D)
	$(2) $(call objs,$(1),$(3)) -L$(B) -lukcov $(RPATH) $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/ukplt_$(2): $(call objs,$(1),$(3)) $(UKCOV_SO)
	@mkdir -p $$(@D)
	$(2) $$^ $(RPATH) $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/b0c_$(2): $(call objs,$(1),$(4)) $(OUT)/rt/nop.o
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/refc_$(2): $(call objs,$(1),$(4)) $(OUT)/rt/refcov.o
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/ukc_$(2): $(call objs,$(1),$(4)) $(UKCOV_A)
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -lpthread -o $$@
endef
$(foreach w,$(WORKLOADS),$(eval $(call link_rules,$(w),gcc,GP,GPC)))
$(foreach w,$(WORKLOADS),$(eval $(call link_rules,$(w),clang,CP,CPC)))

# Guard builds (clang trace-pc-guard), for unique coverage against
# compiler-rt's own guard runtime: crtg links clang's ubsan_standalone
# runtime, whose sanitizer_common __sanitizer_cov_trace_pc_guard keeps
# the first PC of each guard (the code itself has no ubsan checks);
# ukg links libukcov.a.
define guard_rules
$(OUT)/bin/$(1)/crtg_clang: $(call objs,$(1),CG)
	@mkdir -p $$(@D)
	clang -fsanitize=undefined $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/ukg_clang: $(call objs,$(1),CG) $(UKCOV_A)
	@mkdir -p $$(@D)
	clang $$^ $(LDLIBS) -lpthread -o $$@
endef
$(foreach w,$(WORKLOADS),$(eval $(call guard_rules,$(w))))

# The other SanitizerCoverage configurations next to crtg and ukg: the
# empty guard callback, and libFuzzer-style inline 8-bit counters.
define sancov_rules
$(OUT)/bin/$(1)/g0_clang: $(call objs,$(1),CG) $(OUT)/rt/nop.o
	@mkdir -p $$(@D)
	clang $$^ $(LDLIBS) -o $$@
$(OUT)/bin/$(1)/i8_clang: $(call objs,$(1),C8) $(UKCOV_A)
	@mkdir -p $$(@D)
	clang $$^ $(LDLIBS) -lpthread -o $$@
endef
$(foreach w,$(WORKLOADS),$(eval $(call sancov_rules,$(w))))
SANCOV_BINS := $(foreach w,$(WORKLOADS),$(foreach v,a crtg ukg g0 i8,$(OUT)/bin/$(w)/$(v)_clang))

# uki: inline instrumentation (plugins/), libukcov.a, as uk.
define inline_rules
$(OUT)/bin/$(1)/uki_$(2): $(call objs,$(1),$(3)) $(UKCOV_A)
	@mkdir -p $$(@D)
	$(2) $$^ $(LDLIBS) -lpthread -o $$@
endef
$(foreach w,$(WORKLOADS),$(eval $(call inline_rules,$(w),gcc,GI)))
$(foreach w,$(WORKLOADS),$(eval $(call inline_rules,$(w),clang,CI)))
INLINE_BINS := $(foreach w,$(WORKLOADS),$(if $(filter GI,$(SETS)),$(OUT)/bin/$(w)/uki_gcc) \
                 $(if $(filter CI,$(SETS)),$(OUT)/bin/$(w)/uki_clang))

VARIANTS := a b0 ref uk uks ukplt b0c refc ukc
BINS := $(foreach w,$(WORKLOADS),$(foreach v,$(VARIANTS),$(foreach c,gcc clang,\
          $(OUT)/bin/$(w)/$(v)_$(c)))) \
        $(foreach w,$(WORKLOADS),$(OUT)/bin/$(w)/crtg_clang $(OUT)/bin/$(w)/ukg_clang) \
        $(if $(BENCH_NO_UKCOV),,$(INLINE_BINS))
# Plain-build variants only, for working without the runtime (BENCH_NO_UKCOV=1).
ifneq ($(BENCH_NO_UKCOV),)
BINS := $(filter-out $(OUT)/bin/%/uk_gcc $(OUT)/bin/%/uk_clang $(OUT)/bin/%/uks_gcc \
          $(OUT)/bin/%/uks_clang $(OUT)/bin/%/ukplt_gcc $(OUT)/bin/%/ukplt_clang \
          $(OUT)/bin/%/ukc_gcc $(OUT)/bin/%/ukc_clang,$(BINS))
endif
LUA_SCRIPT := $(OUT)/bin/lua/bench.lua
$(LUA_SCRIPT): bench/drivers/bench.lua
	@mkdir -p $(@D)
	cp $< $@

.PHONY: sancov
sancov: $(SANCOV_BINS) $(LUA_SCRIPT)

all: $(BINS) $(LUA_SCRIPT) ubench $(if $(BENCH_NO_UKCOV),,tools sancov)

# --- micro-benchmark ---------------------------------------------------------
UB := $(OUT)/ub
$(UB)/ubench-nop.o: bench/ubench.c
	@mkdir -p $(@D)
	gcc $(TOOL_CFLAGS) -c $< -o $@
$(UB)/ubench-ref.o: bench/ubench.c bench/rt/refcov.h
	@mkdir -p $(@D)
	gcc $(TOOL_CFLAGS) -DUB_REF -c $< -o $@
$(UB)/ubench-ukcov.o: bench/ubench.c
	@mkdir -p $(@D)
	gcc $(TOOL_CFLAGS) -DUB_UKCOV -c $< -o $@
$(UB)/ub_nop: $(UB)/ubench-nop.o $(OUT)/rt/nop.o
	gcc $^ -o $@
$(UB)/ub_ref: $(UB)/ubench-ref.o $(OUT)/rt/refcov.o
	gcc $^ -o $@
$(UB)/ub_uk: $(UB)/ubench-ukcov.o $(UKCOV_A)
	gcc $^ -lpthread -o $@
$(UB)/ub_uks: $(UB)/ubench-ukcov.o $(UKCOV_LD)
	gcc $< -L$(B) -lukcov $(RPATH) -o $@
$(UB)/ub_ukplt: $(UB)/ubench-ukcov.o $(UKCOV_SO)
	gcc $^ $(RPATH) -o $@

UB_BINS := $(UB)/ub_nop $(UB)/ub_ref
ifeq ($(BENCH_NO_UKCOV),)
UB_BINS += $(UB)/ub_uk $(UB)/ub_uks $(UB)/ub_ukplt
endif
ubench: $(UB_BINS)
