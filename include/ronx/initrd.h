/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_INITRD_H
#define RONX_INITRD_H
#include <ronx/cpio.h>

void initrd_init(void);
int initrd_find(const char *name, struct cpio_file *f);
int initrd_next(size_t *pos, struct cpio_file *f);
#endif
