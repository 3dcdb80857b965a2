// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stack protector's canary (include/ronx/stackprotector.h): one per
 * boot, for every task and CPU (-mstack-protector-guard=global, as Linux's
 * 32-bit kernels before per-task canaries), set once at boot and then
 * read-only: a bug that can write the kernel's data cannot also rewrite
 * the canary to match what it smashed.
 */
#include <ronx/compiler.h>
#include <ronx/random.h>
#include <ronx/kallsyms.h>
#include <ronx/panic.h>
#include <ronx/stackprotector.h>

unsigned long __stack_chk_guard __ro_after_init;

/*
 * Called first in start_kernel(). The frames live now (start_kernel(),
 * which never returns, and this one) copied the old canary, 0; this one
 * has none, so that its return does not compare 0 with the new value.
 */
__no_stack_protector void boot_init_stack_canary(void)
{
	__stack_chk_guard = stack_canary_mix(arch_get_random_u32(), rdtsc());
}

/*
 * gcc's call when a function's canary differs on its way out. The return
 * address is just after that call, which may be the last instruction of
 * the function: %pB's rule (sprint_backtrace) names the function it is in.
 */
void __stack_chk_fail(void)
{
	char func[96];

	sprint_backtrace(func, sizeof(func), (unsigned long)__builtin_return_address(0));
	panic("stack-protector: Kernel stack is corrupted in: %s", func);
}
