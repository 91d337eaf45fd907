"""The self-test's slowdowns all at once, replayed on A/A recordings: a PR that slows many
benchmarks together, the case `benchtrack evaluate` (one slowed benchmark a pseudo-PR) leaves out.

    uv run --frozen python tracker/bench/many_slowdowns.py RECORDING.json.gz [...] [--prs 200]

Every `slows` entry of `[gate.selftest]`'s patches file (tracker/bench/selftest-patches.toml)
scales its benchmarks' wall-time series by its declared loss in every pseudo-PR at once (the
counts and CPU-time series untouched, as evaluate slows them); the two-stage gate of
benchtrack.toml judges each pseudo-PR as one runner-size job (alpha / jobs), unsharded, within
the budget, as `gate-selftest` runs. Per recording: the candidates a PR sends to the
confirmation, how many slowed series of >= 10% are flagged in >= 95% of the PRs and of 5% in
>= 90%, the share of PRs in which an unslowed series regressed, and the least-flagged slowed
series. What the real self-test measures instead is its own recorded gate (tracker/GATE.md,
"Self-test"); this replays many pseudo-PRs of the same slowdowns on recorded noise.
"""

from __future__ import annotations

import argparse
import fnmatch
import tomllib
from pathlib import Path

import numpy as np

from benchtrack.gate import config
from benchtrack.lab import aa, stages
from benchtrack.lab import evaluate as ev


def slowdowns(path: Path) -> list[dict]:
    doc = tomllib.loads(path.read_text())
    return [s for kind in ("work", "wait") for w in doc.get(kind, []) for s in w["slows"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recordings", nargs="+", type=Path)
    ap.add_argument("--prs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cfg = config.load(Path("benchtrack.toml"))
    slows = slowdowns(Path(cfg.selftest_patches or "tracker/bench/selftest-patches.toml"))
    seen: dict = {}

    def gate(self, g, thresholds, alpha, looks, losses, exact, benches):
        """Stages.gate with every slowdown in each pseudo-PR (evaluate's own call)."""
        loss, declared = np.zeros(g.shape[1]), {}
        for s in slows:
            for j, name in enumerate(benches.names):
                if fnmatch.fnmatch(name, s["glob"]):
                    i = benches.primary[j]
                    loss[i] = max(loss[i], s["loss"])
                    declared[name] = (i, loss[i])
        shift = np.log1p(-loss)[None, :, None]
        out = self.decide(g + shift, self.g2 + shift, thresholds, alpha, looks, exact)
        seen.update(out=out, declared=declared, slowed=loss > 0)
        return 0.0, {d: np.zeros(len(benches.names)) for d in losses}, out

    stages.Stages.gate = gate
    for path in args.recordings:
        parts = aa.load_parts(path, None)
        thresholds = np.array(
            [cfg.threshold_for(config.split_key(n)[0]) for d in parts for n in d.names]
        )
        ev.evaluate(
            parts, thresholds=thresholds, alpha=cfg.alpha,
            looks=cfg.look_schedule(None, adaptive=True), prs=args.prs, seed=args.seed,
            jobs=cfg.jobs, budget=cfg.minutes * 60, build_seconds=None, confirm=cfg.confirm,
        )  # fmt: skip
        out, declared = seen["out"], seen["declared"]
        rate = np.mean(out.regressed, axis=0)
        got = {n: (d, float(rate[i])) for n, (i, d) in declared.items()}
        big = [r for d, r in got.values() if d >= 0.1]
        small = [r for d, r in got.values() if d < 0.1]
        false = float(np.mean(np.any(out.regressed & ~seen["slowed"][None, :], axis=-1)))
        print(
            f"{path.name}: {np.mean(out.candidates):.1f} candidates a PR (most "
            f"{int(np.max(out.candidates))}); slowed >= 10%: {sum(r >= 0.95 for r in big)} of "
            f"{len(big)} flagged in >= 95% of PRs; 5%: {sum(r >= 0.9 for r in small)} of "
            f"{len(small)} in >= 90%; an unslowed series regressed in {100 * false:.1f}% of PRs"
        )
        for name, (d, r) in sorted(got.items(), key=lambda kv: kv[1][1])[:4]:
            print(f"    {100 * r:5.1f}%  -{100 * d:.0f}%  {name}")


if __name__ == "__main__":
    main()
