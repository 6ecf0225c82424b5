# lib/lib.mk -- libukcov: the runtime.
#
# Three artefacts come from one set of objects (all -fPIC, initial-exec TLS):
#   build/libukcov.a        everything, for static links (TLS relaxes to local-exec)
#   build/libukcov.so.$(VERSION) the shared runtime, soname libukcov.so.$(SOMAJOR)
#   build/libukcov_cb.a     only the __sanitizer_cov_* callbacks
#   build/libukcov.so       a linker script: INPUT(libukcov_cb.a libukcov.so.0)
# The linker script makes "-lukcov" link the callbacks into the executable
# itself, so an instrumented call never goes through the PLT; the thread
# state they read lives in libukcov.so and is reached with initial-exec
# TLS (no __tls_get_addr).  See docs/DESIGN.md.

# afl_driver.c (main for LLVMFuzzerTestOneInput) is libukcov_fuzzer.a;
# afl_mark.c goes into the executable (libukcov_cb.a, libukcov.a).
LIB_SRCS  := $(filter-out lib/callbacks.c lib/afl_driver.c lib/afl_mark.c,\
		$(wildcard lib/*.c))
LIB_OBJS  := $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))
# follow.c interposes pthread_create only in the shared runtime;
# static_wrap.c (--wrap=pthread_create) is for libukcov.a only.
# afl_rtn_static.c is afl_rtn.c for libukcov.a (__real_memcmp...).
SO_OBJS   := $(patsubst $(B)/lib/follow.o,$(B)/lib/follow-shared.o,\
		$(filter-out $(B)/lib/static_wrap.o $(B)/lib/afl_rtn_static.o,\
		$(LIB_OBJS)))
A_OBJS    := $(filter-out $(B)/lib/afl_rtn.o,$(LIB_OBJS)) $(B)/lib/afl_mark.o
CB_OBJS   := $(B)/lib/callbacks.o
LIB_HDRS  := $(wildcard include/ukcov/*.h include/ukcov/*/*.h lib/*.h)

lib: $(B)/libukcov.a $(B)/libukcov_cb.a $(B)/libukcov.so $(B)/pkgconfig/ukcov.pc \
	$(B)/libukcov_fuzzer.a

$(B)/lib/%.o: lib/%.c $(LIB_HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

# The callbacks start on a cache line, so their recording path never
# straddles one wherever the linker places them (docs/PERFORMANCE.md).
# gcc folds identical callbacks (trace_gep = trace_div8) into a jump to
# the other one, a taken branch on the off path: -fno-ipa-icf, where the
# compiler has it (clang does not fold functions at -O2).
CB_CFLAGS := -falign-functions=64 \
	$(shell $(CC) -Werror -fno-ipa-icf -x c -c -o /dev/null /dev/null 2>/dev/null && echo -fno-ipa-icf)

$(B)/lib/callbacks.o: lib/callbacks.c $(LIB_HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(CB_CFLAGS) -c $< -o $@

$(B)/libukcov.a: $(A_OBJS) $(CB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/callbacks-only.o: lib/callbacks.c $(LIB_HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(CB_CFLAGS) -DUKCOV_CALLBACKS_ONLY -c $< -o $@

$(B)/libukcov_cb.a: $(B)/lib/callbacks-only.o $(B)/lib/afl_mark.o
	rm -f $@ && ar rcs $@ $^

# The libFuzzer-style main that `ukcov-cc -fsanitize=fuzzer` links.
$(B)/libukcov_fuzzer.a: $(B)/lib/afl_driver.o
	rm -f $@ && ar rcs $@ $^

$(B)/lib/follow-shared.o: lib/follow.c $(LIB_HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -DUKCOV_SHARED_RUNTIME -c $< -o $@

$(B)/libukcov.so.$(VERSION): $(SO_OBJS) $(CB_OBJS) lib/libukcov.map
	$(CC) -shared -Wl,-soname,libukcov.so.$(SOMAJOR) \
	    -Wl,--version-script=lib/libukcov.map -Wl,-z,now \
	    $(SO_OBJS) $(CB_OBJS) $(LIB_LDLIBS) -o $@

$(B)/libukcov.so.$(SOMAJOR): $(B)/libukcov.so.$(VERSION)
	ln -sf libukcov.so.$(VERSION) $@

$(B)/libukcov.so: $(B)/libukcov.so.$(SOMAJOR) $(B)/libukcov_cb.a lib/gen-ldscript.sh
	lib/gen-ldscript.sh $(TOP)/$(B) > $@

# The driver is installed beside libukcov.so: ukcov-cc finds it there.
install-extra::
	$(INSTALL) -m 644 $(B)/libukcov_fuzzer.a $(DESTDIR)$(LIBDIR)/

# An in-tree pkg-config file, so tests and examples build the way users do.
$(B)/pkgconfig/ukcov.pc: lib/ukcov.pc.in | $(B)
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(TOP)|' -e 's|@LIBDIR@|$(TOP)/$(B)|' \
	    -e 's|@INCLUDEDIR@|$(TOP)/include|' -e 's|@VERSION@|$(VERSION)|' $< > $@
