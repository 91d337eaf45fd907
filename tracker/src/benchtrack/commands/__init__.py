"""One module per subcommand. Each defines:

    NAME: str                                   # the subcommand
    HELP: str                                   # one line for `benchtrack --help`
    def add_arguments(parser) -> None           # its flags
    def run(args) -> int                        # an exit code of benchtrack.errors

and is listed in COMMANDS, in the order `--help` shows them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Module names under benchtrack.commands, in --help order.
COMMANDS: list[str] = [
    "init",
    "ingest",
    "callgrind",
    "export",
    "append",
    "validate_history",
    "prune_history",
    "compare",
    "bench_local",
    "site",
    "matrix",
    "detect",
    "confirm",
    "gate",
    "shard_plan",
    "gate_merge",
    "gate_selftest",
    "evaluate",
    "record",
    "vcpus",
    "step_worker",
    "gate_comment",
    "publish_plan",
    "publish_site",
]


def load(argv: list[str] | None = None) -> list[ModuleType]:
    """Every command's module; only the one `argv` names when its module is `NAME` spelled with
    underscores (the others' imports, numpy's and scipy's among them, cost a command that does
    not use them about a second of CPU at every start)."""
    first = next((a for a in argv or [] if not a.startswith("-")), None)
    name = first.replace("-", "_") if first else None
    if name in COMMANDS:
        module = importlib.import_module(f"benchtrack.commands.{name}")
        if first == module.NAME:
            return [module]
    return [importlib.import_module(f"benchtrack.commands.{name}") for name in COMMANDS]
