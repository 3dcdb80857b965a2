/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_MODULE_ALLOC_H
#define RONX_MODULE_ALLOC_H
#include <stdbool.h>

void *module_alloc(unsigned long size, bool executable);
void module_memfree(void *addr, unsigned long size);
#endif
