# SPDX-License-Identifier: GPL-2.0-only
# host.mk - unit tests of the pure loader code, built for the host under
# ASan and UBSan. Each tests/host/test_*.c is a unity build (it #includes
# the .c files it tests). Included from modules/modules.mk (guarded, so
# the top-level Makefile may include it too).

ifndef RONX_HOST_MK
RONX_HOST_MK := 1

HOST_CC ?= gcc
HOST_CFLAGS = -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iinclude -Imodload -Imodules/include
HOST_TESTS := $(patsubst tests/host/%.c,build/host/%,$(wildcard tests/host/test_*.c))
HOST_DEPS := $(wildcard modload/*.c modload/*.h include/ronx/*.h tests/host/*.h)

build/host/test_%: tests/host/test_%.c $(HOST_DEPS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $< -o $@

# Every test runs even if one fails; their KTAP goes to one file. A test
# that dies before its plan line ("1..N") gets a "not ok" line of its own.
.PHONY: host-test
host-test: $(HOST_TESTS) $(MODULES_KO) $(BROKEN_MANIFEST)
	@mkdir -p build/results
	@fail=0; for t in $(HOST_TESTS); do \
		./$$t > $$t.ktap 2>&1 || fail=1; \
		cat $$t.ktap; \
		grep -q '^1\.\.' $$t.ktap || echo "not ok - $$t died before finishing"; \
	done > build/results/host.ktap; \
	grep -E '^(not )?ok ' build/results/host.ktap | sed 's/^/host: /'; \
	exit $$fail

endif
