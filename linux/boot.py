#!/usr/bin/env python3
# Boot a kernel + initramfs in QEMU (TCG), wait for the guest's
# "ready-for-tlb" line, then read its page tables from the outside
# through the QEMU monitor: "info tlb", plus a walk of the PAE tables
# for chosen addresses with "xp" (to see the PDE bits "info tlb" omits).
# Writes NAME.serial.log, NAME.tlb.txt and NAME.walk.txt into OUTDIR.
# With --user (ronx's user programs, linux/user-run.sh) it waits for the
# programs' last line instead, then stops the guest while it runs the
# user program spin and walks spin's pages (NAME.walk.txt). With --until
# LINE it waits for that line (or a panic's end) and keeps only the
# console log.
import argparse
import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "qemu"))
from tlb import walk_summary  # noqa: E402

MARK = b"=== ronx-peer: ready-for-tlb"
USER_MARK = b"=== ronx-user: done"
LOW_MAP = 0xC0000000  # PAGE_OFFSET: lowmem's direct map in every kernel used here
# Linux checks at boot that the timer interrupt arrives within ten ticks
# of the TSC (host time under TCG); on a loaded host QEMU falls behind and
# Linux panics "IO-APIC + timer doesn't work!" (seen here at load 29).
# The check is about broken boards, not about anything measured here.
NO_TIMER_CHECK = "no_timer_check"
PANIC_END = b"---[ end Kernel panic"
ANSI = re.compile(rb"\x1b\[[0-9;]*[A-Za-z]|\x1b[()][A-Za-z0-9]")


def say(msg):
    print(f"[linux] {msg}", file=sys.stderr, flush=True)


class Monitor:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(100):
            try:
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("cannot connect to the QEMU monitor")
        self.s.settimeout(60)
        self._until_prompt()

    def _until_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return ANSI.sub(b"", buf).decode(errors="replace")

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        out = self._until_prompt()
        lines = out.replace("\r", "").split("\n")
        # Drop the echoed command and the trailing prompt.
        body = [l for l in lines[1:] if l != "(qemu) "]
        return "\n".join(body).rstrip("\n")

    def quit(self):
        try:
            self.s.sendall(b"quit\n")
        except OSError:
            pass


def freeze_in_kernel(mon, name):
    """Stop the guest while it idles in the kernel (CPL 0, halted).

    "info tlb" reads the tables CR3 points at. With page-table isolation
    the CPU runs user code (and briefly the entry code) on a user copy
    that lacks most kernel mappings, so read only while the idle loop
    halts, where CR3 holds the kernel tables.
    """
    regs = ""
    for _ in range(200):
        mon.cmd("stop")
        regs = mon.cmd("info registers")
        if re.search(r"CPL=0\b", regs) and re.search(r"HLT=1\b", regs):
            return regs
        mon.cmd("cont")
        time.sleep(0.05)
    say(f"boot {name}: guest never seen idle in the kernel; reading anyway")
    mon.cmd("stop")
    return mon.cmd("info registers")


def freeze_in_user(mon, name, text):
    """Stop the guest while it runs user code in the page at text (spin)."""
    for _ in range(200):
        mon.cmd("stop")
        regs = mon.cmd("info registers")
        eip = re.search(r"EIP=([0-9a-f]+)", regs)
        if re.search(r"CPL=3\b", regs) and eip and int(eip.group(1), 16) >> 12 == text >> 12:
            return regs
        mon.cmd("cont")
        time.sleep(0.05)
    say(f"boot {name}: guest never seen in spin's text; not walking")
    return None


def walk_user(a, base, sock, serial):
    """spin's pages as the CPU sees them, while spin runs."""
    text = open(serial, "rb").read().decode(errors="replace")
    m = re.search(r"=== ronx-user: walk spin: text 0x([0-9a-f]+) rodata 0x([0-9a-f]+) "
                  r"data 0x([0-9a-f]+) stack 0x([0-9a-f]+)", text)
    if not m:
        return
    addrs = [int(x, 16) for x in m.groups()]
    mon = Monitor(sock)
    regs = freeze_in_user(mon, a.name, addrs[0])
    if regs:
        cr3 = int(re.search(r"CR3=([0-9a-fA-F]+)", regs).group(1), 16)
        with open(base + ".walk.txt", "w") as f:
            f.write(f"cr3=0x{cr3:x}\n")
            for label, va in zip(("text", "rodata", "data", "stack"), addrs):
                f.write(f"{label} {walk(mon, cr3, va & ~0xFFF)}\n")
    mon.quit()


def walk(mon, cr3, va):
    """The PAE walk as one line (tests/qemu/tlb.py's walk_summary)."""
    return walk_summary(mon.cmd, cr3, va)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--append", default="")
    ap.add_argument("--name", required=True)
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--memory", default="256")
    ap.add_argument("--user", action="store_true", help="wait for the user programs' end only")
    ap.add_argument("--until", help="wait for this console line or a panic, keep the log, "
                    "read no tables")
    a = ap.parse_args()
    mark = a.until.encode() if a.until else USER_MARK if a.user else MARK

    os.makedirs(a.outdir, exist_ok=True)
    base = os.path.join(a.outdir, a.name)
    serial, sock = base + ".serial.log", base + ".monitor.sock"
    for p in (serial, sock):
        if os.path.exists(p):
            os.unlink(p)
    cmd = ["qemu-system-i386", "-accel", "tcg", "-cpu", "qemu32,+nx,+pae",
           "-m", a.memory, "-display", "none", "-no-reboot", "-net", "none",
           "-serial", f"file:{serial}",
           "-monitor", f"unix:{sock},server,nowait",
           "-kernel", a.kernel, "-initrd", a.initrd,
           "-append", ("console=ttyS0 " + NO_TIMER_CHECK + " " + a.append).strip()]
    say(f"boot {a.name}: {' '.join(cmd)}")
    start = time.time()
    q = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    last_note, ready = start, False
    try:
        while time.time() - start < a.timeout:
            if q.poll() is not None:
                break
            data = open(serial, "rb").read() if os.path.exists(serial) else b""
            if mark in data:
                ready = True
                break
            if PANIC_END in data:
                ready = bool(a.until)	# --until: a panic ends the log too (CORRUPT_STACK's)
                break		# a panicked kernel gets no further: no point waiting out the timeout
            if time.time() - last_note >= 10:
                last_note = time.time()
                tail = data.rstrip().split(b"\n")[-1][:90].decode(errors="replace")
                say(f"boot {a.name}: {int(last_note - start)}s, console: {tail}")
            time.sleep(0.5)
        if not ready:
            say(f"boot {a.name}: no ready line (qemu exit {q.poll()}), see {serial}")
            return 1
        if a.until:
            say(f"boot {a.name}: reached its last line in {int(time.time() - start)}s")
            return 0
        if a.user:
            say(f"boot {a.name}: the user programs ran in {int(time.time() - start)}s")
            walk_user(a, base, sock, serial)
            return 0
        say(f"boot {a.name}: guest ready after {int(time.time() - start)}s, reading page tables")
        mon = Monitor(sock)
        regs = freeze_in_kernel(mon, a.name)
        cr3 = int(re.search(r"CR3=([0-9a-fA-F]+)", regs).group(1), 16)
        tlb = mon.cmd("info tlb")
        with open(base + ".tlb.txt", "w") as f:
            f.write(tlb + "\n")
        # Walk the addresses the guest reported (module objects, low 1 MiB).
        text = open(serial, "rb").read().decode(errors="replace")
        addrs = {int(x, 16) for x in re.findall(r"@ 0x([0-9a-f]{8})\]", text)}
        # Kernel image sections from /proc/iomem (physical addresses).
        for m in re.finditer(r"^\s*([0-9a-f]+)-[0-9a-f]+ : Kernel (code|rodata|data|bss)",
                             text, re.M):
            addrs.add(LOW_MAP + (int(m.group(1), 16) & ~0xFFF))
        # Every page of 640K-1M, its neighbours, and the page the W+X
        # self-test planted (if any): the W+X question is asked there.
        addrs.update(LOW_MAP + a for a in [0, *range(0x9F000, 0x101000, 0x1000)])
        addrs.update(int(x, 16) for x in re.findall(r"planted a W\+X page at 0x([0-9a-f]+)", text))
        addrs = sorted(addrs)
        with open(base + ".walk.txt", "w") as f:
            f.write(f"cr3=0x{cr3:x}\n")
            for va in addrs:
                f.write(walk(mon, cr3, va) + "\n")
        mon.quit()
        q.wait(timeout=30)
        say(f"boot {a.name}: done in {int(time.time() - start)}s ({len(tlb.splitlines())} tlb lines)")
        return 0
    finally:
        if q.poll() is None:
            q.kill()
            q.wait()
        if os.path.exists(sock):
            os.unlink(sock)


if __name__ == "__main__":
    sys.exit(main())
