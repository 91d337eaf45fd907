"""`benchtrack vcpus`: how fast each CPU runs a fixed loop now, as the gate reads it at each round.

The VM's state in one line ("vCPUs even: …" or "vCPUs uneven: …"), for a CI log, a recording
session or a person wondering why today's rounds are slow (machine/vcpus.py says what the two
clocks tell apart).
"""

from __future__ import annotations

import argparse
import time

from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK, BadInput
from benchtrack.machine import vcpus
from benchtrack.machine.cpuset import CpuSet

NAME = "vcpus"
HELP = (
    "read how fast each CPU runs a fixed loop now, pinned to each in turn (the VM's vCPU speeds, "
    "as the gate reads them at each round's start)"
)


def _count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError(f"expected a count from 1 to 1000, got {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 60, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--readings", type=_count, default=5, metavar="N", help="readings to take (default 5)"
    )
    parser.add_argument(
        "--every", type=_seconds, default=0.2, metavar="SECONDS",
        help="seconds between readings (default 0.2)",
    )  # fmt: skip
    flags.add_cpus(parser, "the CPUs to read (default: every CPU this process may use)")
    flags.add_json(parser, "each reading and their summary")


def run(args: argparse.Namespace) -> int:
    ids = args.cpus.ids if args.cpus else CpuSet.allowed().ids
    readings = []
    for k in range(args.readings):
        if k:
            time.sleep(args.every)
        r = vcpus.probe(ids)
        if r is None:
            raise BadInput("--cpus", None, "CPUs this thread can be pinned to (Linux)", ids)
        readings.append(r.to_dict())
    summary = vcpus.summary(readings)
    if args.json:
        flags.print_json({"readings": readings, "summary": summary})
        return EXIT_OK
    for r in readings:
        print(
            " · ".join(
                f"CPU {c} {w * 1e3:.2f} ms (CPU time {t * 1e3:.2f})"
                for c, w, t in zip(r["cpus"], r["wall"], r["cpu"], strict=True)
            )
        )
    print(vcpus.describe(summary, "reading") if summary else "one CPU: none to compare")
    return EXIT_OK
