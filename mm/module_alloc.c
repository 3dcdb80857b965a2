// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory for loadable modules (Linux: module_alloc()/module_memfree(), a
 * vmalloc in the modules area): virtually contiguous, 4 KiB pages only,
 * so that set_memory_*() can give each page of a module its own rights
 * without splitting anything. Pages start RW+NX; the loader protects them
 * once the module is in place, and must give them back RW+NX (seed 003's
 * unset_section_ro_nx(); module_memfree() warns otherwise).
 * module_ronx=off maps them RW+X instead, as Linux did before seed 003.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/pfn_bitmap.h>
#include <ronx/mm.h>
#include <ronx/module_alloc.h>
#include <ronx/kaslr.h>
#include <ronx/random.h>

#define MODULE_PAGES	((MODULES_END - MODULES_VADDR) / PAGE_SIZE)

static uint32_t slot_bits[MODULE_PAGES / 32];
static struct pfn_bitmap slots;
static bool slots_ready;
/* next fit: a freed module address is reused as late as possible, so a
 * stale pointer into freed module memory faults instead of running
 * whatever was loaded there next (Linux's vmalloc behaves alike) */
static unsigned long next_slot;

/*
 * With KASLR the first module lands 1 to 1024 pages into the area (10
 * bits, Linux x86's get_module_load_offset()), so that a module address
 * read in one boot says nothing about the next; the next fit goes on from
 * there. Without it the first module sits at MODULES_VADDR, as before.
 */
#define MODULE_RND_PAGES	1024u

static void init_slots(void)
{
	pfn_bitmap_init(&slots, slot_bits, MODULE_PAGES);
	pfn_bitmap_free_range(&slots, 0, MODULE_PAGES);
	if (kaslr_offset())
		next_slot = 1 + arch_get_random_u32() % MODULE_RND_PAGES;
	slots_ready = true;
}

/* Every CPU forgets the mappings before the frames can be handed out again. */
static void unmap_and_free(unsigned long va, unsigned long npages)
{
	unmap_kernel_range(va, npages, free_page);
}

/* size bytes of zeroed module memory, or NULL; nothing is left behind on failure. */
void *module_alloc(unsigned long size, bool executable)
{
	unsigned long npages = PFN_UP(size), va;
	long slot;

	if (!slots_ready)
		init_slots();
	if (npages == 0)
		return 0;
	slot = pfn_bitmap_alloc_range_next(&slots, npages, &next_slot);
	if (slot < 0)
		return 0;
	va = MODULES_VADDR + (unsigned long)slot * PAGE_SIZE;
	for (unsigned long i = 0; i < npages; i++) {
		unsigned long pa = alloc_page();

		if (!pa || map_page(va + i * PAGE_SIZE, pa,
				    executable ? PAGE_KERNEL_EXEC : PAGE_KERNEL)) {
			if (pa)
				free_page(pa);
			unmap_and_free(va, i);
			pfn_bitmap_free_range(&slots, (unsigned long)slot,
					      (unsigned long)slot + npages);
			return 0;
		}
	}
	return (void *)va;
}

/*
 * Seed 003's rule: module memory goes back RW+NX (unset_section_ro_nx()).
 * The pages are unmapped here anyway, so nothing else would notice a
 * forgotten reset; say so instead of hiding it.
 */
static void check_reset(unsigned long va, unsigned long npages)
{
	unsigned long bad = 0;

	for (unsigned long i = 0; i < npages; i++) {
		enum pg_level level;
		pteval_t *pte = lookup_address(va + i * PAGE_SIZE, &level);

		if (pte && (!(*pte & _PAGE_RW) || (nx_enabled && !(*pte & _PAGE_NX))))
			bad++;
	}
	if (bad)
		pr_warn("module_memfree: %lu of %lu pages at 0x%08lx are not RW+NX; reset them first (unset_section_ro_nx)\n",
			bad, npages, va);
}

void module_memfree(void *addr, unsigned long size)
{
	unsigned long va = (unsigned long)addr, npages = PFN_UP(size);
	unsigned long slot = (va - MODULES_VADDR) / PAGE_SIZE;

	if (!addr || !npages)
		return;
	check_reset(va, npages);
	unmap_and_free(va, npages);
	for (unsigned long i = 0; i < npages; i++)
		pfn_bitmap_free(&slots, slot + i);
}
