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

SIGNALS = {4: "SIGILL", 5: "SIGTRAP", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV"}
# Linux's and ronx's line for a user fault: PROG[PID]: segfault at ADDR ip IP sp SP error CODE
SEGFAULT_LINE = re.compile(r"(\S+)\[(\d+)\]: segfault at ([0-9a-f]+) ip ([0-9a-f]+) "
                           r"sp ([0-9a-f]+) error ([0-9a-f]+)")


class Run:
    """One run of a program: NAME ARGS, with stdin, or two copies at once."""

    def __init__(self, name, args=(), stdin=None, timeout=0, pair=False, key=None,
                 what="", qemu_args=None):
        self.name, self.args, self.stdin = name, list(args), stdin
        self.qemu_args = qemu_args
        self.timeout, self.pair = timeout, pair
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
    Run("spin", timeout=2, what="loops until killed"),
]

BENCH = [
    Run("bench_getpid", ["100000"]),
    Run("bench_yield", ["20000"], key="bench_yield-alone"),
    Run("bench_yield", ["20000"], pair=True, key="bench_yield-pair"),
    Run("bench_spawn", ["1000", "/ubin/true"]),
    Run("bench_fork", ["200"]),
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
            code = DEMO_ERROR[n]
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
        want(bg and has(r"^hello from user space, pid %s$" % bg.group(1)) and
             has(r"^\[%s\] done: hello: exit status 0$" % bg.group(1)),
             "PROG &: its pid printed, and wait reaps it with its status")
        want(r.status == 0, "end of input ends sh with exit 0")
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
    elif n == "spin":
        want(r.has(r"^spin: pid [1-9]\d* looping$"), "says it loops")
        want(r.signal in ("SIGKILL", "SIGINT"), "still looping when killed (SIGKILL, or Ctrl-C)")
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
    if n == "usertest":
        leaves = ktap_leaves(r.output)
        return "%d/%d ok" % (sum(ok for _, _, ok, _ in leaves), len(leaves))
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
    with open(os.path.join(outdir, "RUN." + kind), "w") as f:
        for i, run in enumerate(runs):
            inp = "-"
            if run.stdin is not None:
                inp = "input.%s" % run.key
                with open(os.path.join(outdir, inp), "w") as g:
                    g.write(run.stdin)
            f.write(" ".join([run.key, str(run.timeout), inp, "pair" if run.pair else "one",
                              run.name] + run.argv("linux")) + "\n")


def by_key(kind):
    return {r.key: r for r in (TESTS if kind == "tests" else BENCH)}


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--guest-list" and sys.argv[2] in ("tests", "bench"):
        guest_list(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
