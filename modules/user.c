// SPDX-License-Identifier: GPL-2.0-only
/*
 * user - calls provider_add(), which module `provider` exports; so it
 * loads only after provider, and provider cannot be unloaded before it.
 */
#include <ronx/module.h>

int provider_add(int a, int b);
extern int provider_calls;

static int __init user_init(void)
{
	int sum = provider_add(2, 3);

	printk(KERN_INFO "user: provider_add(2, 3) = %d (%d call(s))\n", sum, provider_calls);
	return sum == 5 ? 0 : -1;
}
static void __exit user_exit(void)
{
	printk(KERN_INFO "user: goodbye\n");
}

module_init(user_init);
module_exit(user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Uses a symbol that provider exports");
