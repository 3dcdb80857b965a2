/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KASLR: the kernel image's physical and virtual base move together by
 * one random delta, a multiple of 4 KiB (virt = phys + PAGE_OFFSET stays
 * true). Off unless the boot line says `kaslr`. See kernel/kaslr.c.
 */
#ifndef RONX_KASLR_H
#define RONX_KASLR_H
#include <stdint.h>
#include <ronx/bootinfo.h>

#define LOAD_PHYSICAL_ADDR	0x00100000UL	/* where loaders put the image */
#define KERNEL_LINK_ADDR	0xC0100000UL	/* linker.ld */
/*
 * The range a relocated image may occupy: from 1 MiB to the end of the
 * early map of boot/entry.asm (64 MiB), which is all the direct map there
 * is when the image moves. Any 4 KiB-aligned base whose whole image
 * (bss included) lies in RAM there and misses the loaded image, the
 * loader's structures and its modules is a slot.
 */
#define KASLR_MIN		LOAD_PHYSICAL_ADDR
#define KASLR_MAX		(64UL << 20)
#define KASLR_ALIGN		4096UL

struct phys_range {
	uint64_t start, end;		/* end exclusive */
};

/* What the slot count works on (kernel/kaslr_slots.c, pure, host-tested). */
struct kaslr_mem {
	const struct mmap_entry *map;
	int nr_map;
	const struct phys_range *busy;
	int nr_busy;
	uint64_t lo, hi, size, align;
};

uint64_t kaslr_slots(const struct kaslr_mem *m, uint64_t pick, uint64_t *base);
int cmdline_wants_kaslr(const char *cmdline);

extern unsigned long kernel_offset;
/* Linux's kaslr_offset(): how far the image moved, 0 without KASLR. */
static inline unsigned long kaslr_offset(void)
{
	return kernel_offset;
}
void kaslr_report(void);
#endif
