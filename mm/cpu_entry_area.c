// SPDX-License-Identifier: GPL-2.0-only
/*
 * The entry areas at a fixed address (Linux: arch/x86/mm/cpu_entry_area.c).
 * What the CPU reads by itself on an interrupt (the GDT, the TSS with its
 * entry stack, the IDT) lives in .entry.data, inside the image, which
 * kaslr moves. sgdt and sidt tell any ring-3 program where two of them
 * are, and only UMIP (kernel/cpu/umip.c; qemu32 has none) stops it asking: the
 * image's offset would be one instruction away. So every page of
 * .entry.data is mapped a second time at CPU_ENTRY_AREA_BASE, the same
 * address in every boot, and the CPUs use only that alias: GDTR, IDTR,
 * the TSS descriptor's base, TSS.esp0 and each struct cpu's cea. One page
 * table maps the alias, in the kernel set and (shared, mm/pti.c) in PTI's
 * user set.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/mm.h>
#include <ronx/pgtable_types.h>
#include <ronx/init.h>
#include <ronx/traps.h>
#include <ronx/pti.h>
#include <ronx/cpu_entry_area.h>

/* boot/traps.asm's CEA_BASE and CEA_END */
_Static_assert(CPU_ENTRY_AREA_BASE == 0xffc00000 && CPU_ENTRY_AREA_END == 0xffe00000,
	       "boot/traps.asm CEA_BASE, CEA_END");

/*
 * From .entry.data to its alias; 0 until the alias is mapped. A variable,
 * not an expression of __entry_data_start: folded by the compiler, that
 * became one relocation of the symbol with an addend of -0xffc00000,
 * right under kaslr but no address (test_kaslr checks each one is).
 */
static unsigned long cea_delta;

/* p, a pointer into .entry.data, at its alias once the alias is mapped. */
void *cea_alias(void *p)
{
	return (char *)p + cea_delta;
}

struct cpu_entry_area *get_cpu_entry_area(int cpu)
{
	return cea_alias(&cpu_entry_areas[cpu]);
}

/* After paging_init(), before PTI and the other CPUs: the boot CPU moves onto the alias. */
void __init setup_cpu_entry_areas(void)
{
	unsigned long size = __entry_data_end - __entry_data_start;

	if (size > CPU_ENTRY_AREA_END - CPU_ENTRY_AREA_BASE)
		refuse_boot(KERN_ERR "ronx: cannot boot: .entry.data (%lu bytes) is larger than the CPU entry area\n", size);
	for (unsigned long off = 0; off < size; off += PAGE_SIZE)
		if (map_page(CPU_ENTRY_AREA_BASE + off, __pa(__entry_data_start + off), PAGE_KERNEL))
			refuse_boot(KERN_ERR "ronx: cannot boot: no page table for the CPU entry area\n");
	cea_delta = CPU_ENTRY_AREA_BASE - (unsigned long)__entry_data_start;
	load_idt();
	cpu_reload_gdt(this_cpu());
}
