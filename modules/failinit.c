// SPDX-License-Identifier: GPL-2.0-only
/*
 * failinit - a module whose init fails. The loader must undo the whole
 * load: no page kept, no mapping left, nothing in lsmod.
 */
#include <ronx/module.h>

static const int failinit_table[1024] = { 1 };	/* a read-only page to map */
static int failinit_data[1024] = { 2 };		/* and a data page */

static int __init failinit_init(void)
{
	printk(KERN_INFO "failinit: init returns -22 (%d %d)\n", failinit_table[0],
	       failinit_data[0]);
	return -22;
}
module_init(failinit_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Its init fails, so the load is undone");
