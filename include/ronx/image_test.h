/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_IMAGE_TEST_H
#define RONX_IMAGE_TEST_H

/* kernel/selftest/rodata_test.c: write a ro_after_init value while boot still may. */
void ro_after_init_test_boot(void);
void text_exec_probe(void);
#endif
