/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * string.h - the C library string functions the kernel provides.
 * (Placeholder written by the modload branch with the standard
 * prototypes only; the kernel's own copy takes precedence.)
 */
#ifndef RONX_STRING_H
#define RONX_STRING_H
#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
size_t strlen(const char *s);

#endif
