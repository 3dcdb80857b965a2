// SPDX-License-Identifier: GPL-2.0-only
/*
 * The boot sequence. start_kernel() lives in .init.text and is freed with
 * the rest of init memory, so it hands over to rest_init(), which is
 * ordinary text, before free_initmem() runs (Linux: init_post()).
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/console.h>
#include <ronx/cmdline.h>
#include <ronx/bootinfo.h>
#include <ronx/traps.h>
#include <ronx/mm.h>
#include <ronx/x86.h>
#include <ronx/shell.h>
#include <ronx/init.h>
#include <ronx/image_test.h>
#include <ronx/initrd.h>
#include <ronx/module.h>
#include <ronx/pcbios.h>
#include <ronx/pageattr.h>
#include <ronx/percpu.h>
#include <ronx/irq.h>
#include <ronx/smp.h>
#include <ronx/smap.h>
#include <ronx/sched.h>
#include <ronx/fpu.h>
#include <ronx/kaslr.h>
#include <ronx/pti.h>
#include <ronx/umip.h>
#include <ronx/cpu_entry_area.h>
#include <ronx/vmap_stack.h>
#include <ronx/stackprotector.h>
#include <ronx/slab.h>
#include <ronx/kfence.h>

extern const struct boot_param __start_boot_params[], __stop_boot_params[];

static void __init report_param_error(const char *msg)
{
	pr_warn("ronx: %s\n", msg);
}

static void __init parse_boot_params(void)
{
	static char __initdata args[sizeof(boot_command_line)];

	memcpy(args, boot_command_line, sizeof(args));
	parse_args(args, __start_boot_params, __stop_boot_params, report_param_error);
}

/* The boot CPU's scheduler runs here; the boot stack becomes the shell's. */
static char sched_stack[4096] __aligned(16);
extern char boot_stack_top[];
#define BOOT_STACK_SIZE	16384	/* boot/entry.asm */

/* The shell, a task (pid 0) on the boot stack's guarded alias. */
static void __noreturn shell_start(unsigned long stack)
{
	sched_start("shell", stack, BOOT_STACK_SIZE, sched_stack, sizeof(sched_stack));
	printk(KERN_INFO "ronx: ready\n");
	shell_run();
}

/*
 * The end of boot: the code running now becomes the shell, a task (pid 0)
 * on the boot stack, and this CPU gets a scheduler on a stack of its own,
 * which runs the shell, the processes it starts, and waits with interrupts
 * on when none can run (Linux: rest_init() starts kernel_init, then this
 * CPU idles).
 */
static noinline void __noreturn rest_init(void)
{
	unsigned long stack;

	print_policy();
	wx_plant();
	/*
	 * The boot stack's frames again in the stack area, below a guard page
	 * (mm/vmap_stack.c), and the shell on them from their top: what boot
	 * left there is never returned to. Mapped before init is freed, so
	 * that the area's page table is not made of a freed init page: those
	 * stay int3-poisoned until a process or a module needs them.
	 */
	stack = map_thread_stack(__pa(boot_stack_top - BOOT_STACK_SIZE), BOOT_STACK_SIZE);
	if (!stack)
		refuse_boot(KERN_ERR "ronx: cannot boot: no page table for the kernel stack area\n");
	free_initmem();
	mark_rodata_ro();
	module_autoload();
	__asm__ volatile("mov %0, %%esp\n\t"
			 "push %1\n\t"
			 "call *%2\n\t"
			 "ud2"
			 : : "r"(stack + BOOT_STACK_SIZE), "r"(stack), "r"(shell_start) : "memory");
	__builtin_unreachable();
}

/*
 * Never returns: its frame's copy of the canary, taken before
 * boot_init_stack_canary() sets it, is never compared.
 */
void __init __noreturn start_kernel(uint32_t magic, uint32_t info)
{
	boot_init_stack_canary();
	cpu_init(&cpus[0], 0);		/* GDT, TSS, %fs: this_cpu() works from here */
	serial_init();
	vga_init();
	if (parse_multiboot(magic, info)) {
		pr_err("ronx: not started by a multiboot loader (magic %08x)\n", magic);
		halt_forever();
	}
	pr_info("ronx: a 32-bit PAE teaching kernel, booted by %s\n", boot_info.loader);
	pr_info("Command line: %s\n", boot_command_line);
	kaslr_report();
	if (!boot_info.nr_mmap)
		refuse_boot(KERN_ERR "ronx: cannot boot: %s gave no memory map (%s); ronx needs one to know where RAM is\n",
			    boot_info.loader, boot_info.mmap_source);
	if (boot_info.mmap_dropped)
		pr_warn("ronx: the memory map has %d entries beyond the %d ronx keeps: ignored\n",
			boot_info.mmap_dropped, MAX_MMAP);
	parse_boot_params();
	x86_configure_nx();
	x86_report_nx();
	setup_smep_smap();
	setup_umip();
	fpu_init();
	trap_init();
	init_8259A();
	time_init();
	serial_init_irq();
	page_alloc_init();
	paging_init();
	kmem_cache_init();
	kfence_init();		/* one CPU: its flush is every CPU's */
	setup_cpu_entry_areas();	/* GDT, TSS, IDT at a fixed address */
	initrd_init();
	sort_kernel_exports();
	ro_after_init_test_boot();
	pcibios_init();
	pti_init();		/* before the APs copy CR4 */
	syscall_gate_init();	/* PTI or not decides int $0x80's gate */
	smp_init();
	rest_init();
}
