# man/man.mk -- the library's and the device's manual pages (mdoc).
#
#   make man-lint   mandoc -Tlint -Wall on man/ukcov-fuzz.1, *.3, *.4, *.7:
#                   silent, or fails
#   make install    installs them too (install-extra:: install-man)
#
# mandoc checks every .Xr: a page in its base manpath (/usr/share/man,
# ...) is looked up in that tree's mandoc.db, then on disk, and a page
# found on disk but in no database draws "outdated mandoc.db lacks
# NAME(SEC) entry, run makewhatis".  Debian's man-db keeps no mandoc.db,
# so that line only says the page was found: man-lint drops it.  Our
# own pages are found as NAME.SEC in the current directory, so man-lint
# runs in $(B)/man-lint, next to links to them.  Any other message
# fails, "referenced manual not found" included: a dead reference for
# users too (mmap(2) and friends come with Debian's manpages-dev).

MAN1_PAGES   := man/ukcov-fuzz.1
MAN3_PAGES   := $(wildcard man/*.3)
MAN4_PAGES   := $(wildcard man/*.4)
MAN7_PAGES   := $(wildcard man/*.7)
MAN_LINT_DIR := $(B)/man-lint
# Functions documented on another function's page: link.3:page.3.
MAN3_LINKS   := ukcov_flavor.3:ukcov_open.3 ukcov_version.3:ukcov_open.3 \
                ukcov_remote_enter.3:ukcov_remote_register.3 \
                ukcov_remote_leave.3:ukcov_remote_register.3

.PHONY: man-lint install-man
man-lint:
	@rm -rf $(MAN_LINT_DIR) && mkdir -p $(MAN_LINT_DIR)
	@for p in $(wildcard man/*.[1-9]); do ln -s $(TOP)/$$p $(MAN_LINT_DIR)/; done
	@cd $(MAN_LINT_DIR) && \
	out=$$(mandoc -Tlint -Wall $(addprefix $(TOP)/,$(MAN1_PAGES) $(MAN3_PAGES) $(MAN4_PAGES) $(MAN7_PAGES)) 2>&1 | \
	    grep -v '^mandoc: outdated mandoc.db lacks [^ ]* entry, run makewhatis '); \
	if [ -n "$$out" ]; then echo "$$out" >&2; exit 1; fi

install-extra:: install-man
install-man:
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 644 $(MAN1_PAGES) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(MAN3_PAGES) $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(MAN4_PAGES) $(DESTDIR)$(MANDIR)/man4/
	$(INSTALL) -m 644 $(MAN7_PAGES) $(DESTDIR)$(MANDIR)/man7/
	for l in $(MAN3_LINKS); do \
	    ln -sf $${l#*:} $(DESTDIR)$(MANDIR)/man3/$${l%%:*}; done
