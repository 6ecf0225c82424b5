# examples/examples.mk -- the kcov example programs of the seed documents
# (Linux kcov.rst, FreeBSD, NetBSD and OpenBSD kcov(4)), and the programs
# in the EXAMPLES sections of man/*.3 and man/*.4, built against libukcov
# the way users build them: by gcc and by clang, the traced code with
# -fsanitize-coverage=trace-pc,trace-cmp, the rest without.
# tests/suites.d/30-examples.sh runs them.
#
#   $(B)/examples/<cc>/<example>          examples/<example>.c + target.c
#   $(B)/examples/man/<page>_<sec>-<n>.c  extracted by man-examples.sh
#   $(B)/examples/man/<page>_<sec>-<n>.<cc>

EX_DIR      := $(B)/examples
EX_CCS      ?= gcc clang
EX_PROGS    := linux_pc linux_cmp freebsd_pc netbsd_pc openbsd_pc \
               linux_remote remote_pool remote_evloop
# Sources linked into one example besides target.o (uninstrumented).
EX_EXTRA_linux_remote := examples/usb_bus.c
EX_CFLAGS   := -std=gnu11 -O2 -g -Wall
# NetBSD's example munmap()s its volatile kcov_int_t buffer, as it does
# on NetBSD, where the compiler warns the same.
EX_QUIET_gcc   := -Wno-discarded-qualifiers
EX_QUIET_clang := -Wno-incompatible-pointer-types-discards-qualifiers
EX_COVFLAGS := -fsanitize-coverage=trace-pc,trace-cmp
EX_LDFLAGS  := -L$(B) -Wl,-rpath,$(abspath $(B))
EX_LDLIBS   := -lukcov
EX_LIB      := $(B)/libukcov.so $(B)/libukcov_cb.a $(B)/libukcov.so.$(SOMAJOR)
EX_HDRS     := $(wildcard include/ukcov/*.h include/ukcov/*/kcov.h)
EX_MANPAGES := $(wildcard man/*.3 man/*.4)

# One set of rules per compiler: the instrumented target, then each
# example (uninstrumented, like a program on a kcov kernel) linked to it.
define ex_rules
$(EX_DIR)/$(1)/target.o: examples/target.c
	@mkdir -p $$(dir $$@)
	$(1) $(EX_CFLAGS) $(EX_COVFLAGS) -c $$< -o $$@

$(addprefix $(EX_DIR)/$(1)/,$(EX_PROGS)): $(EX_DIR)/$(1)/%: examples/%.c \
		$(EX_DIR)/$(1)/target.o $(EX_LIB) $(EX_HDRS)
	$(1) $(EX_CFLAGS) $(EX_QUIET_$(1)) -I include $$< $$(EX_EXTRA_$$*) \
	    $(EX_DIR)/$(1)/target.o $(EX_LDFLAGS) $(EX_LDLIBS) -lpthread -o $$@

$(EX_DIR)/$(1)/linux_remote: $(EX_EXTRA_linux_remote)

EX_BINS += $(addprefix $(EX_DIR)/$(1)/,$(EX_PROGS))
endef
$(foreach cc,$(EX_CCS),$(eval $(call ex_rules,$(cc))))

# The man pages' programs trace themselves: the whole file is
# instrumented.  Their number is known only after extraction, hence
# one stamp for all of them.
$(EX_DIR)/man/stamp: $(EX_MANPAGES) examples/man-examples.sh $(EX_LIB) $(EX_HDRS)
	rm -rf $(EX_DIR)/man
	set -e; for f in $$(examples/man-examples.sh $(EX_DIR)/man $(EX_MANPAGES)); do \
	    for cc in $(EX_CCS); do \
	        echo "$$cc $$f"; \
	        $$cc $(EX_CFLAGS) $(EX_COVFLAGS) -I include $$f \
	            $(EX_LDFLAGS) $(EX_LDLIBS) -o $${f%.c}.$$cc; \
	    done; \
	done
	touch $@

.PHONY: examples
examples: $(EX_BINS) $(EX_DIR)/man/stamp

test-prep:: examples
