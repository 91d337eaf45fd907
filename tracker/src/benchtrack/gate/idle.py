"""Idle CPUs that poll while benchmarks are timed: a wake-up latency request of 0 µs.

On a VM whose idle vCPUs halt (cpuidle's `haltpoll` with `guest_halt_poll_ns=0` on the machine
of tracker/LAB.md's recordings), waking a thread on an idle vCPU is a VM exit. Benchmarks that
hand work from thread to thread (tokio's blocking pool under `tokio::fs`, channels between
workers) then run in modes up to ~2x apart, set by where the scheduler placed their threads, and
a process keeps its mode for seconds: `rust/walk/tokio_serial`'s rounds spread 27-34% and no
count of rounds the budget allows paid for it. With a request of 0 µs held on
/dev/cpu_dma_latency the cpuidle governor picks no state with an exit latency, so an idle CPU
polls and a wake-up costs what it costs on a busy machine (the same walk: 1.7%; LAB.md, "Idle
CPUs polling"). The request holds while the file stays open (the kernel's PM QoS interface,
Documentation/power/pm_qos_interface.rst); cyclictest and rtla's `--dma-latency` use it so.

Writing it needs root or write access to the device: `benchtrack gate --idle-sudo` (CI's gate
step passes it) first asks `sudo -n` to give this user write access, which hosted runners'
passwordless sudo allows; without access the gate measures with the machine's idle states and
says so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

DEVICE = Path("/dev/cpu_dma_latency")
MODES = ("poll", "machine")  # [gate] idle


@contextlib.contextmanager
def polling(mode: str = "poll", device: Path = DEVICE, sudo: bool = False) -> Iterator[str]:
    """Hold a 0 µs wake-up latency request on `device` for the block when `mode` is "poll";
    yields one line saying which idle states the measurement ran with. `sudo`: when the device
    is not writable, first ask `sudo -n` (never a password prompt) to make this user its owner."""
    if mode != "poll":
        yield 'idle CPUs: the machine\'s own idle states ([gate] idle = "machine")'
        return
    if sudo and shutil.which("sudo") and device.exists() and not os.access(device, os.W_OK):
        subprocess.run(
            ["sudo", "-n", "chown", str(os.getuid()), str(device)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    try:
        fd = os.open(device, os.O_WRONLY)
    except OSError as e:
        yield (
            f"idle CPUs: the machine's own idle states (cannot write {device}: {e.strerror}; "
            "`benchtrack gate --idle-sudo` asks sudo for access, for quieter threaded rounds)"
        )
        return
    try:
        os.write(fd, struct.pack("i", 0))  # a native int32, as the interface reads it
        yield f"idle CPUs poll: a 0 µs wake-up latency request held on {device}"
    finally:
        os.close(fd)  # closing withdraws the request


def current(device: Path = DEVICE) -> int | None:
    """The machine's effective wake-up latency request in µs (every holder's least), or None."""
    try:
        with open(device, "rb") as f:
            return struct.unpack("i", f.read(4))[0]
    except OSError:
        return None
