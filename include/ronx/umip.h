/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * UMIP (kernel/cpu/umip.c): with it on, sgdt, sidt, sldt, smsw and str fault
 * in ring 3, so a process cannot read where the GDT and IDT are.
 */
#ifndef RONX_UMIP_H
#define RONX_UMIP_H
#include <stdbool.h>

extern bool umip_enabled;
void setup_umip(void);
#endif
