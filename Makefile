# SPDX-License-Identifier: GPL-2.0-only
# ronx: build the kernel, the ISO, and run it or its tests.
#
#   make          build/kernel.elf and build/ronx.iso
#   make run      boot the ISO in QEMU, serial console on this terminal
#                 (SMP=4: with four CPUs)
#   make run-bochs the same in Bochs, with Bochs's own BIOS
#   make test     every test; the last line is "N passed, N failed"
#   make user-test the user programs under qemu-i386, before any kernel
#   make test-kaslr every QEMU test again, each boot with `kaslr` (not in make test)
#   make debug    QEMU waits for gdb (see tools/gdbinit)
#   make bench    measure what the policy costs
#   make lab-start LAB=NAME [DIR=...]   a student's tree for one lab
#   make grade [LAB=NAME]               grade the labs: Score: N/M
#   make grade LAB=NAME SUBMISSION=PATH  grade a student's submission
#   make grade-class LAB=NAME SUBMISSIONS=DIR   a whole class, one per core
#   make autograder LAB=NAME            build/autograder/NAME.zip for Gradescope
#   make docs     regenerate the generated documents in docs/: ptdump-diff.md,
#                 the memory-map pictures, linux-vs-ronx.md (runs linux-check)
#   make map      memory-map pictures: build/map/*.svg, .png (fork.svg: a fork before/after)
#   make clean

# No built-in implicit rules: every rule here is written out, and make's
# search of its own for each of the hundreds of targets took 70 of a
# no-op make's 80 ms (the graders run make several times a submission)
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

B := build
CC := gcc
LD := ld
NASM := nasm
# Debian's python3 (tools/setup.sh installs it), else the interpreter
# itself, not a version manager's shim in front of it (pyenv's costs ten
# times Python's own start). Each kernel link runs three scripts and make
# test links hundreds of kernels: a pyenv build found first on PATH took
# 60 ms to start (its site hooks) and ran loops 1.4 times slower than
# Debian's optimised build. Exported, so the graders' own makes take it
# as it is; every script they start runs under sys.executable.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(or $(wildcard /usr/bin/python3),$(shell python3 -c 'import sys; print(sys.executable)' 2>/dev/null),python3)
endif
export PYTHON
# Python's bytecode, cached under build/ (the graders' own makes keep the
# first tree's): where the environment says to write none
# (PYTHONDONTWRITEBYTECODE), every grader compiled its modules again.
export PYTHONPYCACHEPREFIX ?= $(abspath $(B))/pycache
export PYTHONDONTWRITEBYTECODE :=
QEMU := qemu-system-i386
QEMU_CPU ?= qemu32,+nx,+pae,+smep,+smap
SMP ?= 1
CMDLINE ?=

# The stack protector (kernel/stackprotector.c): a canary in every
# function with an array or a local whose address is taken, compared
# with the one global __stack_chk_guard (-mstack-protector-guard=global:
# ronx has no per-CPU %gs canary). STACKPROTECTOR=off builds without it
# (tests/qemu/test_crash.py shows its objdump check failing then).
STACKPROTECTOR ?= on
ifeq ($(STACKPROTECTOR),off)
CC_STACKPROTECTOR := -fno-stack-protector
else
CC_STACKPROTECTOR := -fstack-protector-strong -mstack-protector-guard=global
endif
# A signal's stage marks (include/ronx/stagestat.h): SIGSTAGES=on builds
# them in, for tools/bench_appel.py stages; off, they are not there at all.
SIGSTAGES ?= off
ifeq ($(SIGSTAGES),on)
CC_SIGSTAGES := -DCONFIG_SIGSTAGES
endif
CFLAGS := -m32 -march=i686 -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	-ffreestanding -fno-pic -fno-pie $(CC_STACKPROTECTOR) $(CC_SIGSTAGES) \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-strict-aliasing -mno-sse -mno-mmx -mno-80387 \
	-Iinclude -Imodload
LDFLAGS = -m elf_i386 -nostdlib -T linker.ld -Map=$(B)/$(@F).map
LIBGCC = $(shell $(CC) -m32 -print-libgcc-file-name)

# kernel/ in rooms (docs/design.md, "The rooms"): the core, the CPU's
# own machinery, the drivers, the shell and its demos, the self-tests
KERNEL_DIRS := kernel kernel/cpu kernel/drivers kernel/shell kernel/selftest mm modload
C_SRCS := $(foreach d,$(KERNEL_DIRS),$(wildcard $(d)/*.c))
ASM_SRCS := $(wildcard boot/*.asm)
OBJS := $(patsubst %.c,$(B)/%.o,$(C_SRCS)) $(patsubst %.asm,$(B)/%.o,$(ASM_SRCS))

SETUP := $(B)/.setup-done
.DEFAULT_GOAL := all

# a minimal executable and its broken twins, for the ELF loader's refusals
# (tools/mkbroken_exec.py): bin/broken/ in the initrd, EXPECTED beside them
EXEC_DIR := $(B)/exec
EXEC_BROKEN_MANIFEST := $(EXEC_DIR)/EXPECTED

# sample modules (MODULES_KO), their broken twins, host tests and the fuzzer
-include modules/modules.mk
-include tests/host/host.mk
-include tools/gdb/gdb.mk
-include tests/qemu/qemu.mk
# the user programs for bin/ of the initrd (USER_BINS)
-include user/user.mk

all: $(B)/kernel.elf $(B)/ronx.iso

# a failed recipe must not leave a half-made target behind
.DELETE_ON_ERROR:

$(SETUP): tools/setup.sh
	@bash tools/setup.sh
	@mkdir -p $(B) && touch $@

# Changing CFLAGS (STACKPROTECTOR=off, an edit here) must rebuild every
# object, which make alone does not know: build/.cflags holds the flags
# and is rewritten only when they change, and every object depends on it.
CFLAGS_STAMP := $(B)/.cflags
$(CFLAGS_STAMP): FORCE | $(SETUP)
	@echo '$(CFLAGS)' | cmp -s - $@ || echo '$(CFLAGS)' > $@
FORCE:

$(B)/%.o: %.c $(CFLAGS_STAMP) | $(SETUP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# What a person reads (memview, the sharing lines of meminfo/ptdump/walk)
# and the VGA console, which waits on the serial port anyway: -Os keeps
# the image small, and each page of it is RAM a 2M machine never gets back
$(B)/kernel/shell/memview.o $(B)/kernel/shell/memview_draw.o $(B)/kernel/shell/cow_show.o $(B)/kernel/drivers/vga.o: CFLAGS += -Os

# nasm's -MD forgets %include'd files (2.16): its -M, first, does not
$(B)/%.o: %.asm | $(SETUP)
	@mkdir -p $(dir $@)
	$(NASM) -f elf32 -M -MT $@ -MP $< >$(@:.o=.d)
	$(NASM) -f elf32 -g -F dwarf $< -o $@

# kallsyms, as Linux does it, in link passes: the first with an empty
# symbol table, the next ones with the table made from the pass before.
# Adding the table to .rodata moves .init.text (it comes after), so pass 2
# has the right size but old addresses; pass 3 uses pass 2's table, which
# has the same size, so nothing moves any more. The cmp checks that.
# KASLR's relocation table (tools/relocs.py) comes from pass 3, linked
# with --emit-relocs (-q); it goes to .init.data, after every word it
# lists, so the last link moves none of them: its own table must be the
# same, which the second cmp checks. kernel.relocs.elf keeps the linker's
# relocations (test_kaslr.py reads them); kernel.elf, which GRUB loads,
# has none: GRUB's multiboot2 loader refuses an ELF with .rel sections.
$(B)/kallsyms0.c: tools/kallsyms.py | $(SETUP)
	@mkdir -p $(B)
	$(PYTHON) tools/kallsyms.py --empty > $@
$(B)/kallsyms%.c: $(B)/kernel.pass%.elf tools/kallsyms.py | $(SETUP)
	nm -n $< | $(PYTHON) tools/kallsyms.py > $@
$(B)/relocs0.c: tools/relocs.py tools/elf32.py | $(SETUP)
	@mkdir -p $(B)
	$(PYTHON) tools/relocs.py --empty > $@
$(B)/relocs3.c: $(B)/kernel.pass3.elf tools/relocs.py tools/elf32.py
	$(PYTHON) tools/relocs.py $< > $@
# the generated tables' objects (their C is under build/, not beside the sources)
GENERATED_OBJS := $(B)/kallsyms0.o $(B)/kallsyms1.o $(B)/kallsyms2.o $(B)/relocs0.o $(B)/relocs3.o
$(GENERATED_OBJS): %.o: %.c $(CFLAGS_STAMP)
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/kernel.pass1.elf: $(OBJS) $(B)/kallsyms0.o $(B)/relocs0.o linker.ld
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms0.o $(B)/relocs0.o $(LIBGCC)
$(B)/kernel.pass2.elf: $(OBJS) $(B)/kallsyms1.o $(B)/relocs0.o linker.ld
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms1.o $(B)/relocs0.o $(LIBGCC)
$(B)/kernel.pass3.elf: $(OBJS) $(B)/kallsyms2.o $(B)/relocs0.o $(B)/kernel.pass2.elf linker.ld
	$(LD) $(LDFLAGS) -q -o $@ $(OBJS) $(B)/kallsyms2.o $(B)/relocs0.o $(LIBGCC)
$(B)/kernel.elf: $(OBJS) $(B)/kallsyms2.o $(B)/relocs3.o $(B)/kernel.pass3.elf linker.ld
	$(LD) $(LDFLAGS) -q -o $(B)/kernel.relocs.elf $(OBJS) $(B)/kallsyms2.o $(B)/relocs3.o $(LIBGCC)
	nm -n $(B)/kernel.pass2.elf | grep ' [tT] ' > $(B)/text-syms.pass2
	nm -n $(B)/kernel.relocs.elf | grep ' [tT] ' > $(B)/text-syms.final
	cmp -s $(B)/text-syms.pass2 $(B)/text-syms.final || { echo "kallsyms moved a function"; exit 1; }
	$(PYTHON) tools/relocs.py $(B)/kernel.relocs.elf | cmp -s - $(B)/relocs3.c || { echo "the relocation table moved a relocated word"; exit 1; }
	objcopy --remove-relocations='*' $(B)/kernel.relocs.elf $@
	@if readelf -lW $@ | grep -q ' RWE '; then echo "$@ has an RWE segment"; exit 1; fi

# The same link with PAD, an object with a few bytes in each section,
# linked last: the layout lab's grader links the student's linker.ld this
# way too, so that a section whose contents happen to end on a page
# boundary cannot hide a missing ALIGN (make build/kernel.padded.elf PAD=obj).
$(B)/kernel.padded.elf: $(OBJS) $(B)/kallsyms2.o $(B)/relocs3.o linker.ld $(PAD)
	@test -n "$(PAD)" || { echo "make $@ PAD=object: which pad object?"; exit 1; }
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms2.o $(B)/relocs3.o $(PAD) $(LIBGCC)

$(EXEC_BROKEN_MANIFEST): tools/mkbroken_exec.py | $(SETUP)
	$(PYTHON) tools/mkbroken_exec.py $(EXEC_DIR)

# the sample modules, the broken ones under broken/ for the loader's tests,
# the user programs under bin/ and the broken executables under bin/broken/
$(B)/initrd.cpio: $(MODULES_KO) $(BROKEN_MANIFEST) $(USER_BINS) $(EXEC_BROKEN_MANIFEST) modules/autoload tools/mkinitrd.sh | $(SETUP)
	bash tools/mkinitrd.sh $@ $(MODULES_KO) --dir broken $(BROKEN_DIR)/*.ko \
		--dir bin $(USER_BINS) --dir bin/broken $(EXEC_DIR)/broken/*

$(B)/ronx.iso: $(B)/kernel.elf $(B)/initrd.cpio iso/grub.cfg
	rm -rf $(B)/isodir
	mkdir -p $(B)/isodir/boot/grub
	cp $(B)/kernel.elf $(B)/initrd.cpio $(B)/isodir/boot/
	cp iso/grub.cfg $(B)/isodir/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(B)/isodir 2>$(B)/grub-mkrescue.log || { cat $(B)/grub-mkrescue.log; exit 1; }

QEMU_BASE = $(QEMU) -accel tcg -cpu $(QEMU_CPU) -smp $(SMP) -m 128M -no-reboot -display none

run: all
	@echo "ronx: booting build/ronx.iso; type 'help' at the prompt, 'poweroff' to stop (Ctrl-A X quits QEMU)"
	$(QEMU_BASE) -cdrom $(B)/ronx.iso -serial mon:stdio

# Boots with -kernel (multiboot1) so that CMDLINE applies: make run-kernel CMDLINE=pci=nobios
run-kernel: all
	$(QEMU_BASE) -kernel $(B)/kernel.elf -initrd $(B)/initrd.cpio -append "$(CMDLINE)" -serial mon:stdio

# Bochs, with its own BIOS (tools/bochsrc): the shell on this terminal.
# Bochs leaves the terminal raw and exits 1 even on a clean power-off, so
# restore the one and succeed when its log says ronx powered off. The CPU
# is BOCHS_CPU, a model with SMEP and SMAP, given on Bochs's command line
# (a later "cpu:" line wins); the Bochs test lane keeps tools/bochsrc's
# 2008 Penryn, which has neither.
BOCHS_CPU ?= broadwell_ult
run-bochs: all
	@echo "ronx: booting build/ronx.iso in Bochs ($(BOCHS_CPU)); 'poweroff' stops it (Bochs's log: $(B)/bochs.log)"
	@tty=$$(stty -g 2>/dev/null); bochs -q -f tools/bochsrc -rc tools/bochs.rc \
		'cpu: model=$(BOCHS_CPU), reset_on_triple_fault=0'; \
	[ -z "$$tty" ] || stty "$$tty" 2>/dev/null; \
	grep -q "Shutdown port: shutdown requested" $(B)/bochs.log

# QEMU stops before the first instruction and waits for gdb on GDB_PORT
# (1234, as -s); tools/gdbinit connects (RONX_GDB_PORT=N for another port)
# and loads ronx-walk and ronx-ptdump (tools/gdb/ronx.py).
GDB_PORT ?= 1234
debug: all $(GDB_LIB)
	@echo "ronx: QEMU waits for gdb on :$(GDB_PORT); in another terminal: gdb -x tools/gdbinit (then ronx-walk VA, ronx-ptdump)"
	$(QEMU_BASE) -kernel $(B)/kernel.elf -initrd $(B)/initrd.cpio -append "$(CMDLINE)" -serial mon:stdio -gdb tcp::$(GDB_PORT) -S

-include linux/linux.mk

# Writes only under build/: the last step (tests/tree_check.py) fails if a
# tracked file changed or an untracked one appeared during the run, the
# build included (documents change only with make docs).
# The small Linux kernels (9 minutes of both cores from an empty cache)
# build at the lowest priority beside the other stages, in the CPU time
# they leave (QEMU waiting for a prompt, a grader reading a page table);
# linux-check's boots wait for them (and build what is still missing: it
# alone says whether the Linux side passed), beside the qemu stage; its
# report comes after that stage, whose test_peer writes the ronx readings
# it reads. check_docs reads the table the report writes. Ctrl-C stops the
# build (its own process group); tests/qemu/run.py stops it (SIGSTOP)
# while the files with a wall-clock bound run alone, first (qemu-alone).
# fuzz, qemu and linux run beside the labs stage, whose seed step must run
# on a loaded machine (issue 33): they are that load while they run, and
# beside.done tells tests/labs/run.py they ended (two more seed workers,
# or busy loops, take their place). Their times overlap the labs' in the
# summary. The qemu stage runs one file at a time there (QEMU_JOBS=1): the
# cores are full, and each more guest that shares them makes the guests
# with several CPUs spin longer (docs/bench.md, "Every stage from the
# start").
# Each stage's wall time goes to build/results/STAGE.seconds (timed below):
# tests/summary.py prints it beside the stage's counts.
test:
	@rm -rf $(B)/results && mkdir -p $(B)/results && date +%s > $(B)/results/started
	@$(PYTHON) tests/tree_check.py snapshot $(B)/tree-before.json
	@$(MAKE) --no-print-directory -j$$(nproc) all $(GDB_LIB)
	@status=0; \
	timed() { s=$$(date +%s); n=$$1; shift; "$$@"; rc=$$?; \
		echo $$(($$(date +%s) - s)) > $(B)/results/$$n.seconds; return $$rc; }; \
	setsid nice -n 19 $(MAKE) --no-print-directory linux-small-kernels \
		> $(B)/results/linux-small-kernels.log 2>&1 & lpid=$$!; \
	trap '[ -z "$$lpid" ] || kill -- -$$lpid 2>/dev/null' EXIT INT TERM; \
	timed qemu-alone env RONX_BACKGROUND_PGID=$$lpid QEMU_ALONE=only QEMU_KTAP=qemu-alone.ktap \
		$(PYTHON) tests/qemu/run.py || status=1; \
	kill -CONT -- -$$lpid 2>/dev/null; \
	beside=$(B)/results/beside; rm -f $$beside.done; \
	( timed labs env LAB_BESIDE=$$beside $(PYTHON) tests/labs/run.py ) & labs=$$!; \
	echo "[make test] host, user, fuzz, qemu and linux's boots run beside the labs"; \
	( while kill -0 $$lpid 2>/dev/null; do sleep 2; done; \
	  timed linux-boots env LINUX_PART=boots $(MAKE) --no-print-directory linux-check ) & boots=$$!; \
	timed host $(MAKE) --no-print-directory host-test || status=1; \
	timed user $(MAKE) --no-print-directory user-test || status=1; \
	timed fuzz $(MAKE) --no-print-directory fuzz-smoke || status=1; \
	timed qemu env QEMU_ALONE=skip QEMU_JOBS=1 $(PYTHON) tests/qemu/run.py || status=1; \
	wait $$boots || status=1; \
	wait $$lpid || echo "[linux] the small kernels' build failed; linux-check built them"; \
	lpid=; \
	timed linux env LINUX_PART=report $(MAKE) --no-print-directory linux-check || status=1; \
	echo $$(( $$(cat $(B)/results/linux-boots.seconds) + $$(cat $(B)/results/linux.seconds) )) \
		> $(B)/results/linux.seconds; \
	touch $$beside.done; \
	wait $$labs || status=1; \
	timed docs $(PYTHON) tests/docs/check_docs.py || status=1; \
	timed printers $(PYTHON) tests/docs/check_printers.py || status=1; \
	timed rooms $(PYTHON) tests/docs/check_rooms.py || status=1; \
	timed benchchart $(PYTHON) tests/docs/check_benchchart.py || status=1; \
	timed tree $(PYTHON) tests/tree_check.py compare $(B)/tree-before.json $(B)/results/tree.ktap || status=1; \
	$(PYTHON) tests/summary.py $(B)/results || status=1; \
	exit $$status

# The whole QEMU suite with the image moved: every -kernel boot gets `kaslr`
# before its own words (tests/qemu/guest.py's RONX_BOOT_EXTRA). Too long for
# make test, whose matrix has one kaslr lane instead.
test-kaslr: all $(GDB_LIB)
	@mkdir -p $(B)/results
	RONX_BOOT_EXTRA=kaslr $(PYTHON) tests/qemu/run.py

# ronx as a course (docs/labs/README.md): a student's tree, and its grade
lab-start: | $(SETUP)
	@$(PYTHON) tools/lab.py start "$(LAB)" "$(DIR)"

# SUBMISSION=PATH grades a submission (only the lab's files are taken from
# it); SEED=N repeats a grade's scenarios; JOBS=N, TIMEOUT=S for a class
grade: | $(SETUP)
	@$(PYTHON) tools/lab.py grade $(LAB) $(if $(SUBMISSION),--submission "$(SUBMISSION)") \
		$(if $(SEED),--seed $(SEED))

grade-class: | $(SETUP)
	@$(PYTHON) tools/lab.py grade-class "$(LAB)" "$(SUBMISSIONS)" $(if $(SEED),--seed $(SEED)) \
		$(if $(JOBS),--jobs $(JOBS)) $(if $(TIMEOUT),--timeout $(TIMEOUT))

# build/autograder/LAB.zip: a Gradescope autograder (docs/labs/README.md)
autograder:
	@$(PYTHON) tools/lab.py autograder "$(LAB)"

# keep the intermediate link passes (make would delete them otherwise)
.SECONDARY:

# Every generated document in docs/, and only here (make test writes under
# build/): seed 001's before/after dump diff on ronx, the memory-map
# pictures, and the Linux side-by-side table, which linux-check writes to
# build/results/ (it exits non-zero when a check fails: the table says which).
docs: all
	$(PYTHON) tools/ptdump_docs.py docs/ptdump-diff.md
	$(PYTHON) tools/mkmap.py --docs $(B)/map
	$(MAKE) --no-print-directory linux-check || echo "docs: linux-check reported failures (see build/results/linux.ktap)"
	cp $(B)/results/linux-vs-ronx.md docs/linux-vs-ronx.md

# what the policy costs, measured (see tools/bench.py)
bench: all
	$(PYTHON) tools/bench.py

# the memory map, drawn from ptdump (default and rodata=off), into build/map/
# (make docs copies the examples into docs/)
# and a fork before/after (build/map/fork.svg: tools/forkmap.py)
map: all
	$(PYTHON) tools/mkmap.py $(B)/map
	$(PYTHON) tools/forkmap.py $(B)/map

# ronx's readings for the Linux side-by-side table (docs/linux-vs-ronx.md)
ronx-checks: all
	@mkdir -p $(B)/results
	QEMU_KTAP=qemu-ronx-checks.ktap $(PYTHON) tests/qemu/run.py test_ronx_checks

clean:
	rm -rf $(B)

.PHONY: FORCE all run run-bochs run-kernel debug test test-kaslr clean docs map ronx-checks bench lab-start grade grade-class autograder

-include $(OBJS:.o=.d)
