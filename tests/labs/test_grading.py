# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of labs/grading.py's own machinery: a check that raises,
crashes or whose boot fails scores 0 with its reason, grading goes on, and
results.json has Gradescope's shape."""
import os
import re
import socket
import struct
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import grading  # noqa: E402
from grading import Check, CheckFailed, Context, run_check, step  # noqa: E402
from gdbstub import GdbStub  # noqa: E402
import userlab  # noqa: E402
import watch  # noqa: E402
import lab  # noqa: E402


def run(points, fn, ctx=None, steps=()):
    return run_check(ctx, "demo", Check("name", points, fn, steps))


def test_failed_check_scores_zero_with_its_message():
    def fn(ctx):
        raise CheckFailed("expected RO+X at 0xc0100000, found RW+X")
    o = run(10, fn)
    assert o.score == 0 and "found RW+X" in o.output and o.line().startswith("  FAIL   0/10")


def test_crashing_check_scores_zero_and_says_why():
    o = run(5, lambda ctx: {}["missing"])
    assert o.score == 0 and "crashed: KeyError" in o.output, o.output


def test_passing_check_scores_full():
    o = run(5, lambda ctx: None)
    assert o.score == 5 and o.output == "" and o.line().startswith("  PASS   5/5")


def test_failed_boot_fails_every_check_using_it_once():
    ctx = Context(ROOT)
    try:
        for _ in range(2):
            try:
                ctx.boot(cpu="no-such-cpu")
            except CheckFailed as e:
                assert "did not reach the shell prompt" in str(e), str(e)
            else:
                raise AssertionError("a QEMU that cannot start booted")
        assert len(ctx._boots) == 1 and isinstance(list(ctx._boots.values())[0], str)
    finally:
        ctx.close()


def test_gradescope_shape():
    outs = [run_check(None, "a", Check("one", 10, lambda ctx: None, ())),
            run_check(None, "a", Check("two", 5, lambda ctx: {}["x"], ()))]
    res = grading.gradescope(outs, 1.25)
    assert res["score"] == 10 and res["output"] == "Score: 10/15", res
    assert res["visibility"] == "visible" and res["extra_data"]["max_score"] == 15, res
    assert res["execution_time"] == 1 and isinstance(res["execution_time"], int)
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in res["tests"]] == \
        [("a: one", 10, 10, "passed"), ("a: two", 0, 5, "failed")]
    assert all(isinstance(t["output"], str) and t["visibility"] == "visible"
               for t in res["tests"])


class FakeGuest:
    def __init__(self, out):
        self.out = out


class FakeCtx:
    """A Context whose boots are canned serial logs."""
    def __init__(self, logs):
        self.logs = logs
        self._used = []

    def boot(self):
        g = FakeGuest(self.logs.pop(0))
        self._used.append(g)
        return g

    stubs_seen = Context.stubs_seen


STUB = "ronx: lab demo: %s() is not written yet - see docs/labs/demo.md\n"


def test_a_stub_line_costs_the_points_of_its_function():
    mine, other = step("fn_a", "does a", "leaves-out-a"), step("fn_b", "does b", "leaves-out-b")
    grading.take_registered()
    ctx = FakeCtx(["boot\n" + STUB % "fn_a", "boot\n" + STUB % "fn_a"])
    o = run(10, lambda c: c.boot(), ctx, [mine])
    assert o.score == 0 and "fn_a() is not written yet" in o.output, o.output
    o = run(10, lambda c: c.boot(), ctx, [other])
    assert o.score == 10, "a stub of another function costs nothing: " + o.output


def test_a_stub_line_of_another_lab_costs_nothing():
    s = step("fn_a", "does a", "w")
    grading.take_registered()
    ctx = FakeCtx([STUB.replace("demo", "other") % "fn_a"])
    assert run(5, lambda c: c.boot(), ctx, [s]).score == 5


def test_scenarios_depend_on_seed_and_name_only():
    a, b = Context(ROOT, seed=7), Context(ROOT, seed=7)
    b.rng("other").random()
    assert a.rng("plant").random() == b.rng("plant").random()
    assert Context(ROOT, seed=8).rng("plant").random() != a.rng("plant").random()


def test_where_names_the_nearest_symbol():
    ctx = Context(ROOT)
    ctx._syms = {"_text": 0xc0100000, "_etext": 0xc010c000, "_end": 0xc0130000, "EFER": 0x80}
    assert ctx.where(0xc0100010) == "0xc0100010 (_text+0x10)"
    assert ctx.where(0xc00a0000) == "0xc00a0000", "addresses outside the image get no symbol"


class PortGuest:
    """A guest whose `selftest` prints console on the console and port on
    port 0xe9, as kernel/selftest/ktest.c and code under test would."""
    debugcon = True

    def __init__(self, console, port):
        self.console, self.port, self.sent = console, port, False

    def debugcon_text(self):
        return self.port if self.sent else ""

    def command(self, line, timeout):
        self.sent = True
        return self.console


def ktap_text(suite, cases, plan=None):
    lines = ["KTAP version 1", "1..1", "    KTAP version 1", "    # Subtest: " + suite,
             "    1..%d" % (len(cases) if plan is None else plan)]
    lines += ["    %s %d %s" % (st, i, n) for i, (n, st) in enumerate(cases, 1)]
    return "\n".join(lines + ["ok 1 " + suite]) + "\n"


def port_boot(console, port, teacher):
    b = grading.Boot.__new__(grading.Boot)
    b.guest, b._ktap, b.dead = PortGuest(console, port), {}, False
    b.tests = lambda: teacher
    return b


def ktap_fails(console, port, teacher, words):
    try:
        port_boot(console, port, teacher).ktap("smp")
    except CheckFailed as e:
        assert all(w in str(e) for w in words), str(e)
        return
    raise AssertionError("accepted: %s" % port)


def test_ktap_counts_port_0xe9_not_the_console():
    teacher = {"smp": ["a", "b"]}
    faked = ktap_text("smp", [("a", "ok"), ("b", "ok")])
    real = ktap_text("smp", [("a", "ok"), ("b", "not ok")])
    got = port_boot(faked, real, teacher).ktap("smp")
    assert got["a"][0] and not got["b"][0], got
    ktap_fails(faked, "", teacher, ["on port 0xe9", "found none"])


def test_ktap_duplicate_missing_extra_name_fail_the_run():
    teacher = {"smp": ["a", "b"]}
    ktap_fails("", ktap_text("smp", [("a", "ok"), ("b", "not ok"), ("b", "ok")], plan=2),
               teacher, ["teacher's 2 tests", "b reported more than once"])
    ktap_fails("", ktap_text("smp", [("a", "ok")]), teacher, ["no result for b"])
    ktap_fails("", ktap_text("smp", [("a", "ok"), ("b", "ok"), ("fake", "ok")]), teacher,
               ["fake: not self-tests of the teacher's kernel"])
    ktap_fails("", ktap_text("smp", [("a", "ok"), ("b", "ok")], plan=3), teacher,
               ["a plan of 3 tests where the teacher's kernel has 2"])


def test_teacher_tests_read_from_the_kernel_elf():
    """The ELF's KTEST table names every KTEST() of the kernel's sources."""
    tests = grading.teacher_tests(os.path.join(ROOT, "build", "kernel.elf"))
    src = set()
    for d in ("kernel", "mm", "modload"):
        for top, _, names in os.walk(os.path.join(ROOT, d)):   # kernel/ has rooms
            for n in names:
                if n.endswith(".c"):
                    with open(os.path.join(top, n)) as f:
                        src.update(re.findall(r"^KTEST\((\w+),\s*(\w+)\)", f.read(), re.M))
    src.discard(("image", "name"))     # kernel/selftest/rodata_test.c's macro makes tests of this
    got = {(s, n) for s, names in tests.items() for n in names}
    assert src <= got and len(got) == sum(len(v) for v in tests.values()) and \
        ("image", "exec_data_faults") in got, (sorted(src - got)[:5], len(got), len(src))


class ShellBoot:
    """A boot whose `run X &` answers with a pid, then the program's lines
    (as the kernel prints them, here after the prompt) appear."""
    def __init__(self, after):
        self.guest = FakeGuest("")
        self.after = after

    def sh(self, line, timeout=30):
        self.guest.out += "ronx> " + line + "\n[3] spin\n" + self.after
        return "[3] spin\n"


def background_fails(after):
    import userlab
    try:
        userlab.start_background(ShellBoot(after), "spin loop", r"^looping$", timeout=2)
    except CheckFailed as e:
        return str(e)
    raise AssertionError("a program that died was taken as running")


def test_died_reads_the_line_after_the_prompt():
    """Issue 21: `found it ended: no end line` although the segfault line
    was there, after the prompt on the same line (died()'s ^ anchor)."""
    segv = "spin[3]: segfault at bfffeffc ip 08048012 sp bfffeffc error 6"
    # the stub kernel: setup_stack() not written, the first push faults
    stub = ("ronx: lab process-pagetables: setup_stack() is not written yet - see "
            "docs/labs/process-pagetables.md\nronx> " + segv + "\n")
    msg = background_fails(stub)
    assert "found it ended: " + segv in msg and "no end line" not in msg, msg
    # a wrong solution (the stack mapped RW without its guard): killed, not segfaulted
    msg = background_fails("ronx> [3] spin: killed by SIGSEGV\n")
    assert "found it ended: [3] spin: killed by SIGSEGV" in msg and "no end line" not in msg, msg


def test_student_tree_graded_as_its_submission_ignores_files_outside_the_lab():
    """tools/lab.py grade in a student's tree: what lab-start made (the
    repository's first commit) with only the lab's files taken, and one
    line naming each file outside them that it ignored."""
    import subprocess
    import tempfile
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lab
    files = {"labs/demo/strip": "mm/demo.c demo_fn write it\n",
             "labs/student-tree": "demo\n", "mm/demo.c": "int demo_fn(void) { return 0; }\n",
             "kernel/other.c": "int other;\n", "kernel/gone.c": "int gone;\n",
             ".gitignore": "build/\n"}
    with tempfile.TemporaryDirectory(prefix="ronx-student-tree-") as d:
        tree, work = os.path.join(d, "tree"), os.path.join(d, "work")
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            with open(os.path.join(tree, rel), "w") as f:
                f.write(text)
        g = ["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@ronx.invalid"]
        subprocess.run(g[:3] + ["init", "-q"], check=True)
        subprocess.run(g + ["add", "-A", "."], check=True)
        subprocess.run(g + ["commit", "-q", "-m", "start"], check=True)
        first = lab.started_from(tree)
        assert lab.student_lab(tree) == "demo"
        assert lab.outside_changes(tree, "demo", first) == []
        assert "nothing" in lab.ignored_line([])
        # the student's work: the lab's file, and (committed or not) others
        edits = {"mm/demo.c": "int demo_fn(void) { return 1; }\n",
                 "kernel/other.c": "int other = 1;\n", "notes.txt": "mine\n",
                 "build/x.o": "ignored by git\n"}
        for rel, text in edits.items():
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            with open(os.path.join(tree, rel), "w") as f:
                f.write(text)
        os.remove(os.path.join(tree, "kernel/gone.c"))
        subprocess.run(g + ["commit", "-q", "-am", "work"], check=True)
        with open(os.path.join(tree, "kernel/new.c"), "w") as f:
            f.write("int sneaky;\n")
        changes = lab.outside_changes(tree, "demo", first)
        assert changes == [("kernel/gone.c", "deleted"), ("kernel/new.c", "added"),
                           ("kernel/other.c", "changed"), ("notes.txt", "added")], changes
        line = lab.ignored_line(changes)
        assert "\n" not in line and all("%s (%s)" % c in line for c in changes), line
        lab.make_student_scratch(work, "demo", tree, first, changes)

        def text(rel):
            with open(os.path.join(work, rel)) as f:
                return f.read()
        assert text("mm/demo.c") == edits["mm/demo.c"]       # the lab's file: taken
        assert text("kernel/other.c") == files["kernel/other.c"]  # the rest: as started
        assert text("kernel/gone.c") == files["kernel/gone.c"]
        assert not os.path.exists(os.path.join(work, "notes.txt"))
        assert not os.path.exists(os.path.join(work, "kernel/new.c"))


def test_deadline_names_its_stretched_bound():
    """A wait's failure message names the bound it waited (stretched by
    the load), not the idle one."""
    loadavg = os.getloadavg
    try:
        os.getloadavg = lambda: (4.0 * (os.cpu_count() or 1), 0.0, 0.0)
        d = grading.deadline(20)
    finally:
        os.getloadavg = loadavg
    assert d.seconds == 80 and 79 < d - time.monotonic() <= 80, (d.seconds, d)


def test_echo_found_with_a_line_between_its_letters():
    """The shell's echo of `ps` with a child's segfault line printed between
    its letters is still the echo (the grader waited out its bound)."""
    out = "p" + "cowprobe[4]: segfault at 0 ip 00000000 sp bffffe70 error 14\ns\n  PID STATE\n"
    m = re.compile(grading.echo_pattern("ps"), re.M).search(out)
    assert m and out[m.end():].startswith("  PID"), m
    assert not re.compile(grading.echo_pattern("ps"), re.M).search("pq\nr\n")   # no s yet


class FakeQemu:
    """The gdbstub's far end on a socket pair: answers each packet with
    reply(data), records them, and answers a Ctrl-C with a stop reply."""

    def __init__(self, reply):
        self.reply, self.got = reply, []
        mine, theirs = socket.socketpair()
        self.stub = object.__new__(GdbStub)
        self.stub.sock, self.stub.buf, self.stub.breakpoints = mine, b"", set()
        self.stub.running, self.stub.last_stop, self.stub.steps_past = False, "", None
        self.sock = theirs
        threading.Thread(target=self.serve, daemon=True).start()

    def send(self, data):
        self.sock.sendall(b"$%s#%02x" % (data.encode(), sum(data.encode()) & 0xff))

    def serve(self):
        buf = b""
        while True:
            chunk = self.sock.recv(4096)
            if not chunk:
                return
            buf += chunk
            while True:
                buf = buf.lstrip(b"+")
                if buf[:1] == b"\x03":
                    buf = buf[1:]
                    self.got.append("^C")
                    self.send("T02thread:01;")
                    continue
                end = buf.find(b"#")
                if not buf.startswith(b"$") or end < 0 or len(buf) < end + 3:
                    break
                data, buf = buf[1:end].decode(), buf[end + 3:]
                self.sock.sendall(b"+")
                self.got.append(data)
                answer = self.reply(data)
                if answer is not None:
                    self.send(answer)


def registers(eip):
    return struct.pack("<16I", *([0] * 8 + [eip] + [0] * 7)).hex()


def test_a_step_runs_over_a_breakpoint_where_qemu_lets_it():
    """QEMU 7's single step passes the breakpoint the CPU stands on: the
    step over it is one step, no breakpoint removed and put back; a QEMU
    that stops on it again gets gdb's remove, step, put back."""
    for passes in (True, False):
        where = {"eip": 0x1000, "bp": True}

        def reply(data):
            if data.startswith(("z0", "Z0")):
                where["bp"] = data.startswith("Z0")
            elif data.startswith(("s", "vCont;s")):
                if passes or not where["bp"]:
                    where["eip"] = 0x1002
                return "T05thread:01;"
            return registers(where["eip"]) if data == "g" else "OK"
        q = FakeQemu(reply)
        q.stub.breakpoints.add(0x1000)
        q.stub.step_over(0x1000)
        assert q.stub.steps_past is passes, (passes, q.got)
        removed = [c for c in q.got if c.startswith(("z0", "Z0"))]
        assert removed == ([] if passes else ["z0,1000,1", "Z0,1000,1"]), (passes, q.got)
        where["eip"] = 0x1000
        q.stub.step_over(0x1000)        # the second time: no question asked
        assert q.got.count("g") == 1 and where["eip"] == 0x1002, q.got


def test_a_wait_for_a_stop_ends_once_the_guest_died():
    """wait_stop(until=): no stop comes from a guest that died; the wait
    ends a quarter second after until() says so, not at its bound, and
    the guest is stopped (Ctrl-C) before it returns False."""
    q = FakeQemu(lambda data: None)
    q.stub.running = True
    asked, t0 = [], time.monotonic()
    stopped = q.stub.wait_stop(30, until=lambda: asked.append(1) or len(asked) > 1)
    took = time.monotonic() - t0
    assert not stopped and took < 20 and q.got == ["^C"] and not q.stub.running, (took, q.got)


def test_a_background_wait_ends_at_any_oops():
    """start_background() ends at an oops that killed another process (a
    probe's child), not only its own pid's."""
    line = "ronx: ptiprobe[12] dies of the oops; the kernel goes on"
    m = userlab.OOPS_DEATH.search("[#2] SMP\n" + line + "\n")
    assert m and m.group(0) == "ptiprobe[12] dies of the oops", m
    assert not userlab.OOPS_DEATH.search("ronx: the oops is over")


def test_a_recording_context_notes_each_draw():
    """The class grade of the solved files notes the scenarios each check
    draws (tools/lab.py new_context()): the same numbers as a plain
    Context's, each name noted; none without record."""
    ctx = lab.new_context(ROOT, 7, ROOT, "/nonexistent/draws.json")
    plain = Context(ROOT, 7)
    assert ctx.rng("pti/scenario").random() == plain.rng("pti/scenario").random()
    ctx.rng("b")
    assert ctx.drawn == {"pti/scenario", "b"}, ctx.drawn
    assert not hasattr(lab.new_context(ROOT, 7, ROOT, None), "drawn")


class FakeRegisters:
    """A guest whose monitor answers info registers -a with text."""
    def __init__(self, text):
        self.guest = self
        self.text = text

    def monitor(self, cmd):
        assert cmd == "info registers -a", cmd
        return self.text


class FakeSymbols:
    syms = {"cpu_relax": 0xc0110a40, "spin_lock": 0xc0110a80, "_text": 0xc0100000}

    def sym(self, name):
        return self.syms[name]


# two CPUs' lines of info registers -a: EIP and HLT of each
TWO_CPUS = ("CPU#0\nEIP=%08x EFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=%d\n"
            "CPU#1\nEIP=%08x EFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=%d\n")


def test_an_idle_guest_is_every_cpu_halted():
    """start_background(never_sleeps=True) calls a program blocked once
    QEMU shows every CPU halted: one CPU running is not idle, nor is an
    answer without HLT flags."""
    st = watch.Stuck(FakeSymbols())
    assert st.state(TWO_CPUS % (0xc0110a49, 1, 0x08048000, 1)) == "halted"
    assert st.state(TWO_CPUS % (0xc0110a49, 1, 0x08048000, 0)) is None
    assert st.state("QEMU gone") is None


def test_a_deadlock_is_every_cpu_in_cpu_relax():
    """start_background(never_sleeps=True) calls the kernel stuck once QEMU
    shows every CPU in cpu_relax() (a busy wait) in IDLE_SAMPLES samples in
    a row: one CPU elsewhere, or halted, is not; a fault between samples
    starts the count again; every CPU halted is still an Idle."""
    G, two = FakeRegisters, TWO_CPUS
    st = watch.Stuck(FakeSymbols())
    assert st.state(two % (0xc0110a49, 0, 0xc0110a40, 0)) == "spinning"
    assert st.state(two % (0xc0110a49, 0, 0xc0110a80, 0)) is None     # one in spin_lock
    assert st.state(two % (0xc0110a49, 0, 0x08048000, 0)) is None     # one in ring 3
    assert st.state(two % (0xc0110a49, 1, 0xc0110a49, 1)) == "halted"
    assert st.state("QEMU gone") is None
    spin = G(two % (0xc0110a49, 0, 0xc0110a4b, 0))
    for _ in range(watch.IDLE_SAMPLES - 1):
        assert st.sample(spin) is None
    st.reset()                          # a page fault came between
    for _ in range(watch.IDLE_SAMPLES - 1):
        assert st.sample(spin) is None
    assert isinstance(st.sample(spin), watch.Spinning)
    st.reset()
    for _ in range(watch.IDLE_SAMPLES - 1):
        assert st.sample(G(two % (0xc0110a49, 1, 0xc0110a49, 1))) is None
    assert isinstance(st.sample(G(two % (0xc0110a49, 1, 0xc0110a49, 1))), watch.Idle)


def test_a_program_death_after_the_prompt_ends_a_wait():
    """cow's wait for a program's line ends at the program's death, also
    where the death line follows the shell's prompt (a background child's
    segfault printed right after `ronx> `): it waited its bound before."""
    for line in ("ronx> cowprobe[5]: segfault at bfffe000 ip 08048123 sp bfffdf00 error 6\n",
                 "cowprobe[5]: segfault at 0 ip 0 sp 0 error 4\n", "[3] cowprobe: killed by SIGKILL\n"):
        m = userlab.died_line("cowprobe").search("run cowprobe tlb 3 &\n[3] cowprobe\n" + line)
        assert m and m.group(1) == line.replace("ronx> ", "").strip(), (line, m)
    # the grader's own helper, killed by the grader, is not the program dying
    assert not userlab.died_line("cowprobe").search("ronx> ps\n[2] park: killed by SIGKILL\n")


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items()) if n.startswith("test_")]
