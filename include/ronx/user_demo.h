/* SPDX-License-Identifier: GPL-2.0-only */
/* A user page mapped in CR3 for a kernel demo or self-test (kernel/shell/user_demo.c). */
#ifndef RONX_USER_DEMO_H
#define RONX_USER_DEMO_H

#define USER_DEMO_ADDR	0x10000000UL

/* Maps one user page with vm_flags holding bytes; its address, or NULL. */
void *map_user_demo_page(unsigned vm_flags, const void *bytes, unsigned long n);
void unmap_user_demo_page(void);
#endif
