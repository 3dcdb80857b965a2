// SPDX-License-Identifier: GPL-2.0-only
/*
 * Power off. Under the test runner QEMU has an isa-debug-exit device at
 * port 0xf4: writing v makes QEMU exit with status (v << 1) | 1. Without
 * it, the PIIX4 ACPI power-off register that SeaBIOS sets up at 0x604
 * ends a plain "make run" QEMU. Bochs's BIOS puts that register elsewhere
 * (0xb004), and Bochs has no isa-debug-exit: it ends when the string
 * "Shutdown" is written to its shutdown port 0x8900. On a machine where a
 * port is not decoded the write does nothing, so trying all three is safe.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/shell.h>
#include <ronx/init.h>
#include <ronx/kstrtox.h>

#define ISA_DEBUG_EXIT_PORT	0xf4
#define PIIX4_PM1A_CNT		0x604
#define SLP_EN			0x2000
#define BOCHS_SHUTDOWN_PORT	0x8900

static void bochs_shutdown(void)
{
	for (const char *p = "Shutdown"; *p; p++)
		outb(BOCHS_SHUTDOWN_PORT, (uint8_t)*p);
}

void poweroff(int code)
{
	pr_info("ronx: power off\n");
	outb(ISA_DEBUG_EXIT_PORT, (uint8_t)code);
	outw(PIIX4_PM1A_CNT, SLP_EN);
	bochs_shutdown();
	halt_forever();
	__builtin_unreachable();
}

/*
 * A machine ronx cannot run on: one line saying why, then stop. Under the
 * test runner QEMU exits with status 7 (boot/cpucheck.asm, which refuses a
 * CPU without PAE, uses the same code); on a plain machine, halt with
 * interrupts off (the ACPI power-off would hide the line).
 */
void refuse_boot(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	outb(ISA_DEBUG_EXIT_PORT, BOOT_REFUSED);
	halt_forever();
	__builtin_unreachable();
}

/* isa-debug-exit makes the status (CODE << 1) | 1: above 127 it no longer fits */
#define POWEROFF_CODE_MAX	127

static int cmd_poweroff(int argc, char **argv)
{
	unsigned int code = 0;

	if (argc > 2) {
		cprintf("usage: poweroff [CODE]\n");
		return -EINVAL;
	}
	if (argc == 2) {
		int ret = kstrtouint_range(argv[1], 0, POWEROFF_CODE_MAX, &code);

		if (ret == -ERANGE) {
			cprintf("poweroff: exit code %s is out of range 0-%u\n", argv[1],
				POWEROFF_CODE_MAX);
			return ret;
		}
		if (ret) {
			cprintf("poweroff: exit code must be a number 0-%u, not '%s'\n",
				POWEROFF_CODE_MAX, argv[1]);
			return ret;
		}
	}
	poweroff((int)code);
}
SHELL_COMMAND("poweroff", cmd_poweroff, "poweroff [CODE]",
	      "stop the machine; CODE 0-127 (QEMU exits with (CODE << 1) | 1)");
