# SPDX-License-Identifier: GPL-2.0-only
"""One ronx boot in Bochs: its serial console on a socket, and Bochs's own
debugger as the monitor (the outside view, as QMP is for QEMU).

    with BochsGuest("bochs") as g:
        g.wait_ready()
        out = g.command("ptdump")
        regs = g.monitor("creg")
        g.poweroff()

BochsGuest has Guest's interface (wait_for, wait_ready, command, poweroff,
close, out), so helpers written for QEMU work here too. The machine is the
one `make run-bochs` boots, tools/bochsrc (but for the CPU: make run-bochs
picks one with SMEP and SMAP, BOCHS_CPU), with three lines replaced: COM1
connects to a socket this class listens on (Bochs is the client, so no port
has to be guessed free), the ISO path is made absolute, and the log goes to
the results; BochsGuest(name, cpu="p3_katmai") also picks another CPU
model. Debian's Bochs has no "nogui" display: tools/bochsrc uses rfb with
timeout=0, a VNC server nobody connects to, so the display is off.
"""
import os
import re
import signal
import socket
import subprocess
import threading
import time

from guest import BUILD, ROOT, Guest, GuestError

BOCHSRC = os.path.join(ROOT, "tools", "bochsrc")
DEBUGGER_PROMPT = r"<bochs:\d+> \Z"     # the last thing Bochs printed


def bochsrc_text(port, log, cpu=None, smp=1):
    """tools/bochsrc, with COM1 on 127.0.0.1:port, the ISO by absolute path,
    log, and another CPU model if cpu is given, smp processors if more than one."""
    lines = []
    for line in open(BOCHSRC).read().splitlines():
        key = line.split(":", 1)[0].strip()
        if key == "cpu" and cpu:
            line = re.sub(r"model=\w+", "model=" + cpu, line)
        if key == "cpu" and smp > 1:
            line += ", count=%d" % smp
        elif key == "com1":
            line = "com1: enabled=1, mode=socket-client, dev=127.0.0.1:%d" % port
        elif key == "ata0-master":
            line = line.replace("path=build/ronx.iso",
                                "path=" + os.path.join(BUILD, "ronx.iso"))
        elif key == "log":
            line = "log: " + log
        lines.append(line)
    return "\n".join(lines) + "\n"


class BochsGuest(Guest):
    def __init__(self, name, cpu=None, smp=1):
        super().__init__(name, iso=True, cpu=cpu)
        self.smp = smp
        self.conn = None
        self.bochs_out = ""          # Bochs's own stdout: messages, debugger
        logs = os.path.join(BUILD, "results", "logs")
        os.makedirs(logs, exist_ok=True)
        self.bochs_log = os.path.join(logs, self._file_name() + ".bochs.log")

    def _file_name(self):
        return self.name.replace(" ", "_").replace("/", "_")

    # -- life cycle --------------------------------------------------------
    def start(self):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        rc = os.path.join(self.tmp, "bochsrc")
        with open(rc, "w") as f:
            f.write(bochsrc_text(listener.getsockname()[1], self.bochs_log, self.cpu, self.smp))
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            ["bochs", "-q", "-f", rc, "-rc", os.path.join(ROOT, "tools", "bochs.rc")],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)
        threading.Thread(target=self._bochs_reader, daemon=True).start()
        try:
            self.conn = self._accept(listener)
        finally:
            listener.close()
        self.reader = threading.Thread(target=self._reader, daemon=True)
        self.reader.start()
        return self

    def _accept(self, listener, timeout=30):
        """Bochs's COM1 connecting; a Bochs that stops first (a bad bochsrc)
        is reported with what it said."""
        listener.settimeout(0.5)
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                return listener.accept()[0]
            except socket.timeout:
                pass
        time.sleep(0.5)         # Bochs's last words, for the message
        raise GuestError("%s: Bochs did not connect COM1 (exit status %s):\n%s"
                         % (self.name, self.proc.poll(), self.bochs_out[-1500:]))

    def _reader(self):
        """COM1: what ronx prints."""
        self._pump(self._recv)

    def _recv(self):
        try:
            return self.conn.recv(4096)
        except OSError:
            return b""

    def _bochs_reader(self):
        """Bochs's stdout: its exit message and the debugger's answers."""
        self._pump(lambda: self.proc.stdout.read1(4096), "bochs_out")

    def close(self):
        if self.conn:
            self.conn.close()
        super().close()
        with open(os.path.join(BUILD, "results", "logs", self._file_name() + ".stdout.log"),
                  "w") as f:
            f.write(self.bochs_out)

    # -- serial console ----------------------------------------------------
    def send(self, data):
        self.conn.sendall(data)

    def poweroff(self, timeout=60):
        """'poweroff': ronx writes "Shutdown" to port 0x8900 and Bochs quits.
        Returns Bochs's exit status."""
        return super().poweroff(timeout)

    # -- Bochs's debugger ----------------------------------------------------
    def monitor(self, *cmds, timeout=30):
        """Stops the machine in Bochs's debugger (SIGINT), runs the debugger
        commands, continues; returns what the command printed (a list if
        more than one)."""
        self._stop(timeout)
        outs = []
        for cmd in cmds:
            start = len(self.bochs_out)
            self._debugger_send(cmd)
            end = self._wait_prompt(start, timeout).start()
            text = self.bochs_out[start:end]
            # the debugger echoes a command it reads from a pipe
            outs.append(text.split("\n", 1)[1] if text.startswith(cmd) else text)
        self._continue()
        return outs[0] if len(cmds) == 1 else outs

    def _stop(self, timeout):
        """SIGINT until a prompt shows: a SIGINT that lands while Bochs is
        still reading the last "c" is lost."""
        deadline = time.monotonic() + timeout
        while True:
            start = len(self.bochs_out)
            self.proc.send_signal(signal.SIGINT)
            try:
                return self._wait_prompt(start, 2)
            except GuestError:
                if time.monotonic() > deadline:
                    raise

    def _continue(self):
        """"c", again if Bochs stops at once (a SIGINT kept from _stop)."""
        for _ in range(5):
            start = len(self.bochs_out)
            self._debugger_send("c")
            try:
                self._wait_prompt(start, 0.5)
            except GuestError:
                return
        raise GuestError("%s: Bochs keeps stopping in its debugger" % self.name)

    def _debugger_send(self, line):
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def _wait_prompt(self, start, timeout):
        return self.wait_for(DEBUGGER_PROMPT, timeout, start, "bochs_out")
