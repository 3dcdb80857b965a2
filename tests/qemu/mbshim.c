// SPDX-License-Identifier: GPL-2.0-only
/*
 * A multiboot1 loader that gives no memory map, to provoke for real the
 * refusal QEMU's own -kernel loader never lets us see (it always sets
 * flags bit 6). QEMU boots this shim with -kernel and ronx's kernel.elf
 * as its first module (-initrd build/kernel.elf,build/initrd.cpio); the
 * shim copies ronx's PT_LOAD segments to their physical addresses, passes
 * on its own multiboot information minus the memory map and the first
 * module, and jumps to ronx's entry. Linked at 4 MiB, out of ronx's way.
 * With "keepmap" on the command line it passes the map on: the control
 * that shows the shim itself boots ronx.
 */
#include <stdint.h>

#define MB1_MAGIC	0x1BADB002
#define MB1_BOOTED	0x2BADB002
#define MB1_CMDLINE	(1u << 2)
#define MB1_MODS	(1u << 3)
#define MB1_MMAP	(1u << 6)
#define PT_LOAD		1

__attribute__((section(".multiboot"), used, aligned(4)))
static const uint32_t mb_header[3] = { MB1_MAGIC, 0, -MB1_MAGIC };

struct mb1_info { uint32_t w[30]; };	/* ronx reads its first 120 bytes */
enum { FLAGS = 0, CMDLINE = 4, MODS_COUNT = 5, MODS_ADDR = 6, MMAP_LENGTH = 11, MMAP_ADDR = 12 };

struct elf32_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf32_phdr { uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align; };

static struct mb1_info info;
char shim_stack[4096] __attribute__((aligned(16)));

static void copy(uint8_t *dst, const uint8_t *src, uint32_t n, uint32_t zero)
{
	for (uint32_t i = 0; i < n; i++)
		dst[i] = src[i];
	for (uint32_t i = n; i < zero; i++)
		dst[i] = 0;
}

/* Loads the ELF image at start; its entry as a physical address, or 0. */
static uint32_t load_elf(const uint8_t *start)
{
	const struct elf32_ehdr *eh = (const void *)start;
	uint32_t entry = 0;

	for (int i = 0; i < eh->phnum; i++) {
		const struct elf32_phdr *ph = (const void *)(start + eh->phoff + i * eh->phentsize);

		if (ph->type != PT_LOAD)
			continue;
		copy((uint8_t *)ph->paddr, start + ph->offset, ph->filesz, ph->memsz);
		if (eh->entry >= ph->vaddr && eh->entry < ph->vaddr + ph->memsz)
			entry = ph->paddr + (eh->entry - ph->vaddr);
	}
	return entry;
}

static int has_word(const char *s, const char *w)
{
	for (; *s; s++) {
		int i = 0;

		while (w[i] && s[i] == w[i])
			i++;
		if (!w[i])
			return 1;
	}
	return 0;
}

void shim_main(uint32_t magic, const struct mb1_info *mbi)
{
	const uint32_t *mods = (const uint32_t *)mbi->w[MODS_ADDR];
	uint32_t entry;

	if (magic != MB1_BOOTED || !(mbi->w[FLAGS] & MB1_MODS) || mbi->w[MODS_COUNT] == 0)
		return;
	info = *mbi;
	if (!(info.w[FLAGS] & MB1_CMDLINE) || !has_word((const char *)info.w[CMDLINE], "keepmap")) {
		info.w[FLAGS] &= ~MB1_MMAP;	/* the point: no memory map */
		info.w[MMAP_LENGTH] = info.w[MMAP_ADDR] = 0;
	}
	info.w[MODS_COUNT]--;			/* ronx itself is not its module */
	info.w[MODS_ADDR] += 16;
	entry = load_elf((const uint8_t *)mods[0]);
	if (entry)
		__asm__ volatile("jmp *%2" : : "a"(MB1_BOOTED), "b"(&info), "r"(entry));
}

__asm__(".globl _start\n"
	"_start:\n"
	"	mov $shim_stack + 4096, %esp\n"
	"	push %ebx\n"
	"	push %eax\n"
	"	call shim_main\n"
	"1:	cli\n"
	"	hlt\n"
	"	jmp 1b\n");
