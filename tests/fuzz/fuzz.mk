# SPDX-License-Identifier: GPL-2.0-only
# fuzz.mk - libFuzzer over validation + layout + relocation (clang needed:
# `apt-get install -y clang`). fuzz-smoke is the bounded run `make test`
# uses and writes build/results/fuzz.ktap; `make fuzz` runs longer.
# Included from modules/modules.mk (guarded, so including it twice is harmless).

ifndef RONX_FUZZ_MK
RONX_FUZZ_MK := 1

FUZZ_CC ?= clang
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Iinclude -Imodload -Imodules/include
# the smoke run is a number of inputs from a fixed seed: the same work on
# any machine and under any load (about 20 s of one core)
FUZZ_SMOKE_RUNS ?= 1500000
FUZZ_SECONDS ?= 600
FUZZ_BIN := build/fuzz/fuzz_modload
FUZZ_CORPUS := build/fuzz/corpus

$(FUZZ_BIN): tests/fuzz/fuzz_modload.c $(HOST_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< -o $@

# Seed corpus: the good sample modules and every broken one, plus a few
# small real Linux i386 modules if linux/ has fetched them (richer files:
# __versions, .gnu.linkonce.this_module, debug relocations).
RONX_LINUX_CACHE ?= $(HOME)/.cache/ronx/linux
FUZZ_LINUX_KO = $(shell find $(RONX_LINUX_CACHE)/root*/lib/modules -name '*.ko' \
	-size -12k 2>/dev/null | sort | head -40)

$(FUZZ_CORPUS)/.stamp: $(MODULES_KO) $(BROKEN_MANIFEST)
	@mkdir -p $(@D)
	cp $(MODULES_KO) $(BROKEN_DIR)/*.ko $(@D)/
	$(if $(FUZZ_LINUX_KO),cp $(FUZZ_LINUX_KO) $(@D)/)
	@touch $@

# run_fuzz LIMIT: run (LIMIT: -runs=N -seed=S or -max_total_time=S), then
# one KTAP line from libFuzzer's "Done N runs".
define run_fuzz
	@mkdir -p build/results build/fuzz/artifacts
	@if ./$(FUZZ_BIN) $(1) -max_len=81920 -timeout=10 \
		-artifact_prefix=build/fuzz/artifacts/ $(FUZZ_CORPUS) \
		> build/fuzz/log 2>&1; then \
		runs=$$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 execs in \2 s/p' build/fuzz/log); \
		printf 'KTAP version 1\nok 1 fuzz_modload %s\n1..1\n' "$$runs"; \
	else \
		printf 'KTAP version 1\n# see build/fuzz/log and build/fuzz/artifacts/\nnot ok 1 fuzz_modload\n1..1\n'; \
	fi > build/results/fuzz.ktap
	@grep -E '^(not )?ok ' build/results/fuzz.ktap | sed 's/^/fuzz: /'
endef

.PHONY: fuzz-smoke fuzz
fuzz-smoke: $(FUZZ_BIN) $(FUZZ_CORPUS)/.stamp
	$(call run_fuzz,-runs=$(FUZZ_SMOKE_RUNS) -seed=1)

fuzz: $(FUZZ_BIN) $(FUZZ_CORPUS)/.stamp
	$(call run_fuzz,-max_total_time=$(FUZZ_SECONDS))

endif
