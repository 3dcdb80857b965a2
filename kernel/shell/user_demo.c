// SPDX-License-Identifier: GPL-2.0-only
/*
 * One user page for the kernel to misuse on purpose (LKDTM's
 * EXEC_USERSPACE and ACCESS_USERSPACE, the SMEP/SMAP self-tests): a
 * throw-away address space holding one page at USER_DEMO_ADDR, loaded in
 * CR3 while the shell (a kernel task) runs the demo. Linux's LKDTM maps
 * its page into the process that wrote to debugfs.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/pgd.h>
#include <ronx/mman.h>
#include <ronx/user_demo.h>

static struct mm_struct *demo_mm;

void *map_user_demo_page(unsigned vm_flags, const void *bytes, unsigned long n)
{
	unmap_user_demo_page();
	demo_mm = mm_alloc();
	if (!demo_mm)
		return 0;
	if (map_area(demo_mm, USER_DEMO_ADDR, USER_DEMO_ADDR + PAGE_SIZE, vm_flags, VMA_MMAP) ||
	    copy_to_mm(demo_mm, USER_DEMO_ADDR, bytes, n)) {
		mmput(demo_mm);
		demo_mm = 0;
		return 0;
	}
	switch_mm(demo_mm);
	return (void *)USER_DEMO_ADDR;
}

void unmap_user_demo_page(void)
{
	if (!demo_mm)
		return;
	switch_mm(0);
	mmput(demo_mm);
	demo_mm = 0;
}
