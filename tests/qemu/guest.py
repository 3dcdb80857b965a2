# SPDX-License-Identifier: GPL-2.0-only
"""One ronx boot in QEMU: its serial console and its QMP monitor.

    with Guest("default", cmdline="pci=nobios") as g:
        g.wait_ready()
        out = g.command("meminfo")
        tlb = g.monitor("info tlb")
        g.poweroff()

RONX_BOOT_EXTRA="kaslr" (make test-kaslr) puts words before every -kernel
boot's command line: the test's own words come after them and win (a test
that says nokaslr keeps the fixed layout). Tests read the boot's KASLR
offset with kernel_offset(), never assume it is zero.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
CPU_NX = "qemu32,+nx,+pae"
CPU_NO_NX = "qemu32,-nx,+pae"
CPU_SMAP = "qemu32,+nx,+pae,+smep,+smap"   # make run's QEMU_CPU: the SMAP lanes
PROMPT = "ronx> "
PANIC = "Kernel panic - not syncing"
BOOT_TIMEOUT = 30
LOAD_STRETCH_MAX = 10


def load_scaled(seconds):
    """seconds on an idle machine, stretched by the runnable tasks each host
    core has now (at most LOAD_STRETCH_MAX times): under TCG a guest runs
    only as fast as the host lets it, and a -smp 4 boot at load 29 on two
    cores missed 30 s. A hung guest is still caught, later under load."""
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return seconds
    return seconds * min(LOAD_STRETCH_MAX, max(1.0, per_core))
# words for every boot's command line (make test-kaslr: "kaslr")
BOOT_EXTRA = os.environ.get("RONX_BOOT_EXTRA", "").strip()
OFFSET = re.compile(r"^Kernel Offset: (?:0x([0-9a-f]+) from 0x[0-9a-f]+|disabled)", re.M)


def echo_pattern(line):
    """A regex of the shell's echo of line: whole lines that a background
    program or the kernel prints while it is typed may come between its
    letters ("p", then "cowprobe[4]: segfault at ...", then "s")."""
    return "(?:.*\n)*?".join(re.escape(ch) for ch in line) + r"\n"


def asks_kaslr(cmdline):
    """Whether a command line turns kaslr on (the last of kaslr/nokaslr wins)."""
    words = [w for w in cmdline.split() if w in ("kaslr", "nokaslr")]
    return bool(words) and words[-1] == "kaslr"


def boot_extra_moves_image():
    """Whether RONX_BOOT_EXTRA turns kaslr on."""
    return asks_kaslr(BOOT_EXTRA)


def skip_under_boot_extra(t, desc, why):
    """A check of the fixed layout on purpose (the default boot a student
    sees): under RONX_BOOT_EXTRA=kaslr it is skipped, with why printed,
    never counted as a pass. True when skipped."""
    if not boot_extra_moves_image():
        return False
    t.skip(desc, "RONX_BOOT_EXTRA=%r moves the image: %s" % (BOOT_EXTRA, why))
    return True


class GuestError(Exception):
    pass


class Guest:
    def __init__(self, name, cmdline="", cpu=CPU_NX, iso=False, memory="128M",
                 initrd=None, extra=(), debug_exit=True, build=BUILD, debugcon=False):
        self.name = name
        self.build = build              # another tree's build/ (the grader's scratch trees)
        self.cmdline = cmdline
        self.cpu = cpu
        self.iso = iso
        self.memory = memory
        # RONX_INITRD: another initrd for every boot (a local run with other programs)
        self.initrd = initrd or os.environ.get("RONX_INITRD") or os.path.join(build, "initrd.cpio")
        self.extra = list(extra)        # more QEMU arguments: -M isapc, -smp 4
        self.kernel = os.path.join(build, "kernel.elf")
        self.debug_exit = debug_exit    # False: a plain QEMU, as `make run` has
        # True: what the kernel writes to port 0xe9 (kernel/selftest/ktest.c's KTAP) goes
        # to a file of its own, read by debugcon_text()
        self.debugcon = debugcon
        self.out = ""
        self.lock = threading.Condition()
        self.proc = None
        self.qmp = None
        self.tmp = tempfile.mkdtemp(prefix="ronx-qemu-")
        self._symbols = {}              # Kernel Offset -> symbols(): nm once per offset

    # -- life cycle --------------------------------------------------------
    def qemu_args(self):
        sock = os.path.join(self.tmp, "qmp.sock")
        # -net none: ronx drives no network card, and without one the
        # firmware runs no network boot ROM (a sixth of a boot's CPU)
        args = ["qemu-system-i386", "-accel", "tcg", "-cpu", self.cpu,
                "-m", self.memory, "-no-reboot", "-display", "none", "-net", "none",
                "-serial", "stdio", "-monitor", "none",
                "-qmp", "unix:%s,server=on,wait=off" % sock]
        if self.debug_exit:
            args += ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        if self.debugcon:
            args += ["-debugcon", "file:" + os.path.join(self.tmp, "debugcon.txt")]
        if self.iso:
            args += ["-cdrom", os.path.join(self.build, "ronx.iso")]
        else:
            args += ["-kernel", self.kernel, "-initrd", self.initrd, "-append", self.full_cmdline]
        return args + self.extra

    @property
    def full_cmdline(self):
        """The command line the kernel is given: RONX_BOOT_EXTRA's words, then the test's."""
        return " ".join(w for w in (BOOT_EXTRA, self.cmdline) if w)

    def start(self):
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.qemu_args(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.reader = threading.Thread(target=self._reader, daemon=True)
        self.reader.start()
        return self

    def _reader(self):
        self._pump(lambda: self.proc.stdout.read1(4096))

    def _pump(self, read, field="out"):
        """Appends what read() returns to self.<field> until it returns b""."""
        while True:
            data = read()
            if not data:
                break
            with self.lock:
                text = data.decode("utf-8", "replace").replace("\r", "")
                setattr(self, field, getattr(self, field) + text)
                self.lock.notify_all()
        with self.lock:
            self.lock.notify_all()

    def close(self):
        if self.qmp:
            self.qmp.close()
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        log = os.path.join(self.build, "results", "logs")
        os.makedirs(log, exist_ok=True)
        with open(os.path.join(log, self.name.replace(" ", "_").replace("/", "_") + ".log"), "w") as f:
            f.write(self.out)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def debugcon_text(self):
        """Everything written to port 0xe9 so far (a Guest made with debugcon=True)."""
        try:
            with open(os.path.join(self.tmp, "debugcon.txt"), "rb") as f:
                return f.read().decode("utf-8", "replace").replace("\r", "")
        except OSError:
            return ""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # -- serial console ----------------------------------------------------
    def wait_for(self, pattern, timeout=None, start=0, field="out"):
        """Waits until pattern (a regex) appears in the output (self.<field>)
        after start; timeout (default BOOT_TIMEOUT) is stretched by the
        host's load, so a verdict does not change with how busy it is."""
        timeout = round(load_scaled(BOOT_TIMEOUT if timeout is None else timeout), 1)
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.M)
        with self.lock:
            while True:
                text = getattr(self, field)
                m = rx.search(text, start)
                if m:
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None or PANIC in self.out:
                    raise GuestError("%s: no %r within %ss; last output:\n%s"
                                     % (self.name, pattern, timeout, text[-1500:]))
                self.lock.wait(min(left, 0.5))

    def wait_ready(self):
        m = self.wait_for(r"^ronx: ready$")
        self.ready_seconds = time.monotonic() - self.started
        self.wait_for(re.escape(PROMPT), start=m.end())
        return self.out[:m.start()]

    def kernel_offset(self):
        """This boot's KASLR offset from its "Kernel Offset:" line (0 when
        disabled); call it after wait_ready()."""
        m = OFFSET.search(self.out)
        if not m:
            raise GuestError("%s: no 'Kernel Offset:' line in the boot log" % self.name)
        return int(m.group(1), 16) if m.group(1) else 0

    def symbols(self):
        """kernel.elf's symbols where this boot put them (moved by its offset)."""
        from tlb import kernel_symbols
        off = self.kernel_offset()
        if off not in self._symbols:
            self._symbols[off] = kernel_symbols(self.kernel, off)
        return dict(self._symbols[off])

    def command(self, line, timeout=60):
        """Sends one shell line; returns what it printed before the next prompt."""
        with self.lock:
            start = len(self.out)
        self.send(line.encode() + b"\r")
        echo = self.wait_for(echo_pattern(line), timeout, start)
        m = self.wait_for("^" + re.escape(PROMPT), timeout, echo.end())
        return self.out[echo.end():m.start()]

    def send(self, data):
        """Bytes to the serial console (QEMU's stdio; BochsGuest overrides it)."""
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def exit_status(self, timeout=BOOT_TIMEOUT):
        """Waits for QEMU to end by itself; its exit status, or None."""
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self.reader.join(5)     # the last output, read to its end
        return status

    def poweroff(self, timeout=20):
        """'poweroff': QEMU's isa-debug-exit makes it exit with status 1."""
        self.send(b"poweroff\r")
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise GuestError("%s: still running %ss after poweroff" % (self.name, timeout))

    # -- QEMU monitor (QMP, human commands) ---------------------------------
    def monitor(self, cmd, cpu=None):
        """A monitor command; with cpu, as `cpu N` would make it see that CPU."""
        if self.qmp is None:
            self._qmp_connect()
        args = {"command-line": cmd}
        if cpu is not None:
            args["cpu-index"] = cpu
        self._qmp_send({"execute": "human-monitor-command", "arguments": args})
        return self._qmp_reply()["return"]

    def _qmp_connect(self):
        sock = os.path.join(self.tmp, "qmp.sock")
        for _ in range(100):
            try:
                self.qmp = socket.socket(socket.AF_UNIX)
                self.qmp.connect(sock)
                break
            except OSError:
                self.qmp.close()
                self.qmp = None
                time.sleep(0.05)
        if self.qmp is None:
            raise GuestError("%s: cannot reach QMP at %s" % (self.name, sock))
        self.qmp_file = self.qmp.makefile("rwb")
        self._qmp_reply(greeting=True)
        self._qmp_send({"execute": "qmp_capabilities"})
        self._qmp_reply()

    def _qmp_send(self, obj):
        self.qmp_file.write(json.dumps(obj).encode() + b"\n")
        self.qmp_file.flush()

    def _qmp_reply(self, greeting=False):
        while True:
            msg = json.loads(self.qmp_file.readline())
            if greeting and "QMP" in msg:
                return msg
            if "return" in msg or "error" in msg:
                if "error" in msg:
                    raise GuestError("QMP error: %s" % msg["error"])
                return msg
