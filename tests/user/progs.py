# SPDX-License-Identifier: GPL-2.0-only
"""The user programs' runs and what each must show, for every place that
runs them: on the host under qemu-i386 (tests/user/run.py), in Debian's
Linux guest (linux/check.sh, linux/user.py) and on ronx.

A run's result is the program's output, its exit status or the signal
that killed it, and the kernel's segfault line if it printed one. The
checks are the same for every kernel except where the policies differ
(user W^X: ronx refuses W+X memory and W+X segments; Linux allows them),
and qemu-user, which emulates Linux's system calls without a kernel
behind them, has a few known gaps (QEMU_GAPS).

    python3 tests/user/progs.py --guest-list tests|bench DIR
        writes DIR/RUN.tests or DIR/RUN.bench and the input files, for
        linux/init.sh
"""
import os
import re
import sys

SIGNALS = {4: "SIGILL", 5: "SIGTRAP", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV"}
# Linux's and ronx's line for a user fault: PROG[PID]: segfault at ADDR ip IP sp SP error CODE
SEGFAULT_LINE = re.compile(r"(\S+)\[(\d+)\]: segfault at ([0-9a-f]+) ip ([0-9a-f]+) "
                           r"sp ([0-9a-f]+) error ([0-9a-f]+)")
# and for any other exception: traps: PROG[PID] general protection fault ip:IP sp:SP error:CODE
# (ronx also says "trap invalid opcode", "trap debug", ..., or "in virtual-8086 mode")
TRAPS_LINE = re.compile(r"traps: (\S+)\[(\d+)\] (.*?) ip:([0-9a-f]+) sp:([0-9a-f]+)"
                        r"(?: error:([0-9a-f]+))?")


class Run:
    """One run of a program: NAME ARGS, with stdin, or pinned to CPU 0."""

    def __init__(self, name, args=(), stdin=None, timeout=0, cpu0=False, key=None,
                 what="", qemu_args=None, ready=None):
        self.name, self.args, self.stdin = name, list(args), stdin
        self.ready = ready      # timeout: the end of the line that says it runs
        self.qemu_args = qemu_args
        self.timeout, self.cpu0 = timeout, cpu0
        self.key = key or name
        self.what = what

    def argv(self, kernel):
        """The arguments; usertest is told which kernel's policy to expect."""
        if self.name == "usertest":
            return ["ronx" if kernel == "ronx" else "linux"]
        if kernel == "qemu" and self.qemu_args is not None:
            return self.qemu_args
        return self.args


class Result:
    def __init__(self, output, status=None, signal=None, kernel_line=None):
        self.output = output.replace("\r", "")
        self.status, self.signal, self.kernel_line = status, signal, kernel_line

    @classmethod
    def from_shell_status(cls, output, st, kernel_line=None):
        """From a POSIX shell's $?: 128+N means killed by signal N."""
        if st > 128 and st - 128 in SIGNALS:
            return cls(output, None, SIGNALS[st - 128], kernel_line)
        return cls(output, st, None, kernel_line)

    def ended(self):
        return self.signal or "exit %s" % self.status

    def has(self, pattern):
        return re.search(pattern, self.output, re.M) is not None

    def to_json(self):
        return {"output": self.output, "status": self.status, "signal": self.signal,
                "kernel_line": self.kernel_line}

    @classmethod
    def from_json(cls, d):
        return cls(d["output"], d.get("status"), d.get("signal"), d.get("kernel_line"))


# what sh is given (typed at ronx's console, piped under qemu-i386 and Linux)
SH_INPUT = "echo sh says hi\ntrue\nforkprogs\nnullread\nnosuchprog\nhello bg &\nwait\n"

TESTS = [
    Run("hello", ["one", "two"], what="prints its pid and argv"),
    Run("echo", ["one", "two", "three"]),
    Run("cat", stdin="line one\nline two\n", what="stdin to stdout until EOF"),
    Run("exit", ["3"]),
    Run("true"),
    Run("sleep", ["20"], what="nanosleep 20 ms"),
    Run("nullread", what="load from address 0"),
    Run("nullwrite", what="store to address 0"),
    Run("stackexec", what="call code on the stack"),
    Run("writetext", what="store into its own text"),
    Run("readkernel", what="load from 0xc0100000"),
    Run("writekernel", what="store to 0xc0100000"),
    Run("execkernel", what="call 0xc0100000"),
    Run("peek", ["0x08048000"], what="load from its own ELF header"),
    Run("stackoverflow", what="recursion into the guard page"),
    Run("mmaprwx", what="mmap PROT_READ|PROT_WRITE|PROT_EXEC"),
    Run("mprotectrwx", what="mmap RW, then mprotect RWX"),
    Run("jit", what="mmap RW, write code, mprotect RX, call"),
    Run("wxsegment", what="an ELF whose PT_LOAD is RWE"),
    Run("usertest", what="KTAP checks of every system call"),
    Run("fuzz", ["100000", "1"], what="100000 random system calls, seed 1",
        qemu_args=["2000", "1"]),
    Run("bench_getpid", ["10000"], what="getpid round trip (not asserted)"),
    Run("bench_yield", ["2000"], what="sched_yield alone (not asserted)"),
    Run("fpu", ["keep", "200"], key="fpukeep",
        what="st0-7, xmm0-7, FCW, MXCSR across 200 yields and sleeps"),
    Run("fpu", ["secret"], key="fpusecret", what="loads st0-7 and xmm0-7 and exits with them"),
    Run("fpu", ["clean"], key="fpuclean",
        what="a new process's FPU registers (after fpusecret): fninit's state, zeros"),
    Run("fpu", ["clean", "signal"], key="fpucleansig",
        what="a signal handler's FPU registers, after the interrupted code loaded its own: clean"),
    Run("mmapwrap", what="mmap/munmap/mprotect lengths that wrap when rounded up"),
    Run("sh", stdin=SH_INPUT, what="a shell: built-ins, fork+execve+wait4, & and wait, a missing program"),
    Run("forktest", what="fork, getppid, wait4 status, COW both ways, vfork+execve, kill, errors"),
    Run("cowtest", what="COW both ways, and the kernel's write into a COW page"),
    Run("zerotest", what="untouched mmap and brk pages read zero, then take writes"),
    Run("stackgrow", what="the stack grows to 6 MiB; a touch beyond 8 MiB is SIGSEGV"),
    Run("forkbomb", ["200"], what="forks until EAGAIN or 200 children, kills and reaps them",
        qemu_args=["20"]),
    Run("oomtouch", ["64"], what="touches 64 MiB of anonymous memory",
        qemu_args=["8"]),
    Run("bench_fork", ["20"], what="fork+exit+wait, COW and first-touch faults (not asserted)"),
    Run("spin", timeout=2, ready="looping", what="loops until killed"),
    Run("park", timeout=2, ready="parked", what="sleeps until killed"),
    Run("bigwrite", ["4096"], what="one write() of 4096 newlines to the console"),
    Run("readone", stdin="my-secret-password\n", what="one read() of one byte of a line"),
    Run("jobctl", what="stop and continue: wait4 WUNTRACED/WCONTINUED statuses, SIGCHLD, SIGKILL"),
    Run("pagespray", ["20"], what="20 rounds: map 32 pages, fill, unmap"),
    Run("sigtest", what="signal handlers: both frames and sigreturns, forged frames, sigaltstack, "
        "SA_RESTART, alarm and setitimer (TAP)"),
    Run("memfdtest", what="memfd: shared and private views, SIGBUS past the end, a shrink and a "
        "grow under mappings, fork, execve, errno; ronx's departures checked per kernel"),
    Run("jitdual", what="a JIT's two views of one memfd: write through RW, call through RX"),
]
# memfdtest's checks (tests/qemu/test_memfd.py counts its "ok" lines on ronx)
MEMFDTEST_CHECKS = 56
# sigtest's cases (tests/qemu/test_signals.py checks them on ronx, with
# fxsave and with fnsave frames)
SIGTEST_CASES = 36
# Runs qemu-user cannot make (tests/user/run.py says SKIP with the reason)
QEMU_SKIP_RUNS = {
    "sigtest": "qemu-user's signals are not Linux's: it loses the x87 state across a handler, "
               "aborts on a forged selector and loops in a nested handler on the alternate stack",
    "memfdtest": "qemu-user (7.2) raises a handled SIGBUS past a memfd's end again forever, "
                 "though the handler has mapped the page",
    "jitdual": "qemu-user's translated code misses a write through another mapping of its page: "
               "the patched call still returns 42",
}

# The red-team suite (user/bin/redteam.c, docs/redteam.md): each case,
# what it tries, and what must happen on ronx and on Linux. "held": the
# program's own checks all pass and it exits 0; "policy": W+X requests,
# refused with EACCES by ronx and allowed by Linux; otherwise the signal
# that kills it and, on ronx, the exception its kernel line must name (with
# the error code the program announced). Linux's lines are rate-limited
# (printk_ratelimit), so there only the signal is checked. "SIGKILL OOM":
# killed in a fault that found no memory, with Linux's "Out of memory:
# Killed process N (redteam)" line. ronx_only: not run on Linux or under
# qemu-i386 (a hog's touches would be the host's memory under qemu-i386,
# and on Linux its end would come only with the whole guest's RAM; under
# TCG Debian's 6.1 oopses on iret_vm86, docs/redteam.md, and a
# virtual-8086 loop would never end there).
class Attack:
    def __init__(self, case, what, ronx, linux, ronx_only=False):
        self.case, self.what, self.ronx, self.linux = case, what, ronx, linux
        self.ronx_only = ronx_only


GP, SEGV = "SIGSEGV #GP", "SIGSEGV"
REDTEAM = [
    Attack("pointers", "pointers into the kernel half, across 3G, to the fixmap, into holes, PROT_NONE "
           "and its own text, given to every system call that takes one", "held", "held"),
    Attack("syscalls", "system-call numbers that do not exist (500 ... 0xffffffff)", "held", "held"),
    Attack("segments", "null ds/es/fs/gs, and fs/gs = the user data selector, across int $0x80",
           "held", "held"),
    Attack("eflags", "popf and iret with IOPL=3 and IF=0; DF, AC, NT, ID set across system calls",
           "held", "held"),
    Attack("kstack", "esp in the kernel half, at 0 and at 4G-4 while int $0x80 runs", "held", "held"),
    Attack("mmap", "mmap/mprotect/munmap in the kernel half and across 3G, huge lengths, MAP_FIXED "
           "over a mapping, brk into the kernel and over a mapping", "held", "held"),
    Attack("wx", "W+X: mmap RWX, mprotect RW/RX/text/data/stack to RWX, MAP_FIXED RWX over a page",
           "policy", "policy"),
    Attack("hog", "1 MiB mmaps, every page written, until the kernel kills it", "SIGKILL OOM", "-",
           ronx_only=True),
    Attack("jobctl", "setpgid, getpgid, setsid and TIOCGPGRP/TIOCSPGRP refused: bad pids and groups, "
           "not a child, another session, a session leader; from a background group, read(0) and "
           "TIOCSPGRP (ronx only)", "held", "held"),
    Attack("sigframes", "forged signal frames through rt_sigreturn and sigreturn (a handler rewrites "
           "its own): cs the kernel's (RPL 0 and 3), ss and ds the kernel's, EFLAGS IOPL=3 VM NT, "
           "fpstate in the kernel half; either sigreturn with esp in the kernel half (ronx: SIGSEGV "
           "each; Linux: SIGILL at the iret for cs/ss, ds not loaded)", "held", "held"),
] + [Attack("int_0x%02x" % v, "int $0x%02x from ring 3" % v, GP, SEGV)
     for v in (0x01, 0x02, 0x08, 0x0d, 0x0e, 0x20, 0x81, 0xff)] + [
    Attack("int_0x03", "int $3 (the two-byte form)", GP, "SIGTRAP"),
    Attack("int3", "int3 (0xcc), the breakpoint", GP, "SIGTRAP"),
    Attack("into", "into with OF set", GP, SEGV),
    Attack("ud2", "ud2", "SIGILL #UD", "SIGILL"),
    Attack("divide", "divide by zero", "SIGFPE #DE", "SIGFPE"),
    Attack("bound", "bound with an index out of range", "SIGSEGV #BR", SEGV),
] + [Attack(c, "%s in ring 3" % t, GP, SEGV) for c, t in (
    ("hlt", "hlt"), ("cli", "cli"), ("sti", "sti"), ("inb", "in from port 0x60"),
    ("outb", "out to port 0xf4"), ("insb", "ins from port 0x60"), ("lgdt", "lgdt"), ("lidt", "lidt"),
    ("ltr", "ltr"), ("lldt", "lldt"), ("lmsw", "lmsw"), ("clts", "clts"), ("invlpg", "invlpg"),
    ("wbinvd", "wbinvd"), ("invd", "invd"), ("read_cr0", "mov from cr0"), ("write_cr0", "mov to cr0"),
    ("read_cr3", "mov from cr3"), ("write_cr3", "mov to cr3"), ("write_cr4", "mov to cr4"),
    ("read_dr7", "mov from dr7"), ("write_dr7", "mov to dr0/dr7"), ("rdmsr", "rdmsr"),
    ("wrmsr", "wrmsr to EFER"), ("rdpmc", "rdpmc"))] + [
    Attack(c, t, GP, SEGV) for c, t in (
        ("ds_kernel", "the kernel data selector into ds"),
        ("es_kernel", "the kernel data selector into es"),
        ("fs_kernel", "the kernel data selector into fs"),
        ("gs_kernel", "the kernel data selector into gs"),
        ("ss_kernel", "the kernel data selector into ss"),
        ("ds_kernel_rpl3", "the kernel data selector with RPL 3 into ds"),
        ("ss_null", "the null selector into ss"),
        ("ds_kernel_code", "the kernel code selector into ds"),
        ("ds_tss", "the TSS selector (from str) into ds"),
        ("ds_ldt", "an LDT selector into ds (there is no LDT)"),
        ("ds_beyond_gdt", "a selector past the GDT's limit into ds"),
        ("lcall_kernel", "a far call to the kernel code selector"),
        ("ljmp_kernel", "a far jump to the kernel code selector with RPL 3"),
        ("ljmp_tss", "a far jump to the TSS selector (a task switch)"),
        ("lcall_beyond_gdt", "a far call to a selector past the GDT's limit"),
        ("iret_kernel", "iret to the kernel code selector"),
        ("iret_kernel_rpl3", "iret to the kernel code selector with RPL 3"),
        ("iopl_cli", "popf with IOPL=3, then cli"))] + [
    Attack("iret_vm86", "iret with EFLAGS.VM set, CS:IP 0:0 (QEMU's TCG enters virtual-8086 mode)",
           "SIGSEGV #PF", "-", ronx_only=True),
    Attack("iret_vm86_loop", "iret with EFLAGS.VM set into a loop at 1000:0 (mapped at 0x10000)",
           "SIGSEGV VM86", "-", ronx_only=True),
    Attack("nt_iret", "NT set, then iret (a nested-task return)", "SIGSEGV #TS", SEGV),
    Attack("tf", "TF set: single-step", "SIGTRAP #DB", "SIGTRAP"),
    Attack("tf_syscall", "TF set across int $0x80", "SIGTRAP #DB", "SIGTRAP"),
    Attack("kstack_push", "esp = 0xc0100000, then push", "SIGSEGV #PF", SEGV),
    Attack("sidt_read", "sidt, then read the IDT it names", "SIGSEGV #PF", SEGV),
    Attack("sgdt_write", "sgdt, then write into the GDT it names", "SIGSEGV #PF", SEGV),
    Attack("munmap_all", "munmap(0, 3 GiB): its own code and stack", "SIGSEGV #PF", SEGV),
]
# qemu-user emulates Linux's system calls, not a kernel with its own half
# and tables: what it cannot show
QEMU_REDTEAM_GAPS = {
    "mmap": "qemu-user has no kernel half (MAP_FIXED there maps over qemu's own memory)",
    "ds_tss": "qemu-user has no TSS (str gives 0)",
    "sidt_read": "qemu-user's IDT is in the guest's own memory",
    "sgdt_write": "qemu-user's GDT is in the guest's own memory",
}
QEMU_REDTEAM_CHECK_GAPS = [(r"^nanosleep\(", "qemu-user's nanosleep ignores a bad pointer"),
                           (r"^(rt|old) \(\w+\) frame, (cs|ss|ds) ",
                            "qemu-user has no kernel selectors: a forged one ends qemu itself (exit 127)")]
REDTEAM_BY_CASE = {a.case: a for a in REDTEAM}

# The cases that iret in ring 3. QEMU 7.2's TCG reads an iret's frame off
# the stack as a supervisor access (a CPU reads it at the CPL), and SMAP
# refuses that on a user page: on make run's CPU (+smep,+smap) each of
# these ends at the iret, before it does anything, in SIGSEGV at its own
# stack pointer with error 1, after ronx's line saying SMAP refused the
# CPU's own access (kernel/cpu/fault.c). Before issue 34 the kernel served
# that fault and retried the iret forever. The SMAP lane
# (tests/qemu/test_redteam.py) takes that end, or the case's usual one
# (a QEMU that reads the frame at CPL 3).
SMAP_IRET_CASES = ("eflags", "iret_kernel", "iret_kernel_rpl3", "iret_vm86", "iret_vm86_loop")
SMAP_IRET_LINE = "ronx: SMAP refused the CPU's own supervisor access to a user page for the process"


def smap_iret_checks(run, r):
    """[(ok, description, detail)]: run ended at its iret as SMAP_IRET_CASES says."""
    s = SEGFAULT_LINE.search(r.kernel_line or "")
    got = "got %s, kernel said %r, output: %s" % (r.ended(), r.kernel_line, r.output[-300:])
    return [(r.signal == "SIGSEGV", "%s: [smap] killed by SIGSEGV at its iret" % run.key, got),
             (bool(s and s.group(1) == "redteam" and s.group(3) == s.group(5) and s.group(6) == "1"),
              "%s: [smap] the kernel's line: segfault at its own sp, error 1 (a supervisor read)"
              % run.key, got),
             (SMAP_IRET_LINE in r.output, "%s: [smap] ronx's line: %s" % (run.key, SMAP_IRET_LINE), got)]


def redteam_outcome(want, kernel):
    """An expected outcome as docs/redteam.md's table says it."""
    if want == "-":
        return "not run"
    if want == "held":
        return "held (exit 0)"
    if want == "policy":
        return "W+X refused (EACCES)" if kernel == "ronx" else "W+X allowed"
    sig, _, trap = want.partition(" ")
    return "%s%s" % (sig, " (%s)" % trap if trap else "")


def redteam_table():
    """docs/redteam.md's table: case, what it tries, ronx, Linux, differs."""
    out = ["| case | what it tries | ronx | Linux 6.1 | differs |", "|---|---|---|---|---|"]
    for a in REDTEAM:
        r, l = redteam_outcome(a.ronx, "ronx"), redteam_outcome(a.linux, "linux")
        differs = "" if l == "not run" or r.split(" (")[0] == l.split(" (")[0] else "yes"
        what = a.what + (" (SMAP lane: may end at the iret, below)" if a.case in SMAP_IRET_CASES else "")
        out.append("| `%s` | %s | %s | %s | %s |" % (a.case, what.replace("|", "\\|"), r, l, differs))
    return "\n".join(out)
TESTS += [Run("redteam", [a.case], key="redteam-" + a.case, what=a.what)
          for a in REDTEAM if not a.ronx_only]
RONX_ONLY = [Run("redteam", [a.case], key="redteam-" + a.case, what=a.what)
             for a in REDTEAM if a.ronx_only]

# Each bench run is made this many times in one boot, the whole list over
# again each time, and a row keeps its lowest median (tools/bench_user.py):
# the host's cores here change speed by up to 1.8x for a second at a time
# (docs/bench.md, "The host's slow phases"), so one median can be a slow
# phase's, on either kernel.
BENCH_REPEATS = 5


def bench_key(key, i):
    """The key of repeat i (from 0) of a bench run: the first keeps the run's own."""
    return key if i == 0 else "%s#%d" % (key, i + 1)


def bench_outputs(runs, key):
    """The outputs of run key's repeats in one boot's runs ({key: output}), in order."""
    keys = [bench_key(key, i) for i in range(BENCH_REPEATS)]
    return [runs[k] for k in keys if runs and k in runs]


BENCH = [
    Run("bench_getpid", ["100000"]),
    Run("bench_yield", ["20000"], key="bench_yield-alone"),
    Run("bench_yield", ["pair", "20000"], cpu0=True, key="bench_yield-pair"),
    Run("bench_spawn", ["1000", "/ubin/true"]),
    Run("bench_fork", ["200"]),
    Run("bench_appel", ["1000"]),
]

# qemu-user is Linux's system calls without Linux's memory manager: no
# kernel half (0xc0000000 up is free guest space), brk never gives pages
# back, partial munmap and mprotect of unmapped pages are not checked,
# and its nanosleep ignores a bad pointer. The Linux guest checks these.
QEMU_GAPS = {
    "brk_shrunk_pages_gone": "qemu-user's brk never unmaps",
    "mmap_fixed_kernel_half_enomem": "qemu-user has no kernel half",
    "munmap_page_gone_mprotect_enomem": "qemu-user's mprotect does not check for mappings",
    "munmap_page_gone_write_efault": "qemu-user keeps a partly unmapped range readable",
    "munmap_kernel_half_einval": "qemu-user has no kernel half",
    "mprotect_zero_length_ok": "qemu-user's mprotect refuses length 0 (ENOMEM)",
    "mprotect_unmapped_enomem": "qemu-user's mprotect does not check for mappings",
    "mprotect_kernel_half_enomem": "qemu-user has no kernel half",
    "nanosleep_null_efault": "qemu-user's nanosleep ignores a bad pointer",
    "nanosleep_kernel_address_efault": "qemu-user's nanosleep ignores a bad pointer",
}

DEMO_BEFORE = {
    "nullread": r"^nullread: reading address 0x0$",
    "nullwrite": r"^nullwrite: writing to address 0x0$",
    "stackexec": r"^stackexec: calling code on the stack at ",
    "writetext": r"^writetext: writing to its own text at ",
    "readkernel": r"^readkernel: reading kernel address 0xc0100000$",
    "writekernel": r"^writekernel: writing to kernel address 0xc0100000$",
    "execkernel": r"^execkernel: calling kernel address 0xc0100000$",
    "stackoverflow": r"^stackoverflow: 64 KiB deep",
}
# The fault each demo must take: the page-fault error code as Linux prints
# it (hex; bit 0 present, 1 write, 2 user, 4 instruction fetch). Linux's
# 32-bit page-table isolation keeps 0xc0100000 mapped (supervisor-only) in
# the user copy of the tables: the same codes with PTI on and off.
DEMO_ERROR = {"nullread": "4", "nullwrite": "6", "stackexec": "15", "writetext": "7",
              "readkernel": "5", "writekernel": "7", "execkernel": "15", "stackoverflow": "6"}
# ronx's PTI (on by default on qemu32) is stricter: its user set maps none
# of the kernel but the trampoline and the entry area, so a touch of
# 0xc0100000 from ring 3 finds no page (bit 0 clear). With pti=off ronx
# gives Linux's codes above (tests/qemu/test_pti.py checks both).
RONX_PTI_DEMO_ERROR = {"readkernel": "4", "writekernel": "6", "execkernel": "14"}


def ktap_leaves(text):
    """usertest's leaf results: [(suite, name, ok, note)]."""
    out, suite = [], None
    for line in text.splitlines():
        m = re.match(r"^    # Subtest: (\S+)", line)
        if m:
            suite = m.group(1)
        m = re.match(r"^    (not )?ok \d+ (\S+)(?: # (.*))?$", line)
        if m:
            out.append((suite, m.group(2), not m.group(1), m.group(3) or ""))
    return out


def checks(run, r, kernel, stack_nx=None):
    """[(ok, description, detail)] for one run on kernel "linux", "ronx" or "qemu".
    A detail "SKIP reason" marks a skip.

    stack_nx: for Linux, whether its stack PTE has NX, read from outside
    (linux/boot.py walks spin's pages). Debian's 6.1 686-pae kernel leaves
    NX off every user page, so there stackexec's code runs: the check is
    that the run agrees with the page tables. ronx's policy is RW+NX."""
    n, out = run.name, []

    def want(ok, desc, detail=""):
        out.append((bool(ok), "%s: %s" % (run.key, desc), "" if ok else detail or
                    "got %s, output: %s" % (r.ended(), r.output[-300:])))

    wx_allowed = kernel != "ronx"
    if n == "hello":
        want(r.status == 0 and r.has(r"^hello from user space, pid [1-9]\d*$"),
             "exit 0, says hello from user space with its pid")
        want(r.has(r'^argc 3$') and r.has(r'^argv\[1\] = "one"$') and r.has(r'^argv\[2\] = "two"$'),
             "prints argc and argv from the initial stack")
    elif n == "echo":
        want(r.status == 0 and r.output == "one two three\n", "prints its arguments")
    elif n == "cat":
        if kernel == "ronx":
            # typed at ronx's console: each line twice, the tty's echo and cat's copy
            want(r.status == 0 and all(r.output.count(l + "\n") == 2 for l in run.stdin.splitlines()),
                 "copies the console's lines to stdout until Ctrl-D")
        else:
            want(r.status == 0 and r.output == run.stdin, "copies stdin to stdout")
    elif n == "exit":
        want(r.status == 3 and r.has(r"^exit: exiting with 3$"), "exit status 3")
    elif n == "true":
        want(r.status == 0 and r.output == "", "exit 0, silent")
    elif n == "sleep":
        want(r.status == 0 and r.has(r"^sleep: woke up$"), "nanosleep returns 0")
    elif n == "stackexec" and kernel == "linux":
        want(r.has(DEMO_BEFORE[n]), "says what it tries before it tries")
        ran = r.status == 1 and r.has(r"^stackexec: it ran and returned 42")
        faulted = r.signal == "SIGSEGV" and SEGFAULT_LINE.search(r.kernel_line or "")
        want(stack_nx is not None and (faulted if stack_nx else ran),
             "agrees with the stack's PTE read from outside (%s)" %
             {None: "not read", True: "NX set: must fault", False: "NX clear: the code runs"}[stack_nx])
    elif n in DEMO_BEFORE:
        want(r.has(DEMO_BEFORE[n]), "says what it tries before it tries")
        want(r.signal == "SIGSEGV", "killed by SIGSEGV")
        want(not r.has(r"no fault|went through|ran and returned|returned:|the recursion ended"),
             "never reaches the line after the access")
        if kernel != "qemu":
            m = SEGFAULT_LINE.search(r.kernel_line or "")
            code = RONX_PTI_DEMO_ERROR.get(n, DEMO_ERROR[n]) if kernel == "ronx" else DEMO_ERROR[n]
            want(m and m.group(1) == n and m.group(6) == code,
                 "the kernel's line: %s[PID]: segfault at ... error %s" % (n, code),
                 "kernel said: %r" % r.kernel_line)
    elif n == "peek":
        want(r.status == 0 and r.has(r"^peek: 0x08048000: 0x464c457f$"),
             "reads its own ELF header (0x464c457f)")
    elif n in ("mmaprwx", "mprotectrwx"):
        if wx_allowed:
            want(r.status == 0 and r.has(r"^%s: allowed" % n) and r.has(r"returned 42$"),
                 "W+X memory allowed, and code in it runs (Linux's policy)")
        else:
            want(r.status == 0 and r.has(r"^%s: refused: EACCES$" % n),
                 "W+X memory refused with EACCES (ronx's policy)")
    elif n == "jit":
        want(r.status == 0 and r.has(r"^jit: returned 42$"), "RW, then RX, then the call returns 42")
    elif n == "wxsegment":
        if kernel == "ronx":
            want(not r.has(r"^wxsegment: running") and r.status is None and not r.signal and
                 r.has(r"PT_LOAD.*RWE.*refused"), "never runs: the loader refuses the RWE segment, "
                 "naming it")
        elif wx_allowed:
            want(r.status == 0 and r.has(r"^wxsegment: rewrote its own code: patched\(\) returns 42$"),
                 "runs from its RWE segment and rewrites its own code (Linux's policy)")
    elif n == "usertest":
        leaves = ktap_leaves(r.output)
        if kernel == "qemu":
            want(len(leaves) >= 50 and r.has(r"^# usertest: \d of 9 suites passed$"),
                 "all 9 suites ran (%d checks)" % len(leaves))
        else:
            want(len(leaves) >= 50 and r.has(r"^# usertest: 9 of 9 suites passed$") and r.status == 0,
                 "all 9 suites pass (%d checks), exit 0" % len(leaves))
        for suite, name, ok, note in leaves:
            if kernel == "qemu" and name in QEMU_GAPS:
                out.append((True, "%s: %s.%s" % (run.key, suite, name),
                            "SKIP " + QEMU_GAPS[name]))
                continue
            want(ok, "%s.%s%s" % (suite, name, " (%s)" % note if note else ""),
                 "not ok; the # lines before it say what happened")
        policy = [name for _, name, _, note in leaves if note in ("ronx only", "linux only")]
        want(len(policy) == 2, "two checks follow the kernel's W^X policy (%s)" % ", ".join(policy))
    elif n == "fuzz":
        m = re.search(r"^fuzz: done: (\d+) calls, seed \d+; calls naming the kernel's half: "
                      r"(\d+), succeeded: (\d+)$", r.output, re.M)
        want(m and m.group(1) == run.argv(kernel)[0], "finishes all its calls and prints the summary")
        want(r.has(r"^fuzz: results: ok \d+"), "counts per result")
        if kernel != "qemu":
            want(m and m.group(3) == "0", "no call naming the kernel's half succeeded")
            want(r.status == 0, "exit 0")
    elif run.key == "fpukeep":
        want(r.status == 0 and r.has(r"^fpu keep: pid \d+: every value kept in %s rounds$"
                                     % run.argv(kernel)[1]) and not r.has(r"^fpu keep: pid \d+ round"),
             "every register value it loaded comes back after each yield and sleep")
    elif run.key == "fpusecret":
        want(r.status == 0 and r.has(r"^fpu secret: pid \d+: st0-7.* hold 5e"),
             "loads its values, exit 0")
    elif run.key == "fpuclean":
        want(r.status == 0 and r.has(r"^fpu clean: pid \d+: clean \(") and not r.has(r"not zero"),
             "starts with FCW 037f, every register empty and zero, MXCSR 1f80 (after fpusecret)")
    elif run.key == "fpucleansig" and kernel == "qemu":
        # qemu-i386 hands a handler the interrupted code's FPU registers
        want(r.has(r"^fpu clean: pid \d+: (clean|NOT CLEAN) \(.*, in a handler\)$"),
             "reports its handler's registers (qemu-i386 keeps the interrupted code's: not judged)")
    elif run.key == "fpucleansig":
        want(r.status == 0 and r.has(r"^fpu clean: pid \d+: clean \(.*, in a handler\)$")
             and not r.has(r"not zero"),
             "its handler starts with FCW 037f, every register empty and zero, MXCSR 1f80")
    elif n == "mmapwrap":
        leaves = ktap_leaves(r.output)
        want(len(leaves) == 9 and r.status == 0 and r.has(r"^# mmapwrap: 9 of 9 checks passed$"),
             "mmap ENOMEM, munmap EINVAL, mprotect ENOMEM, the page untouched (9 checks)")
        for suite, name, ok, note in leaves:
            want(ok, "%s.%s" % (suite, name), "not ok; the # lines before it say what happened")
    elif n == "sh":
        # piped input is not echoed: a line may follow the prompts ("$ $ sh says hi")
        shout = re.sub(r"^(?:\$ )+", "", r.output, flags=re.M)

        def has(pattern):
            return re.search(pattern, shout, re.M) is not None
        want(has(r"^sh says hi$"), "the echo built-in")
        want(has(r"^true: exit status 0$") and has(r"^forkprogs: exit status 2$"),
             "fork, execve, wait4: each program's exit status (forkprogs alone: 2)")
        want(has(r"^nullread: killed by SIGSEGV \(signal 11\)$"), "a child's signal, named")
        want(has(r"^sh: nosuchprog: command not found \(no \S*nosuchprog\)$") and
             not has(r"^nosuchprog: exit status"), "a missing program: one clear line")
        bg = re.search(r"^\[(\d+)\] hello$", shout, re.M)
        # the background line may come amid the terminal's echo of the next
        # command, after its first letters ("$ whello from ... ait")
        want(bg and has(r"hello from user space, pid %s$" % bg.group(1)) and
             has(r"\[%s\] done: hello: exit status 0$" % bg.group(1)),
             "PROG &: its pid printed, and wait reaps it with its status")
        want(r.status == 0, "end of input ends sh with exit 0")
    elif n == "sigtest":
        cases = re.findall(r"^(not )?ok (\d+) - (.*)$", r.output, re.M)
        for neg, num, what in cases:
            want(not neg, "%s. %s" % (num, what), "not ok")
        want(len(cases) == SIGTEST_CASES and r.status == 0 and
             r.has(r"^sigtest: %d passed, 0 failed$" % SIGTEST_CASES),
             "all %d cases pass, exit 0" % SIGTEST_CASES)
    elif n == "memfdtest":
        fails = re.findall(r"^memfdtest: \w+: FAIL .*$", r.output, re.M)
        want(r.status == 0 and not fails and
             r.has(r"^memfdtest: %d checks, 0 failed$" % MEMFDTEST_CHECKS),
             "all %d checks pass, exit 0 (ronx's departures: each kernel's own answer)"
             % MEMFDTEST_CHECKS, "; ".join(fails)[:300] or None)
    elif n == "jitdual":
        want(r.status == 0 and
             r.has(r"^jitdual: called through rx: 42, after patching through rw: 43$"),
             "code written through the RW view runs through the RX view, and a patch shows, exit 0")
    elif n in ("forktest", "cowtest", "zerotest"):
        m = re.search(r"^%s: (\d+) of (\d+) checks passed$" % n, r.output, re.M)
        want(m and m.group(1) == m.group(2) and int(m.group(2)) > 0 and r.status == 0,
             "every check passes, exit 0 (%s)" % (m.group(0) if m else "no summary"),
             "; ".join(re.findall(r"^%s: FAIL .*$" % n, r.output, re.M))[:300] or None)
    elif n == "stackgrow":
        want(r.status == 0 and r.has(r"^stackgrow: grew to 6144 KiB and read every frame back$"),
             "the stack grows to 6 MiB and keeps every frame's bytes")
        want(r.has(r"^stackgrow: the child beyond the limit: killed by signal 11$"),
             "a touch 8 MiB + 64 KiB below is SIGSEGV")
    elif n == "forkbomb":
        eagain = r.has(r"^forkbomb: fork failed with EAGAIN after \d+ children$")
        capped = r.has(r"^forkbomb: %s children and no failure" % run.argv(kernel)[0])
        reaped = re.search(r"^forkbomb: killed and reaped (\d+) of (\d+) children$", r.output, re.M)
        if kernel == "ronx":
            want(eagain, "fork fails with EAGAIN at ronx's process limit")
        else:
            want(eagain or capped, "EAGAIN, or the cap with no limit (Linux's root has none)")
        want(r.status == 0 and reaped and reaped.group(1) == reaped.group(2),
             "kills and reaps every child (SIGKILL status), exit 0")
    elif n == "oomtouch":
        if kernel == "ronx":
            want(r.signal == "SIGKILL" and r.has(r"^Out of memory: Killed process \d+ \(oomtouch\)"),
                 "killed at ronx's 32 MiB per process, with Linux's Out of memory line")
        else:
            want(r.status == 0 and r.has(r"^oomtouch: touched all %s MiB$" % run.argv(kernel)[0]),
                 "touches it all, exit 0")
    elif n.startswith("bench_"):
        want(r.status == 0 and r.has(r"min \d+ median \d+ cycles"), "prints min and median cycles")
    elif n == "redteam":
        out.extend(redteam_checks(run, r, kernel))
    elif n == "bigwrite":
        want(r.status == 0 and r.has(r"^bigwrite: write\(1, 4096 newlines\) returned 4096$"),
             "one write() of 4096 newlines returns 4096, exit 0")
        want(r.output.count("\n") >= 4096 + 2, "all 4096 newlines reach the terminal")
    elif n == "jobctl":
        failed = re.findall(r"^not ok (\d+) .*$", r.output, re.M)
        if kernel == "qemu":
            # qemu-user installs its host SIGCHLD handler without SA_NOCLDSTOP
            want(failed in ([], ["10"]) and r.has(r"^jobctl: 1[12] passed, [01] failed$"),
                 "every case as Linux's numbers say (0x137f, 0xffff, 9), but for SA_NOCLDSTOP",
                 "; ".join(re.findall(r"^not ok .*$", r.output, re.M))[:300] or None)
        else:
            want(r.status == 0 and r.has(r"^jobctl: 12 passed, 0 failed$"),
                 "every case as Linux's numbers say (0x137f, 0xffff, 9), exit 0",
                 "; ".join(re.findall(r"^not ok .*$", r.output, re.M))[:300] or None)
    elif n == "readone":
        want(r.status == 0 and r.has(r'^readone: read 1 byte: "m"$'), "reads the line's first byte, exit 0")
    elif n == "pagespray":
        want(r.status == 0 and r.has(r"^pagespray: 20 rounds of 32 pages \(\d+ times short of memory\)$"),
             "maps, fills and unmaps 20 times, exit 0")
    elif n == "spin":
        want(r.has(r"^spin: pid [1-9]\d* looping$"), "says it loops")
        want(r.signal in ("SIGKILL", "SIGINT"), "still looping when killed (SIGKILL, or Ctrl-C)")
    elif n == "park":
        want(r.has(r"^park: pid [1-9]\d* parked$"), "says it is parked")
        want(r.signal in ("SIGKILL", "SIGINT"), "still asleep when killed (SIGKILL, or Ctrl-C)")
    return out


# ronx's kernel line for each exception (kernel/signal.c, kernel/cpu/fault.c)
TRAP_TEXT = {"#GP": "general protection fault", "#UD": "trap invalid opcode", "#DB": "trap debug",
             "#DE": "trap divide error", "#BR": "trap bounds", "#TS": "trap invalid TSS",
             "VM86": "in virtual-8086 mode"}
EXPECT_LINE = re.compile(r"^redteam: (\S+): (.*); expect (#\w+|VM86)(?: at (0x[0-9a-f]+))?"
                         r"(?: error (0x[0-9a-f]+))?$", re.M)
HELD_LINE = re.compile(r"^redteam: (\S+): (not )?ok - (.*) = (.*)$", re.M)


def oom_checks(r, want):
    """A hog's end (want() each check): its pages touched, then the kernel's
    OOM kill with Linux's line."""
    touched = re.findall(r"^redteam: \S+: (\d+) MiB touched$", r.output, re.M)
    want(touched, "touches its pages (%s MiB before the last line)" % (touched[-1] if touched else "no"))
    want(r.signal == "SIGKILL", "killed by SIGKILL")
    want(r.has(r"^Out of memory: Killed process \d+ \(redteam\) total-vm:\d+kB"),
         "the kernel's line: Out of memory: Killed process N (redteam)")
    want(not r.has(r"NOT KILLED"), "never refused instead (mmap takes no memory)")


def redteam_checks(run, r, kernel):
    """[(ok, description, detail)] for one red-team case on kernel."""
    a = REDTEAM_BY_CASE[run.args[0]]
    want_out = a.ronx if kernel == "ronx" else a.linux
    out = []

    def want(ok, desc, detail=""):
        out.append((bool(ok), "%s: %s" % (run.key, desc), "" if ok else detail or
                    "got %s, output: %s" % (r.ended(), r.output[-400:])))

    if kernel == "qemu" and a.case in QEMU_REDTEAM_GAPS:
        return [(True, "%s: %s" % (run.key, want_out), "SKIP " + QEMU_REDTEAM_GAPS[a.case])]
    if want_out in ("held", "policy"):
        for m in HELD_LINE.finditer(r.output):
            gap = [why for rx, why in QEMU_REDTEAM_CHECK_GAPS if re.search(rx, m.group(3))]
            if kernel == "qemu" and gap:
                out.append((True, "%s: %s" % (run.key, m.group(3)), "SKIP " + gap[0]))
                continue
            want(not m.group(2), "%s (got %s)" % (m.group(3), m.group(4)), "not ok: got " + m.group(4))
        n = len(HELD_LINE.findall(r.output))
        fails = len([m for m in HELD_LINE.finditer(r.output) if m.group(2)])
        qemu_ok = kernel == "qemu" and r.status == 1 and all(
            any(re.search(rx, m.group(3)) for rx, _ in QEMU_REDTEAM_CHECK_GAPS)
            for m in HELD_LINE.finditer(r.output) if m.group(2))
        want((r.status == 0 and r.has(r"^redteam: %s: held, %d checks$" % (a.case, n))) or qemu_ok,
             "held: every check (%d) passed, exit 0" % n, "%d failed; ended %s" % (fails, r.ended()))
        if kernel == "ronx" and a.case == "sigframes":
            # ronx's own answer, stricter than the case's: each frame refused in the call itself
            # (the CPU would drop a kernel ds at the iret anyway, so only this line shows the check)
            for call in ("rt_sigreturn", "sigreturn"):
                n_bad = len(re.findall(r"^redteam\[\d+\] bad frame in %s frame:" % call, r.output, re.M))
                want(n_bad == 6, "ronx refuses 6 forged %s frames in the call (cs, cs RPL 3, ss, ds, "
                     "fpstate, esp in the kernel half): a bad-frame line each" % call,
                     "%d bad-frame lines" % n_bad)
        if want_out == "policy":
            said = re.findall(r"^redteam: \S+: policy: (.*): (\S+)$", r.output, re.M)
            word = "EACCES" if kernel == "ronx" else "allowed"
            want(len(said) == 7 and all(w == word for _, w in said),
                 "every W+X request %s (%s's policy)" % (
                     "refused with EACCES" if word == "EACCES" else "allowed", kernel),
                 "; ".join("%s: %s" % x for x in said))
        return out
    sig = want_out.split()[0]
    if want_out == "SIGKILL OOM":
        oom_checks(r, want)
        return out
    m = EXPECT_LINE.search(r.output)
    want(m and m.group(1) == a.case, "says what it tries and which exception it expects")
    want(r.signal == sig, "killed by %s" % sig)
    want(not r.has(r"WENT THROUGH|landed in ring 3|NOT REFUSED"), "never gets past the attempt")
    if kernel == "ronx" and m:
        trap = want_out.split()[1]
        line = r.kernel_line or ""
        err = m.group(5)
        if trap == "#PF":
            s = SEGFAULT_LINE.search(line)
            ok = s and s.group(1) == "redteam" and int(s.group(6), 16) == int(err, 16) and \
                (not m.group(4) or int(s.group(3), 16) == int(m.group(4), 16))
            want(ok, "the kernel's line: segfault%s error %s" % (" at " + m.group(4) if m.group(4) else "",
                                                                 err[2:]), "kernel said: %r" % line)
        else:
            t = TRAPS_LINE.search(line)
            ok = t and t.group(1) == "redteam" and t.group(3) == TRAP_TEXT[trap] and \
                (err is None or (t.group(6) is not None and int(t.group(6), 16) == int(err, 16)))
            want(ok, "the kernel's line: traps: ... %s%s" % (TRAP_TEXT[trap],
                                                            " error:%s" % err[2:] if err else ""),
                 "kernel said: %r" % line)
    return out


def verdict(run, r, kernel):
    """One short cell for docs/linux-vs-ronx.md: what happened."""
    n = run.name
    if r is None:
        return "not measured"
    if r.signal:
        m = SEGFAULT_LINE.search(r.kernel_line or "")
        return "%s (segfault at %s, error %s)" % (r.signal, m.group(3), m.group(6)) if m else r.signal
    lines = r.output.splitlines()
    if n in ("mmaprwx", "mprotectrwx"):
        said = [l.split(": ", 1)[1] for l in lines if re.match(r"^\w+: (allowed|refused)", l)]
        ran = " and the code in it ran (42)" if r.has(r"returned 42$") else ""
        return "%s%s" % (said[0] if said else "?", ran)
    if n in ("usertest", "mmapwrap"):
        leaves = ktap_leaves(r.output)
        return "%d/%d ok" % (sum(ok for _, _, ok, _ in leaves), len(leaves))
    if n == "redteam":
        said = re.findall(r"^redteam: \S+: policy: .*: (\S+)$", r.output, re.M)
        if said:
            return "exit %s: W+X %s" % (r.status, "refused (EACCES)" if set(said) == {"EACCES"} else
                                        "allowed" if set(said) == {"allowed"} else "/".join(said))
        m = re.search(r"^redteam: \S+: (held, \d+ checks|\d+ of \d+ checks failed)$", r.output, re.M)
        if m:
            return "exit %s: %s" % (r.status, m.group(1))
    if n == "fuzz":
        m = re.search(r"^fuzz: done: (\d+) calls.*succeeded: (\d+)$", r.output, re.M)
        return ("%s calls, %s kernel-half successes, exit %s" % (m.group(1), m.group(2), r.status)
                if m else "did not finish (%s)" % r.ended())
    if n.startswith("bench_"):
        m = re.findall(r"^bench_\w+: (?:pid \d+, )?(.*?): min \d+ median (\d+) cycles", r.output, re.M)
        return "; ".join("%s: median %s cycles" % lm for lm in m) or r.ended()
    if r.status is None:
        return "did not run: %s" % (lines[0] if lines else "no output")
    if n == "stackexec" and r.has(r"returned 42"):
        return "exit %s: the code on the stack ran (42)" % r.status
    said = (lines[0] if n == "hello" else lines[-1]) if lines else ""
    return "exit %s%s" % (r.status, (": " + said) if said else "")


def guest_list(kind, outdir, runs=None):
    """RUN.KIND for linux/init.sh: one run per line, KEY TIMEOUT INPUT MODE PROG ARGS.
    runs: TESTS or BENCH by kind, unless given (linux/user_nx.py's few)."""
    if runs is None:
        runs = TESTS if kind == "tests" else BENCH
    repeats = BENCH_REPEATS if kind == "bench" else 1
    with open(os.path.join(outdir, "RUN." + kind), "w") as f:
        for i in range(repeats):
            for run in runs:
                inp = "-"
                if run.stdin is not None:
                    inp = "input.%s" % run.key
                    with open(os.path.join(outdir, inp), "w") as g:
                        g.write(run.stdin)
                f.write(" ".join([bench_key(run.key, i), str(run.timeout), inp,
                                  "cpu0" if run.cpu0 else "one", run.name] + run.argv("linux")) + "\n")


def by_key(kind):
    return {r.key: r for r in (TESTS if kind == "tests" else BENCH)}


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--guest-list" and sys.argv[2] in ("tests", "bench"):
        guest_list(sys.argv[2], sys.argv[3])
    elif sys.argv[1:] == ["--redteam-table"]:
        print(redteam_table())
    else:
        sys.exit(__doc__)
