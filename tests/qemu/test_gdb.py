# SPDX-License-Identifier: GPL-2.0-only
"""gdb's ronx-walk and ronx-ptdump (tools/gdb/ronx.py) in batch mode
against QEMU started as `make debug` starts it (stopped, waiting for gdb;
here on a free port). gdb stops at start_kernel (early tables), at
mark_rodata_ro and after it returns; each stop's walk is checked against
QEMU's `info tlb` at the same stop, and the text page must change from
RW+X to RO+X. At the prompt, gdb's dump must be the shell's `ptdump`, and
its walks the shell's `walk`, line for line."""
import os
import re
import shutil
import socket
import subprocess

from guest import BUILD, ROOT, Guest, skip_under_boot_extra
from tlb import PageTables, kernel_symbols
import walk

A_D = 0x60	# accessed and dirty: the CPU may set them between two reads


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sections(out):
    """gdb's output cut at the '===NAME' lines the script echoes."""
    parts = re.split(r"^===(\S+)$", out, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def walks(text):
    """Each ronx-walk's output in a section, by address."""
    chunks = re.split(r"^(?=walk 0x)", text, flags=re.M)
    return {int(c.split()[1], 16): walk.parse(c) for c in chunks if c.startswith("walk 0x")}


def gdb_script(stops, at_prompt):
    """-ex commands: walks and info tlb at start_kernel (already stopped there
    by tools/gdbinit), mark_rodata_ro, after it returns; then at the shell."""
    def probe(name, addrs):
        return ["echo ===%s\\n" % name] + ["ronx-walk 0x%x" % a for a in addrs] + \
               ["echo ===%s-tlb\\n" % name, "monitor info tlb"]
    cmds = probe("early", stops)
    cmds += ["break mark_rodata_ro", "continue"] + probe("before", stops)
    cmds += ["finish"] + probe("after", stops)
    cmds += ["delete", "break cmd_ptdump", "continue", "echo ===dump\\n", "ronx-ptdump",
             "set ronx-read xp", "echo ===dump-xp\\n", "ronx-ptdump", "set ronx-read phys",
             "echo ===prompt\\n"] + ["ronx-walk 0x%x" % a for a in at_prompt]
    cmds += ["echo ===end\\n", "delete", "detach"]
    return [a for c in cmds for a in ("-ex", c)]


def check_stop(t, name, part, tlb_text, addrs):
    pt = PageTables(tlb_text)
    for what, va in addrs.items():
        w = part.get(va)
        m = pt.lookup(va)
        want = m.perm() if m else "not mapped"
        t.check(w is not None and w.perm == want,
                "gdb at %s: ronx-walk %s 0x%08x = info tlb %s" % (name, what, va, want),
                "ronx-walk: %s" % (w.text if w else "(no output)"))


def same_walk(gdb_w, shell_w):
    if [(l, i) for l, i, _ in gdb_w.entries] != [(l, i) for l, i, _ in shell_w.entries]:
        return False
    return all((a ^ b) & ~A_D == 0 for (_, _, a), (_, _, b) in zip(gdb_w.entries, shell_w.entries)) \
        and (gdb_w.perm, gdb_w.region) == (shell_w.perm, shell_w.region)


def test_gdb_walk_across_mark_rodata_ro(t):
    if skip_under_boot_extra(t, "gdb walks across mark_rodata_ro from the first instruction",
                             "gdb stops the boot at start_kernel's link address before any "
                             "instruction runs; under kaslr start_kernel runs in the moved copy, "
                             "whose offset gdb reads only after trap_init (tools/gdb/ronx.py; "
                             "test_kaslr_gdb covers gdb under kaslr)"):
        return
    if not shutil.which("gdb"):
        t.fail("gdb is installed", "no gdb on PATH: tools/setup.sh installs it")
        return
    subprocess.run(["make", "--no-print-directory", "-s", "build/host/libronx-pt.so"],
                   cwd=ROOT, check=True)
    s = kernel_symbols(os.path.join(BUILD, "kernel.elf"))
    stops = {"text": s["mark_rodata_ro"], "rodata": s["__start_rodata"], "data": s["_sdata"]}
    at_prompt = dict(stops, bss=s["__bss_start"], hole=0xC00A0000, module=0xF8000000,
                     user=0x10000000)
    port = free_port()
    log = os.path.join(BUILD, "results", "logs", "gdb-batch.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    # gdb writes to a file: a pipe nobody reads while the guest boots would fill and stop it
    with Guest("gdb", extra=["-gdb", "tcp:127.0.0.1:%d" % port, "-S"]) as g, \
            open(log, "w") as logf:
        gdb = subprocess.Popen(
            # no debuginfod look-ups from a test (an error, harmless, where gdb has none)
            ["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off", "-x", "tools/gdbinit"] +
            gdb_script(stops.values(), at_prompt.values()),
            cwd=ROOT, env=dict(os.environ, RONX_GDB_PORT=str(port)),
            stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
        try:
            g.wait_ready()
            shell_dump = g.command("ptdump")	# gdb stops in cmd_ptdump, dumps, detaches
            shell_walks = {va: walk.parse(g.command("walk 0x%x" % va))
                           for va in at_prompt.values()}
            gdb.wait(timeout=120)
        finally:
            if gdb.poll() is None:
                gdb.kill()
                gdb.wait()
        g.poweroff()
    with open(log) as f:
        out = f.read()
    part = sections(out)
    if not t.check("end" in part, "gdb ran the whole script (tools/gdbinit, 3 stops, detach)",
                   out[-1500:]):
        return

    for name, where in (("early", "start_kernel"), ("before", "mark_rodata_ro"),
                        ("after", "mark_rodata_ro's return")):
        check_stop(t, where, walks(part[name]), part[name + "-tlb"], stops)
    early, before, after = (walks(part[n]) for n in ("early", "before", "after"))
    text = stops["text"]
    t.check(early[text].entries[-1][0] == "PDE" and early[text].entries[-1][2] & 0x80,
            "gdb at start_kernel: the early tables map text with a 2M page",
            early[text].text)
    t.check((before[text].perm, after[text].perm) == ("RW+X", "RO+X"),
            "gdb: mark_rodata_ro() turns text RW+X into RO+X",
            "before %s, after %s" % (before[text].perm, after[text].perm))
    t.check((before[stops["rodata"]].perm, after[stops["rodata"]].perm) == ("RW+X", "RO+NX"),
            "gdb: mark_rodata_ro() turns rodata RW+X into RO+NX",
            "before %s, after %s" % (before[stops["rodata"]].perm, after[stops["rodata"]].perm))

    gdb_dump = part["dump"].strip().splitlines()
    t.check(gdb_dump == shell_dump.strip().splitlines() and len(gdb_dump) > 5,
            "gdb's ronx-ptdump is the shell's ptdump, line for line",
            "gdb:\n%s\nshell:\n%s" % ("\n".join(gdb_dump), shell_dump))
    t.check(part["dump-xp"].strip().splitlines() == gdb_dump,
            "gdb's ronx-ptdump reads the same through monitor xp as in physical mode",
            part["dump-xp"])
    gdb_walks = walks(part["prompt"])
    for what, va in at_prompt.items():
        gw, sw = gdb_walks.get(va), shell_walks[va]
        t.check(gw is not None and same_walk(gw, sw),
                "gdb's ronx-walk %s 0x%08x is the shell's walk (%s)" % (what, va, sw.perm),
                "gdb:\n%s\nshell:\n%s" % (gw.text if gw else "(none)", sw.text))
