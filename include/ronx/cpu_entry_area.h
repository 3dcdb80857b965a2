/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPU entry area (mm/cpu_entry_area.c): .entry.data mapped again at
 * CPU_ENTRY_AREA_BASE, a fixed address, so that what sgdt and sidt tell
 * ring 3 says nothing about where kaslr put the image.
 */
#ifndef RONX_CPU_ENTRY_AREA_H
#define RONX_CPU_ENTRY_AREA_H
#include <ronx/pti.h>

void setup_cpu_entry_areas(void);
void *cea_alias(void *p);
struct cpu_entry_area *get_cpu_entry_area(int cpu);
#endif
