// SPDX-License-Identifier: GPL-2.0-only
/* kernel/cmdline.c and kernel/shell/words.c on the host. */
#include <string.h>
#include "check.h"
#include "../../kernel/cmdline.c"
#include "../../kernel/shell/words.c"
#include "../../kernel/vsprintf.c"

static char last_msg[256];
static int reports;
static void report(const char *msg)
{
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	reports++;
}

static char pci_val[32];
static int set_pci(const char *val)
{
	if (!val || (strcmp(val, "bios") && strcmp(val, "nobios")))
		return -EINVAL;
	snprintf(pci_val, sizeof(pci_val), "%s", val);
	return 0;
}
static int flag_seen;
static int set_flag(const char *val)
{
	flag_seen = val == NULL ? 1 : 2;
	return 0;
}
static const struct boot_param params[] = {
	{ "pci", set_pci, "bios|nobios" },
	{ "quiet", set_flag, "nothing" },
};

TEST(next_arg_splits_words)
{
	char s[] = "a=1 b  c=\"x y\"";
	char *p, *v, *rest = s;

	rest = next_arg(rest, &p, &v);
	CHECK(!strcmp(p, "a") && !strcmp(v, "1"));
	rest = next_arg(rest, &p, &v);
	CHECK(!strcmp(p, "b") && v == NULL);
	rest = next_arg(rest, &p, &v);
	CHECK(!strcmp(p, "c") && !strcmp(v, "x y"));
	CHECK(*rest == '\0');
}

TEST(parse_args_calls_handlers)
{
	char s[] = "pci=nobios quiet";
	reports = 0;
	CHECK_EQ(parse_args(s, params, params + 2, report), 0);
	CHECK(!strcmp(pci_val, "nobios"));
	CHECK_EQ(flag_seen, 1);
	CHECK_EQ(reports, 0);
}

TEST(unknown_option_is_reported)
{
	char s[] = "pci=bios frob=3";
	reports = 0;
	CHECK_EQ(parse_args(s, params, params + 2, report), 1);
	CHECK(strstr(last_msg, "unknown command line option 'frob'") != NULL);
}

TEST(bad_value_names_expected_values)
{
	char s[] = "pci=maybe";
	reports = 0;
	CHECK_EQ(parse_args(s, params, params + 2, report), 1);
	CHECK(!strcmp(last_msg, "bad value 'maybe' for option 'pci' (expected bios|nobios)"));
}

TEST(empty_and_spaces_only)
{
	char s[] = "   ";
	reports = 0;
	CHECK_EQ(parse_args(s, params, params + 2, report), 0);
	CHECK_EQ(reports, 0);
}

TEST(split_words_limits)
{
	char s[] = "  insmod  hello  x=1 ";
	char *argv[4];
	CHECK_EQ(split_words(s, argv, 4), 3);
	CHECK(!strcmp(argv[0], "insmod") && !strcmp(argv[2], "x=1"));
	char many[] = "a b c d e";
	CHECK_EQ(split_words(many, argv, 4), -1);
}

int main(void)
{
	RUN(next_arg_splits_words);
	RUN(parse_args_calls_handlers);
	RUN(unknown_option_is_reported);
	RUN(bad_value_names_expected_values);
	RUN(empty_and_spaces_only);
	RUN(split_words_limits);
	return check_done();
}
