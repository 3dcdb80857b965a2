// SPDX-License-Identifier: GPL-2.0-only
/*
 * Read the boot loader's information: the command line, the memory map and
 * the modules (our initrd). GRUB speaks multiboot2; QEMU's -kernel speaks
 * multiboot1. Both are parsed into struct boot_info so nothing else cares.
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/cmdline.h>
#include <ronx/bootinfo.h>

#define MB1_MAGIC	0x2BADB002
#define MB2_MAGIC	0x36d76289

struct boot_info boot_info;
char boot_command_line[COMMAND_LINE_SIZE];

static void copy_str(char *dst, size_t size, uint32_t phys)
{
	const char *src = __va(phys);
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

static void add_mmap(uint64_t addr, uint64_t len, uint32_t type)
{
	if (boot_info.nr_mmap < MAX_MMAP)
		boot_info.mmap[boot_info.nr_mmap++] = (struct mmap_entry){ addr, len, type };
	else
		boot_info.mmap_dropped++;	/* reported at boot, never silently */
}

static void add_loader_range(uint32_t start, uint32_t len)
{
	if (boot_info.nr_loader < MAX_LOADER_RANGES) {
		boot_info.loader_ranges[boot_info.nr_loader].start = start;
		boot_info.loader_ranges[boot_info.nr_loader++].end = start + len;
	}
}

static void add_module(uint32_t start, uint32_t end, uint32_t name_phys)
{
	struct boot_module *m;

	if (boot_info.nr_mods == MAX_BOOT_MODS)
		return;
	m = &boot_info.mods[boot_info.nr_mods++];
	m->start = start;
	m->end = end;
	copy_str(m->name, sizeof(m->name), name_phys);
	add_loader_range(name_phys, strlen(m->name) + 1);
}

/*
 * Loaders put the image's own path first on a multiboot1 command line
 * (QEMU: "build/kernel.elf foo=bar"); options never start with '/' or
 * contain ".elf", so such a first word is dropped.
 */
static void strip_image_name(char *cmd)
{
	char *end = cmd;

	while (*end && *end != ' ')
		end++;
	if (cmd[0] == '/' || (end - cmd > 4 && memcmp(end - 4, ".elf", 4) == 0)) {
		while (*end == ' ')
			end++;
		memmove(cmd, end, strlen(end) + 1);
	}
}

static void __init parse_mb1(uint32_t info)
{
	uint32_t *mbi = __va(info);
	uint32_t flags = mbi[0];

	boot_info.loader = "multiboot1";
	boot_info.mmap_source = "flags bit 6, mmap_addr/mmap_length";
	boot_info.info_start = info;
	boot_info.info_end = info + 120;
	add_loader_range(info, 120);
	if (flags & (1 << 2)) {
		copy_str(boot_command_line, sizeof(boot_command_line), mbi[4]);
		add_loader_range(mbi[4], strlen(boot_command_line) + 1);
	}
	if (flags & (1 << 3)) {
		uint32_t *mod = __va(mbi[6]);

		add_loader_range(mbi[6], mbi[5] * 16);
		for (uint32_t i = 0; i < mbi[5]; i++, mod += 4)
			add_module(mod[0], mod[1], mod[2]);
	}
	if (flags & (1 << 6)) {
		uint32_t p = mbi[12], end = mbi[12] + mbi[11];

		add_loader_range(mbi[12], mbi[11]);
		while (p < end) {
			uint32_t *e = __va(p);
			uint64_t addr = e[1] | ((uint64_t)e[2] << 32);
			uint64_t len = e[3] | ((uint64_t)e[4] << 32);
			add_mmap(addr, len, e[5]);
			p += e[0] + 4;
		}
	}
}

static void __init parse_mb2(uint32_t info)
{
	uint32_t total = *(uint32_t *)__va(info);
	uint32_t p = info + 8;

	boot_info.loader = "multiboot2";
	boot_info.mmap_source = "tag type 6";
	boot_info.info_start = info;
	boot_info.info_end = info + total;
	add_loader_range(info, total);
	while (p + 8 <= info + total) {
		uint32_t *tag = __va(p);
		uint32_t type = tag[0], size = tag[1];

		if (type == 0 || size < 8)
			break;
		if (type == 1)
			copy_str(boot_command_line, sizeof(boot_command_line), p + 8);
		else if (type == 3)
			add_module(tag[2], tag[3], p + 16);
		else if (type == 6) {
			uint32_t esize = tag[2];
			for (uint32_t e = p + 16; esize && e + esize <= p + size; e += esize) {
				uint32_t *ent = __va(e);
				add_mmap(ent[0] | ((uint64_t)ent[1] << 32),
					 ent[2] | ((uint64_t)ent[3] << 32), ent[4]);
			}
		}
		p += ALIGN_UP(size, 8u);
	}
}

/* Runs twice under KASLR (kernel/kaslr.c, then the moved image): starts afresh. */
int __init parse_multiboot(uint32_t magic, uint32_t info_phys)
{
	memset(&boot_info, 0, sizeof(boot_info));
	boot_command_line[0] = '\0';
	if (magic == MB2_MAGIC)
		parse_mb2(info_phys);
	else if (magic == MB1_MAGIC)
		parse_mb1(info_phys);
	else
		return -EINVAL;
	strip_image_name(boot_command_line);
	return 0;
}
