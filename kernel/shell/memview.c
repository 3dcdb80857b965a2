// SPDX-License-Identifier: GPL-2.0-only
/*
 * memview: who owns each page, drawn one character per page (WeensyOS's
 * memory viewer; include/ronx/memview.h has the characters).
 *
 *   memview [-p]               physical memory by owner
 *   memview [-p] PID           one process's areas, page by page
 *   memview [-p] -w [SECONDS]  physical memory, redrawn every 500 ms until a key
 *
 * Every owner comes from real data: the allocator's bitmap says free,
 * the boot information says firmware, kernel image and initrd, walking the
 * kernel's and every process's page tables finds the table pages and each
 * user frame, and the frame counts (mm/page_ref.c) say shared. Pages the
 * allocator handed out that no walk reaches are the kernel's own (stacks,
 * mm structs, modules, this picture's buffer). Like ps, it reads live
 * processes' tables without stopping them: a snapshot for a person.
 *
 * The picture is ANSI-coloured text (-p: plain, for tests and logs): a
 * serial terminal shows the colours, and so does the VGA console, which
 * reads the same escapes (kernel/drivers/vga.c).
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/kstrtox.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/bootinfo.h>
#include <ronx/e820.h>
#include <ronx/irq.h>
#include <ronx/mm.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/page_ref.h>
#include <ronx/sched.h>
#include <ronx/shell.h>
#include <ronx/tty.h>
#include <ronx/memview.h>
#include <ronx/process.h>

#define MV_WIDTH	64	/* pages per line: 256 KiB, 73 columns with the address */
#define MV_AREA_ROWS	64	/* a process's area is cut after this many lines */
#define MV_PERIOD	(HZ / 2)
#define MV_USAGE	"memview [-p] [PID | -w [SECONDS]]"

static bool mv_ansi;		/* ANSI colours (the VGA console reads them too) */

static noinline void set_range(uint16_t *cells, unsigned long n, unsigned long start,
			       unsigned long end, uint16_t cell)
{
	for (unsigned long pfn = start; pfn < end && pfn < n; pfn++)
		cells[pfn] = cell;
}

static noinline void set_pa(uint16_t *cells, unsigned long n, uint64_t pa, uint16_t cell)
{
	if ((pa >> PAGE_SHIFT) < n)
		cells[pa >> PAGE_SHIFT] = cell;
}

/* Every page directory and page table under a PDPT (entries first..last-1). */
static __attribute__((noclone)) void mark_tables(uint16_t *cells, unsigned long n, const pteval_t *pdpt, int first,
			int last)
{
	for (int i = first; i < last; i++) {
		const pteval_t *pd;

		if (!(pdpt[i] & _PAGE_PRESENT))
			continue;
		set_pa(cells, n, pdpt[i] & PTE_PFN_MASK, MV_PGTABLE);
		pd = __va(pdpt[i] & PTE_PFN_MASK);
		for (int j = 0; j < PTRS_PER_PMD; j++)
			if ((pd[j] & _PAGE_PRESENT) && !(pd[j] & _PAGE_PSE))
				set_pa(cells, n, pd[j] & PTE_PFN_MASK, MV_PGTABLE);
	}
}

/* A process's tables and frames: its own pid, shared (count > 1) or the zero page. */
static void mark_process(uint16_t *cells, unsigned long n, struct mm_struct *mm, int pid)
{
	set_pa(cells, n, mm->pgd, MV_PGTABLE);
	mark_tables(cells, n, __va(mm->pgd), 0, pgd_index(TASK_SIZE));
	for (int i = 0; i < mm->vmas.nr; i++) {
		const struct vm_area_struct *v = &mm->vmas.v[i];

		for (uint32_t va = v->vm_start; va < v->vm_end; va += PAGE_SIZE) {
			pteval_t *pte = user_pte(mm, va, false);
			unsigned long pa;

			if (!pte || !pte_has_frame(*pte))
				continue;
			pa = (unsigned long)(*pte & PTE_PFN_MASK);
			if (is_zero_frame(pa))
				set_pa(cells, n, pa, MV_ZERO);
			else if (page_ref_count(pa) > 1)
				set_pa(cells, n, pa, MV_SHARED);
			else
				set_pa(cells, n, pa, (uint16_t)(MV_PID + (pid & (MV_PID - 1))));
		}
	}
}

/* cells[pfn] for every frame below max_low_pfn. */
static void fill_physical(uint16_t *cells, unsigned long n)
{
	unsigned long start, end;

	set_range(cells, n, 0, n, MV_NOT_RAM);
	for (int i = 0; i < boot_info.nr_mmap; i++)
		if (e820_low_pfns(&boot_info.mmap[i], MAXMEM, &start, &end))
			set_range(cells, n, start, end, MV_KALLOC);
	set_range(cells, n, PFN_DOWN(__pa(_text)), PFN_UP(__pa(_end)), MV_KERNEL);
	set_range(cells, n, PFN_DOWN(boot_info.info_start), PFN_UP(boot_info.info_end), MV_BOOT);
	for (int i = 0; i < boot_info.nr_mods; i++)
		set_range(cells, n, PFN_DOWN(boot_info.mods[i].start), PFN_UP(boot_info.mods[i].end),
			  MV_BOOT);
	set_range(cells, n, 0, PFN_DOWN(BIOS_END), MV_NOT_RAM);
	for (unsigned long pfn = 0; pfn < n; pfn++)
		if (page_is_free(pfn))
			cells[pfn] = MV_FREE;
	mark_tables(cells, n, swapper_pg_dir, 0, PTRS_PER_PGD);
	for (int i = 0; i < NR_TASKS; i++) {
		char comm[TASK_COMM_LEN];
		int pid;
		/* referenced and pinned while read (docs/design.md, "Lifetimes") */
		struct mm_struct *mm = get_slot_mm(i, &pid, comm);

		if (!mm)
			continue;
		mm_pin_tables(mm);
		mark_process(cells, n, mm, pid);
		mm_unpin_tables(mm);
		mmput(mm);
	}
}

/* One row of the picture: "ADDRESS CELLS" (the VGA console reads the colours too). */
static void mv_row(uint32_t addr, const uint16_t *cells, size_t n)
{
	char line[MV_WIDTH * 12 + 32];

	memview_line(line, sizeof(line), addr, cells, n, mv_ansi);
	cprintf("%s\n", line);
}

static void mv_legend(bool virt)
{
	char line[512];

	memview_legend(line, sizeof(line), virt, mv_ansi);
	cprintf("%s\n", line);
}

/* "pids: 1 sh[1] 2 cowtest[2]": which character is whose */
static void mv_pids(void)
{
	cprintf("pids:");
	for (int i = 0; i < NR_TASKS; i++) {
		char comm[TASK_COMM_LEN];
		int pid;
		struct mm_struct *mm = get_slot_mm(i, &pid, comm);

		if (!mm)
			continue;
		mmput(mm);
		cprintf(" %c %pE[%d]", memview_char((uint16_t)(MV_PID + (pid & (MV_PID - 1)))), comm, pid);
	}
	cprintf("\n");
}

static void picture(uint16_t *cells, unsigned long n)
{
	size_t rows;

	fill_physical(cells, n);
	rows = memview_rows_used(cells, n, MV_WIDTH);
	cprintf("memview: %lu pages\n", n);
	for (size_t r = 0; r < rows; r++) {
		size_t first = r * MV_WIDTH;

		mv_row((uint32_t)(first << PAGE_SHIFT), cells + first,
		       n - first < MV_WIDTH ? n - first : MV_WIDTH);
	}
	if (rows * MV_WIDTH < n) {
		cprintf("%08lx-%08lx free\n",
			 (unsigned long)(rows * MV_WIDTH) << PAGE_SHIFT, n << PAGE_SHIFT);
	}
	mv_legend(false);
	mv_pids();
}

static uint16_t kind_class(unsigned kind)
{
	static const uint16_t cls[] = { MV_V_TEXT, MV_V_RODATA, MV_V_DATA, MV_V_DATA, MV_V_HEAP,
					MV_V_MMAP, MV_V_STACK };

	return kind < ARRAY_SIZE(cls) ? cls[kind] : MV_V_ABSENT;
}

/* What one virtual page of t is. */
static uint16_t virt_cell(struct mm_struct *mm, const struct vm_area_struct *v, uint32_t va)
{
	pteval_t *pte = user_pte(mm, va, false);

	if (!pte || !pte_has_frame(*pte))
		return MV_V_ABSENT;
	switch (classify_frame(mm, va, *pte)) {
	case FRAME_ZERO: return MV_V_ZERO;
	case FRAME_COW: return MV_V_COW;
	case FRAME_SHARED: return MV_V_SHARED_OF(v->kind);
	default: return kind_class(v->kind);	/* private, or COW with no one else left */
	}
}

/*
 * The task and its mm are referenced and the tables pinned while they are
 * drawn (docs/design.md, "Lifetimes"), as ptdump PID does.
 */
static int draw_process(const char *pid)
{
	struct mm_struct *mm;
	struct task *t = get_process_arg("memview", pid, &mm);
	uint16_t cells[MV_WIDTH];

	if (!t)
		return -ESRCH;
	mm_pin_tables(mm);
	cprintf("memview: %pE[%d], CR3 %#x\n", t->comm, t->pid, (unsigned)mm->pgd);
	for (int i = 0; i < mm->vmas.nr; i++) {
		const struct vm_area_struct *v = &mm->vmas.v[i];
		uint32_t va = v->vm_start;

		cprintf("%s %08x-%08x\n", vma_kind_name(v->kind), (unsigned)va, (unsigned)v->vm_end);
		for (int row = 0; va < v->vm_end && row < MV_AREA_ROWS; row++) {
			unsigned n = 0;

			for (; va < v->vm_end && n < MV_WIDTH; va += PAGE_SIZE)
				cells[n++] = virt_cell(mm, v, va);
			mv_row(va - n * PAGE_SIZE, cells, n);
		}
		if (va < v->vm_end)
			cprintf("...\n");
	}
	mm_unpin_tables(mm);
	put_process_arg(t, mm);
	mv_legend(true);
	return 0;
}

struct watch {
	unsigned long deadline;
};

static bool watch_ready(void *arg)
{
	const struct watch *w = arg;

	return (long)(jiffies - w->deadline) >= 0 || tty_input_pending();
}

/*
 * The physical picture; with seconds, redrawn every MV_PERIOD until a key
 * comes or the time is up. The cells live in pages of their own (a 2M
 * machine has no room for 896M's worth in its image).
 */
static int draw_physical(unsigned seconds)
{
	unsigned long n = max_low_pfn, npages = PFN_UP(n * sizeof(uint16_t));
	unsigned long buf = alloc_pages(npages), end = jiffies + seconds * HZ;

	if (!buf) {
		cprintf("memview: no memory\n");
		return -ENOMEM;
	}
	for (unsigned frame = 1;; frame++) {
		struct watch w = { jiffies + MV_PERIOD };

		if (seconds) {
			if (mv_ansi)
				cprintf("\033[H\033[2J");	/* clear: the terminal and the VGA console */
			cprintf("memview -w: frame %u\n", frame);
		}
		picture(__va(buf), n);
		if ((long)(jiffies - end) >= 0)
			break;
		while (!watch_ready(&w) && !current->killed)
			sleep_on_until((void *)&jiffies, watch_ready, &w);
		if (tty_input_pending()) {
			tty_getc();	/* the key that stopped it is not a command */
			break;
		}
	}
	free_pages(buf, npages);
	return 0;
}

static int memview_usage(void)
{
	cprintf("usage: %s\n", MV_USAGE);
	return -EINVAL;
}

static int cmd_memview(int argc, char **argv)
{
	unsigned seconds = 0;
	int i = 1;

	mv_ansi = !(i < argc && strcmp(argv[i], "-p") == 0);
	if (!mv_ansi)
		i++;
	if (i < argc && strcmp(argv[i], "-w") == 0) {
		seconds = 10;
		if (++i < argc && kstrtouint_range(argv[i++], 1, 600, &seconds))
			return memview_usage();
	} else if (i + 1 == argc) {
		return draw_process(argv[i]);
	}
	if (i < argc)
		return memview_usage();
	return draw_physical(seconds);
}
SHELL_COMMAND("memview", cmd_memview, MV_USAGE, "who owns each page");
