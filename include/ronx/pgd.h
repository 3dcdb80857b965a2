/* SPDX-License-Identifier: GPL-2.0-only */
/* A process's page tables (mm/pgd.c). */
#ifndef RONX_PGD_H
#define RONX_PGD_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/pgtable_types.h>
#include <ronx/mm_types.h>

#define CR3_PDPT_MASK_32	0xffffffe0UL

struct mm_struct *mm_alloc(void);
void mmget(struct mm_struct *mm);
void mmput(struct mm_struct *mm);
void mm_pin_tables(struct mm_struct *mm);
void mm_unpin_tables(struct mm_struct *mm);
void switch_mm(struct mm_struct *mm);
pteval_t *user_pte(struct mm_struct *mm, uint32_t va, bool alloc);
bool pte_has_frame(pteval_t pte);
pteval_t vm_get_page_prot(unsigned vm_flags);
int install_user_page(struct mm_struct *mm, uint32_t va, pteval_t prot);
int install_user_frame(struct mm_struct *mm, uint32_t va, unsigned long pa, pteval_t prot);
void zap_user_range(struct mm_struct *mm, uint32_t start, uint32_t end);
void zap_user_pages(struct mm_struct *mm, uint32_t start, uint32_t end);	/* the tables stay */
void change_user_prot(struct mm_struct *mm, uint32_t start, uint32_t end, pteval_t prot);
int copy_to_mm(struct mm_struct *mm, uint32_t va, const void *src, uint32_t len);
#endif
