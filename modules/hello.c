// SPDX-License-Identifier: GPL-2.0-only
/*
 * hello - the smallest module that has one of everything the loader lays
 * out: text, init text, init data, a const table, an ro_after_init value,
 * writable data and bss.
 */
#include <ronx/module.h>

/* not static: each must stay in its own section, not be folded away */
const char *const hello_greetings[] = { "hello", "bonjour", "hallo", "ciao" };
int hello_chosen __ro_after_init = 1;
int hello_greeted = 1;
int hello_calls;				/* bss */
char hello_banner[] __initdata = "hello: init running";

static int __init hello_init(void)
{
	printk(KERN_INFO "%s\n", hello_banner);
	hello_chosen = (hello_chosen + hello_calls++) % 4;
	printk(KERN_INFO "hello: %s, world (%d)\n", hello_greetings[hello_chosen], hello_greeted);
	return 0;
}

static void __exit hello_exit(void)
{
	printk(KERN_INFO "hello: %s after %d call(s)\n", hello_greetings[0], hello_calls);
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("ronx");
MODULE_DESCRIPTION("Says hello; has init, const, ro_after_init, data and bss");
