// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address to symbol, for oopses: "rodata_test+0x12/0x40". The table holds
 * text and init-text symbols only, sorted, so adding it to .rodata in the
 * second link pass moves no code (see the Makefile). The table holds link
 * addresses: under KASLR each is kaslr_offset() below the running one.
 */
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/sections.h>
#include <ronx/kallsyms.h>
#include <ronx/init.h>
#include <ronx/module.h>
#include <ronx/kaslr.h>

static int in_text(unsigned long a)
{
	return a >= (unsigned long)_text && a < (unsigned long)_etext;
}

/* Once init memory is freed its symbols name nothing any more. */
static int in_init_text(unsigned long a)
{
	return !init_mem_freed && a >= (unsigned long)__init_begin &&
	       a < (unsigned long)__init_end;
}

const char *kallsyms_lookup(unsigned long addr, unsigned long *size,
			    unsigned long *offset)
{
	unsigned long lo = 0, hi = kallsyms_num;
	unsigned long region_end = (in_text(addr) ? (unsigned long)_etext :
				    (unsigned long)__init_end) - kaslr_offset();
	unsigned long running = addr;

	addr -= kaslr_offset();

	if (!kallsyms_num || addr < kallsyms_addresses[0] ||
	    !(in_text(running) || in_init_text(running)))
		return 0;
	/* the last symbol whose address is <= addr */
	while (hi - lo > 1) {
		unsigned long mid = lo + (hi - lo) / 2;
		if (kallsyms_addresses[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - kallsyms_addresses[lo];
	*size = (lo + 1 < kallsyms_num && kallsyms_addresses[lo + 1] < region_end ?
		 kallsyms_addresses[lo + 1] : region_end) - kallsyms_addresses[lo];
	return kallsyms_names[lo];
}

/* Linux's kallsyms_lookup_name(): a function's address, or 0. */
unsigned long kallsyms_lookup_name(const char *name)
{
	for (unsigned long i = 0; i < kallsyms_num; i++)
		if (strcmp(kallsyms_names[i], name) == 0)
			return kallsyms_addresses[i] + kaslr_offset();
	return 0;
}

/* "name+0x12/0x40" for the function that holds addr - back (0 or 1). */
static void __sprint_symbol(char *buf, size_t size, unsigned long addr, unsigned long back)
{
	unsigned long symsize, offset;
	const char *name = kallsyms_lookup(addr - back, &symsize, &offset);

	if (name)
		snprintf(buf, size, "%s+0x%lx/0x%lx", name, offset + back, symsize);
	else if (!module_address_name(addr, buf, size))
		snprintf(buf, size, "(no symbol)");
}

/* Linux's %pS: the symbol an address (an EIP) is in. */
void sprint_symbol(char *buf, size_t size, unsigned long addr)
{
	__sprint_symbol(buf, size, addr, 0);
}

/*
 * Linux's %pB, for a return address: the call before it may be the last
 * instruction of a function that never returns (__stack_chk_fail(),
 * panic()), so the address itself is the next function's first byte.
 * Looking up the byte before it names the caller; the offset printed is
 * still the return address's.
 */
void sprint_backtrace(char *buf, size_t size, unsigned long addr)
{
	__sprint_symbol(buf, size, addr, 1);
}
