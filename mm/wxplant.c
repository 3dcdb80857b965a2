// SPDX-License-Identifier: GPL-2.0-only
/*
 * wxplant=VA:PAGES[,VA:PAGES...]: make these pages of the direct map
 * writable and executable on purpose, before the image is protected and
 * audited, so that the W^X audit has something to find that nobody could
 * know in advance. The lab grader picks where and how many at grade time
 * (a run of 4 KiB pages, a whole 2 MiB page, a run touching the PCI BIOS
 * hole), so an audit that prints a remembered answer fails.
 *
 * A debugging aid, like Linux's lkdtm: it asks the CPA layer for a W+X
 * range the way seed 003's text patching does, and says so in the log.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/kstrtox.h>
#include <ronx/string.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>

#define MAX_PLANTS	4
#define MAX_PLANT_PAGES	1024

static struct { unsigned int va, pages; } plants[MAX_PLANTS];
static int nr_plants;

/* "VA:PAGES", both numbers (VA hex, PAGES decimal); 0 or -EINVAL. */
static int parse_plant(char *s)
{
	char *colon = strchr(s, ':');
	unsigned int va, pages;

	if (!colon || nr_plants == MAX_PLANTS)
		return -EINVAL;
	*colon = '\0';
	if (kstrtouint(s, 16, &va) || kstrtouint(colon + 1, 10, &pages) ||
	    va & (PAGE_SIZE - 1) || !pages || pages > MAX_PLANT_PAGES)
		return -EINVAL;
	plants[nr_plants].va = va;
	plants[nr_plants].pages = pages;
	nr_plants++;
	return 0;
}

static int parse_wxplant(const char *val)
{
	static char buf[128];
	char *s = buf, *comma;
	int before = nr_plants;

	if (!val || strlen(val) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, strlen(val) + 1);
	for (; (comma = strchr(s, ',')); s = comma + 1) {
		*comma = '\0';
		if (parse_plant(s))
			goto bad;
	}
	if (!parse_plant(s))
		return 0;
bad:
	nr_plants = before;	/* a bad value plants none of its runs */
	return -EINVAL;
}
BOOT_PARAM("wxplant", parse_wxplant, "VA:PAGES[,VA:PAGES] (hex address, page count, up to 4)");

/* Only the direct map, and never the kernel image (its policy is the lab's). */
static bool plantable(unsigned long va, unsigned long pages)
{
	unsigned long end = va + pages * PAGE_SIZE;

	return va >= PAGE_OFFSET && end > va &&
	       end <= PAGE_OFFSET + (max_low_pfn << PAGE_SHIFT) &&
	       (end <= (unsigned long)_text || va >= PFN_ALIGN(_end));
}

void wx_plant(void)
{
	for (int i = 0; i < nr_plants; i++) {
		unsigned long va = plants[i].va, pages = plants[i].pages;

		if (!plantable(va, pages)) {
			pr_warn("ronx: wxplant: 0x%08lx+%lu pages is not in the direct map outside "
				"the kernel image; nothing planted there\n", va, pages);
			continue;
		}
		if (set_memory_rw_allow_wx(va, (int)pages) ||
		    set_memory_x_allow_wx(va, (int)pages))
			pr_warn("ronx: wxplant: the CPA layer refused 0x%08lx+%lu pages\n",
				va, pages);
		else
			pr_info("ronx: wxplant: 0x%08lx-0x%08lx (%lu pages) made RW+X on purpose\n",
				va, va + pages * PAGE_SIZE, pages);
	}
}
