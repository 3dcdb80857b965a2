// SPDX-License-Identifier: GPL-2.0-only
/*
 * Starting the other CPUs (Linux: arch/x86/kernel/smpboot.c, do_boot_cpu()).
 *
 * The MADT lists the CPUs by APIC id. For each one, in turn: a stack and
 * a struct cpu; the trampoline's header filled with the boot CPU's
 * control registers; INIT, STARTUP, STARTUP; then a wait for the CPU to
 * say it is online. A CPU that does not answer in time is reported and
 * left out. The trampoline's low page is mapped executable (RO+X, at its
 * own physical address) only while CPUs start, then unmapped, with a TLB
 * shootdown, so that no CPU keeps the translation.
 *
 * Boot options (Linux's): "nosmp" starts no other CPU, "maxcpus=N" at most
 * N CPUs in all. Debug: "smpboot_fail=N" sends CPU N no STARTUP, so that
 * it never answers: the boot reports it and goes on without it.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/kstrtox.h>
#include <ronx/bootinfo.h>
#include <ronx/e820.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/irq.h>
#include <ronx/acpi.h>
#include <ronx/apic.h>
#include <ronx/shell.h>
#include <ronx/spinlock.h>
#include <ronx/smp.h>
#include <ronx/sched.h>
#include <ronx/fpu.h>

#define AP_STACK_PAGES		4		/* 16K: the idle loop, IPIs, an oops */
#define CALLIN_TIMEOUT_MS	2000		/* Linux waits 5 s; QEMU answers in < 1 ms */

volatile cpumask_t cpu_online_mask = 1;	/* the boot CPU, from the start */
int nr_cpus_present = 1;

static bool nosmp;
static unsigned int max_cpus = NR_CPUS;
static int fail_cpu = -1;

static int __init parse_nosmp(const char *val)
{
	nosmp = true;
	return val ? -EINVAL : 0;
}
BOOT_PARAM("nosmp", parse_nosmp, "no value");

static int __init parse_maxcpus(const char *val)
{
	return val ? kstrtouint(val, 10, &max_cpus) : -EINVAL;
}
BOOT_PARAM("maxcpus", parse_maxcpus, "a number of CPUs");

static int __init parse_smpboot_fail(const char *val)
{
	unsigned int n;

	if (!val || kstrtouint_range(val, 1, NR_CPUS - 1, &n))
		return -EINVAL;
	fail_cpu = (int)n;
	return 0;
}
BOOT_PARAM("smpboot_fail", parse_smpboot_fail, "a CPU number from 1 to 7");

/* The trampoline (boot/trampoline.asm) and its header's layout. */
extern const char trampoline_start[], trampoline_end[], trampoline_header[];
extern const char tr_gdt_desc[], tr_protected[], tr_gdt[];

struct trampoline_header {
	uint32_t cr0, cr3, cr4;
	uint64_t efer;
	uint32_t stack, cpu, entry;
	uint32_t far_offset;
	uint16_t far_selector;
} __attribute__((packed));

struct cpu_regs {
	uint32_t cr0, cr3, cr4;
	uint64_t efer;
};

extern unsigned char nx_supported;
static unsigned long trampoline_phys;
static struct cpu_regs boot_regs, ap_regs[NR_CPUS];

static void read_regs(struct cpu_regs *r)
{
	r->cr0 = read_cr0();
	r->cr3 = read_cr3();
	r->cr4 = read_cr4();
	r->efer = nx_supported ? rdmsr(MSR_EFER) : 0;
}

/*
 * Where a started CPU arrives from the trampoline, on its own stack, with
 * the kernel's page tables. It gets its own GDT, TSS and %fs (cpu_init),
 * its FPU set up as the boot CPU's (fpu_init_cpu), the IDT and its APIC,
 * says it is online, and becomes one more CPU the scheduler runs tasks on
 * (kernel/sched.c), on this same stack.
 */
void __noreturn start_secondary(struct cpu *c)
{
	load_idt();
	cpu_init(c, c->id);
	fpu_init_cpu();
	setup_local_APIC(false);
	read_regs(&ap_regs[c->id]);
	__atomic_fetch_or(&cpu_online_mask, 1UL << c->id, __ATOMIC_SEQ_CST);
	scheduler();
}

/* Copies the trampoline to its low page and maps that page at its own address. */
static int __init setup_trampoline(void)
{
	unsigned long size = (unsigned long)(trampoline_end - trampoline_start);
	uint64_t avoid[MAX_BOOT_MODS + 1][2];
	int n = 0;
	char *page;

	avoid[n][0] = boot_info.info_start;
	avoid[n++][1] = boot_info.info_end;
	for (int i = 0; i < boot_info.nr_mods; i++, n++) {
		avoid[n][0] = boot_info.mods[i].start;
		avoid[n][1] = boot_info.mods[i].end;
	}
	trampoline_phys = (unsigned long)e820_find_low_page(boot_info.mmap, boot_info.nr_mmap,
							    PAGE_SIZE, BIOS_BEGIN,
							    (const uint64_t (*)[2])avoid, n);
	if (!trampoline_phys || size > PAGE_SIZE) {
		pr_err("smpboot: no free RAM page below 640K for the trampoline\n");
		return -ENOMEM;
	}
	page = __va(trampoline_phys);
	memcpy(page, trampoline_start, size);
	*(uint32_t *)(page + (tr_gdt_desc - trampoline_start) + 2) =
		trampoline_phys + (uint32_t)(tr_gdt - trampoline_start);
	/* RO+X, supervisor, not global: only the starting CPU fetches from it */
	if (map_page(trampoline_phys, trampoline_phys, _PAGE_PRESENT)) {
		pr_err("smpboot: cannot map the trampoline\n");
		return -ENOMEM;
	}
	return 0;
}

/* The identity mapping goes, on every CPU (unmap_page() shoots it down). */
static void __init teardown_trampoline(void)
{
	unmap_page(trampoline_phys);
	pr_info("smpboot: trampoline at %#lx unmapped on every CPU; its page is RW+NX in the direct map only\n",
		trampoline_phys);
}

static void __init fill_header(struct cpu *c)
{
	struct trampoline_header *h = __va(trampoline_phys + (trampoline_header - trampoline_start));

	h->cr0 = boot_regs.cr0;
	h->cr3 = boot_regs.cr3;
	h->cr4 = boot_regs.cr4;
	h->efer = boot_regs.efer;
	h->stack = (uint32_t)c->stack_top;
	h->cpu = (uint32_t)c;
	h->entry = (uint32_t)start_secondary;
	h->far_offset = trampoline_phys + (uint32_t)(tr_protected - trampoline_start);
	h->far_selector = KERNEL_CS;
	__asm__ volatile("" : : : "memory");
}

/* Linux's smp_quirk_init_udelay(): CPUs since the Pentium Pro need no 10 ms after INIT. */
static unsigned long __init init_udelay(void)
{
	uint32_t a, b, c, d, family;

	cpuid(1, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	return family >= 6 ? 0 : 10000;
}

/* INIT, STARTUP, STARTUP (Intel's MP spec, B.4), as Linux's wakeup_secondary_cpu_via_init(). */
static void __init wakeup_secondary_cpu(struct cpu *c, bool send_startup)
{
	unsigned long delay = init_udelay();

	apic_send_init(c->apic_id);
	udelay(delay ? delay : 10);
	if (!send_startup)
		return;
	for (int j = 0; j < 2; j++) {
		apic_write(APIC_ESR, 0);
		apic_send_startup(c->apic_id, trampoline_phys);
		udelay(delay ? 300 : 10);
	}
}

static bool __init wait_for_callin(int id)
{
	for (unsigned i = 0; i < CALLIN_TIMEOUT_MS * 10; i++) {
		if (cpu_online(id))
			return true;
		udelay(100);
	}
	return cpu_online(id);
}

static const char *__init regs_differ(const struct cpu_regs *r)
{
	if (r->cr0 != boot_regs.cr0)
		return "CR0";
	if (r->cr3 != boot_regs.cr3)
		return "CR3";
	if (r->cr4 != boot_regs.cr4)
		return "CR4";
	if (r->efer != boot_regs.efer)
		return "EFER";
	return 0;
}

/* Starts CPU id (cpus[id].apic_id set); false if it did not answer (its id stays unused). */
static bool __init do_boot_cpu(int id)
{
	struct cpu *c = &cpus[id];
	unsigned long stack = alloc_pages(AP_STACK_PAGES);
	const struct cpu_regs *r = &ap_regs[id];
	const char *differs;

	if (!stack) {
		pr_err("smpboot: CPU %d APIC %#x: no memory for its stack; not started\n", id,
		       c->apic_id);
		return false;
	}
	c->id = id;
	c->stack_top = (unsigned long)__va(stack) + AP_STACK_PAGES * PAGE_SIZE;
	fill_header(c);
	wakeup_secondary_cpu(c, id != fail_cpu);
	if (!wait_for_callin(id)) {
		pr_err("smpboot: CPU %d APIC %#x ... not responding after %d ms%s; going on without it\n",
		       id, c->apic_id, CALLIN_TIMEOUT_MS,
		       id == fail_cpu ? " (smpboot_fail: it was sent no STARTUP)" : "");
		/* back to waiting for a STARTUP: a late start must not use the next CPU's stack */
		apic_send_init(c->apic_id);
		free_pages(stack, AP_STACK_PAGES);
		c->stack_top = 0;
		return false;
	}
	differs = regs_differ(r);
	printk(differs ? KERN_ERR : KERN_INFO
	       "smpboot: CPU %d APIC %#x ... ok: CR0 %08x CR3 %08x CR4 %08x EFER %08llx%s%s\n",
	       id, c->apic_id, r->cr0, r->cr3, r->cr4, (unsigned long long)r->efer,
	       differs ? ", differs from the boot CPU in " : " (as the boot CPU)",
	       differs ? differs : "");
	return true;
}

static int __init enabled_cpus(const struct madt_info *mi)
{
	int n = mi->nr_dropped;

	for (int i = 0; i < mi->nr_cpus; i++)
		n += mi->cpu[i].enabled;
	return n;
}

/* Why only the boot CPU runs, or 0 if the others may start; counts the CPUs. */
static const char *__init up_reason(struct madt_info *mi)
{
	if (!boot_cpu_has_apic())
		return "this CPU has no local APIC (CPUID 1 EDX bit 9)";
	if (acpi_find_madt(mi))
		return "no ACPI MADT lists the CPUs";
	nr_cpus_present = enabled_cpus(mi);
	if (nosmp)
		return "nosmp on the command line";
	if (max_cpus <= 1)
		return "maxcpus=1 or less on the command line";
	if (nr_cpus_present <= 1)
		return "the MADT lists one CPU";
	return 0;
}

void __init smp_init(void)
{
	static struct madt_info mi __initdata;
	const char *why;
	uint32_t self;
	int next = 1;

	pr_info("smp: Bringing up secondary CPUs ...\n");
	why = up_reason(&mi);
	if (why || setup_trampoline()) {
		if (why && nr_cpus_present > 1)
			pr_info("smp: %s: the other %d CPUs stay halted\n", why, nr_cpus_present - 1);
		else if (why)
			pr_info("smp: %s\n", why);
		pr_info("smp: Brought up 1 node, 1 CPU\n");
		return;
	}
	apic_map(mi.lapic_address);
	setup_local_APIC(true);
	set_apic_vector_handler(CALL_FUNCTION_VECTOR, smp_call_function_ipi);
	set_apic_vector_handler(RESCHEDULE_VECTOR, smp_reschedule_ipi);
	set_apic_vector_handler(LOCAL_TIMER_VECTOR, smp_apic_timer_interrupt);
	calibrate_APIC_clock();
	self = read_apic_id();
	cpus[0].apic_id = self;
	read_regs(&boot_regs);
	for (int i = 0; i < mi.nr_cpus; i++) {
		if (!mi.cpu[i].enabled || mi.cpu[i].apic_id == self)
			continue;
		if (next >= NR_CPUS || (unsigned)next >= max_cpus) {
			pr_info("smpboot: CPU APIC %#x not started: %s\n", mi.cpu[i].apic_id,
				next >= NR_CPUS ? "ronx is built for 8 CPUs (NR_CPUS)" :
				"maxcpus on the command line");
			continue;
		}
		cpus[next].apic_id = mi.cpu[i].apic_id;
		do_boot_cpu(next++);
	}
	teardown_trampoline();
	pr_info("smp: Brought up 1 node, %d CPU%s\n", num_online_cpus(),
		num_online_cpus() == 1 ? "" : "s");
}

/* An online CPU other than this one (the self-tests' and demos' partner), or -1. */
int other_online_cpu(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			return cpu;
	return -1;
}

/* What each CPU's control registers are now, read on that CPU. */
static struct cpu_regs now_regs[NR_CPUS];

static void read_regs_here(void *info)
{
	(void)info;
	read_regs(&now_regs[smp_processor_id()]);
}

/* The task each CPU runs now, copied under tasks_lock (it may exit while we print). */
static struct {
	int pid;			/* -1: idle */
	char comm[TASK_COMM_LEN];
} now_task[NR_CPUS];

static void read_current_tasks(void)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct task *t = cpus[cpu].current_task;

		now_task[cpu].pid = t ? t->pid : -1;
		if (t)
			memcpy(now_task[cpu].comm, t->comm, TASK_COMM_LEN);
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
}

static int cmd_cpus(int argc, char **argv)
{
	int cpu;

	(void)argc;
	(void)argv;
	on_each_cpu(read_regs_here, 0, true);
	read_current_tasks();
	cprintf("CPU  APIC  CR0       CR3       CR4       EFER      shootdowns  calls run  runs\n");
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct cpu_regs *r = &now_regs[cpu];
		const struct cpu *c = &cpus[cpu];

		if (!cpu_online(cpu)) {
			if (cpu && c->apic_id)
				cprintf("%3d  %#4x  (did not answer at boot)\n", cpu, c->apic_id);
			continue;
		}
		cprintf("%3d  %#4x  %08x  %08x  %08x  %08llx  %10lu  %9lu  ", cpu, c->apic_id,
			r->cr0, r->cr3, r->cr4, (unsigned long long)r->efer, c->tlb.shootdowns,
			c->tlb.ipis_received);
		if (now_task[cpu].pid >= 0)
			cprintf("%pE[%d]%s\n", now_task[cpu].comm, now_task[cpu].pid,
				cpu == smp_processor_id() ? " (this shell)" : "");
		else
			cprintf("idle\n");
	}
	cprintf("%d CPU%s online; the firmware lists %d\n", num_online_cpus(),
		num_online_cpus() == 1 ? "" : "s", nr_cpus_present);
	return 0;
}
SHELL_COMMAND("cpus", cmd_cpus, "cpus",
	      "each CPU: APIC id, CR0/CR3/CR4/EFER read on it now, shootdowns, the task it runs");
