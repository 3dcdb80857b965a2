// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shell's `walk VA`: reads CR3 and follows it through the tables the
 * CPU really uses (not swapper_pg_dir by name), through the direct map.
 * The explanation and the region names are pure (mm/walk_format.c,
 * mm/va_region.c), shared with gdb's ronx-walk.
 */
#include <ronx/pti.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/printk.h>
#include <ronx/shell.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/init.h>
#include <ronx/pageattr.h>
#include <ronx/module.h>
#include <ronx/kallsyms.h>
#include <ronx/walk.h>
#include <ronx/mm_types.h>
#include <ronx/process.h>
#include <ronx/pgd.h>
#include <ronx/page_ref.h>

/* Each loaded module's core and init (or freed init) region. */
static int module_spans(struct mod_span *s, int max)
{
	int n = 0;

	for (struct module *m = modules; m < modules + MAX_MODULES && n + 2 <= max; m++) {
		if (m->state == MODULE_STATE_UNUSED)
			continue;
		s[n++] = (struct mod_span){ m->name, (uint32_t)m->module_core, m->core_text_size,
					    m->core_ro_size, m->core_ro_after_init_size,
					    m->core_size, false, false };
		if (m->module_init)
			s[n++] = (struct mod_span){ m->name, (uint32_t)m->module_init,
						    m->init_text_size, m->init_ro_size,
						    m->init_ro_after_init_size, m->init_size,
						    true, false };
		else if (m->freed_init)
			s[n++] = (struct mod_span){ m->name, m->freed_init, 0, 0, 0,
						    m->freed_init_size, true, true };
	}
	return n;
}

static void region_of(uint32_t va, char *buf, size_t size)
{
	static struct mod_span spans[2 * MAX_MODULES];
	struct va_layout l = {
		(uint32_t)_text, (uint32_t)_etext, (uint32_t)__start_rodata,
		(uint32_t)__end_rodata, (uint32_t)__start_ro_after_init,
		(uint32_t)__end_ro_after_init, (uint32_t)_sdata, (uint32_t)_edata,
		(uint32_t)__init_begin, (uint32_t)__init_end, (uint32_t)__bss_start,
		(uint32_t)__bss_stop, (uint32_t)_end,
		(uint32_t)(PAGE_OFFSET + (max_low_pfn << PAGE_SHIFT)),
		init_mem_freed, pcibios_enabled, spans, 0,
	};

	l.nr_mods = module_spans(spans, 2 * MAX_MODULES);
	va_region_name(&l, va, buf, size);
}

/*
 * A user address of process t: the area it lies in and what its
 * permission is for, or the guard page, or nothing.
 */
static void user_region_of(struct task *t, struct mm_struct *mm, uint32_t va, char *buf,
			   size_t size)
{
	static const char *const why[] = {
		[VMA_TEXT] = "its code: RO+X, run but never written",
		[VMA_RODATA] = "its constants: RO+NX, neither written nor run",
		[VMA_DATA] = "its variables: RW+NX, written but never run",
		[VMA_BSS] = "its zeroed variables: RW+NX, written but never run",
		[VMA_HEAP] = "its heap (brk): RW+NX, written but never run",
		[VMA_MMAP] = "an anonymous mmap: the permission it asked for (never W+X)",
		[VMA_STACK] = "its stack: RW+NX, written but never run",
		[VMA_MEMFD] = "a memfd's frames (MAP_PRIVATE: copied on write): the permission it asked for (never W+X)",
	};
	struct vm_area_struct *v = vma_find(&mm->vmas, va);

	if (v)
		snprintf(buf, size, "user %s of %pE[%d] 0x%08x-0x%08x: %s", vma_kind_name(v->kind),
			 t->comm, t->pid, (unsigned)v->vm_start, (unsigned)v->vm_end, why[v->kind]);
	else if (va >= mm_stack_guard(mm) && va < mm_stack_guard(mm) + PAGE_SIZE)
		snprintf(buf, size, "user guard page of %pE[%d]: never mapped, so a stack overflow faults",
			 t->comm, t->pid);
	else if (va >= mm_stack_limit(mm) && va < mm->stack_top)
		snprintf(buf, size, "user stack room of %pE[%d]: not yet used; a fault here grows the stack (8 MiB limit)",
			 t->comm, t->pid);
	else
		snprintf(buf, size, "user space of %pE[%d]: no area here (a fault)", t->comm, t->pid);
}

/*
 * With PID, the process's task and mm are referenced and its tables
 * pinned while they are read (docs/design.md, "Lifetimes"); the lines are
 * printed after, from what was read.
 */
static int cmd_walk(int argc, char **argv)
{
	struct pt_walk w;
	char err[96], region[160], frame[160] = "", sets[80] = "";
	struct mm_struct *mm = 0;
	struct task *t = 0;
	uint32_t va;

	if (argc != 2 && argc != 3) {
		cprintf("walk: usage: walk VA [PID] (a hex address like 0xc0100000, or a function name)\n");
		return -EINVAL;
	}
	va = (uint32_t)kallsyms_lookup_name(argv[1]);
	if (!va && parse_va(argv[1], &va, err, sizeof(err))) {
		cprintf("walk: %s\n", err);
		return -EINVAL;
	}
	if (argc == 3 && !(t = get_process_arg("walk", argv[2], &mm)))
		return -ENOENT;
	if (mm)
		mm_pin_tables(mm);
	pt_walk(&w, va, mm ? mm->pgd : read_cr3(), pt_read_direct_map, 0);
	if (mm && pti_active) {		/* and in the set ring 3 runs on? */
		struct pt_walk u;

		pt_walk(&u, va, pti_user_pgd(mm->pgd), pt_read_direct_map, 0);
		snprintf(sets, sizeof(sets), "PTI: mapped in %s",
			 pt_walk_present(&w) ? (pt_walk_present(&u) ? "both sets (kernel and user)" :
						"the kernel set only (not while in ring 3)") :
			 pt_walk_present(&u) ? "the user set only" : "neither set");
	}
	w.wp = read_cr0() & X86_CR0_WP;
	w.nxe = rdmsr(MSR_EFER) & EFER_NX;
	if (t && va < TASK_SIZE)
		user_region_of(t, mm, va, region, sizeof(region));
	else
		region_of(va, region, sizeof(region));
	if (mm && va < TASK_SIZE)
		walk_frame_line(t, mm, va, frame, sizeof(frame));	/* who else maps the frame */
	if (mm) {
		mm_unpin_tables(mm);
		put_process_arg(t, mm);
	}
	pt_walk_print(&w, region, shell_print_line, 0);
	if (frame[0])
		cprintf("%s\n", frame);
	if (sets[0])
		cprintf("%s\n", sets);
	return 0;
}
SHELL_COMMAND("walk", cmd_walk, "walk VA|FUNCTION [PID]",
	      "the page walk for one address (in process PID's tables): each level's entry, the permission and why");
