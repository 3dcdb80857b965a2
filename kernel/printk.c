// SPDX-License-Identifier: GPL-2.0-only
/*
 * printk: format, strip the log level, keep the line in the dmesg ring
 * buffer and show it on the consoles if its level is important enough.
 *
 * One lock, console_lock, covers the ring, the format buffers and the
 * consoles, so lines from different CPUs never mix. It is the innermost
 * lock (anyone may print while holding another) and it nests on the CPU
 * that holds it: an oops raised while that CPU prints can still print.
 */
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/console.h>
#include <ronx/export.h>
#include <ronx/spinlock.h>

#define LOG_BUF_LEN	(32 * 1024)

/* Ring of records "<level char><text>\n"; the oldest lines are dropped. */
static char log_buf[LOG_BUF_LEN];
static size_t log_head, log_len;	/* start of oldest record, bytes used */
static int console_loglevel = 7;	/* show everything but KERN_DEBUG */
static int console_quiet;		/* console_set_quiet(): errors and worse only */

static DEFINE_SPINLOCK(console_lock);
static int console_depth;		/* nesting on the CPU that holds it */

unsigned long console_lock_irqsave(void)
{
	unsigned long flags = arch_local_irq_save();

	if (spin_is_locked_by_me(&console_lock)) {
		console_depth++;
	} else {
		spin_lock(&console_lock);
		console_depth = 1;
	}
	return flags;
}

void console_unlock_irqrestore(unsigned long flags)
{
	if (--console_depth == 0)
		spin_unlock(&console_lock);
	arch_local_irq_restore(flags);
}

/*
 * For a loop that takes console_lock again and again (write() takes it
 * once a line): if another CPU spins for it, wait until that CPU has it
 * before taking it again. The lock is not fair, and without this the
 * shell's echo on another CPU waited 3.6 s for it once. Bounded: a
 * waiter that gave up its spin leaves a stale count.
 */
#define HANDOVER_SPINS	100000

void console_handover(void)
{
	for (int i = 0; i < HANDOVER_SPINS && spin_is_contended(&console_lock); i++)
		cpu_relax();
}

static void log_putc(char c)
{
	if (log_len == LOG_BUF_LEN) {
		/* full: drop the oldest record whole */
		while (log_len && log_buf[log_head] != '\n') {
			log_head = (log_head + 1) % LOG_BUF_LEN;
			log_len--;
		}
		if (log_len) {
			log_head = (log_head + 1) % LOG_BUF_LEN;
			log_len--;
		}
	}
	log_buf[(log_head + log_len) % LOG_BUF_LEN] = c;
	log_len++;
}

int printk_get_level(const char *s)
{
	if (s[0] == KERN_SOH[0] && s[1] >= '0' && s[1] <= '7')
		return s[1] - '0';
	return -1;
}

static void log_store(int level, const char *text, size_t n)
{
	log_putc((char)('0' + level));
	for (size_t i = 0; i < n; i++)
		log_putc(text[i]);
	log_putc('\n');
}

int vprintk(const char *fmt, va_list ap)
{
	static char buf[1024];
	const char *p = buf;
	int level = LOGLEVEL_DEFAULT;
	unsigned long flags = console_lock_irqsave();
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (printk_get_level(p) >= 0) {
		level = printk_get_level(p);
		p += 2;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		log_store(level, p, len);
		if (level < (console_quiet ? LOGLEVEL_WARNING : console_loglevel)) {
			console_write(p, len);
			console_write("\n", 1);
		}
		p += len + (nl ? 1 : 0);
	}
	console_unlock_irqrestore(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

EXPORT_SYMBOL(printk);

/* Calls out() once per stored line, oldest first. */
void log_dump(void (*out)(const char *line, int level))
{
	static char line[1024];
	unsigned long flags = console_lock_irqsave();
	size_t n = 0;

	for (size_t i = 0; i < log_len; i++) {
		char c = log_buf[(log_head + i) % LOG_BUF_LEN];

		if (c != '\n') {
			if (n < sizeof(line) - 1)
				line[n++] = c;
			continue;
		}
		line[n] = '\0';
		if (n)
			out(line + 1, line[0] - '0');
		n = 0;
	}
	console_unlock_irqrestore(flags);
}

int cprintf(const char *fmt, ...)
{
	static char buf[1024];
	unsigned long flags = console_lock_irqsave();
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!console_quiet)
		console_write(buf, strlen(buf));
	console_unlock_irqrestore(flags);
	return n;
}

/*
 * A stress run (walkstress) runs commands thousands of times: their
 * answers (cprintf) and anything below KERN_WARNING stay off the console
 * meanwhile, which still shows an oops or a BUG line at once.
 */
void console_set_quiet(bool quiet)
{
	unsigned long flags = console_lock_irqsave();

	console_quiet = quiet;
	console_unlock_irqrestore(flags);
}
