// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing into read-only text, two ways.
 *
 * Seed 003's way (for ftrace in 2011): set_all_modules_text_rw(), write,
 * set_all_modules_text_ro(). For that window every module's text is
 * writable AND executable.
 *
 * The later way (Linux's text_poke()): leave the text RO+X and write
 * through a second, temporary mapping of the same physical page, which is
 * RW+NX; unmap it when done. No page is ever W+X.
 *
 * Either way, on several CPUs the bytes are written by text_poke_write():
 * the other CPUs wait in stop_machine() while they change, and every CPU
 * serializes (sync_core) before it runs on, so that none executes an
 * instruction half old and half new (Linux 2.6.38: text_poke_smp()).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/mm.h>
#include <ronx/ptdump.h>
#include <ronx/x86.h>
#include <ronx/smp.h>
#include <ronx/module.h>

struct poke_params {
	void *dst;
	const void *src;
	unsigned long n;
};

/* Runs with every other CPU parked: no lock, no printk, no IPI (stop_machine()). */
static int do_poke(void *data)
{
	const struct poke_params *p = data;

	memcpy(p->dst, p->src, p->n);
	return 0;
}

/*
 * Writes n bytes of code at dst, which must be writable (an alias, or
 * module text inside the W+X window), while the other CPUs wait.
 */
void text_poke_write(void *dst, const void *src, unsigned long n)
{
	struct poke_params p = { dst, src, n };

	stop_machine(do_poke, &p);
}

/* The W^X audit run while an alias is mapped: keep the worst count seen. */
static void audit_window(unsigned long *wx_seen)
{
	unsigned long wx;

	if (!wx_seen)
		return;
	wx = ptdump_check_wx().wx_pages;
	if (wx > *wx_seen)
		*wx_seen = wx;
}

/*
 * Write n bytes at addr (all in one page) through a temporary RW+NX
 * mapping of the same physical page at POKE_ALIAS; the text stays RO+X.
 */
static int poke_page(unsigned long addr, const unsigned char *bytes, unsigned long n,
		     unsigned long *wx_seen)
{
	enum pg_level level;
	pteval_t *pte = lookup_address(addr & PAGE_MASK, &level);
	unsigned long pa;

	if (!pte || level != PG_LEVEL_4K)
		return -EFAULT;
	pa = (unsigned long)(*pte & PTE_PFN_MASK);
	if (map_page(POKE_ALIAS, pa, PAGE_KERNEL))
		return -ENOMEM;
	text_poke_write((void *)(POKE_ALIAS + (addr & ~PAGE_MASK)), bytes, n);
	audit_window(wx_seen);
	unmap_page(POKE_ALIAS);
	return 0;
}

/*
 * Write len bytes at addr through temporary RW+NX aliases. With wx_seen,
 * run the W^X audit while each alias is mapped and keep the worst count.
 */
int text_poke(void *addr, const void *bytes, unsigned long len, unsigned long *wx_seen)
{
	unsigned long a = (unsigned long)addr;
	const unsigned char *src = bytes;

	while (len) {
		unsigned long n = PAGE_SIZE - (a & ~PAGE_MASK);
		int ret;

		if (n > len)
			n = len;
		ret = poke_page(a, src, n, wx_seen);
		if (ret)
			return ret;
		a += n;
		src += n;
		len -= n;
	}
	sync_core();
	return 0;
}
