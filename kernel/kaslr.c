// SPDX-License-Identifier: GPL-2.0-only
/*
 * KASLR: move the kernel image to a random place at boot (Linux:
 * arch/x86/boot/compressed/kaslr.c and misc.c's handle_relocations()).
 *
 * boot/entry.asm calls kaslr_relocate() once paging is on with the early
 * map (the first 64 MiB at PAGE_OFFSET), still running at the link
 * address, before anything else in C. With `kaslr` on the command line
 * it picks a 4 KiB-aligned physical base among the slots of
 * kernel/kaslr_slots.c, copies the image there (bss zeroed), adds delta
 * to every absolute word tools/relocs.py listed, and returns delta;
 * entry.asm then jumps into the copy at virtual address + delta, which
 * is phys + delta + PAGE_OFFSET: physical and virtual move together,
 * so the direct map's rule holds and __pa()/__va() stay as they are.
 *
 * Nothing here may print (no CPU setup yet) or write .data, which is
 * about to be copied: the copy's own record (kernel_offset, the slot
 * count) is written into the copy, after it is made. The image left
 * behind is not reserved: it becomes free RAM (mm/page_alloc.c reserves
 * only the running image) once the copy runs on its own early tables.
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/string.h>
#include <ronx/cmdline.h>
#include <ronx/bootinfo.h>
#include <ronx/printk.h>
#include <ronx/random.h>
#include <ronx/init.h>
#include <ronx/kaslr.h>

extern const uint32_t kaslr_nr_relocs, kaslr_relocs[];	/* build/relocs3.c */

unsigned long kernel_offset __ro_after_init;
static uint32_t kaslr_nr_slots __ro_after_init;
static const char *kaslr_disabled_why __ro_after_init;	/* set when kaslr was asked for */

/* The running image, the loader's structures and its modules. */
static int __init busy_ranges(struct phys_range *r, int max)
{
	int n = 0;

	r[n++] = (struct phys_range){ __pa(_text), __pa(_end) };
	r[n++] = (struct phys_range){ boot_info.info_start, boot_info.info_end };
	for (int i = 0; i < boot_info.nr_mods && n < max; i++)
		r[n++] = (struct phys_range){ boot_info.mods[i].start, boot_info.mods[i].end };
	for (int i = 0; i < boot_info.nr_loader && n < max; i++)
		r[n++] = (struct phys_range){ boot_info.loader_ranges[i].start, boot_info.loader_ranges[i].end };
	return n;
}

/* The copy's variable that sits where var sits in this image. */
#define IN_COPY(var, delta)	(*(__typeof__(&(var)))((char *)&(var) + (delta)))

static unsigned long __init move_image(uint64_t base)
{
	unsigned long delta = (unsigned long)base - __pa(_text);
	char *copy = __va((unsigned long)base);

	memcpy(copy, _text, __init_end - _text);
	memset(copy + (__bss_start - _text), 0, _end - __bss_start);
	for (uint32_t i = 0; i < kaslr_nr_relocs; i++)
		*(uint32_t *)(copy + kaslr_relocs[i]) += delta;
	return delta;
}

/*
 * No canary: early boot code, run before boot_init_stack_canary(), from
 * the image that is about to be left behind (Linux builds its
 * decompressor, which does this there, without the protector too).
 */
__no_stack_protector unsigned long __init kaslr_relocate(uint32_t magic, uint32_t info)
{
	struct phys_range busy[2 + MAX_BOOT_MODS + MAX_LOADER_RANGES];
	struct kaslr_mem m = { .busy = busy, .lo = KASLR_MIN, .hi = KASLR_MAX,
			       .size = PFN_ALIGN(_end) - (unsigned long)_text, .align = KASLR_ALIGN };
	uint64_t n, base = 0;
	unsigned long delta;

	if (parse_multiboot(magic, info) || !cmdline_wants_kaslr(boot_command_line))
		return 0;
	m.map = boot_info.mmap;
	m.nr_map = boot_info.nr_mmap;
	m.nr_busy = busy_ranges(busy, ARRAY_SIZE(busy));
	n = kaslr_slots(&m, UINT64_MAX, &base);
	if (!n) {
		/* this image goes on running: its own variables say why */
		kaslr_disabled_why = "no slot: too little free RAM below 64 MiB";
		return 0;
	}
	kaslr_slots(&m, arch_get_random_u32() % n, &base);
	delta = move_image(base);
	IN_COPY(kernel_offset, delta) = delta;
	IN_COPY(kaslr_nr_slots, delta) = (uint32_t)n;
	return delta;
}

/* Linux's line (dump_kernel_offset()), with the slot count and the source. */
void __init kaslr_report(void)
{
	if (kernel_offset)
		pr_info("Kernel Offset: 0x%lx from 0x%lx (one of %u slots, %s; 4 KiB steps from 0x%lx to 0x%lx)\n",
			kernel_offset, KERNEL_LINK_ADDR, kaslr_nr_slots, random_source(),
			KASLR_MIN, KASLR_MAX);
	else if (kaslr_disabled_why)
		pr_info("Kernel Offset: disabled (%s)\n", kaslr_disabled_why);
	else
		pr_info("Kernel Offset: disabled\n");
}

/* Read in entry code already (kaslr_relocate()); these keep parse_args quiet. */
static int __init parse_kaslr(const char *val)
{
	return val ? -EINVAL : 0;
}
BOOT_PARAM("kaslr", parse_kaslr, "no value");

static int __init parse_nokaslr(const char *val)
{
	return val ? -EINVAL : 0;
}
BOOT_PARAM("nokaslr", parse_nokaslr, "no value");
