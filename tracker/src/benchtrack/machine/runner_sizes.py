"""The runner sizes CI benchmarks on, read from `.github/bench-runners.toml`.

One file decides the matrix: the workflows turn it into jobs with `benchtrack matrix`, so adding a
size is a one-line change and no workflow keeps a list of its own.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.machine.cpuset import CpuSet
from benchtrack.result import runner_key

DEFAULT_CONFIG = Path(".github/bench-runners.toml")
LARGER = "larger-runners"  # `enabled` value: on only when the repository opts in


@dataclass(frozen=True)
class RunnerSize:
    runs_on: str
    cpus: int
    pin: bool

    @property
    def key(self) -> str:
        """The history key, the same as a result document's `Runner.key`."""
        return runner_key(self.runs_on, self.cpus)

    @property
    def taskset(self) -> str:
        """The CPU list to pin to (`0`, `0-1`, …), or "" for the whole runner."""
        return CpuSet.first(self.cpus).taskset if self.pin else ""

    def to_matrix(self) -> dict[str, object]:
        return {
            "key": self.key,
            "runs_on": self.runs_on,
            "cpus": self.cpus,
            "pin": self.pin,
            "taskset": self.taskset,
        }


def load(path: Path = DEFAULT_CONFIG, *, larger_runners: bool = False) -> list[RunnerSize]:
    """The enabled runner sizes of `path`, in file order; any mistake is BadInput (exit 2)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(path, None, "a runner-size config file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise BadInput(path, None, "valid TOML", str(error)) from None
    entries = data.get("runner")
    if not isinstance(entries, list) or not entries:
        raise BadInput(path, "runner", "a non-empty array of [[runner]] tables", entries)
    sizes: list[RunnerSize] = []
    for i, entry in enumerate(entries):
        field = f"runner[{i}]"
        runs_on, cpus, pin = entry.get("runs-on"), entry.get("cpus"), entry.get("pin", False)
        enabled = entry.get("enabled", True)
        if not isinstance(runs_on, str) or not runs_on.strip():
            raise BadInput(path, f"{field}.runs-on", "a runner label", runs_on)
        if not isinstance(cpus, int) or isinstance(cpus, bool) or not 1 <= cpus <= 1024:
            raise BadInput(path, f"{field}.cpus", "a whole number of vCPUs from 1 to 1024", cpus)
        if not isinstance(pin, bool):
            raise BadInput(path, f"{field}.pin", "true or false", pin)
        if enabled not in (True, False, LARGER):
            raise BadInput(path, f"{field}.enabled", f'true, false or "{LARGER}"', enabled)
        if enabled is True or (enabled == LARGER and larger_runners):
            sizes.append(RunnerSize(runs_on.strip(), cpus, pin))
    keys = [s.key for s in sizes]
    for key in keys:
        if keys.count(key) > 1:
            raise BadInput(path, "runner", "each runs-on + cpus once (one history per size)", key)
    if not sizes:
        raise BadInput(path, "runner", "at least one enabled runner size")
    return sizes
