# SPDX-License-Identifier: GPL-2.0-only
# What the QEMU tests boot besides ronx: a multiboot1 loader that gives no
# memory map (tests/qemu/mbshim.c, used by test_refuse.py), and the initrd
# of the sample modules alone, without bin/ (the 2M machine of
# test_refuse.py: the self-tests need the modules, not the user programs,
# whose number grows with every lab).
all: $(B)/mbshim.elf $(B)/initrd-modules.cpio

$(B)/initrd-modules.cpio: $(MODULES_KO) $(BROKEN_MANIFEST) modules/autoload tools/mkinitrd.sh | $(SETUP)
	bash tools/mkinitrd.sh $@ $(MODULES_KO) --dir broken $(BROKEN_DIR)/*.ko

$(B)/mbshim.elf: tests/qemu/mbshim.c tests/qemu/mbshim.ld | $(SETUP)
	@mkdir -p $(B)
	$(CC) -m32 -march=i686 -O2 -Wall -Wextra -Werror -ffreestanding -fno-pic -fno-pie \
		-fno-stack-protector -fno-asynchronous-unwind-tables -c $< -o $(B)/mbshim.o
	$(LD) -m elf_i386 -nostdlib -T tests/qemu/mbshim.ld -o $@ $(B)/mbshim.o
