// SPDX-License-Identifier: GPL-2.0-only
/*
 * vsnprintf: the subset of printf the kernel uses. Pure (host-tested).
 * Conversions: d i u x X o c s p %, flags '-' '0' '+' ' ' '#', width and
 * precision (also '*'), length modifiers hh h l ll z.
 *
 * %pE: a string of someone else's choosing (a process's name), escaped so
 * that it cannot move the cursor, end the line or start a fake one (Linux:
 * %pE, string_escape_mem() with ESCAPE_ANY_NP). Printable ASCII as it is;
 * \n \r \t \v \f \a \e for those; any other byte, 0x80-0xff too, as
 * three octal digits (\033 would be ESC, but that one is \e). A backslash
 * stays as it is, as in Linux's. A width pads what is printed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <ronx/printk.h>

struct outbuf {
	char *buf;
	size_t size;
	size_t len;		/* what would have been written */
};

static void put(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct outbuf *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left, zero, plus, space, alt;
	int width, prec;	/* prec < 0: none given */
};

static void put_string(struct outbuf *o, const char *s, const struct spec *sp)
{
	int n = 0;

	if (!s)
		s = "(null)";
	while (s[n] && (sp->prec < 0 || n < sp->prec))
		n++;
	if (!sp->left)
		pad(o, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (sp->left)
		pad(o, ' ', sp->width - n);
}

/* The escape for one byte of a %pE string into out (at most 4 bytes); its length. */
static int escape_byte(unsigned char c, char *out)
{
	static const char special[] = "\nn\rr\tt\vv\ff\aa\033e";

	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		return 1;
	}
	for (int i = 0; special[i]; i += 2) {
		if ((unsigned char)special[i] == c) {
			out[0] = '\\';
			out[1] = special[i + 1];
			return 2;
		}
	}
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + ((c >> 3) & 7));
	out[3] = (char)('0' + (c & 7));
	return 4;
}

static void put_escaped(struct outbuf *o, const char *s, const struct spec *sp)
{
	char e[4];
	int n = 0, len = 0;

	if (!s)
		s = "(null)";
	while (s[n] && (sp->prec < 0 || n < sp->prec))
		len += escape_byte((unsigned char)s[n++], e);
	if (!sp->left)
		pad(o, ' ', sp->width - len);
	for (int i = 0; i < n; i++) {
		int k = escape_byte((unsigned char)s[i], e);

		for (int j = 0; j < k; j++)
			put(o, e[j]);
	}
	if (sp->left)
		pad(o, ' ', sp->width - len);
}

static void put_number(struct outbuf *o, unsigned long long v, bool neg,
		       unsigned base, bool upper, const struct spec *sp)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, sign = 0, prefix = 0, zeros;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (sp->prec == 0 && n == 1 && tmp[0] == '0')
		n = 0;
	if (neg || sp->plus || sp->space)
		sign = 1;
	if (sp->alt && base == 16)
		prefix = 2;
	zeros = sp->prec > n ? sp->prec - n : 0;
	if (sp->zero && !sp->left && sp->prec < 0)
		zeros = sp->width - n - sign - prefix;
	if (zeros < 0)
		zeros = 0;
	if (!sp->left)
		pad(o, ' ', sp->width - n - sign - prefix - zeros);
	if (sign)
		put(o, neg ? '-' : sp->plus ? '+' : ' ');
	if (prefix) {
		put(o, '0');
		put(o, upper ? 'X' : 'x');
	}
	pad(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	/* left-justified padding is added by the caller, which knows the start */
}

static int parse_int(const char **fmt)
{
	int v = 0;

	while (**fmt >= '0' && **fmt <= '9')
		v = v * 10 + (*(*fmt)++ - '0');
	return v;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		struct spec sp = { .prec = -1 };
		int lng = 0;
		size_t start;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		for (;;) {
			char c = *++fmt;
			if (c == '-') sp.left = true;
			else if (c == '0') sp.zero = true;
			else if (c == '+') sp.plus = true;
			else if (c == ' ') sp.space = true;
			else if (c == '#') sp.alt = true;
			else break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = -sp.width;
			}
			fmt++;
		} else {
			sp.width = parse_int(&fmt);
		}
		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				sp.prec = va_arg(ap, int);
				fmt++;
			} else {
				sp.prec = parse_int(&fmt);
			}
		}
		while (*fmt == 'l' || *fmt == 'h' || *fmt == 'z') {
			if (*fmt == 'l' || *fmt == 'z')
				lng += *fmt == 'z' ? (sizeof(size_t) == 8 ? 2 : 1) : 1;
			fmt++;
		}

		start = o.len;
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? va_arg(ap, long long) :
				      lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
			unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
			put_number(&o, u, v < 0, 10, false, &sp);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long) :
					       lng == 1 ? va_arg(ap, unsigned long) :
					       va_arg(ap, unsigned int);
			unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
			put_number(&o, v, false, base, *fmt == 'X', &sp);
			break;
		}
		case 'p': {
			uintptr_t v;

			if (fmt[1] == 'E') {
				put_escaped(&o, va_arg(ap, const char *), &sp);
				fmt++;
				break;
			}
			v = (uintptr_t)va_arg(ap, void *);
			sp.zero = true;
			sp.width = 2 * (int)sizeof(void *);
			put_number(&o, v, false, 16, false, &sp);
			break;
		}
		case 'c': {
			char s[2] = { (char)va_arg(ap, int), 0 };
			sp.prec = 1;
			put_string(&o, s, &sp);
			break;
		}
		case 's':
			put_string(&o, va_arg(ap, const char *), &sp);
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
		/* left-justified numbers: pad to the width counted from start */
		if (sp.left && *fmt != 's' && *fmt != 'c' && *fmt != 'E')
			pad(&o, ' ', sp.width - (int)(o.len - start));
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
