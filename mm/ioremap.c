// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mapping memory that is not RAM in the direct map (Linux:
 * arch/x86/mm/ioremap.c and the fixmap):
 *
 *   set_fixmap_nocache()  a device's registers at a fixed address for
 *                         good: the local APIC at FIX_APIC_BASE, RW+NX,
 *                         uncached (PCD|PWT: a read must reach the device)
 *   early_memremap()      a short look at physical memory the direct map
 *                         may not cover (ACPI tables near the top of a
 *                         3 GiB machine): read-only, NX, in the alias area,
 *                         undone by early_memunmap() before boot goes on
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/mm.h>
#include <ronx/ioremap.h>

void set_fixmap_nocache(unsigned long va, uint64_t phys)
{
	if (map_page(va, phys, PAGE_KERNEL | _PAGE_PCD | _PAGE_PWT))
		pr_err("fixmap: cannot map %#llx at %08lx\n", (unsigned long long)phys, va);
}

/* Inside the direct map: no mapping needed. */
static bool in_direct_map(uint64_t phys, unsigned long size)
{
	return phys + size <= (uint64_t)max_low_pfn << PAGE_SHIFT;
}

void *early_memremap(uint64_t phys, unsigned long size)
{
	uint64_t first = phys & PAGE_MASK;
	unsigned long pages = PFN_UP((phys & ~PAGE_MASK) + size);

	if (in_direct_map(phys, size))
		return __va((unsigned long)phys);
	if (!size || pages > EARLY_MAP_PAGES || phys + size > (1ULL << 32))
		return 0;
	for (unsigned long i = 0; i < pages; i++) {
		if (map_page(EARLY_MAP_VADDR + i * PAGE_SIZE, first + i * PAGE_SIZE, PAGE_KERNEL_RO)) {
			early_memunmap((void *)EARLY_MAP_VADDR, i * PAGE_SIZE);
			return 0;
		}
	}
	return (void *)(EARLY_MAP_VADDR + (unsigned long)(phys & ~PAGE_MASK));
}

void early_memunmap(void *addr, unsigned long size)
{
	unsigned long va = (unsigned long)addr;

	if (va < EARLY_MAP_VADDR || va >= EARLY_MAP_VADDR + EARLY_MAP_PAGES * PAGE_SIZE)
		return;		/* it was in the direct map */
	for (unsigned long p = va & PAGE_MASK; p < va + size; p += PAGE_SIZE)
		unmap_page(p);
}
