"""`benchtrack gate-merge`: one runner size's shards (`gate --shard K/N`) made one verdict."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.fsutil import output_dir
from benchtrack.gate import comment, render, shards
from benchtrack.gate.diagnose import run as diagnose
from benchtrack.gate.diagnose import text as diagnosis_text
from benchtrack.gate.outcome import Outcome, sort_rows

NAME = "gate-merge"
HELP = "Merge one runner size's shard verdicts (gate --shard K/N) into one gate.json and gate.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "shards",
        nargs="+",
        help="the shards' gate.json files, or directories holding them (every gate.json under "
        "one; a DIR/ that is empty or missing: no verdict, every shard's benchmarks not "
        "measured)",
    )
    p.add_argument("--plan", type=Path, required=True, help="the shard plan they ran")
    p.add_argument("--out", type=Path, required=True, help="directory for gate.json and gate.md")
    p.add_argument("--summary", type=Path, help="also append gate.md here (GITHUB_STEP_SUMMARY)")
    flags.add_json(p, "the merged gate.json")


def _index(path: Path, outcome: Outcome, n: int) -> int:
    shard = outcome.meta.get("shard")  # comment.load checked its form
    if shard is None or shard["of"] != n or not 1 <= shard["index"] <= n:
        raise BadInput(path, "shard", f"{{index: 1..{n}, of: {n}}} (the plan's shards)", shard)
    return shard["index"]


def merge(found: dict[int, Outcome], n: int, split: dict[str, int]) -> Outcome:
    """The shards' rows together; a shard without a verdict leaves its planned benchmarks
    failed ("not measured"), so the PR is not ✅; alpha is the shards' sum."""
    first = found[min(found)] if found else None
    failed: dict[str, dict[str, str]] = {"base": {}, "head": {}}
    for o in found.values():
        for side in failed:
            failed[side].update(o.failed.get(side, {}))
    for k in range(1, n + 1):
        if k not in found:
            why = f"not measured: shard {k}/{n} gave no verdict (see its job)"
            for name in sorted(b for b, j in split.items() if j == k):
                failed["head"][name] = why
            # and the benchmarks the plan does not name that it was dealt (shards.by_name)
            failed["head"][f"shard {k}/{n}'s unplanned benchmarks"] = why
    meta = dict(first.meta) if first else {}
    meta.pop("shard", None)  # the merged verdict is every shard's
    meta["seconds"] = max((o.meta.get("seconds", 0.0) for o in found.values()), default=0.0)
    meta["rounds"] = max((o.meta.get("rounds", 0) for o in found.values()), default=0)
    for key in ("gate_seconds", "build_seconds", "diagnosis_seconds"):  # the slowest shard's
        got = [o.meta[key] for o in found.values() if isinstance(o.meta.get(key), (int, float))]
        if got:
            meta[key] = max(got)
    speeds = [o.meta["vcpus"] for o in found.values() if o.meta.get("vcpus")]
    if speeds:  # the PR's most uneven job
        meta["vcpus"] = max(speeds, key=lambda s: s["wall_apart"])
    meta["shards"] = {"of": n, "merged": sorted(found)}
    meta["diagnosis"] = {
        k: e for o in found.values() for k, e in o.meta.get("diagnosis", {}).items()
    }
    return Outcome(
        rows=sort_rows([r for o in found.values() for r in o.rows]),
        only_base=sorted({x for o in found.values() for x in o.only_base}),
        only_head=sorted({x for o in found.values() for x in o.only_head}),
        failed=failed,
        suite_failures=[f for o in found.values() for f in o.suite_failures],
        alpha=sum(o.alpha for o in found.values()),
        looks=[],
        meta=meta,
    )


def _verdicts(given: str) -> list[Path]:
    """A gate.json, or every one under a directory: a missing one written DIR/ holds none
    (a merge job whose shards uploaded nothing)."""
    path = Path(given)
    if path.is_dir() or (given.endswith("/") and not path.exists()):
        return sorted(path.rglob("gate.json"))
    return [path]


def run(args: argparse.Namespace) -> int:
    n, split = shards.read_plan(args.plan)
    out = output_dir("--out", args.out)
    found: dict[int, Outcome] = {}
    paths = [q for given in args.shards for q in _verdicts(given)]
    for path in paths:
        outcome = comment.load(path)
        k = _index(path, outcome, n)
        if k in found:
            raise BadInput(path, "shard.index", f"one verdict a shard ({k} given twice)", k)
        found[k] = outcome
    merged = merge(found, n, split)
    doc = merged.to_dict()
    diagnose.onto_rows(doc)  # each shard's diagnoses back on their rows
    markdown = render.write(out, merged, doc, diagnosis_text.markdown(diagnose.entries(doc)))
    pr = next((p.parent / "pr.json" for p in paths if (p.parent / "pr.json").is_file()), None)
    if pr is not None:  # the PR number, for pr-comment.yml
        shutil.copyfile(pr, out / "pr.json")
    if args.summary:
        with args.summary.open("a", encoding="utf-8") as f:
            f.write(markdown)
    if args.json:
        flags.print_json(doc)
    else:
        print(f"gate-merge: {len(found)} of {n} shard(s) -> {out / 'gate.json'}")
    return merged.exit_code
