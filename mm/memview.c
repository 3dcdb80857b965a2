// SPDX-License-Identifier: GPL-2.0-only
/*
 * memview: who owns each page, drawn one character per page (WeensyOS's
 * memory viewer; include/ronx/memview.h has the characters).
 *
 *   memview [-p] [-a]          physical memory by owner
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
 * Serial gets ANSI colours (-p: plain text, for tests and logs); the VGA
 * text screen gets the same picture with colour attributes.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/kstrtox.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/bootinfo.h>
#include <ronx/e820.h>
#include <ronx/console.h>
#include <ronx/irq.h>
#include <ronx/mm.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/page_ref.h>
#include <ronx/sched.h>
#include <ronx/process.h>
#include <ronx/shell.h>
#include <ronx/tty.h>
#include <ronx/memview.h>

#define MV_WIDTH	64	/* pages per line: 256 KiB, 73 columns with the address */
#define MV_AREA_ROWS	64	/* a process's area is cut after this many lines */
#define MV_PERIOD	(HZ / 2)

static bool mv_ansi;		/* serial: ANSI colours; VGA: attributes */

static void set_range(uint16_t *cells, unsigned long n, unsigned long start, unsigned long end,
		      uint16_t cell)
{
	for (unsigned long pfn = start; pfn < end && pfn < n; pfn++)
		cells[pfn] = cell;
}

static void set_pa(uint16_t *cells, unsigned long n, uint64_t pa, uint16_t cell)
{
	if ((pa >> PAGE_SHIFT) < n)
		cells[pa >> PAGE_SHIFT] = cell;
}

/* Every page directory and page table under a PDPT (entries first..last-1). */
static void mark_tables(uint16_t *cells, unsigned long n, const pteval_t *pdpt, int first,
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

static bool has_mm(const struct task *t)
{
	return t->mm && t->state != TASK_UNUSED && t->state != TASK_NEW && t->state != TASK_ZOMBIE;
}

/* A process's tables and frames: its own pid, shared (count > 1) or the zero page. */
static void mark_process(uint16_t *cells, unsigned long n, struct task *t)
{
	struct mm_struct *mm = t->mm;

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
				set_pa(cells, n, pa, (uint16_t)(MV_PID + (t->pid & (MV_PID - 1))));
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
	for (int i = 0; i < NR_TASKS; i++)
		if (has_mm(&tasks[i]))
			mark_process(cells, n, &tasks[i]);
}

/* Text to the serial port only (ANSI escapes must not reach the VGA screen). */
static void serial_write(const char *s)
{
	unsigned long flags = console_lock_irqsave();

	for (; *s; s++) {
		if (*s == '\n')
			serial_putc('\r');
		serial_putc(*s);
	}
	console_unlock_irqrestore(flags);
}

static void vga_write(const char *s, const uint16_t *cells, size_t ncells)
{
	unsigned long flags = console_lock_irqsave();

	for (; *s; s++)
		vga_putc(*s);
	for (size_t i = 0; i < ncells; i++)
		vga_putc_attr(memview_char(cells[i]), memview_vga_attr(cells[i]));
	if (ncells)
		vga_putc('\n');
	console_unlock_irqrestore(flags);
}

/* A line of text: plain to both screens, or only text on VGA and serial alike. */
static void mv_text(const char *s)
{
	if (!mv_ansi) {
		cprintf("%s", s);
		return;
	}
	serial_write(s);
	vga_write(s, 0, 0);
}

/* One row of the picture: "ADDRESS CELLS". */
static void mv_row(uint32_t addr, const uint16_t *cells, size_t n)
{
	char line[MV_WIDTH * 12 + 32];

	memview_line(line, sizeof(line), addr, cells, n, mv_ansi);
	if (!mv_ansi) {
		cprintf("%s\n", line);
		return;
	}
	serial_write(line);
	serial_write("\n");
	snprintf(line, sizeof(line), "%08x ", (unsigned)addr);
	vga_write(line, cells, n);
}

static void mv_legend(bool virt)
{
	char line[768];

	memview_legend(line, sizeof(line), virt, mv_ansi);
	if (mv_ansi) {
		serial_write(line);
		serial_write("\n");
		memview_legend(line, sizeof(line), virt, false);
		vga_write(line, 0, 0);
		vga_write("\n", 0, 0);
	} else {
		cprintf("%s\n", line);
	}
}

/* "pids: 1 sh  2 cowtest": which character is whose; and how many pages each holds */
static void mv_pids(const uint16_t *cells, unsigned long n)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "pids:"), any = 0;

	for (int i = 0; i < NR_TASKS && len < (int)sizeof(line) - 40; i++) {
		struct task *t = &tasks[i];
		uint16_t me = (uint16_t)(MV_PID + (t->pid & (MV_PID - 1)));
		unsigned long pages = 0;

		if (!has_mm(t))
			continue;
		for (unsigned long pfn = 0; pfn < n; pfn++)
			pages += cells[pfn] == me;
		len += snprintf(line + len, sizeof(line) - (size_t)len, "  %c %s[%d] %lu pages",
				memview_char(me), t->comm, t->pid, pages);
		any++;
	}
	snprintf(line + len, sizeof(line) - (size_t)len, any ? "\n" : " none (no process)\n");
	mv_text(line);
}

/* counts of each physical class: what the test compares with the walk */
static void mv_counts(const uint16_t *cells, unsigned long n)
{
	unsigned long c[MV_NR_CLASSES] = { 0 }, user = 0;
	char line[256];

	for (unsigned long pfn = 0; pfn < n; pfn++) {
		if (cells[pfn] & MV_PID)
			user++;
		else if (cells[pfn] < MV_NR_CLASSES)
			c[cells[pfn]]++;
	}
	snprintf(line, sizeof(line), "pages: free %lu, firmware %lu, kernel %lu, boot %lu, "
		 "page tables %lu, kernel other %lu, zero %lu, shared %lu, one process's %lu\n",
		 c[MV_FREE], c[MV_NOT_RAM], c[MV_KERNEL], c[MV_BOOT], c[MV_PGTABLE], c[MV_KALLOC],
		 c[MV_ZERO], c[MV_SHARED], user);
	mv_text(line);
}

static void draw_physical(uint16_t *cells, unsigned long n, bool all)
{
	char line[160];
	size_t rows;

	fill_physical(cells, n);
	rows = all ? (n + MV_WIDTH - 1) / MV_WIDTH : memview_rows_used(cells, n, MV_WIDTH);
	snprintf(line, sizeof(line), "memview: physical memory, one character per 4K page, %d per "
		 "line; %lu pages (%luK)\n", MV_WIDTH, n, n * 4);
	mv_text(line);
	for (size_t r = 0; r < rows; r++) {
		size_t first = r * MV_WIDTH;

		mv_row((uint32_t)(first << PAGE_SHIFT), cells + first,
		       n - first < MV_WIDTH ? n - first : MV_WIDTH);
	}
	if (rows * MV_WIDTH < n) {
		snprintf(line, sizeof(line), "%08lx-%08lx all free (%lu pages; memview -a draws them)\n",
			 (unsigned long)(rows * MV_WIDTH) << PAGE_SHIFT, n << PAGE_SHIFT,
			 n - rows * MV_WIDTH);
		mv_text(line);
	}
	mv_legend(false);
	mv_pids(cells, n);
	mv_counts(cells, n);
}

static uint16_t kind_class(unsigned kind)
{
	static const uint16_t cls[] = { MV_V_TEXT, MV_V_RODATA, MV_V_DATA, MV_V_DATA, MV_V_HEAP,
					MV_V_MMAP, MV_V_STACK };

	return kind < ARRAY_SIZE(cls) ? cls[kind] : MV_V_ABSENT;
}

/* What one virtual page of t is. */
static uint16_t virt_cell(struct task *t, const struct vm_area_struct *v, uint32_t va)
{
	pteval_t *pte = user_pte(t->mm, va, false);

	if (!pte || !pte_has_frame(*pte))
		return MV_V_ABSENT;
	switch (classify_frame(t->mm, va, *pte)) {
	case FRAME_ZERO: return MV_V_ZERO;
	case FRAME_COW: return MV_V_COW;
	case FRAME_SHARED: return MV_V_SHARED_OF(v->kind);
	default: return kind_class(v->kind);	/* private, or COW with no one else left */
	}
}

static void draw_process(struct task *t)
{
	uint16_t cells[MV_WIDTH];
	char line[160];

	snprintf(line, sizeof(line), "memview: %s[%d], CR3 %#x: each area, one character per page\n",
		 t->comm, t->pid, (unsigned)t->mm->pgd);
	mv_text(line);
	for (int i = 0; i < t->mm->vmas.nr; i++) {
		const struct vm_area_struct *v = &t->mm->vmas.v[i];
		uint32_t pages = (v->vm_end - v->vm_start) >> PAGE_SHIFT;
		uint32_t va = v->vm_start;

		snprintf(line, sizeof(line), "%s %08x-%08x (%u pages)\n", vma_kind_name(v->kind),
			 (unsigned)v->vm_start, (unsigned)v->vm_end, (unsigned)pages);
		mv_text(line);
		for (int row = 0; va < v->vm_end; row++) {
			unsigned n = 0;

			if (row == MV_AREA_ROWS) {
				snprintf(line, sizeof(line), "... %u more pages not drawn\n",
					 (unsigned)((v->vm_end - va) >> PAGE_SHIFT));
				mv_text(line);
				break;
			}
			for (uint32_t a = va; a < v->vm_end && n < MV_WIDTH; a += PAGE_SIZE)
				cells[n++] = virt_cell(t, v, a);
			mv_row(va, cells, n);
			va += n * PAGE_SIZE;
		}
	}
	mv_legend(true);
}

struct watch {
	unsigned long deadline;
};

static bool watch_ready(void *arg)
{
	const struct watch *w = arg;

	return (long)(jiffies - w->deadline) >= 0 || tty_input_pending();
}

/* Redraws every MV_PERIOD until a key comes or the time is up. */
static void watch_physical(uint16_t *cells, unsigned long n, bool all, unsigned seconds)
{
	unsigned long end = jiffies + seconds * HZ;
	char line[96];

	for (unsigned frame = 1;; frame++) {
		struct watch w = { jiffies + MV_PERIOD };

		if (mv_ansi) {
			serial_write("\033[H\033[2J");
			vga_init();
		}
		snprintf(line, sizeof(line), "memview -w: frame %u at %lu.%02lu s (a key stops it)\n",
			 frame, jiffies / HZ, jiffies % HZ);
		mv_text(line);
		draw_physical(cells, n, all);
		if ((long)(jiffies - end) >= 0)
			return;
		while (!watch_ready(&w) && !current->killed)
			sleep_on_until((void *)&jiffies, watch_ready, &w);
		if (tty_input_pending()) {
			tty_getc();	/* the key that stopped it is not a command */
			return;
		}
	}
}

static int memview_usage(void)
{
	cprintf("usage: memview [-p] [-a] [PID | -w [SECONDS]]  (-p: no colours; -a: every page; "
		"-w: redraw every 500 ms until a key, at most SECONDS, default 10)\n");
	return -EINVAL;
}

static int cmd_memview(int argc, char **argv)
{
	unsigned long n = max_low_pfn, bytes = n * sizeof(uint16_t);
	unsigned long npages = PFN_UP(bytes), buf;
	bool all = false, watch = false;
	unsigned seconds = 10;
	struct task *t = 0;
	int i;

	mv_ansi = true;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-p") == 0) {
			mv_ansi = false;
		} else if (strcmp(argv[i], "-a") == 0) {
			all = true;
		} else if (strcmp(argv[i], "-w") == 0) {
			watch = true;
			if (i + 1 < argc && kstrtouint_range(argv[i + 1], 1, 600, &seconds) == 0)
				i++;
			else if (i + 1 < argc) {
				cprintf("memview: -w wants seconds 1-600, not '%s'\n", argv[i + 1]);
				return -EINVAL;
			}
		} else {
			return memview_usage();
		}
	}
	if (i + 1 < argc || (i < argc && watch))
		return memview_usage();
	if (i < argc) {
		t = find_process_arg("memview", argv[i]);
		if (!t)
			return -ESRCH;
		draw_process(t);
		return 0;
	}
	buf = alloc_pages(npages);
	if (!buf) {
		cprintf("memview: no %lu contiguous free pages for the picture (%lu pages of RAM)\n",
			npages, n);
		return -ENOMEM;
	}
	if (watch)
		watch_physical(__va(buf), n, all, seconds);
	else
		draw_physical(__va(buf), n, all);
	free_pages(buf, npages);
	return 0;
}
SHELL_COMMAND("memview", cmd_memview, "memview [-p] [-a] [PID | -w [SECONDS]]",
	      "who owns each page: physical memory one character per page (kernel, page tables, "
	      "each pid, shared, zero page, free), or PID's areas; -w redraws until a key");
