// SPDX-License-Identifier: GPL-2.0-only
/* true: does nothing and exits 0; what the spawn benchmark starts. */
int main(void)
{
	return 0;
}
