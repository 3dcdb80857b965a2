// SPDX-License-Identifier: GPL-2.0-only
/*
 * ronx_peer: check Linux's RO/NX policy on the running kernel, from the
 * inside, and print one KTAP line per check.
 *
 * While init runs it reads the page of its own __init function and
 * __initdata object. After init (triggered by writing to the post_init
 * parameter, because a module's ro_after_init data only becomes
 * read-only once its init has returned) it reads its text, rodata,
 * ro_after_init, data and bss pages, tries a write to rodata and to
 * ro_after_init data, and reads six pages of the low 1 MiB of the
 * direct map. All flags come from lookup_address() on the live tables.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <asm/asm.h>
#include <asm/page.h>
#include <asm/pgtable.h>

#define TAG "ronx-peer: "
#define NCHECKS 15

/* Set by the init script from the kernel's "PCI BIOS area is rw and x" line. */
static int pcibios_x = -1;
module_param(pcibios_x, int, 0444);
MODULE_PARM_DESC(pcibios_x, "1 if the kernel made the PCI BIOS area executable, 0 if not");

static int test_no;
static int failures;

/* Objects whose pages are checked; __used keeps them from being dropped. */
static const unsigned long ronx_rodata[4] __used = { 0x52, 0x4f, 0x4e, 0x58 };
static unsigned long ronx_ro_after_init __ro_after_init = 0x726f6169;
static unsigned long ronx_data __used = 0x64617461;
static unsigned long ronx_bss __used;
static unsigned long ronx_initdata[2] __initdata = { 1, 2 };

static noinline void ronx_text_fn(void)
{
	barrier();
}

static noinline void __init ronx_init_fn(void)
{
	barrier();
}

/* Read the live page-table entry for addr; describe it as RO/RW + X/NX. */
static const char *page_flags(unsigned long addr, const char **level)
{
	unsigned int lvl;
	pte_t *pte = lookup_address(addr, &lvl);
	pteval_t f;

	*level = lvl == PG_LEVEL_4K ? "4K" : lvl == PG_LEVEL_2M ? "2M" : "?";
	if (!pte)
		return "not present";
	f = pte_flags(*pte);
	if (!(f & _PAGE_PRESENT))
		return "not present";
	if (f & _PAGE_RW)
		return (f & _PAGE_NX) ? "RW+NX" : "RW+X";
	return (f & _PAGE_NX) ? "RO+NX" : "RO+X";
}

static void report(bool ok, const char *name, const char *seen,
		   const char *level, unsigned long addr, const char *expect)
{
	test_no++;
	if (!ok)
		failures++;
	pr_info(TAG "%sok %d - %s = %s [%s @ 0x%08lx] expect %s\n",
		ok ? "" : "not ", test_no, name, seen, level, addr, expect);
}

static void check_page(const char *name, const void *p, const char *expect)
{
	unsigned long addr = (unsigned long)p;
	const char *level;
	const char *seen = page_flags(addr, &level);

	report(!strcmp(seen, expect), name, seen, level, addr, expect);
}

/*
 * Store v back into *p. The store has its own exception-table entry, so
 * a write fault resumes at label 2 with faulted still 1 instead of
 * oopsing. Writing the value already there keeps a successful write
 * harmless.
 */
static noinline bool write_faults(unsigned long *p)
{
	unsigned long v = READ_ONCE(*p);
	int faulted = 1;

	asm volatile("1:	mov %[v], %[mem]\n"
		     "	xor %[f], %[f]\n"
		     "2:\n"
		     _ASM_EXTABLE(1b, 2b)
		     : [f] "+r" (faulted), [mem] "=m" (*p)
		     : [v] "r" (v)
		     : "memory");
	return faulted;
}

static void check_write(const char *name, unsigned long *p)
{
	bool faulted = write_faults(p);

	report(faulted, name, faulted ? "faulted" : "succeeded", "write",
	       (unsigned long)p, "faulted");
}

static const unsigned long low_offsets[] = {
	0x0, 0x9f000, 0xa0000, 0xb8000, 0xf0000, 0x100000,
};

static void run_post_init_checks(void)
{
	char name[24];
	int i;

	check_page("text", ronx_text_fn, "RO+X");
	check_page("rodata", ronx_rodata, "RO+NX");
	check_page("ro_after_init", &ronx_ro_after_init, "RO+NX");
	check_page("data", &ronx_data, "RW+NX");
	check_page("bss", &ronx_bss, "RW+NX");
	check_write("write_rodata", (unsigned long *)ronx_rodata);
	check_write("write_ro_after_init", &ronx_ro_after_init);

	/* Seed rule: low 1 MiB RW+NX; 640K-1M RW+X only while PCI BIOS is used. */
	for (i = 0; i < ARRAY_SIZE(low_offsets); i++) {
		unsigned long off = low_offsets[i];
		bool hole = off >= 0xa0000 && off < 0x100000;

		snprintf(name, sizeof(name), "low:0x%lx", off);
		if (hole && pcibios_x < 0) {
			test_no++;
			pr_info(TAG "ok %d - %s = %s # SKIP pcibios_x not given\n",
				test_no, name, "unknown");
			continue;
		}
		check_page(name, (void *)(PAGE_OFFSET + off),
			   hole && pcibios_x > 0 ? "RW+X" : "RW+NX");
	}
	pr_info(TAG "# %d checks, %d failed\n", test_no, failures);
}

static bool post_init_done;

static int post_init_set(const char *val, const struct kernel_param *kp)
{
	if (post_init_done)
		return -EBUSY;
	post_init_done = true;
	run_post_init_checks();
	return 0;
}

static const struct kernel_param_ops post_init_ops = {
	.set = post_init_set,
};
module_param_cb(post_init, &post_init_ops, NULL, 0200);
MODULE_PARM_DESC(post_init, "write anything to run the after-init checks");

static int __init ronx_peer_init(void)
{
	pr_info(TAG "KTAP version 1\n");
	pr_info(TAG "1..%d\n", NCHECKS);
	/* While init runs: init text is RO+X, init data RW+NX. */
	check_page("init_text", ronx_init_fn, "RO+X");
	check_page("init_data", ronx_initdata, "RW+NX");
	ronx_init_fn();
	return 0;
}

static void __exit ronx_peer_exit(void)
{
	ronx_text_fn();
}

module_init(ronx_peer_init);
module_exit(ronx_peer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Check Linux's RO/NX policy for a module and the low 1 MiB");
