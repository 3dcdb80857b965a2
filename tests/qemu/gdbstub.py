# SPDX-License-Identifier: GPL-2.0-only
"""QEMU's gdbstub, spoken directly (the GDB remote serial protocol): just
enough to stop a running guest at an address and read its registers and
memory, with no gdb installed. QEMU's monitor still answers while the
guest is stopped, so `info tlb` reads the page tables as they are at
that instruction.

    stub = GdbStub(guest)          # starts the stub; the guest stops
    stub.break_at(0xc0102e40)
    stub.cont()
    stub.wait_stop(10)             # the guest is stopped at the breakpoint
    eip, esp = stub.regs()["eip"], stub.regs()["esp"]
    stub.detach()                  # breakpoints gone, the guest runs on
"""
import os
import re
import socket
import struct
import time

# i386 'g' packet: eax ecx edx ebx esp ebp esi edi eip eflags cs ss ds es fs gs
REGS = ("eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags")


class GdbStubError(Exception):
    pass


class GdbStub:
    def __init__(self, guest, timeout=10):
        path = os.path.join(guest.tmp, "gdb.sock")
        guest.monitor("gdbserver unix:%s,server=on,wait=off" % path)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.breakpoints = set()
        self.running = False
        self.last_stop = ""     # the last stop reply: "T05thread:02;" names the CPU
        self.steps_past = None  # whether a step runs over a breakpoint (step_over())
        self.command("?")       # connecting stopped the guest

    def _send(self, data):
        self.sock.sendall(b"$%s#%02x" % (data.encode(), sum(data.encode()) & 0xff))

    def _recv(self, timeout):
        """The next packet's data (acks skipped, each packet acked)."""
        deadline = time.monotonic() + timeout
        while True:
            start = self.buf.find(b"$")
            end = self.buf.find(b"#", start + 1) if start >= 0 else -1
            if start >= 0 and end >= 0 and len(self.buf) >= end + 3:
                data, self.buf = self.buf[start + 1:end], self.buf[end + 3:]
                self.sock.sendall(b"+")
                return data.decode()
            left = deadline - time.monotonic()
            if left <= 0:
                raise GdbStubError("no answer from QEMU's gdbstub within %ss" % timeout)
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                continue
            if not chunk:
                raise GdbStubError("QEMU closed the gdbstub connection")
            self.buf += chunk

    def command(self, data, timeout=10):
        """data's answer. A stop reply ("T05...") that arrives instead is
        the guest's earlier stop (connecting stops it), not the answer."""
        self._send(data)
        reply = self._recv(timeout)
        while data != "?" and reply[:1] in ("T", "S"):
            reply = self._recv(timeout)
        return reply

    def break_at(self, addr):
        if self.command("Z0,%x,1" % addr) != "OK":
            raise GdbStubError("QEMU refused a breakpoint at 0x%08x" % addr)
        self.breakpoints.add(addr)

    def clear(self, addr):
        self.command("z0,%x,1" % addr)
        self.breakpoints.discard(addr)

    def cont(self, eip=None):
        """Lets the guest run on; the answer is its next stop. Stopped at
        one of our breakpoints, it first steps over it (step_over()):
        QEMU would stop on it again at once. eip: where it is stopped, if
        the caller has just read it (one round trip less per stop)."""
        eip = self.regs()["eip"] if eip is None else eip
        if eip in self.breakpoints:
            self.step_over(eip)
        self._send("c")
        self.running = True

    def step(self, cpu=None):
        """One instruction (QEMU steps with interrupts held off), then
        stopped; cpu: that CPU alone steps."""
        self._send("s" if cpu is None else "vCont;s:%x" % (cpu + 1))
        if not self._recv(10).startswith(("T", "S")):
            raise GdbStubError("no stop after a single step%s"
                               % ("" if cpu is None else " of CPU %d" % cpu))

    def step_over(self, addr, cpu=None):
        """Runs the instruction at addr, where the guest (or CPU cpu) is
        stopped at our breakpoint, then stopped again. QEMU 7's single
        step runs over a breakpoint where the CPU stands: two round trips
        a stop fewer than gdb's remove, step, put back, which a QEMU that
        stops on it again gets instead (seen on the first step: the CPU
        still at addr)."""
        if self.steps_past is False:
            self.command("z0,%x,1" % addr)
        self.step(cpu)
        if self.steps_past is None:
            self.steps_past = self.regs()["eip"] != addr
            if not self.steps_past:
                self.command("z0,%x,1" % addr)
                self.step(cpu)
        if self.steps_past is False:
            self.command("Z0,%x,1" % addr)

    def wait_stop(self, timeout, until=None):
        """Waits for the guest to stop (a breakpoint); False if it did not
        within timeout, or as soon as until() is true (asked every quarter
        second: the guest died, no stop will come), in which case it is
        stopped now, by us."""
        give_up = time.monotonic() + timeout
        while True:
            left = give_up - time.monotonic()
            try:
                reply = self._recv(min(left, 0.25) if until else timeout)
                break
            except GdbStubError as e:
                if not until or "closed" in str(e) or left <= 0.25 or until():
                    self.stop()
                    return False
        self.running = False
        self.last_stop = reply
        return reply.startswith(("T", "S"))

    def stopped_cpu(self):
        """The index of the CPU whose stop the last stop reply reported
        (QEMU numbers its threads from 1, one per CPU), or None."""
        m = re.search(r"thread:(?:p[0-9a-f]+\.)?([0-9a-f]+);", self.last_stop)
        return int(m.group(1), 16) - 1 if m else None

    def cont_only(self, cpu, eip):
        """Lets CPU cpu alone run on (vCont with one thread): the others
        stay stopped, held by QEMU until the next cont(). Stopped at one of
        our breakpoints (eip), it first steps over it, alone."""
        if eip in self.breakpoints:
            self.step_over(eip, cpu)
        self._send("vCont;c:%x" % (cpu + 1))
        self.running = True

    def stop(self):
        """Stops a running guest (gdb's Ctrl-C): the stop reply, or None
        when it was not running. A breakpoint's stop that came first is
        the reply (QEMU answers both with T05)."""
        if not self.running:
            return None
        self.sock.sendall(b"\x03")
        reply = self._recv(5)
        self.running = False
        return reply

    def regs(self):
        raw = bytes.fromhex(self.command("g"))
        return dict(zip(REGS, struct.unpack_from("<%dI" % len(REGS), raw)))

    def read(self, addr, n):
        """n bytes of guest memory at virtual address addr (the CPU's CR3)."""
        out = b""
        while len(out) < n:
            k = min(256, n - len(out))
            reply = self.command("m%x,%x" % (addr + len(out), k))
            if len(reply) != 2 * k:
                raise GdbStubError("cannot read %d bytes at 0x%08x: %s" % (k, addr + len(out), reply))
            out += bytes.fromhex(reply)
        return out

    def words(self, addr, n):
        return list(struct.unpack("<%dI" % n, self.read(addr, 4 * n)))

    def read32(self, addr):
        return self.words(addr, 1)[0]

    def detach(self):
        """Every breakpoint removed, the guest running, the stub closed."""
        try:
            self.stop()
            for addr in list(self.breakpoints):
                self.clear(addr)
            self._send("D")     # QEMU lets the guest run on
            self._recv(5)
        finally:
            self.sock.close()
