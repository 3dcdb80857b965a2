/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMEP and SMAP (kernel/smap.c): with SMEP the CPU refuses to execute a
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
extern uint8_t smap_enabled;		/* a byte: boot/traps.asm and usercopy.asm test it */
extern bool smep_supported, smap_supported;

void setup_smep_smap(void);
void cpu_setup_smep_smap(void);		/* another CPU: the boot CPU's choice */
#endif
