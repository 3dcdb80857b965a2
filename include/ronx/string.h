/* SPDX-License-Identifier: GPL-2.0-only */
/* The C string functions the kernel provides (lib/string.c); host builds get libc's. */
#ifndef RONX_STRING_H
#define RONX_STRING_H
#include <stddef.h>

void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
#endif
