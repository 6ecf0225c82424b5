# tools/tools.mk -- ukcov(1), the coverage tool, and the ukcov-cc/ukcov-c++
# compiler wrappers.  Included by the top-level Makefile.
#
# The tool is never instrumented.  It needs libdw/libelf (symbolization,
# ELF), capstone (finding coverage points), libstdc++ (__cxa_demangle) and
# libmicrohttpd (`ukcov serve`).
# `ukcov run` loads libukcov.so.0 at run time (dlopen), so the tool builds
# and works for every other command without the runtime library.

TOOL_SRCS := $(filter-out tools/wrapper.c,$(wildcard tools/*.c))
TOOL_OBJS := $(patsubst tools/%.c,$(B)/tools/%.o,$(TOOL_SRCS))
TOOL_HDRS := $(wildcard tools/*.h) include/ukcov/kcov.h include/ukcov/linux/kcov.h
TOOL_CFLAGS := -std=gnu11 -O2 -g -fno-sanitize=all -D_GNU_SOURCE -Iinclude \
               $(WARN) $(shell pkg-config --cflags libdw 2>/dev/null)
TOOL_LDLIBS := -ldw -lelf -lnettle -lmicrohttpd -lstdc++ -ldl -lpthread
# capstone is dlopen()ed on first use (tools/elfpoints.c): its soname.
CAPSTONE_SONAME := $(or $(shell objdump -p $$(pkg-config --variable=libdir capstone 2>/dev/null)/libcapstone.so 2>/dev/null | awk '/SONAME/ {print $$2}'),libcapstone.so.4)

tools: $(B)/ukcov $(B)/ukcov-cc $(B)/ukcov-c++

$(B)/tools/%.o: tools/%.c $(TOOL_HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -c $< -o $@

$(B)/tools/elfpoints.o: TOOL_CFLAGS += -DCAPSTONE_SONAME='"$(CAPSTONE_SONAME)"'

$(B)/ukcov: $(TOOL_OBJS)
	$(CC) $(TOOL_OBJS) $(TOOL_LDLIBS) -o $@

# One wrapper binary; it looks at its own name to pick C or C++.
$(B)/ukcov-cc: tools/wrapper.c | $(B)
	$(CC) $(TOOL_CFLAGS) -DUKCOV_LIBDIR_REL='"../lib"' $< -o $@

$(B)/ukcov-c++: $(B)/ukcov-cc
	ln -sf ukcov-cc $@

.PHONY: install-tool
ifeq ($(CROSS),)
install-extra:: install-tool
endif
install-tool: tools
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 $(B)/ukcov $(B)/ukcov-cc $(DESTDIR)$(BINDIR)/
	ln -sf ukcov-cc $(DESTDIR)$(BINDIR)/ukcov-c++
	$(INSTALL) -m 644 man/ukcov.1 $(DESTDIR)$(MANDIR)/man1/

# The tool suite's fuzz harnesses (clang libFuzzer + ASan, never mixed
# with the tool's own objects).
FUZZ_PARSERS := sancov symcov dump rawmap elfpoints modules x86len ctlblock
FUZZ_BINS := $(patsubst %,$(B)/fuzz/fuzz-%,$(FUZZ_PARSERS))
FUZZ_SRCS := tools/util.c tools/sancov_file.c tools/strtab.c tools/json.c \
             tools/symcov.c tools/dump.c tools/elfpoints.c tools/pctable.c \
             tools/elfpoints_a64.c tools/x86len.c

$(B)/fuzz/fuzz-%: tests/tool/fuzz/fuzz_%.c $(FUZZ_SRCS) $(TOOL_HDRS) | $(B)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -D_GNU_SOURCE -Iinclude -Itools \
	    $< $(FUZZ_SRCS) -lelf -lcapstone -o $@

# The runtime's control block validator, alone (a peer's block is its
# input; lib/cbcheck.c uses nothing else of the runtime).
$(B)/fuzz/fuzz-ctlblock: tests/tool/fuzz/fuzz_ctlblock.c lib/cbcheck.c \
			 $(wildcard lib/*.h include/ukcov/*.h) | $(B)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -D_GNU_SOURCE -Iinclude -Ilib \
	    $< lib/cbcheck.c -o $@

# The registry reader is runtime code (lib/, never instrumented in the
# library itself): its harness gets the one pure file and no tool code.
FUZZ_BINS += $(B)/fuzz/fuzz-registry
$(B)/fuzz/fuzz-registry: tests/tool/fuzz/fuzz_registry.c lib/registry_slots.c \
		lib/registry_format.h | $(B)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -D_GNU_SOURCE -Ilib \
	    $< lib/registry_slots.c -o $@

# The length decoder against capstone (tests/tool/x86len_check.c).
X86LEN_CHECK_SRCS := tools/x86len.c tools/elfpoints.c tools/pctable.c \
		     tools/elfpoints_a64.c tools/util.c
$(B)/tests/x86len-check: tests/tool/x86len_check.c $(X86LEN_CHECK_SRCS) $(TOOL_HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -Itools $< $(X86LEN_CHECK_SRCS) -lelf -lcapstone -o $@

# tools/sha1.c on its own (tests/tool/sha1_check.c).
$(B)/tests/sha1-check: tests/tool/sha1_check.c tools/sha1.c tools/sha1.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -Itools $< tools/sha1.c -lnettle -o $@

.PHONY: tool-fuzz
tool-fuzz: $(FUZZ_BINS)

test-prep:: tools tool-fuzz $(B)/tests/x86len-check $(B)/tests/sha1-check
