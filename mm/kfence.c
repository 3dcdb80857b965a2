// SPDX-License-Identifier: GPL-2.0-only
/*
 * KFENCE, the kernel electric fence (Linux: mm/kfence/core.c and
 * report.c, and arch/x86/include/asm/kfence.h; the facts, not the code).
 *
 * Booted with kfence.sample_interval=N (N > 0), ronx takes a 2 MiB pool
 * out of the page allocator at boot and sends every Nth kmalloc of at
 * most a page there (Linux samples by time, every N milliseconds; ronx
 * counts allocations, so a test knows which allocation is sampled).
 * Each object has a page of its own between two guard pages that are
 * never mapped (include/ronx/kfence.h draws the pool). It sits against
 * the left guard or the right one, in turn; the rest of its page is a
 * canary pattern that kfree checks. kfree unmaps the object's page and
 * puts the object at the tail of a FIFO free list, so it is reused as
 * late as possible: its page stays unmapped, a quarantine, while the
 * other 254 objects are handed out.
 *
 * The pool is direct-map memory, as Linux's is: its 2 MiB page is split
 * into 4 KiB ptes at boot (it is 2 MiB-aligned, so one page table covers
 * it), and "unmapped" means the pte's present bit is clear, so QEMU's
 * `info tlb` shows the holes. CPA never puts that large page back
 * (mm/pageattr.c, collapsible_region()).
 *
 * A kernel access to a guard page or to a freed object faults, and
 * kfence_handle_page_fault() prints KFENCE's report: what, where, the
 * faulting stack, the object, and where it was allocated and freed.
 * Then, as Linux's kfence_unprotect(), it maps the page again and the
 * access goes on: the kernel keeps running. The object's kfree puts its
 * guards back (Linux leaves them mapped).
 *
 * Locking: kfence_lock guards the metadata, the free list and the
 * present bits of the pool's ptes. Nothing but console_lock is taken
 * inside it, so the page-fault handler may take it under any lock. kfree
 * makes a page absent under it and flushes every CPU's TLB after giving
 * it back (the shootdown takes call_lock, as a free under debug_pagealloc
 * does): until then another CPU may still reach the page through a stale
 * entry, which only misses a report. kmalloc sends no shootdown. Making a
 * page present needs no flush (no CPU caches an absent pte).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/spinlock.h>
#include <ronx/cmdline.h>
#include <ronx/kstrtox.h>
#include <ronx/init.h>
#include <ronx/mm.h>
#include <ronx/slab.h>
#include <ronx/x86.h>
#include <ronx/irq.h>
#include <ronx/smp.h>
#include <ronx/sched.h>
#include <ronx/traps.h>
#include <ronx/kallsyms.h>
#include <ronx/tlbflush.h>
#include <ronx/shell.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/kfence.h>

enum kfence_state { KFENCE_UNUSED, KFENCE_ALLOCATED, KFENCE_FREED };

struct kfence_track {
	int pid, cpu;
	unsigned long when;		/* jiffies */
	int depth;
	unsigned long stack[KFENCE_STACK_DEPTH];
};

struct kfence_metadata {
	enum kfence_state state;
	unsigned long addr;		/* the object's first byte */
	size_t size;			/* what kmalloc was asked for */
	unsigned cache_size;		/* the size class it would have had: cache=kmalloc-M */
	struct kfence_track alloc, free;
};

enum kfence_error { KFENCE_ERROR_OOB, KFENCE_ERROR_UAF, KFENCE_ERROR_INVALID,
		    KFENCE_ERROR_INVALID_FREE, KFENCE_ERROR_CORRUPTION };

unsigned long __kfence_pool;
struct kfence_stats kfence_stats;
static unsigned long sample_interval;	/* 0: off (the default: see kfence_init()) */
static unsigned long sample_count;
static struct kfence_metadata meta[KFENCE_NUM_OBJECTS];
static pteval_t *pool_pte[KFENCE_POOL_PAGES];	/* kept: lookup_address() skips absent ptes */
static uint16_t fifo[KFENCE_NUM_OBJECTS];	/* free objects, oldest free first */
static unsigned fifo_head, fifo_len;
static unsigned long next_right;	/* alternates left and right placement */
static DEFINE_SPINLOCK(kfence_lock);

static int __init parse_sample_interval(const char *val)
{
	unsigned int n;

	if (!val || kstrtouint(val, 10, &n))
		return -EINVAL;
	sample_interval = n;
	return 0;
}
BOOT_PARAM("kfence.sample_interval", parse_sample_interval,
	   "a number: every Nth kmalloc goes to KFENCE's pool, 0 is off");

unsigned long kfence_sample_interval(void)
{
	return __kfence_pool ? sample_interval : 0;
}

static unsigned long page_va(unsigned long page)
{
	return __kfence_pool + page * PAGE_SIZE;
}

/* Clears the present bit; true if the caller must flush the page on every CPU. */
static bool protect(unsigned long page)
{
	return set_pte_present(pool_pte[page], false);
}

static void unprotect(unsigned long page)
{
	set_pte_present(pool_pte[page], true);
}

/* The pool: 2 MiB-aligned, from 1023 pages whose unaligned ends go back. */
static unsigned long __init alloc_pool(void)
{
	unsigned long n = 2 * KFENCE_POOL_PAGES - 1, pa = alloc_pages(n), start;

	if (!pa)
		return 0;
	start = (pa + KFENCE_POOL_SIZE - 1) & ~(KFENCE_POOL_SIZE - 1);
	if (start > pa)
		free_pages(pa, PFN_DOWN(start - pa));
	free_pages(start + KFENCE_POOL_SIZE, n - PFN_DOWN(start - pa) - KFENCE_POOL_PAGES);
	return start;
}

/*
 * Boot CPU only, before the others start: so the local flush is every
 * CPU's. Default off: no ronx code calls kmalloc on a hot path yet, and
 * the pool costs 2 MiB of a 128 MiB guest and a page table; on, it is
 * one boot option, and a small N (1 in the tests) samples every call.
 */
void __init kfence_init(void)
{
	unsigned long flags, pa;
	enum pg_level level;
	pteval_t *pte;
	int err;

	if (!sample_interval)
		return;
	_Static_assert(KFENCE_POOL_SIZE == PMD_SIZE, "the pool is one page table");
	pa = alloc_pool();
	if (!pa) {
		pr_err("kfence: no 2 MiB for the pool: disabled\n");
		return;
	}
	spin_lock_irqsave(&pgd_lock, flags);
	err = split_large_page((unsigned long)__va(pa));
	for (unsigned long i = 0; !err && i < KFENCE_POOL_PAGES; i++) {
		pte = lookup_address((unsigned long)__va(pa) + i * PAGE_SIZE, &level);
		if (!pte || level != PG_LEVEL_4K)
			err = -EINVAL;
		else
			pool_pte[i] = pte;
	}
	spin_unlock_irqrestore(&pgd_lock, flags);
	if (err) {
		pr_err("kfence: cannot map the pool with 4K ptes (%d): disabled\n", err);
		free_pages(pa, KFENCE_POOL_PAGES);
		return;
	}
	/* every page absent: guards for good, objects until they are allocated */
	for (unsigned long i = 0; i < KFENCE_POOL_PAGES; i++)
		set_pte_present(pool_pte[i], false);
	__flush_tlb_all();
	for (unsigned i = 0; i < KFENCE_NUM_OBJECTS; i++)
		fifo[i] = (uint16_t)i;
	fifo_len = KFENCE_NUM_OBJECTS;
	__kfence_pool = (unsigned long)__va(pa);
	pr_info("kfence: initialized - using %lu bytes for %d objects at 0x%08lx-0x%08lx, sample interval %lu allocations\n",
		KFENCE_POOL_SIZE, KFENCE_NUM_OBJECTS, __kfence_pool,
		__kfence_pool + KFENCE_POOL_SIZE, sample_interval);
}

/* Who, where and when; the stack from the caller's frame on. */
static void save_track(struct kfence_track *t, uint32_t ebp)
{
	t->pid = current ? current->pid : 0;
	t->cpu = smp_processor_id();
	t->when = jiffies;
	t->depth = stack_trace_save_fp(ebp, t->stack, KFENCE_STACK_DEPTH);
}

/* Is this kmalloc the Nth? */
static bool should_sample(void)
{
	return __kfence_pool &&
	       __atomic_add_fetch(&sample_count, 1, __ATOMIC_RELAXED) % sample_interval == 0;
}

static long fifo_take(void)
{
	long obj;

	if (!fifo_len)
		return -1;
	obj = fifo[fifo_head];
	fifo_head = (fifo_head + 1) % KFENCE_NUM_OBJECTS;
	fifo_len--;
	return obj;
}

static void fifo_put(unsigned long obj)
{
	fifo[(fifo_head + fifo_len++) % KFENCE_NUM_OBJECTS] = (uint16_t)obj;
}

/* The guards around an object page absent again, if a report mapped one; true if a flush is due. */
static bool protect_guards(unsigned long page)
{
	bool left = protect(page - 1), right = protect(page + 1);

	return left || right;
}

/*
 * kmalloc sends no shootdown (it may run where call_lock may not be
 * taken): a guard a report mapped is made absent again with this CPU's
 * flush alone. Another CPU's stale entry can only miss a report until
 * its TLB drops it; the object's kfree flushes every CPU.
 */
static void protect_guards_local(unsigned long page)
{
	if (protect_guards(page)) {
		__flush_tlb_one(page_va(page - 1));
		__flush_tlb_one(page_va(page + 1));
	}
}

/* size <= PAGE_SIZE bytes from the pool, if this kmalloc is sampled and an object is free. */
void *kfence_alloc(size_t size, unsigned cache_size)
{
	struct kfence_metadata *m;
	unsigned long flags, page;
	long obj;

	if (size > PAGE_SIZE || !should_sample())
		return 0;
	spin_lock_irqsave(&kfence_lock, flags);
	obj = fifo_take();
	if (obj < 0) {
		kfence_stats.skipped_full++;
		spin_unlock_irqrestore(&kfence_lock, flags);
		return 0;
	}
	m = &meta[obj];
	page = kfence_object_page(obj);
	protect_guards_local(page);
	unprotect(page);
	m->addr = kfence_place(page_va(page), size, next_right++ & 1);
	m->size = size;
	m->cache_size = cache_size;
	m->state = KFENCE_ALLOCATED;
	save_track(&m->alloc, (uint32_t)__builtin_frame_address(0));
	m->free.depth = 0;
	kfence_fill_canary((uint8_t *)page_va(page), (uint8_t *)m->addr);
	memset((void *)m->addr, want_init_on_free() ? 0 : POISON_FREE, size);
	kfence_fill_canary((uint8_t *)m->addr + size, (uint8_t *)page_va(page + 1));
	kfence_stats.allocated++;
	kfence_stats.allocs++;
	spin_unlock_irqrestore(&kfence_lock, flags);
	return (void *)m->addr;
}

/* The object p is in (its page, or a guard's nearest), or NULL. */
static struct kfence_metadata *addr_to_metadata(unsigned long addr)
{
	long obj = kfence_page_object((addr - __kfence_pool) / PAGE_SIZE);

	return obj < 0 ? 0 : &meta[obj];
}

static long meta_index(const struct kfence_metadata *m)
{
	return m - meta;
}

/* Allocator internals at the top of a saved stack are not the caller. */
static bool internal_frame(unsigned long addr)
{
	unsigned long size, off;
	const char *name = kallsyms_lookup(addr - 1, &size, &off);

	return name && (!strncmp(name, "kfence_", 7) || !strcmp(name, "kmalloc") ||
			!strcmp(name, "kzalloc") || !strcmp(name, "kfree"));
}

static void print_stack(const unsigned long *stack, int depth)
{
	char buf[96];
	int i = 0;

	while (i < depth - 1 && internal_frame(stack[i]))
		i++;
	for (; i < depth; i++) {
		sprint_backtrace(buf, sizeof(buf), stack[i]);
		pr_err(" %s\n", buf);
	}
}

static void print_track(const char *what, const struct kfence_track *t)
{
	pr_err("%s by task %d on cpu %d at %lu.%02lus:\n", what, t->pid, t->cpu,
	       t->when / HZ, t->when % HZ * (100 / HZ));
	print_stack(t->stack, t->depth);
}

static void print_object(const struct kfence_metadata *m)
{
	pr_err("kfence-#%ld: 0x%08lx-0x%08lx, size=%lu, cache=kmalloc-%u\n\n", meta_index(m),
	       m->addr, m->addr + m->size - 1, (unsigned long)m->size, m->cache_size);
	print_track("allocated", &m->alloc);
	if (m->state == KFENCE_FREED) {
		pr_err("\n");
		print_track("freed", &m->free);
	}
}

/* "(1B right of kfence-#3)", "(in kfence-#3)" */
static void where_in(char *buf, size_t n, unsigned long addr, const struct kfence_metadata *m)
{
	if (addr < m->addr)
		snprintf(buf, n, "%luB left of kfence-#%ld", m->addr - addr, meta_index(m));
	else if (addr >= m->addr + m->size)
		snprintf(buf, n, "%luB right of kfence-#%ld", addr - (m->addr + m->size - 1),
			 meta_index(m));
	else
		snprintf(buf, n, "in kfence-#%ld", meta_index(m));
}

static const char *const bug_names[] = {
	[KFENCE_ERROR_OOB] = "out-of-bounds", [KFENCE_ERROR_UAF] = "use-after-free",
	[KFENCE_ERROR_INVALID] = "invalid", [KFENCE_ERROR_INVALID_FREE] = "invalid free",
	[KFENCE_ERROR_CORRUPTION] = "memory corruption",
};

static const char *const line_names[] = {
	[KFENCE_ERROR_OOB] = "Out-of-bounds", [KFENCE_ERROR_UAF] = "Use-after-free",
	[KFENCE_ERROR_INVALID] = "Invalid",
};

/* "BUG: KFENCE: out-of-bounds read in FN", under a rule: every report begins so. */
static void report_start(const char *what, const char *fn)
{
	kfence_stats.bugs++;
	pr_err("==================================================================\n");
	pr_err("BUG: KFENCE: %s in %s\n\n", what, fn);
}

/* Linux ends each report with the CPU and task it happened on. */
static void report_end(void)
{
	pr_err("\nCPU: %d PID: %d Comm: %pE\n", smp_processor_id(), current ? current->pid : 0,
	       current ? current->comm : "swapper");
	pr_err("==================================================================\n");
}

/*
 * A fault's report: the stack is the faulting EIP's, then its callers'.
 * kfence_lock held.
 */
static void report_fault(unsigned long addr, const struct trap_frame *f,
			 const struct kfence_metadata *m, enum kfence_error type)
{
	const char *access = (f->error_code & X86_PF_WRITE) ? "write" : "read";
	unsigned long stack[KFENCE_STACK_DEPTH];
	int depth = stack_trace_save_fp(f->ebp, stack, KFENCE_STACK_DEPTH);
	char fn[96], where[48], what[32];

	sprint_symbol(fn, sizeof(fn), f->eip);
	snprintf(what, sizeof(what), "%s %s", bug_names[type], access);
	report_start(what, fn);
	if (m) {
		where_in(where, sizeof(where), addr, m);
		pr_err("%s %s at 0x%08lx (%s):\n", line_names[type], access, addr, where);
	} else {
		pr_err("Invalid %s at 0x%08lx:\n", access, addr);
	}
	pr_err(" %s\n", fn);
	print_stack(stack, depth);
	if (m) {
		pr_err("\n");
		print_object(m);
	}
	report_end();
}

/* Which object a fault at addr in guard page page is about (its neighbours'). */
static struct kfence_metadata *guard_owner(unsigned long addr, unsigned long page)
{
	struct kfence_side side[2] = { { 0 }, { 0 } };
	long obj[2] = { page ? kfence_page_object(page - 1) : -1, kfence_page_object(page + 1) };
	int who;

	for (int i = 0; i < 2; i++)
		if (obj[i] >= 0 && meta[obj[i]].state != KFENCE_UNUSED)
			side[i] = (struct kfence_side){ true, meta[obj[i]].state == KFENCE_ALLOCATED,
							meta[obj[i]].addr,
							meta[obj[i]].addr + meta[obj[i]].size };
	who = kfence_guard_owner(addr, &side[0], &side[1]);
	return who < 0 ? 0 : &meta[obj[who]];
}

/*
 * A kernel page fault at addr: KFENCE's if it is in the pool. Reports,
 * then maps the page so that the access completes when the CPU retries
 * it. Returns false for an address that is not the pool's.
 */
bool kfence_handle_page_fault(unsigned long addr, struct trap_frame *f)
{
	unsigned long flags, page;
	struct kfence_metadata *m;
	enum kfence_error type;

	if (!is_kfence_address((void *)addr))
		return false;
	page = (addr - __kfence_pool) / PAGE_SIZE;
	spin_lock_irqsave(&kfence_lock, flags);
	if (kfence_page_object(page) < 0) {
		m = guard_owner(addr, page);
		type = KFENCE_ERROR_OOB;
	} else {
		m = addr_to_metadata(addr);
		type = m->state == KFENCE_FREED ? KFENCE_ERROR_UAF : KFENCE_ERROR_INVALID;
		if (m->state == KFENCE_UNUSED)
			m = 0;
	}
	if (!m)
		type = KFENCE_ERROR_INVALID;
	report_fault(addr, f, m, type);
	unprotect(page);
	kfence_stats.unprotected++;
	spin_unlock_irqrestore(&kfence_lock, flags);
	return true;
}

/* "[ 0xac . . ]": the 16 bytes from the first bad one, a dot for each intact. */
static void report_corruption(const struct kfence_metadata *m, uint8_t *bad, uint8_t *end,
			      const unsigned long *stack, int depth)
{
	char bytes[16 * 5 + 4], fn[96];
	int n = 0;

	for (uint8_t *p = bad; p < end && p < bad + 16; p++)
		n += snprintf(bytes + n, sizeof(bytes) - n, *p == kfence_canary((unsigned long)p) ?
			      " ." : " 0x%02x", *p);
	sprint_backtrace(fn, sizeof(fn), stack[0]);
	report_start(bug_names[KFENCE_ERROR_CORRUPTION], fn);
	pr_err("Corrupted memory at 0x%08lx [%s ] (in kfence-#%ld):\n", (unsigned long)bad, bytes,
	       meta_index(m));
	print_stack(stack, depth);
	pr_err("\n");
	print_object(m);
	report_end();
}

static void report_invalid_free(unsigned long addr, const struct kfence_metadata *m,
				const unsigned long *stack, int depth)
{
	char fn[96];

	sprint_backtrace(fn, sizeof(fn), stack[0]);
	report_start(bug_names[KFENCE_ERROR_INVALID_FREE], fn);
	pr_err("Invalid free of 0x%08lx (in kfence-#%ld):\n", addr, meta_index(m));
	print_stack(stack, depth);
	pr_err("\n");
	print_object(m);
	report_end();
}

/* The canary on both sides of m's bytes; reported if a byte changed. kfence_lock held. */
static void check_canary(const struct kfence_metadata *m, const unsigned long *stack, int depth)
{
	uint8_t *page = (uint8_t *)(m->addr & PAGE_MASK), *obj = (uint8_t *)m->addr;
	uint8_t *bad = kfence_check_canary(page, obj), *end = obj;

	if (bad == obj) {
		end = page + PAGE_SIZE;
		bad = kfence_check_canary(obj + m->size, end);
	}
	if (bad < end)
		report_corruption(m, bad, end, stack, depth);
}

/* kfree of a pointer in the pool: checked, unmapped, quarantined. */
void kfence_free(const void *p)
{
	unsigned long addr = (unsigned long)p, flags, stack[KFENCE_STACK_DEPTH], page;
	struct kfence_metadata *m = addr_to_metadata(addr);
	int depth = stack_trace_save_fp((uint32_t)__builtin_frame_address(0), stack,
					KFENCE_STACK_DEPTH);
	bool flush = false;
	int skip = 0;

	while (skip < depth - 1 && internal_frame(stack[skip]))
		skip++;
	spin_lock_irqsave(&kfence_lock, flags);
	if (!m || m->state != KFENCE_ALLOCATED || addr != m->addr) {
		if (m && m->state != KFENCE_UNUSED)
			report_invalid_free(addr, m, stack + skip, depth - skip);
		else
			pr_err("kfence: kfree of 0x%08lx: no KFENCE object there\n", addr);
		spin_unlock_irqrestore(&kfence_lock, flags);
		return;
	}
	check_canary(m, stack + skip, depth - skip);
	if (want_init_on_free())
		memset((void *)m->addr, 0, m->size);
	m->state = KFENCE_FREED;
	save_track(&m->free, (uint32_t)__builtin_frame_address(0));
	page = (addr - __kfence_pool) / PAGE_SIZE;
	flush = protect(page);
	flush |= protect_guards(page);	/* put back, if a report mapped one */
	fifo_put(meta_index(m));
	kfence_stats.allocated--;
	kfence_stats.frees++;
	spin_unlock_irqrestore(&kfence_lock, flags);
	if (flush)
		flush_tlb_kernel_range(page_va(page - 1), page_va(page + 2));
}

/* A KFENCE object's size is what kmalloc was asked for (as Linux's ksize()). */
size_t kfence_ksize(const void *p)
{
	struct kfence_metadata *m = addr_to_metadata((unsigned long)p);

	return m && m->state == KFENCE_ALLOCATED && m->addr == (unsigned long)p ? m->size : 0;
}

/*
 * Where p lies in its KFENCE object, for hardened usercopy's heap check:
 * the offset from the object's first byte (wrapped if p is before it) and
 * the size class it was sampled from, whose size Linux's check allows a
 * copy. False for a guard or a free object's page: the copy faults there
 * and gets KFENCE's own report.
 */
bool kfence_object_extent(const void *p, unsigned long *offset, unsigned *cache_size)
{
	struct kfence_metadata *m = addr_to_metadata((unsigned long)p);

	if (!m || m->state != KFENCE_ALLOCATED || ((unsigned long)p & PAGE_MASK) != (m->addr & PAGE_MASK))
		return false;
	*offset = (unsigned long)p - m->addr;
	*cache_size = m->cache_size;
	return true;
}

/* "kfence-#3 0xc7a03fe0 page 0xc7a03000 guards 0xc7a02000 0xc7a04000 phys 0x07a03000" */
const char *kfence_object_info(const void *p, char *buf, size_t size)
{
	struct kfence_metadata *m = is_kfence_address(p) ? addr_to_metadata((unsigned long)p) : 0;
	unsigned long page = (unsigned long)p & PAGE_MASK;

	if (!m)
		snprintf(buf, size, "not a KFENCE object");
	else
		snprintf(buf, size, "kfence-#%ld at 0x%08lx, page 0x%08lx, guards 0x%08lx 0x%08lx, phys 0x%08lx",
			 meta_index(m), (unsigned long)p, page, page - PAGE_SIZE, page + PAGE_SIZE,
			 __pa(page));
	return buf;
}

/* Linux's /sys/kernel/debug/kfence/stats, and the pool. */
static int cmd_kfence(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cprintf("enabled: %d\n", __kfence_pool != 0);
	cprintf("sample interval: %lu allocations\n", kfence_sample_interval());
	if (__kfence_pool)
		cprintf("pool: 0x%08lx-0x%08lx (%d objects)\n", __kfence_pool,
			__kfence_pool + KFENCE_POOL_SIZE, KFENCE_NUM_OBJECTS);
	cprintf("currently allocated: %lu\n", kfence_stats.allocated);
	cprintf("total allocations: %lu\n", kfence_stats.allocs);
	cprintf("total frees: %lu\n", kfence_stats.frees);
	cprintf("skipped allocations (pool full): %lu\n", kfence_stats.skipped_full);
	cprintf("total bugs: %lu\n", kfence_stats.bugs);
	cprintf("pages mapped again after a report: %lu\n", kfence_stats.unprotected);
	return 0;
}
SHELL_COMMAND("kfence", cmd_kfence, "kfence",
	      "KFENCE's pool and counters (Linux: /sys/kernel/debug/kfence/stats)");
