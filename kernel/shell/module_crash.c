// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module crash demos for the shell's "crash" (kernel/shell/lkdtm.c): seed 003's
 * protections broken on purpose, on the hello module.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/lkdtm.h>
#include <ronx/module.h>

#define RET 0xc3

static struct module *hello(void)
{
	struct module *m = find_module("hello");

	if (!m && insmod("hello", "") == 0)
		m = find_module("hello");
	if (!m)
		pr_err("lkdtm: cannot load the hello module\n");
	return m;
}

static void lkdtm_WRITE_MODULE_TEXT(void)
{
	struct module *m = hello();

	if (!m)
		return;
	pr_info("lkdtm: attempting bad write to hello's text at %p\n", m->module_core);
	*(volatile unsigned char *)m->module_core = *(volatile unsigned char *)m->module_core;
	pr_err("lkdtm: FAIL: survived bad write to module text\n");
}

static void lkdtm_EXEC_MODULE_DATA(void)
{
	struct module *m = hello();
	unsigned char *last;

	if (!m)
		return;
	/* the data group's last byte: alignment padding, not a variable */
	last = (unsigned char *)m->module_core + m->core_size - 1;
	*last = RET;
	pr_info("lkdtm: attempting bad execution of hello's data at %p\n", last);
	((void (*)(void))last)();
	pr_err("lkdtm: FAIL: survived bad execution of module data\n");
}

static void lkdtm_EXEC_MODULE_INIT(void)
{
	struct module *m = hello();

	if (!m)
		return;
	pr_info("lkdtm: attempting to run hello's init after it was freed, at %08lx\n",
		m->freed_init);
	((void (*)(void))m->freed_init)();
	pr_err("lkdtm: FAIL: survived running freed module init\n");
}

CRASHTYPE("WRITE_MODULE_TEXT", lkdtm_WRITE_MODULE_TEXT, "write to module text: RO+X (seed 003)");
CRASHTYPE("EXEC_MODULE_DATA", lkdtm_EXEC_MODULE_DATA, "execute module data: RW+NX (seed 003)");
CRASHTYPE("EXEC_MODULE_INIT", lkdtm_EXEC_MODULE_INIT,
	  "run module init code after it was freed (unmapped)");
