// SPDX-License-Identifier: GPL-2.0-only
/*
 * provider - exports a function and a variable for module `user`.
 */
#include <ronx/module.h>

int provider_calls;
EXPORT_SYMBOL(provider_calls);

int provider_add(int a, int b)
{
	provider_calls++;
	return a + b;
}
EXPORT_SYMBOL(provider_add);

static int __init provider_init(void)
{
	printk(KERN_INFO "provider: exporting provider_add\n");
	return 0;
}
static void __exit provider_exit(void)
{
	printk(KERN_INFO "provider: %d call(s) in all\n", provider_calls);
}

module_init(provider_init);
module_exit(provider_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Exports provider_add() for the user module");
