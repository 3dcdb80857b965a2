/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMEP and SMAP (kernel/cpu/smap.c): with SMEP the CPU refuses to execute a
 * user page in ring 0; with SMAP it refuses ring 0 reads and writes of a
 * user page unless EFLAGS.AC is set (stac), which only the user-access
 * functions do.
 */
#ifndef RONX_SMAP_H
#define RONX_SMAP_H
#include <stdbool.h>
#include <stdint.h>

#define X86_CR4_SMEP	(1u << 20)
#define X86_CR4_SMAP	(1u << 21)

extern bool smep_enabled;
extern uint8_t smap_enabled;		/* a byte: boot/traps.asm tests it too */
extern bool smep_supported, smap_supported;

/*
 * EFLAGS.AC on (stac) and off (clac): with SMAP on, the kernel may touch a
 * user page only between the two (Linux: __uaccess_begin/end, stac() and
 * clac() in asm/smap.h). Without SMAP the instructions do not exist (#UD),
 * so they run only when it is on (Linux patches them in at boot instead).
 */
static inline void stac(void)
{
	if (smap_enabled)
		__asm__ volatile("stac" : : : "memory", "cc");
}

static inline void clac(void)
{
	if (smap_enabled)
		__asm__ volatile("clac" : : : "memory", "cc");
}

void setup_smep_smap(void);
void cpu_setup_smep_smap(void);		/* another CPU: the boot CPU's choice */
#endif
