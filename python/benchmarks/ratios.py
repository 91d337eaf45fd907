"""Speed-ups of each variant over its group's ``sequential`` one, from a pytest-benchmark JSON.

Usage: ratios.py [PATH]   (default target/bench/raw/python/pytest.json)

Prints one Markdown row per benchmark: mean and median time per call, and the speed-up
(sequential time / variant time) computed from the means (what ``ops`` reports) and the medians.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else ROOT / "target/bench/raw/python/pytest.json"
    doc = json.loads(path.read_text())
    rows = {b["extra_info"]["name"]: b["stats"] for b in doc["benchmarks"]}
    print(f"suite: {doc.get('suite')}, cpus: {doc['machine_info'].get('cpu', {}).get('count')}")
    print("| benchmark | mean ms | median ms | speed-up (mean) | speed-up (median) |")
    print("|---|---|---|---|---|")
    for name in sorted(rows):
        stats = rows[name]
        parts = name.split("/")
        base_name = "/".join([*parts[:2], "sequential", *parts[3:]])
        base = rows.get(base_name)
        mean, median = stats["mean"] * 1e3, stats["median"] * 1e3
        if base is None:
            up = "–", "–"
        else:
            up = f"{base['mean'] / stats['mean']:.2f}×", f"{base['median'] / stats['median']:.2f}×"
        print(f"| {name} | {mean:.1f} | {median:.1f} | {up[0]} | {up[1]} |")
    for error in doc.get("errors", []):
        print(f"| {error['name']} | failed: {error['message']} | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
