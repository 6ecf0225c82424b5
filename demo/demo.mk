# demo/demo.mk -- "make demo": collect the coverage of one call into the
# bundled parser and print it symbolized to function and file:line.

DEMO_CC ?= $(CC)

$(B)/demo/parse.o: demo/parse.c demo/parse.h
	@mkdir -p $(dir $@)
	$(DEMO_CC) -g -O0 -fsanitize-coverage=trace-pc -c $< -o $@

$(B)/demo/demo: demo/demo.c demo/parse.h $(B)/demo/parse.o lib
	$(DEMO_CC) -g -O1 -Iinclude -Idemo demo/demo.c $(B)/demo/parse.o \
	    -L$(B) -Wl,-rpath,$(abspath $(B)) -lukcov -o $@

.PHONY: demo-run
demo-run: $(B)/demo/demo tools
	@echo "--- $(B)/demo/demo: one call to parse_settings() traced through /sys/kernel/debug/kcov"
	@$(B)/demo/demo $(B)/demo/demo.dump
	@echo "--- ukcov print --lines $(B)/demo/demo.dump: each covered point, symbolized"
	@$(B)/ukcov print --lines $(B)/demo/demo.dump
	@echo "--- ukcov covered-functions $(B)/demo/demo.dump"
	@$(B)/ukcov covered-functions $(B)/demo/demo.dump
	@echo "--- ukcov stats $(B)/demo/demo.dump"
	@$(B)/ukcov stats $(B)/demo/demo.dump

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory demo-run
