// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchme - a target for code patching (seed 003's set_all_modules_text_rw).
 *
 * patchme_run() holds one 5-byte `call rel32` (E8 xx xx xx xx) at the
 * exported label patchme_site, calling patchme_hook(), which counts in the
 * exported patchme_counter. A patching client may rewrite those 5 bytes
 * (to call its own probe, or to a 5-byte NOP) and later restore them;
 * patchme_run() then shows, through the counter, which code ran.
 */
#include <ronx/module.h>

unsigned int patchme_counter;
EXPORT_SYMBOL(patchme_counter);

/* the address of the 5-byte call instruction */
extern const unsigned char patchme_site[5];
EXPORT_SYMBOL(patchme_site);

__attribute__((noinline, used)) void patchme_hook(void)
{
	patchme_counter++;
}
EXPORT_SYMBOL(patchme_hook);

/*
 * The call site lives alone in a function gcc may not copy (noinline,
 * noclone), so the label patchme_site is defined exactly once.
 */
__attribute__((noinline, noclone)) static void patchme_once(void)
{
	/* THE CALL SITE: one 5-byte call; eax/ecx/edx are cdecl-clobbered */
	__asm__ volatile(".globl patchme_site\n"
			 "patchme_site:\n\t"
			 "call patchme_hook"
			 : : : "eax", "ecx", "edx", "memory", "cc");
}

/* Run the call site N times; returns patchme_counter. */
__attribute__((noinline)) unsigned int patchme_run(unsigned int n)
{
	while (n--)
		patchme_once();
	return patchme_counter;
}
EXPORT_SYMBOL(patchme_run);

static int __init patchme_init(void)
{
	printk(KERN_INFO "patchme: site at %p, counter %u\n", (const void *)patchme_site,
	       patchme_run(1));
	return 0;
}
static void __exit patchme_exit(void)
{
	printk(KERN_INFO "patchme: counter %u at unload\n", patchme_counter);
}

module_init(patchme_init);
module_exit(patchme_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A marked 5-byte call site for text-patching clients");
