"""How often the dashboard's verdicts colour noise, and how often they miss a step: the rule of
benchtrack.dashboard.expected on the shipped generator's histories (gh-pages/README.md, "When a
change is coloured"; gh-pages/tests/test_verdicts.py checks seed 1 of each scenario in Chromium).

For each scenario and seed: `benchtrack.lab.simulate` writes the history (160 merges on 1, 2 and 4
vCPU, the shipped recordings' noise, 12 known steps, 6 at the latest merge), `benchtrack detect`
finds its change points (where each series' windows start), and every benchmark x runner pair is
judged as the page judges it: each of its series against its own expected range, changed when
any is outside, in the direction of the quietest that moved. Reported: at the latest merge, the
unchanged pairs coloured and the stepped pairs coloured on their quiet series (the instruction
count for "counted" steps, wall time for "wall" ones); whether the sentence (benchmarks that moved
on more than one runner size) names exactly the stepped benchmarks; and over the 40 merges before
it, each judged against its own history, the unchanged pairs coloured.

    uv run --frozen python tracker/bench/verdict_rates.py [--seeds 1 2 3] [--markdown]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from benchtrack import detect
from benchtrack.dashboard import expected
from benchtrack.history import open_store
from benchtrack.history.companion import split
from benchtrack.lab import simulate


def judge(series: list, key: str, j: int, steps: dict) -> tuple[str, str]:
    """(kind, the series that decided) of one benchmark on one runner at point j."""
    moved = []
    for name, s in series:
        found = expected.expected(s.value, j, steps.get((name, key), []))
        if found is not None:
            kind = found.judge(float(s.value[j]), s.direction)
            if kind:
                moved.append((found.sd, kind, split(name)[1] or "time"))
    return (min(moved)[1], min(moved)[2]) if moved else ("", "")


def rates(root: Path, scenario: str, seed: int) -> dict:
    truth = simulate.history(root, scenario, 160, seed)
    report = detect.analyse(root, write=True, now="2027-01-01T00:00:00Z")
    steps: dict[tuple[str, str], list[int]] = {}
    for c in report.changes:
        steps.setdefault((c.series, c.runner), []).append(c.index)
    last = truth["merges"] - 1
    at = {s["benchmark"]: s for s in truth["steps"]}
    quiet = "instructions" if scenario == "counted" else "time"
    out = {"unchanged": 0, "coloured": 0, "stepped": 0, "caught": 0, "hist": 0, "hist_col": 0}
    named: dict[str, set[str]] = {}
    for key, runner in open_store(str(root)).read().runners.items():
        by: dict[str, list] = {}
        for name, s in runner.series.items():
            by.setdefault(split(name)[0], []).append((name, s))
        for bench, series in by.items():
            step = at.get(bench)
            kind, decided = judge(series, key, last, steps)
            if step and step["merge"] == last:
                out["stepped"] += 1
                want = "worse" if step["factor"] < 1 else "better"
                out["caught"] += kind == want and decided == quiet
            else:
                out["unchanged"] += 1
                out["coloured"] += bool(kind)
            if kind:
                named.setdefault(bench, set()).add(key)
            for j in range(last - 40, last):
                if step and step["merge"] == j:
                    continue
                out["hist"] += 1
                out["hist_col"] += bool(judge(series, key, j, steps)[0])
    stepped = {b for b, s in at.items() if s["merge"] == last}
    out["exact"] = {b for b, sizes in named.items() if len(sizes) > 1} == stepped
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)
    rows = []
    for scenario in simulate.SCENARIOS:
        for seed in args.seeds:
            with tempfile.TemporaryDirectory(prefix="benchtrack-verdicts-") as tmp:
                r = rates(Path(tmp), scenario, seed)
            rows.append((scenario, seed, r))
    head = "| scenario | seed | unchanged coloured (latest) | steps caught on their quiet series | "
    head += "sentence exact | unchanged coloured (40 merges before) |"
    print(head if args.markdown else head.replace("|", " ").strip())
    if args.markdown:
        print("|---|--:|--:|--:|---|--:|")
    for scenario, seed, r in rows:
        cells = [
            scenario,
            str(seed),
            f"{r['coloured']}/{r['unchanged']} ({r['coloured'] / r['unchanged']:.1%})",
            f"{r['caught']}/{r['stepped']} ({r['caught'] / r['stepped']:.0%})",
            "yes" if r["exact"] else "no",
            f"{r['hist_col']}/{r['hist']} ({r['hist_col'] / r['hist']:.2%})",
        ]
        print("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
