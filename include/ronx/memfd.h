/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memfd: anonymous memory with a name and a size, reached through a file
 * descriptor (Linux: mm/memfd.c over shmem). ronx's only files besides
 * the console. The object (mm/memfd.c) holds its frames; the file table
 * (kernel/file_table.c) holds the objects; mmap maps the frames
 * (mm/mmap.c), so two MAP_SHARED mappings of one memfd see the same
 * bytes; a MAP_PRIVATE one sees them until it writes a page (a copy).
 */
#ifndef RONX_MEMFD_H
#define RONX_MEMFD_H
#include <stdbool.h>
#include <stdint.h>

#define MFD_CLOEXEC		0x0001U
#define MFD_ALLOW_SEALING	0x0002U	/* accepted; ronx has no fcntl, so no seal is ever set */

#define MEMFD_MAX_PAGES		1024	/* 4 MiB: its frame list fills one page; more is EFBIG */
#define MEMFD_TOTAL_PAGES	4096	/* every memfd's frames together: 16 MiB; more is ENOMEM */
#define MEMFD_NAME_LEN		32	/* what ronx keeps of the name, for wxcheck and ptdump */
#define MFD_NAME_MAX_LEN	249	/* Linux's NAME_MAX less "memfd:": longer is EINVAL */

struct memfd;

/* mm/memfd.c */
struct memfd *memfd_alloc(const char *name, long *err);
void memfd_get(struct memfd *m);
void memfd_put(struct memfd *m);	/* the last one gives its frames back */
long memfd_resize(struct memfd *m, uint64_t size);
unsigned long memfd_get_frame(struct memfd *m, uint32_t pgoff);	/* counted, or 0 */
bool memfd_frame_name(unsigned long pa, char *buf, unsigned long size);
unsigned memfd_slot(const struct memfd *m);	/* a memfd area's vm_file */
struct memfd *memfd_from_slot(unsigned slot);

/* mm/memfd_rmap.c: who maps a memfd, and the lock over that (see its header) */
struct mm_struct;
struct vm_area_struct;
void memfd_map_lock(void);
void memfd_map_unlock(void);
bool memfd_map_lock_mm(struct mm_struct *mm, bool adding);	/* taken? then unlock */
void memfd_mm_sync(struct mm_struct *mm);	/* its references and listing: as its areas say */
void memfd_mm_exit(struct mm_struct *mm);	/* the mm is going: off the list, references put */
int memfd_install_page(struct mm_struct *mm, const struct vm_area_struct *v, uint32_t va);
void memfd_unmap_pages(struct memfd *m, uint32_t from, uint32_t to);

/* kernel/file_table.c: a process's descriptors 3 and up */
struct task;
struct memfd *fget_memfd(int fd);	/* NULL: not an open memfd */
void files_fork(struct task *child, const struct task *parent);
void files_exec(struct task *t);	/* closes the MFD_CLOEXEC ones */
void files_exit(struct task *t);	/* closes all */
long sys_memfd_create(uint32_t uname, uint32_t flags);
long sys_close(uint32_t fd);
long sys_ftruncate(uint32_t fd, uint32_t length);
long sys_ftruncate64(uint32_t fd, uint32_t lo, uint32_t hi);
#endif
