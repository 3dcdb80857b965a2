// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exception table: pairs (instruction that may fault, where to go
 * instead). boot/probe.asm fills it. A fault at a listed instruction is
 * not a bug: we resume at its fixup (Linux: fixup_exception()).
 */
#include <stdint.h>
#include <ronx/traps.h>

struct exception_table_entry {
	uint32_t insn, fixup;
};

extern const struct exception_table_entry __start___ex_table[], __stop___ex_table[];

bool fixup_exception(struct trap_frame *f)
{
	for (const struct exception_table_entry *e = __start___ex_table;
	     e < __stop___ex_table; e++) {
		if (e->insn == f->eip) {
			f->eip = e->fixup;
			return true;
		}
	}
	return false;
}

/* Is the instruction at ip one that may fault on purpose (a user access)? */
bool search_exception_tables(uint32_t ip)
{
	for (const struct exception_table_entry *e = __start___ex_table;
	     e < __stop___ex_table; e++)
		if (e->insn == ip)
			return true;
	return false;
}
