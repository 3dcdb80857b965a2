// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel image policy at the end of boot (Linux: arch/x86/mm/init_32.c
 * and init.c, as seeds 001 and 002 left them):
 *
 *   free_initmem()    init code and data: RW+NX, then back to the allocator
 *   mark_rodata_ro()  text RO+X, rodata and ro_after_init RO+NX, and
 *   mark_nxdata_nx()  everything from _etext to _end NX
 *
 * "rodata=off" skips mark_rodata_ro(): the picture before the patches.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/init.h>
#include <ronx/ptdump.h>

#define POISON_FREE_INITMEM	0xcc	/* int3: freed init code traps if run */

bool rodata_enabled = true;
bool init_mem_freed;

static int __init parse_rodata(const char *val)
{
	return parse_on_off(val, &rodata_enabled);
}
BOOT_PARAM("rodata", parse_rodata, "on|off");

static int pages(const void *start, const void *end)
{
	return (int)((PFN_ALIGN(end) - PFN_ALIGN(start)) >> PAGE_SHIFT);
}

/*
 * Seed 001, step 4: memory handed back to the allocator must not stay
 * executable, or the next user of the page inherits a hole.
 */
void free_init_pages(const char *what, unsigned long begin, unsigned long end)
{
	int n = (int)((end - begin) >> PAGE_SHIFT);

	set_memory_nx(begin, n);
	set_memory_rw(begin, n);
	memset((void *)begin, POISON_FREE_INITMEM, end - begin);
	for (unsigned long va = begin; va < end; va += PAGE_SIZE)
		free_reserved_page(__pa(va));
	pr_info("Freeing %s: %luk freed\n", what, (end - begin) >> 10);
}

void free_initmem(void)
{
	/* only whole pages: a misaligned linker.ld must not free data or bss */
	free_init_pages("unused kernel memory", PFN_ALIGN(__init_begin),
			(unsigned long)__init_end & PAGE_MASK);
	init_mem_freed = true;
}

static void mark_nxdata_nx(void)
{
	/* init is already freed (and NX), so everything past _etext can be NX */
	unsigned long start = PFN_ALIGN(_etext);
	unsigned long size = PFN_ALIGN(_end) - start;

	if (nx_enabled)
		pr_info("NX-protecting the kernel data: %luk\n", size >> 10);
	set_memory_nx(start, (int)(size >> PAGE_SHIFT));
}

/*
 * Each region with its own permissions must start and end on a page
 * boundary (linker.ld), or one page would need two sets of permissions.
 * An image that is not laid out so is left unprotected, as rodata=off,
 * and the boot log names the symbol that is off.
 */
static bool image_is_page_aligned(void)
{
	static const struct { const char *name; const char *at; } marks[] = {
		{ "_text", _text }, { "_etext", _etext },
		{ "__start_rodata", __start_rodata }, { "__end_rodata", __end_rodata },
		{ "__end_ro_after_init", __end_ro_after_init },
		{ "_sdata", _sdata }, { "_edata", _edata },
		{ "__init_begin", __init_begin }, { "__init_end", __init_end },
		{ "_end", _end },
	};
	bool ok = true;

	for (unsigned i = 0; i < ARRAY_SIZE(marks); i++) {
		if ((unsigned long)marks[i].at & ~PAGE_MASK) {
			pr_err("ronx: image layout: %s at %08lx is not on a page boundary (linker.ld)\n",
			       marks[i].name, (unsigned long)marks[i].at);
			ok = false;
		}
	}
	return ok;
}

/* One line that says which policy this boot runs, before it is applied. */
void print_policy(void)
{
	if (rodata_enabled && !image_is_page_aligned()) {
		pr_err("ronx: the kernel image is not page-aligned: not protecting it (as rodata=off)\n");
		rodata_enabled = false;
	}
	pr_info("ronx: policy: rodata=%s noexec=%s, PCI BIOS hole 640K-1M %s\n",
		rodata_enabled ? "on" : "off", nx_enabled ? "on" : "off (NX not in use)",
		pcibios_enabled ? "RW+X (PCI BIOS in use)" : "RW+NX");
}

void mark_rodata_ro(void)
{
	unsigned long text = PFN_ALIGN(_text), rodata = PFN_ALIGN(__start_rodata);

	if (!rodata_enabled) {
		pr_info("rodata=off: the kernel image stays RW+X (the picture before 2.6.38)\n");
		ptdump_check_wx();
		return;
	}
	set_memory_ro(text, pages(_text, _etext));
	pr_info("Write protecting the kernel text: %luk\n", (PFN_ALIGN(_etext) - text) >> 10);

	set_memory_ro(rodata, pages(__start_rodata, __end_ro_after_init));
	kernel_set_to_readonly = true;
	pr_info("Write protecting the kernel read-only data: %luk\n",
		(PFN_ALIGN(__end_ro_after_init) - rodata) >> 10);

	mark_nxdata_nx();
	ptdump_check_wx();
}
