# SPDX-License-Identifier: GPL-2.0-only
# Host unit tests of the pure logic, under AddressSanitizer and UBSan.
# Each tests/host/test_*.c #includes the kernel files it tests (a unity
# build), so adding a test needs no change here. Some tests read the
# sample and broken modules, so those are built first. Guarded: both the
# top-level Makefile and modules/modules.mk include this file.
ifndef RONX_HOST_MK
RONX_HOST_MK := 1

HOST_CC ?= gcc
HOST_CFLAGS = -g -O1 -std=gnu11 -Wall -Wextra -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Iinclude -Imodload -Imodules/include
HOST_TESTS := $(patsubst tests/host/%.c,$(B)/host/%,$(wildcard tests/host/test_*.c))

$(B)/host/%: tests/host/%.c tests/host/check.h | $(SETUP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -MMD -MP $< -o $@

-include $(HOST_TESTS:=.d)

# Every test runs even if one fails; each result line is prefixed with the
# test's name. A test that dies before its plan line gets a "not ok".
host-test: $(HOST_TESTS) $(MODULES_KO) $(BROKEN_MANIFEST) $(EXEC_BROKEN_MANIFEST)
	@mkdir -p $(B)/results
	@status=0; : > $(B)/results/host.ktap; \
	for t in $(HOST_TESTS); do \
		echo "host: $$t"; \
		$$t > $$t.out 2>&1 || status=1; \
		grep -q '^1\.\.' $$t.out || echo "not ok - $$(basename $$t) died before finishing" >> $(B)/results/host.ktap; \
		grep -E '^(not )?ok |^#' $$t.out | sed "s|^\(\(not \)\{0,1\}ok [0-9]*\) |\1 $$(basename $$t): |" >> $(B)/results/host.ktap; \
		grep -E '^not ok|ERROR|runtime error' $$t.out || true; \
	done; exit $$status

.PHONY: host-test
endif
