// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which region of the policy an address belongs to, for `walk`: the part
 * of the kernel image, the low 640K or the BIOS hole, the direct map, a
 * module's group, or nothing. The caller fills struct va_layout from the
 * linker's symbols and the module list. Pure: host-tested, used by gdb.
 */
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/walk.h>
#include <ronx/vmap_stack.h>

static bool in(uint32_t va, uint32_t start, uint32_t end)
{
	return va >= start && va < end;
}

static const char *image_part(const struct va_layout *l, uint32_t va)
{
	if (in(va, l->text, l->etext))
		return "kernel text";
	if (in(va, l->rodata, l->end_rodata))
		return "kernel rodata";
	if (in(va, l->ro_after_init, l->end_ro_after_init))
		return "kernel ro_after_init";
	if (in(va, l->sdata, l->edata))
		return "kernel data";
	if (in(va, l->init_begin, l->init_end))
		return l->init_freed ? "kernel init (freed: RW+NX, back in the page allocator)"
				     : "kernel init (not freed yet)";
	if (in(va, l->bss_start, l->bss_stop))
		return "kernel bss";
	return 0;
}

/* "module hello: core text" for va inside one of the module's groups. */
static bool module_part(const struct mod_span *m, uint32_t va, char *buf, size_t size)
{
	const char *region = m->init ? "init" : "core";
	uint32_t off = va - m->base;
	const char *group;

	if (!m->base || !in(va, m->base, m->base + m->size))
		return false;
	if (m->freed)
		group = "(freed)";
	else if (off < m->text)
		group = "text";
	else if (off < m->ro)
		group = "rodata";
	else if (off < m->ro_after_init)
		group = "ro_after_init";
	else
		group = "data";
	snprintf(buf, size, "module %s: %s %s", m->name, region, group);
	return true;
}

void va_region_name(const struct va_layout *l, uint32_t va, char *buf, size_t size)
{
	const char *part = image_part(l, va);

	if (part) {
		snprintf(buf, size, "%s", part);
	} else if (va < PAGE_OFFSET) {
		snprintf(buf, size, "unmapped: user space (ronx maps nothing below 0x%08lx)",
			 PAGE_OFFSET);
	} else if (va < PAGE_OFFSET + BIOS_BEGIN) {
		snprintf(buf, size, "low 640K (direct map)");
	} else if (va < PAGE_OFFSET + BIOS_END) {
		snprintf(buf, size, "the BIOS hole 640K-1M (%s)",
			 l->bios_hole_x ? "declared RW+X: the PCI BIOS is in use"
					: "not declared: the PCI BIOS is not in use");
	} else if (va < l->direct_map_end) {
		snprintf(buf, size, "direct map");
	} else if (in(va, MODULES_VADDR, MODULES_END)) {
		/* live groups first: a freed init region's addresses may be reused */
		for (int freed = 0; freed < 2; freed++)
			for (int i = 0; i < l->nr_mods; i++)
				if (l->mods[i].freed == freed &&
				    module_part(&l->mods[i], va, buf, size))
					return;
		snprintf(buf, size, "module area (no module here)");
	} else if (in(va, ALIAS_VADDR, ALIAS_END)) {
		snprintf(buf, size, "text patching alias area");
	} else if (in(va, STACK_AREA_VADDR, STACK_AREA_END)) {
		snprintf(buf, size, (va - STACK_AREA_VADDR) % STACK_SLOT_SIZE < PAGE_SIZE
			 ? "kernel stack area: a guard page (never mapped)"
			 : "kernel stack area: a slot's stack pages (mapped while a task has the slot)");
	} else if (in(va, CPU_ENTRY_AREA_BASE, CPU_ENTRY_AREA_END)) {
		snprintf(buf, size, "CPU entry area: .entry.data again (GDT, TSS, entry stacks, IDT), at the same address in every boot");
	} else if (va >= FIXADDR_START && va < FIXADDR_START + 4096) {
		snprintf(buf, size, "fixmap: the local APIC's registers (uncached MMIO, mapped with other CPUs to start)");
	} else {
		snprintf(buf, size, "unmapped: nothing is mapped here");
	}
}
