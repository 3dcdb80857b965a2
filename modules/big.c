// SPDX-License-Identifier: GPL-2.0-only
/*
 * big - several pages in every group, so that each group's protection
 * can be seen on pages of its own (and across page boundaries).
 */
#include <ronx/module.h>

#define BIG_PAGES	3
#define BIG_WORDS	(BIG_PAGES * 4096 / 4)

/* Objects are not static so that gcc keeps each whole, in its section. */

/* Text: a function padded with three pages of NOPs before its body. */
__attribute__((noinline)) int big_walk(int x)
{
	__asm__ volatile(".fill 3 * 4096, 1, 0x90");
	return x + 1;
}

const unsigned int big_table[BIG_WORDS] = { 1, 2, 3, [BIG_WORDS - 1] = 4 };
unsigned int big_fixed[BIG_WORDS] __ro_after_init = { 5 };
unsigned int big_data[BIG_WORDS] = { 6 };
unsigned int big_bss[BIG_WORDS];
unsigned int big_initdata[BIG_WORDS] __initdata = { 7 };

static int __init big_init(void)
{
	big_bss[BIG_WORDS - 1] = big_walk(big_table[BIG_WORDS - 1]);
	big_fixed[1] = big_initdata[0];
	printk(KERN_INFO "big: %u %u %u %u\n", big_table[0], big_fixed[1], big_data[0],
	       big_bss[BIG_WORDS - 1]);
	return 0;
}
static void __exit big_exit(void)
{
	printk(KERN_INFO "big: unloaded\n");
}

module_init(big_init);
module_exit(big_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Spans several pages in each group");
