/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_BOOTINFO_H
#define RONX_BOOTINFO_H
#include <stdint.h>

#define MAX_MMAP	32
#define MAX_BOOT_MODS	8
#define E820_RAM	1
#define MAX_LOADER_RANGES	(4 + MAX_BOOT_MODS)

struct mmap_entry {
	uint64_t addr, len;
	uint32_t type;
};

struct boot_module {
	uint32_t start, end;		/* physical, end exclusive */
	char name[64];
};

/* What the boot loader told us, copied out of its structures. */
struct boot_info {
	const char *loader;		/* "multiboot2" or "multiboot1" */
	const char *mmap_source;	/* where the memory map comes from */
	uint32_t info_start, info_end;	/* physical, to keep it reserved */
	int nr_mmap;
	struct mmap_entry mmap[MAX_MMAP];
	int mmap_dropped;		/* entries beyond MAX_MMAP */
	int nr_mods;
	struct boot_module mods[MAX_BOOT_MODS];
	/*
	 * Where the loader's structures that parse_multiboot() reads lie
	 * (multiboot1 scatters them: command line, module list and names,
	 * memory map): KASLR must not copy the image over them.
	 */
	int nr_loader;
	struct { uint32_t start, end; } loader_ranges[MAX_LOADER_RANGES];
};

extern struct boot_info boot_info;
int parse_multiboot(uint32_t magic, uint32_t info_phys);
#endif
