// SPDX-License-Identifier: GPL-2.0-only
/*
 * Power off. Under the test runner QEMU has an isa-debug-exit device at
 * port 0xf4: writing v makes QEMU exit with status (v << 1) | 1. Without
 * it, the PIIX4 ACPI power-off register that SeaBIOS sets up at 0x604
 * ends a plain "make run" QEMU.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/shell.h>
#include <ronx/init.h>

#define ISA_DEBUG_EXIT_PORT	0xf4
#define PIIX4_PM1A_CNT		0x604
#define SLP_EN			0x2000

void poweroff(int code)
{
	pr_info("ronx: power off\n");
	outb(ISA_DEBUG_EXIT_PORT, (uint8_t)code);
	outw(PIIX4_PM1A_CNT, SLP_EN);
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

static int cmd_poweroff(int argc, char **argv)
{
	int code = 0;

	if (argc > 1) {
		for (const char *p = argv[1]; *p; p++) {
			if (*p < '0' || *p > '9' || code > 100) {
				cprintf("poweroff: exit code must be a number 0-127, not '%s'\n",
					argv[1]);
				return -EINVAL;
			}
			code = code * 10 + (*p - '0');
		}
	}
	poweroff(code);
}
SHELL_COMMAND("poweroff", cmd_poweroff, "poweroff [CODE]",
	      "stop the machine (QEMU exits with (CODE << 1) | 1)");
