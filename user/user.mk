# SPDX-License-Identifier: GPL-2.0-only
# user.mk - the user programs: static i386 ELF executables (ET_EXEC) for
# bin/ of the initrd, built from user/bin/NAME.c and the library in
# user/lib/. Included by the top-level Makefile; paths relative to the
# repository root. A new program: add user/bin/NAME.c and NAME below.
ifndef RONX_USER_MK
RONX_USER_MK := 1

# One executable, many names (busybox's way): the process programs share
# one copy of the library, since a 2M machine holds the whole initrd in
# RAM. Each program's main() becomes NAME_main; forkprogs runs the one
# its name names, and bin/NAME is a hard link to it (cpio stores the
# bytes once; kernel/cpio.c finds them for every name).
USER_MULTI := forktest cowtest zerotest stackgrow forkbomb oomtouch bench_fork sh \
	ptbomb shmfork
USER_PROGS := hello echo cat spin park sleep exit true \
	nullread nullwrite stackexec writetext readkernel writekernel execkernel peek \
	stackoverflow mmaprwx mprotectrwx jit wxsegment redteam \
	usertest fuzz bench_getpid bench_yield bench_spawn bench_appel guardpage writebarrier getcpu \
	fpu mmapwrap evilname bigwrite readone pagespray \
	aslrprobe kleak forkloop forkprogs sigtest jitdual memfdtest jobctl $(USER_MULTI)
UB := $(B)/user
USER_BINS := $(USER_PROGS:%=$(UB)/bin/%)

# Freestanding: no libc, no PIE, no x87 or SSE code from the compiler
# (fpregs.c uses them by hand, for the fpu program).
USER_CFLAGS := -m32 -march=i686 -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	-ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fcf-protection=none -mno-sse -mno-mmx -mno-80387 \
	-Iuser/include -Iinclude
USER_LDFLAGS := -m32 -march=i686 -static -nostdlib -fno-pie -no-pie -ffreestanding \
	-Wl,-z,max-page-size=4096 -Wl,--build-id=none

# The library: its own files, and the kernel's pure string, number and
# printf code, compiled a second time for ring 3.
USER_LIB_SRCS := $(wildcard user/lib/*.c) kernel/vsprintf.c kernel/string.c kernel/kstrtox.c
USER_LIB_OBJS := $(patsubst %.c,$(UB)/obj/%.o,$(USER_LIB_SRCS))
USER_CRT0 := $(UB)/obj/user/lib/crt0.o

$(UB)/obj/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(USER_CRT0): user/lib/crt0.asm | $(SETUP)
	@mkdir -p $(dir $@)
	$(NASM) -f elf32 -g -F dwarf $< -o $@

$(UB)/libulib.a: $(USER_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# NAME.elf keeps its symbols (objdump, gdb); bin/NAME is stripped for the
# initrd. No program may have an RWE segment, except wxsegment, which
# must have one (it is the loader's test).
USER_LD_SCRIPT = -Wl,-T,user/user.ld
USER_LD_WX_SCRIPT = -Wl,-T,user/wxsegment.ld -Wl,--no-warn-rwx-segments
$(UB)/%.elf: $(UB)/obj/user/bin/%.o $(USER_CRT0) $(UB)/libulib.a user/user.ld user/wxsegment.ld
	$(CC) $(USER_LDFLAGS) $(if $(filter wxsegment,$*),$(USER_LD_WX_SCRIPT),$(USER_LD_SCRIPT)) \
		-o $@ $(USER_CRT0) $< $(UB)/libulib.a -lgcc

$(UB)/bin/%: $(UB)/%.elf
	@mkdir -p $(dir $@)
	objcopy --strip-all $< $@
	@if [ "$*" = wxsegment ]; then \
		readelf -lW $@ | grep -q ' RWE ' || { echo "$@: wxsegment must have an RWE segment"; exit 1; }; \
	elif readelf -lW $@ | grep -q ' RWE '; then \
		echo "$@ has an RWE segment"; exit 1; \
	fi

$(UB)/obj/multi/%.o: user/bin/%.c | $(SETUP)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Dmain=$*_main -MMD -MP -c $< -o $@

USER_MULTI_OBJS := $(USER_MULTI:%=$(UB)/obj/multi/%.o)
$(UB)/forkprogs.elf: $(UB)/obj/user/bin/forkprogs.o $(USER_MULTI_OBJS) $(USER_CRT0) $(UB)/libulib.a user/user.ld
	$(CC) $(USER_LDFLAGS) $(USER_LD_SCRIPT) -o $@ $(USER_CRT0) $(UB)/obj/user/bin/forkprogs.o \
		$(USER_MULTI_OBJS) $(UB)/libulib.a -lgcc

$(USER_MULTI:%=$(UB)/bin/%): $(UB)/bin/forkprogs
	ln -f $< $@

user: $(USER_BINS)

# A program from sources outside user/bin, with a linker script of its
# own: the labs build theirs at grade time (labs/userlab.py), with the
# same flags and library as the programs above.
#   make user-prog PROG=OUT PROG_SRCS="a.c b.S" PROG_LD=script.ld
user-prog: $(USER_CRT0) $(UB)/libulib.a
	@test -n "$(PROG)" -a -n "$(PROG_SRCS)" -a -n "$(PROG_LD)" || \
		{ echo "make user-prog PROG=OUT PROG_SRCS=... PROG_LD=..."; exit 1; }
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -Wl,-T,$(PROG_LD) -o $(PROG) \
		$(USER_CRT0) $(PROG_SRCS) $(UB)/libulib.a -lgcc

# the programs on the host under qemu-i386 (Debian's qemu-user):
# build/results/user.ktap
user-test: $(USER_BINS) | $(SETUP)
	@mkdir -p $(B)/results
	$(PYTHON) tests/user/run.py

.PHONY: user user-test user-prog

-include $(USER_LIB_OBJS:.o=.d) $(USER_PROGS:%=$(UB)/obj/user/bin/%.d) $(USER_MULTI_OBJS:.o=.d)
endif
