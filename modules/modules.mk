# SPDX-License-Identifier: GPL-2.0-only
# modules.mk - build the sample modules (and the broken ones) as ELF32 ET_REL
# objects, like Linux .ko files. Included by the top-level Makefile; paths
# are relative to the repository root.
#
# A new module: add modules/NAME.c and NAME to MODULES below.

MODULES := hello provider user big patchme failinit
MODULES_KO := $(MODULES:%=build/modules/%.ko)

MOD_CC ?= gcc
MOD_LD ?= ld
# -fno-pic/-fno-pie: no GOT or PLT relocations, only R_386_32 and R_386_PC32.
# -fno-common: no SHN_COMMON symbols. No SSE/MMX: the kernel does not save them.
MOD_CFLAGS := -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
	-mno-sse -mno-mmx -fno-asynchronous-unwind-tables -fno-common \
	-fcf-protection=none -nostdlib -O2 -Wall -Wextra \
	-Imodules/include -Iinclude

build/modules/%.o: modules/%.c modules/include/ronx/module.h include/ronx/export.h
	@mkdir -p $(@D)
	$(MOD_CC) $(MOD_CFLAGS) -DKBUILD_MODNAME=$* -c $< -o $@

build/modules/%.ko: build/modules/%.o
	$(MOD_LD) -m elf_i386 -r $< -o $@

# Deliberately broken objects, each with the error the loader must give.
BROKEN_DIR := build/modules/broken
BROKEN_MANIFEST := $(BROKEN_DIR)/EXPECTED

$(BROKEN_MANIFEST): tools/mkbroken.py build/modules/hello.ko
	$(PYTHON) tools/mkbroken.py build/modules/hello.ko $(BROKEN_DIR)

.PHONY: modules broken-modules
modules: $(MODULES_KO)
broken-modules: $(BROKEN_MANIFEST)


# The tests of the loader's pure code: host-test (host.mk), fuzz-smoke and
# fuzz (fuzz.mk). Both files guard against being included twice.
-include tests/host/host.mk
-include tests/fuzz/fuzz.mk
