"""A recorded gate's confirmation judged again with today's statistics: each candidate's
verdict from the rounds the run measured, the shares from its screening rounds (gate/confirm.py),
the levels from the run's alpha, jobs and looks. What a change to how the candidates' levels
are set (not to what is measured) would have said of a real run.

    uv run --frozen python tracker/bench/rejudge_confirm.py \
        tracker/bench/recordings/gate-selftest-s20.gate.json [...]

Prints per file how many candidates were regressed as recorded, with each at its share alone
(weighted Bonferroni) and by the weighted Holm step-down (verdict.step_down), and the candidates
the two tell apart. Only the confirmation's own verdict is judged again (not the equivalence
test over both stages). Thresholds from the repository's benchtrack.toml.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from gate_changes import load  # this directory

from benchtrack.gate import config, confirm
from benchtrack.gate.model import Meta, Rounds
from benchtrack.gate.outcome import Row, analyse
from benchtrack.stats import REGRESSED


def rounds_of(values: dict, orders: list[str], names: list[str], rows: dict) -> Rounds:
    data = Rounds()
    data.orders = list(orders)
    for name in names:
        r = rows[name]
        meta = Meta(r["unit"], r["direction"], r["suite"], paired=True)
        for side in ("base", "head"):
            for k, x in enumerate(values[side].get(name, [])):
                if x is not None:
                    data.add(side, k, name, [x], meta)
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gates", nargs="+", type=Path)
    args = ap.parse_args()
    cfg = config.load(Path("benchtrack.toml"))
    for path in args.gates:
        doc = load(path)  # a clear error and exit 2 for a file that is not a gate.json
        second = doc.get("confirm") or {}
        names = second.get("candidates") or []
        if not names:
            print(f"{path}: no confirmation")
            continue
        rows = {r["name"]: r for r in doc["benchmarks"]}
        run = replace(cfg, alpha=doc["alpha"], jobs=doc["jobs"])
        screened = rounds_of(doc["rounds"]["values"], doc["rounds"]["orders"], names, rows)
        confirmed = rounds_of(second["values"], ["base,head"] * second["rounds"], names, rows)
        shares = confirm.shares([_row(rows[n]) for n in names], screened)
        looks = list(range(1, second["n_looks"] + 1))  # only their count sets the level
        level = run.alpha * confirm.CONFIRM
        now = analyse(confirmed, run, looks, alpha=level, keys=set(names), shares=shares)
        # each candidate at its first share alone: weighted Bonferroni, the rule before Holm's
        alone = {
            n: analyse(confirmed, run, looks, alpha=level * shares[n], keys={n}).rows[0]
            for n in names
        }
        was = {n: rows[n]["verdict"] == REGRESSED for n in names}
        is_ = {r.name: r for r in now.rows}
        print(
            f"{path}: {len(names)} candidates, regressed: {sum(was.values())} as recorded, "
            f"{sum(r.verdict == REGRESSED for r in alone.values())} each at its share alone, "
            f"{sum(r.verdict == REGRESSED for r in is_.values())} by the step-down"
        )
        for n in names:
            r, b = is_[n], alone[n]
            if (r.verdict == REGRESSED) != (b.verdict == REGRESSED):
                print(
                    f"  {n}: {b.verdict} -> {r.verdict}, {r.change:+.1%} [{r.lo:+.1%}, {r.hi:+.1%}]"
                    f" (share {shares[n]:.3f})"
                )


def _row(r: dict):
    """What confirm.shares reads of a row: its name and direction."""

    return Row(
        name=r["name"], suite=r["suite"], unit=r["unit"], direction=r["direction"],
        base=r["base"], head=r["head"], change=r["change"], lo=r["lo"], hi=r["hi"],
        verdict=r["verdict"], threshold=r["threshold"], rounds=r["rounds"],
    )  # fmt: skip


if __name__ == "__main__":
    main()
