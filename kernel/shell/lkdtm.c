// SPDX-License-Identifier: GPL-2.0-only
/*
 * Crash demos, named after Linux's LKDTM (drivers/misc/lkdtm): each one
 * breaks the policy on purpose, with a plain access, not a probe, so the
 * student sees the real oops. The shell's recovery brings the prompt back.
 * If an access does not fault, the demo says FAIL: the protection is off.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/mm.h>
#include <ronx/recovery.h>
#include <ronx/shell.h>
#include <ronx/lkdtm.h>
#include <ronx/mm_types.h>
#include <ronx/smap.h>
#include <ronx/user_demo.h>
#include <ronx/syscall.h>
#include <ronx/slab.h>

#define RET 0xc3

static const unsigned char rodata_target[] = { RET };
static int ro_after_init_target __ro_after_init = 0x12345678;
static unsigned char data_target[] = { RET };

static void do_nothing(void)
{
}

static void exec_at(void *addr, const char *what)
{
	pr_info("lkdtm: attempting bad execution at %p (%s)\n", addr, what);
	((void (*)(void))addr)();
	pr_err("lkdtm: FAIL: survived bad execution of %s\n", what);
}

static void write_at(void *addr, const char *what)
{
	pr_info("lkdtm: attempting bad write at %p (%s)\n", addr, what);
	*(volatile unsigned char *)addr = *(volatile unsigned char *)addr;
	pr_err("lkdtm: FAIL: survived bad write to %s\n", what);
}

static void lkdtm_WRITE_RO(void)
{
	write_at((void *)rodata_target, "rodata");
}

static void lkdtm_WRITE_RO_AFTER_INIT(void)
{
	write_at(&ro_after_init_target, "ro_after_init data");
}

static void lkdtm_WRITE_KERN(void)
{
	write_at((void *)do_nothing, "kernel text");
}

static void lkdtm_EXEC_DATA(void)
{
	exec_at(data_target, "a .data buffer");
}

static void lkdtm_EXEC_STACK(void)
{
	unsigned char stack_area[16] = { RET };

	exec_at(stack_area, "the stack");
}

/* What a demo took, so that it can be given back after the oops. */
static unsigned long demo_page, demo_mapping;
void *lkdtm_objects[LKDTM_OBJECTS];

/*
 * The objects are freed; a slab left empty stays with its class for the
 * next kmalloc (meminfo counts it in SlabEmpty, not PagesFree).
 */
static void release_demo_objects(void)
{
	for (int i = 0; i < LKDTM_OBJECTS; i++) {
		kfree(lkdtm_objects[i]);
		lkdtm_objects[i] = 0;
	}
}

static void release_demo_memory(void)
{
	unmap_user_demo_page();
	if (demo_mapping)
		unmap_page(demo_mapping);
	if (demo_page)
		free_page(demo_page);
	demo_page = demo_mapping = 0;
	release_demo_objects();
}

/* A kmalloc object lies in the direct map, RW+NX like all of it. */
static void lkdtm_EXEC_KMALLOC(void)
{
	unsigned char *p = lkdtm_objects[0] = kmalloc(64, GFP_KERNEL);

	if (!p) {
		pr_err("lkdtm: no memory for the object\n");
		return;
	}
	p[0] = RET;
	exec_at(p, "a kmalloc object");
}

static void lkdtm_EXEC_VMALLOC(void)
{
	demo_page = alloc_page();
	demo_mapping = ALIAS_VADDR + PAGE_SIZE;
	map_page(demo_mapping, demo_page, PAGE_KERNEL);
	*(unsigned char *)demo_mapping = RET;
	exec_at((void *)demo_mapping, "a page mapped in the alias area (ronx has no vmalloc)");
}

static void lkdtm_EXEC_RODATA(void)
{
	exec_at((void *)rodata_target, "rodata");
}

static void lkdtm_EXEC_NULL(void)
{
	exec_at(0, "address 0");
}

static void lkdtm_ACCESS_NULL(void)
{
	pr_info("lkdtm: attempting bad read at 00000000\n");
	(void)*(volatile int *)0;
	pr_err("lkdtm: FAIL: survived bad read of address 0\n");
}

static void lkdtm_EXEC_INIT(void)
{
	exec_at(__init_begin, "freed init memory");
}

/*
 * SMEP: the kernel calls into a user page (a "ret" there), as an exploit
 * that makes a kernel function pointer point into user memory would.
 */
static void lkdtm_EXEC_USERSPACE(void)
{
	static const unsigned char ret[] = { RET };
	void *p = map_user_demo_page(VM_READ | VM_EXEC, ret, sizeof(ret));

	if (!p) {
		pr_err("lkdtm: no memory for the user page\n");
		return;
	}
	exec_at(p, "a user page");
	pr_err("lkdtm: SMEP is %s: the kernel ran user code\n",
	       smep_supported ? "off (nosmep)" : "not supported by this CPU");
}

/* SMAP: the kernel reads, then writes, a user page without copy_*_user(). */
static void lkdtm_ACCESS_USERSPACE(void)
{
	static const unsigned int secret = 0x5eca1dedu;
	volatile unsigned int *p = map_user_demo_page(VM_READ | VM_WRITE, &secret, sizeof(secret));
	unsigned int v;

	if (!p) {
		pr_err("lkdtm: no memory for the user page\n");
		return;
	}
	pr_info("lkdtm: attempting bad read at %p (a user page)\n", (void *)p);
	v = *p;
	pr_info("lkdtm: attempting bad write at %p (a user page)\n", (void *)p);
	*p = v + 0xc0dec0de;
	pr_err("lkdtm: FAIL: survived bad read (%08x) and write of a user page\n", v);
	pr_err("lkdtm: SMAP is %s: the kernel touched user memory directly\n",
	       smap_supported ? "off (nosmap)" : "not supported by this CPU");
}

static void lkdtm_SYSCALL_BUG(void)
{
	lkdtm_syscall_bug = true;
	pr_info("lkdtm: armed: the next system call of a process oopses in the kernel (try: run hello)\n");
}

static const struct crashtype crashtypes[] = {
	{ "WRITE_RO", lkdtm_WRITE_RO, "write to const data (.rodata): RO" },
	{ "WRITE_RO_AFTER_INIT", lkdtm_WRITE_RO_AFTER_INIT, "write to __ro_after_init data after boot" },
	{ "WRITE_KERN", lkdtm_WRITE_KERN, "write to kernel text: RO+X" },
	{ "EXEC_DATA", lkdtm_EXEC_DATA, "execute from .data: NX" },
	{ "EXEC_STACK", lkdtm_EXEC_STACK, "execute from the stack: NX" },
	{ "EXEC_KMALLOC", lkdtm_EXEC_KMALLOC, "execute from a kmalloc object: NX" },
	{ "EXEC_VMALLOC", lkdtm_EXEC_VMALLOC, "execute from a freshly mapped page: NX" },
	{ "EXEC_RODATA", lkdtm_EXEC_RODATA, "execute from .rodata: RO+NX" },
	{ "EXEC_NULL", lkdtm_EXEC_NULL, "execute at address 0: not mapped" },
	{ "ACCESS_NULL", lkdtm_ACCESS_NULL, "read address 0: not mapped" },
	{ "EXEC_INIT", lkdtm_EXEC_INIT, "execute freed init code: reset to RW+NX (seed 001)" },
	{ "EXEC_USERSPACE", lkdtm_EXEC_USERSPACE, "the kernel executes a user page: SMEP" },
	{ "ACCESS_USERSPACE", lkdtm_ACCESS_USERSPACE, "the kernel reads and writes a user page: SMAP" },
	{ "SYSCALL_BUG", lkdtm_SYSCALL_BUG, "arm: a kernel bug in the next system call kills only that process" },
};

extern const struct crashtype __start_crashtypes[], __stop_crashtypes[];

static const struct crashtype *find_crashtype(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(crashtypes); i++)
		if (strcmp(crashtypes[i].name, name) == 0)
			return &crashtypes[i];
	for (const struct crashtype *c = __start_crashtypes; c < __stop_crashtypes; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return 0;
}

/* Run the demo under our own loud recovery, so we can clean up after it. */
static int perform(const struct crashtype *c)
{
	struct recovery r;

	pr_info("lkdtm: Performing direct entry %s\n", c->name);
	if (catch_faults(&r, false)) {
		release_demo_memory();
		cprintf("crash: %s oopsed as it should; the shell goes on\n", c->name);
		return -EFAULT;
	}
	c->fn();
	recovery_pop(&r);
	release_demo_memory();
	return 0;
}

static int cmd_crash(int argc, char **argv)
{
	const struct crashtype *c;

	if (argc < 2) {
		cprintf("crash NAME: break the policy on purpose and read the oops\n");
		for (unsigned i = 0; i < ARRAY_SIZE(crashtypes); i++)
			cprintf("  %-22s %s\n", crashtypes[i].name, crashtypes[i].help);
		for (c = __start_crashtypes; c < __stop_crashtypes; c++)
			cprintf("  %-22s %s\n", c->name, c->help);
		return 0;
	}
	c = find_crashtype(argv[1]);
	if (!c) {
		cprintf("crash: no crash type '%s' (run 'crash' for the list)\n", argv[1]);
		return -ENOENT;
	}
	return perform(c);
}
SHELL_COMMAND("crash", cmd_crash, "crash [NAME]",
	      "break the policy on purpose (LKDTM's names); no NAME lists them");
