"""`benchtrack gate-selftest`: build a branch of HEAD with real slowdowns in every suite, run the
real gate on it against HEAD, and check every loss of 10% or more is flagged and nothing else.

The slowdowns are the repository's own, in the file its benchtrack.toml names in
`[gate.selftest] patches` (selftest/patches.py reads it). Two kinds (`--kind`, both by default,
in one branch): more work per element (`work`: the counts see it too), and changes that add no
instructions to speak of (`wait`: in this repository a blocking call in async code, a syscall per
entry, an fsync per write, a contended lock, lost parallelism, a cache-hostile layout), which
only the wall time a user sees can catch."""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import orjson
from rich.console import Console

from benchtrack.commands import flags
from benchtrack.errors import BadInput, BenchmarkFailed
from benchtrack.fsutil import atomic_write, output_dir, output_file
from benchtrack.gate import config, worktree
from benchtrack.report import terminal
from benchtrack.selftest import branch, check, report
from benchtrack.selftest import patches as patch_file
from benchtrack.selftest.patches import KINDS, slows

NAME = "gate-selftest"
HELP = (
    "Self-test the gate: HEAD against a branch of it with real slowdowns in every suite; exit 1 "
    "unless every loss of 10 percent or more is flagged, and nothing else"
)
PASS_THROUGH = ("rounds", "minutes", "suite", "filter", "cpus")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true", help="build the branch and list the patches")
    p.add_argument(
        "--kind",
        choices=[*KINDS, "all"],
        default="all",
        help="which slowdowns: more work per element (work), none the counts see (wait), or all",
    )
    p.add_argument("--rounds", type=int, help="passed to the gate")
    p.add_argument("--minutes", type=float, help="passed to the gate")
    p.add_argument("--suite", action="append", help="passed to the gate (repeatable)")
    p.add_argument("--filter", help="passed to the gate")
    flags.add_cpus(p, "passed to the gate")
    p.add_argument(
        "--out",
        type=Path,
        help="selftest.json, selftest.md, gate.json (default target/gate/selftest)",
    )
    p.add_argument("--summary", type=Path, help="also append the Markdown to this file")
    p.add_argument("--keep-clone", action="store_true", help="keep the patched clone afterwards")
    flags.add_json(p, "the verdict (selftest.json; with --dry-run, the branch and its slowdowns)")


def load_patches(root: Path) -> dict[str, tuple[patch_file.Patch, ...]]:
    """The slowdowns of the repository at `root`: the file its `[gate.selftest] patches` names."""
    cfg = config.load(root / config.CONFIG_NAME)
    if cfg.selftest_patches is None:
        expected = "[gate.selftest] patches = <the file of gate-selftest's slowdowns>"
        raise BadInput(cfg.source, "gate.selftest.patches", expected)
    return patch_file.load(root / cfg.selftest_patches)


def gate_args(args: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for name in PASS_THROUGH:
        value = getattr(args, name)
        for v in value if isinstance(value, list) else [] if value is None else [value]:
            out += [f"--{name}", str(v)]
    return out


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    say = lambda msg: console.print(f"[dim]gate-selftest:[/] {msg}", highlight=False)  # noqa: E731
    output_file("--summary", args.summary)
    if args.out is not None:
        output_dir("--out", args.out)
    root = worktree.repo_root(Path.cwd())
    home = root / "target" / "gate" / "selftest"
    out = (args.out or home).resolve()
    clone = home / "repo"  # fixed: the gate's build caches are keyed by the checkout's path
    dirty = worktree.dirty_paths(root)
    if dirty:
        say(
            f"[yellow]warning:[/] uncommitted changes are not in the branch: {', '.join(dirty[:5])}"
        )
    kinds = load_patches(root)
    patches = tuple(p for kind, ps in kinds.items() if args.kind in (kind, "all") for p in ps)
    made = branch.prepare(root, clone, patches=patches)
    say(f"branch {branch.BRANCH} in {clone}: {made.base[:10]} + slowdowns = {made.head[:10]}")
    report.patch_table(patches, terminal.console(stderr=args.json))
    if args.dry_run:
        say(f"dry run: the gate was not run; inspect with git -C {clone} show {made.head[:10]}")
        if args.json:
            flags.print_json(
                {
                    "branch": branch.BRANCH,
                    "clone": str(clone),
                    "base": made.base,
                    "head": made.head,
                    "slows": [asdict(s) for s in slows(patches)],
                }
            )
        return 0
    try:
        branch.share(clone, "cache", home / "cache")
        branch.share(clone, "logs", home / "logs")
        gate_json = out / "gate.json"
        for stale in ("gate.json", "gate.md", "selftest.json", "selftest.md"):
            (out / stale).unlink(missing_ok=True)  # an earlier run's must not pass for this one's
        cmd = [sys.executable, "-m", "benchtrack", "gate", "--base", made.base]
        cmd += ["--head", made.head, "--out", str(out), *gate_args(args)]
        say(f"running the gate in the clone: {' '.join(cmd[2:])}")
        gate_exit = subprocess.run(cmd, cwd=clone, stdin=subprocess.DEVNULL, check=False).returncode
    finally:
        if not args.keep_clone:
            branch.discard(clone)
    if gate_exit == 2:  # its one-line message is above
        raise BadInput("gate-selftest", None, "flags the gate accepts", " ".join(gate_args(args)))
    if gate_exit not in (0, 1, 3):
        what = f"a result (exit {gate_exit}; its logs: {home / 'logs'})"
        raise BenchmarkFailed(f"gate-selftest: the gate did not produce {what}")
    try:
        outcome = check.load(gate_json, made.base, made.head)
    except BadInput as e:
        raise BenchmarkFailed(f"gate-selftest: the gate ran but its result is unusable: {e}") from e
    result = check.judge(
        outcome,
        slows(patches),
        restricted=bool(args.suite or args.filter),
        gate_exit=gate_exit,
        base=made.base,
        head=made.head,
    )
    md = report.markdown(result)
    atomic_write(out / "selftest.json", orjson.dumps(result.to_dict(), option=orjson.OPT_INDENT_2))
    atomic_write(out / "selftest.md", md)
    if args.summary:
        with args.summary.open("a", encoding="utf-8") as f:
            f.write(md)
    if args.json:
        flags.print_json(result.to_dict())
    else:
        report.terminal(result, terminal.console())
    say(f"wrote {out / 'selftest.json'} and {out / 'selftest.md'}; gate logs in {home / 'logs'}")
    return result.exit_code
