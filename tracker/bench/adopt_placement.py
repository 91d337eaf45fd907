"""A/A recordings of an adopter's pytest-benchmark suite under each `cpus` placement, for
docs/adopting.md ("Where the turns are taken"):

    uv run --frozen python tracker/bench/adopt_placement.py OUTDIR [--rounds 12] [--runs 2]
        [--first 1] [--cpus all|one|auto ...]

The project is the one `tracker/tests/test_adopt_lockstep.py` sets up (`init` on a small
package installed editable, two pure-Python benchmarks of ~50-100 us a call); its
`benchtrack.toml` is what `init` wrote, with the lockstep table's `cpus` set to "all", "one"
and "auto" in turn, and `benchtrack record-aa` records each `--runs` times, the placements
alternating, into OUTDIR/aa-adopt-placement-<cpus>-<run>.json. `--table` reads them instead:
per placement, the recordings, each benchmark's sd of the rounds' median pair log-ratios (what
the gate's interval is built from; lockstep_spread.py's `between`), median and range over the
recordings, and the load average's range.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchtrack.fsutil import read_maybe_gzip

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tracker" / "tests"))
sys.path.insert(0, str(ROOT / "tracker" / "bench"))

from test_adopt import ACTION, benchtrack  # noqa: E402
from test_adopt_lockstep import python_repo  # noqa: E402
from test_workflows_local import git  # noqa: E402

PLACEMENTS = ("all", "one", "auto")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", type=Path)
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--first", type=int, default=1, help="the first run's number in the names")
    p.add_argument("--cpus", action="append", choices=PLACEMENTS, help="these only (repeatable)")
    p.add_argument("--table", action="store_true", help="read OUTDIR's recordings: a table")
    args = p.parse_args()
    if args.table:
        return table(args.outdir)
    args.outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="adopt-placement-") as tmp:
        repo = python_repo(Path(tmp) / "python")
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.name", "dev")
        git(repo, "config", "user.email", "dev@example.com")
        benchtrack(repo, "init", "--action", ACTION)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "track the benchmarks with benchtrack")
        written = (repo / "benchtrack.toml").read_text()
        if not re.search(r'^cpus = "auto"$', written, re.M):
            raise SystemExit('adopt_placement: init\'s lockstep table has no `cpus = "auto"`')
        for run in range(args.first, args.first + args.runs):
            for cpus in args.cpus or PLACEMENTS:
                config = Path(tmp) / f"{cpus}.toml"
                placed = re.sub(r'^cpus = "auto"$', f'cpus = "{cpus}"', written, flags=re.M)
                config.write_text(placed)
                out = args.outdir / f"aa-adopt-placement-{cpus}-{run}.json"
                print(f"record-aa cpus={cpus} run {run} -> {out}", flush=True)
                subprocess.run(
                    [sys.executable, "-m", "benchtrack", "record-aa", "--config", str(config),
                     "--rounds", str(args.rounds), "--out", str(out.resolve())],
                    cwd=repo, check=True,
                )  # fmt: skip
    return 0


def table(outdir: Path) -> int:
    from lockstep_spread import spreads  # tracker/bench, beside this script

    found = {
        cpus: [
            json.loads(read_maybe_gzip(f))
            for f in sorted(outdir.glob(f"aa-adopt-placement-{cpus}-*.json*"))
        ]
        for cpus in PLACEMENTS
    }
    if not any(found.values()):
        print(f"adopt_placement: {outdir}: no aa-adopt-placement-*.json", file=sys.stderr)
        return 2
    print("| `cpus` | recordings | benchmark | between-round sd %, median (range) | load average |")
    print("|---|--:|---|---|---|")
    for cpus, docs in found.items():
        if not docs:
            continue
        by_name: dict[str, list[float]] = {}
        for doc in docs:
            for name, _pairs, _within, between in spreads(doc):
                by_name.setdefault(name, []).append(100 * between)
        loads = [doc["load"]["loadavg_1m"] for doc in docs]
        load = f"{min(x['min'] for x in loads):.2f}-{max(x['max'] for x in loads):.2f}"
        for name, sds in sorted(by_name.items()):
            spread = f"{statistics.median(sds):.2f} ({min(sds):.2f}-{max(sds):.2f})"
            print(f"| `{cpus}` | {len(docs)} | `{name}` | {spread} | {load} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
