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
    "step_worker",
    "gate_comment",
    "publish_plan",
    "publish_site",
]


def load() -> list[ModuleType]:
    return [importlib.import_module(f"benchtrack.commands.{name}") for name in COMMANDS]
