/* SPDX-License-Identifier: GPL-2.0-only */
/* Numbers typed at the shell, parsed whole and range-checked (kernel/kstrtox.c). */
#ifndef RONX_KSTRTOX_H
#define RONX_KSTRTOX_H

int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtouint_range(const char *s, unsigned int min, unsigned int max, unsigned int *res);
#endif
