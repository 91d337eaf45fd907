"""CPU sets: the one place a Linux CPU list ("0-3,6") is read or written, this process's
affinity is read, and a command is pinned with `taskset -c`.

bench-local's and the gate's `--cpus`, the CPU lockstep's workers share and the ones it leaves
to the counts, the runner size a result records and CI's matrix all go through here, so they
cannot disagree on what a list means.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

# A CPU list as taskset and /proc's Cpus_allowed_list write it: numbers and ranges, by commas.
_LIST = re.compile(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*")


@dataclass(frozen=True)
class CpuSet:
    """Some CPUs, sorted; `spec` is the text they came from when given by a user (`--cpus`,
    passed on to another benchtrack command, means the same there)."""

    ids: tuple[int, ...]
    spec: str = ""

    @staticmethod
    def is_list(text: str) -> bool:
        """A well-formed CPU list, every range low to high."""
        return bool(_LIST.fullmatch(text)) and all(
            int(lo) <= int(hi or lo) for lo, _, hi in (p.partition("-") for p in text.split(","))
        )

    @classmethod
    def parse(cls, text: str) -> CpuSet:
        """The CPUs of a CPU list such as "0-1,3" (its form checked by the caller: is_list)."""
        chosen: set[int] = set()
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            chosen.update(range(int(lo), int(hi or lo) + 1))
        return cls(tuple(sorted(chosen)), text)

    @classmethod
    def allowed(cls) -> CpuSet:
        """The CPUs this process may use (its affinity; every CPU where there is none)."""
        try:
            ids = sorted(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            ids = list(range(os.cpu_count() or 1))
        return cls(tuple(ids))

    @classmethod
    def of(cls, cpus: str | None) -> CpuSet:
        """The CPUs of list `cpus`, or this process's when None (unpinned)."""
        return cls.parse(cpus) if cpus else cls.allowed()

    @classmethod
    def first(cls, n: int) -> CpuSet:
        """CPUs 0 to n-1: a runner size of n CPUs on a larger machine."""
        return cls(tuple(range(n)))

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def taskset(self) -> str:
        """The list for `taskset -c`, runs of CPUs as ranges ("0-3,6")."""
        runs: list[list[int]] = []
        for cpu in self.ids:
            if runs and cpu == runs[-1][-1] + 1:
                runs[-1].append(cpu)
            else:
                runs.append([cpu])
        return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)

    def __str__(self) -> str:
        return self.spec or self.taskset


def pinned(cpus: str | None, argv: list[str]) -> list[str]:
    """`argv` run on CPU list `cpus` (taskset), or as it is when None."""
    return ["taskset", "-c", cpus, *argv] if cpus else argv


def pinned_shell(cpus: str | None, command: str) -> str:
    """Shell `command` as one shell line run on CPU list `cpus`, or as it is when None."""
    return shlex.join(pinned(cpus, ["bash", "-c", command])) if cpus else command
