// SPDX-License-Identifier: GPL-2.0-only
/*
 * malloc and free: a first-fit list of blocks carved from the heap that
 * brk grows (K&R's allocator, simplified). Each block starts with its
 * size; free blocks are kept in address order and merged with their
 * neighbours. The heap only grows: programs here are short-lived.
 */
#include <ulib.h>

struct block {
	size_t size;		/* bytes, this header included */
	struct block *next;	/* next free block (only while free) */
};

#define ALIGN		sizeof(struct block)
#define GROW_MIN	(16 * 1024)

static struct block *free_list;

static void insert_free(struct block *b)
{
	struct block **pp = &free_list;

	while (*pp && *pp < b)
		pp = &(*pp)->next;
	b->next = *pp;
	*pp = b;
	/* merge with the next block, then the previous one with b */
	if (b->next && (char *)b + b->size == (char *)b->next) {
		b->size += b->next->size;
		b->next = b->next->next;
	}
	if (pp != &free_list) {
		struct block *prev = (struct block *)((char *)pp - offsetof(struct block, next));

		if ((char *)prev + prev->size == (char *)b) {
			prev->size += b->size;
			prev->next = b->next;
		}
	}
}

static int grow(size_t need)
{
	size_t n = need < GROW_MIN ? GROW_MIN : need;
	struct block *b = sbrk((long)n);

	if (b == (void *)-1)
		return -1;
	b->size = n;
	insert_free(b);
	return 0;
}

void *malloc(size_t n)
{
	size_t need = (n + 2 * ALIGN - 1) / ALIGN * ALIGN;

	if (n == 0 || need < n)
		return NULL;
	for (int tries = 0; tries < 2; tries++) {
		for (struct block **pp = &free_list; *pp; pp = &(*pp)->next) {
			struct block *b = *pp;

			if (b->size < need)
				continue;
			if (b->size - need >= 2 * ALIGN) {
				/* split: the tail stays free */
				struct block *rest = (struct block *)((char *)b + need);

				rest->size = b->size - need;
				rest->next = b->next;
				b->size = need;
				*pp = rest;
			} else {
				*pp = b->next;
			}
			return b + 1;
		}
		if (grow(need))
			break;
	}
	errno = ENOMEM;
	return NULL;
}

void free(void *p)
{
	if (p)
		insert_free((struct block *)p - 1);
}
