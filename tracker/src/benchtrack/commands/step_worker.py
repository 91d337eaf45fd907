"""`benchtrack step-worker KIND`: a lockstep step worker for another repository's harness.

A gate suite with `adapter = "lockstep"` names its worker as `command`; `benchtrack init` writes
`$BENCHTRACK step-worker KIND ...` there, and the same with `--build` as the suite's `build`
(compile, list the benchmarks into DIR/manifest.json, once per side). benchtrack.stepworker has
the harnesses and why each works as it does.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.fsutil import output_file
from benchtrack.result import SUITE_RE

NAME = "step-worker"
HELP = (
    "Serve the gate's lockstep steps for a harness (gotest, criterion, libtest, "
    "googlebenchmark, pytest); --build compiles and lists the benchmarks"
)
KINDS = ("gotest", "criterion", "libtest", "googlebenchmark", "pytest")
_MODULE = {"libtest": "criterion"}
# The harnesses whose runner takes an exact call count, which `--count` needs. criterion and
# libtest time their own iterations, and Google Benchmark takes one (`--benchmark_min_time=Nx`)
# only from 1.8, later than Debian 12's 1.7.
COUNTED = ("gotest",)  # libtest's binaries come from `cargo bench` as criterion's


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", choices=KINDS, help="the harness")
    p.add_argument("--suite", required=True, help="the suite's name: benchmarks are SUITE/NAME")
    p.add_argument("--dir", help="where --build keeps binaries and the manifest (per side)")
    p.add_argument("--build", action="store_true", help="compile and list, then exit")
    p.add_argument(
        "--count",
        type=Path,
        metavar="OUT",
        help="count each benchmark's instructions per call under callgrind into OUT, then exit "
        "(gotest: Go takes a fixed call count)",
    )
    p.add_argument("--iters", type=int, default=1, help="with --count: counted runs each (1)")
    flags.add_json(p, "the manifest --build writes (binaries, benchmark names)")
    for kind in KINDS:
        module = _module(kind)
        group = p.add_argument_group(kind)
        if kind == _MODULE.get(kind, kind):  # each module's flags once
            module.add_arguments(group)


def _module(kind: str):
    return importlib.import_module(f"benchtrack.stepworker.{_MODULE.get(kind, kind)}")


def run(args: argparse.Namespace) -> int:
    from benchtrack import stepworker

    if not SUITE_RE.match(args.suite):  # every name it offers starts SUITE/ (result.NAME_RE)
        raise BadInput("--suite", None, "a lowercase suite name (a-z, 0-9, -, _)", args.suite)
    module = _module(args.kind)
    if args.kind == "pytest":
        if args.build:
            raise BadInput("--build", None, "nothing for pytest: the suite's build makes the venv")
        module.exec_worker(args)  # does not return
    if not args.dir:
        raise BadInput("--dir", None, f"a directory for {args.kind}'s binaries and manifest")
    if args.build:
        manifest = module.build(args)
        if args.json:
            flags.print_json(manifest)
        return 0
    if args.count is not None:
        if args.kind not in COUNTED:
            expected = f"a harness that takes a fixed call count ({', '.join(COUNTED)})"
            raise BadInput("--count", None, expected, args.kind)
        if args.iters < 1:
            raise BadInput("--iters", None, "a positive whole number", args.iters)
        output_file("--count", args.count)
        return stepworker.count(module.targets(args), args.count, args.iters)
    if args.json:
        raise BadInput("--json", None, "--build beside it (serving steps reports on the pipes)")
    return stepworker.serve(module.targets(args))
