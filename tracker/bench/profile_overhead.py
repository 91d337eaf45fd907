"""What the Rust and Perl wall-time samplers cost a diagnosis's steps (tracker/DIAGNOSE.md).

    uv run --frozen python tracker/bench/profile_overhead.py rust [--runs N]
    uv run --frozen python tracker/bench/profile_overhead.py rust --exe BENCH_BINARY NAME [--runs N]
    uv run --frozen python tracker/bench/profile_overhead.py perl BENCHMARK... [--runs N]

`rust`: builds tracker/tests/fixtures/diagnose/worker.rs with rustc -O into a temporary
directory and diagnoses its diag/nap (measure.py, as the gate does) N times without and with
the profile, alternating: each side's wall time a call of the measured steps, and with the
profile eu-stack's stacks (how many, a second, and their mean time: the process stops within
it), its own CPU seconds and what its starts and stops (the names' lookup) added. With --exe,
a criterion bench binary of the Rust suite (built by `cargo bench --no-run`; both sides the
same binary, `BINARY --bench` in step mode) on the benchmark NAME instead (e.g. tasks/joinset).
`perl`: the repository's Perl suite (perl/bin/bench) in step mode on each BENCHMARK, with the
profile: each side's time a call in the measurement and in the sampler's start of its own
(perlsub.py), their ratio, the samples and the seconds that start took. Prints one line a run,
with the machine's 1-minute load average before it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchtrack.gate.diagnose import measure

REPO = Path(__file__).resolve().parents[2]
SIDES = ("base", "head")


def _launches(command: str, name: str, tmp: Path) -> dict[str, measure.Launch]:
    env = {**os.environ, "BENCH_FILTER": f"^{name}$", "DIAG_DIR": str(tmp)}
    return {s: measure.Launch(command, tmp, {**env, "DIAG_SIDE": s}, tmp / f"{s}.log")
            for s in SIDES}  # fmt: skip


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def rust(runs: int, tmp: Path, binary: str | None, name: str) -> None:
    command = f"exec {binary} --bench"
    if binary is None:
        exe = tmp / "worker"
        source = REPO / "tracker/tests/fixtures/diagnose/worker.rs"
        subprocess.run(["rustc", "-O", "--edition", "2021", "-o", str(exe), str(source)],
                       check=True)  # fmt: skip
        command = f"exec {exe}"
    for k in range(runs):
        for where in (None, tmp / f"s{k}"):
            load = _load()
            found = measure.measure(_launches(command, name, tmp), name, timeout=300,
                                    profile_dir=where)  # fmt: skip
            walls = " ".join(f"{s} {found[s].wall * 1e3:.3f} ms" for s in SIDES)
            line = f"load {load} {'profiled' if where else 'plain   '} {walls}"
            for s in SIDES if where else ():
                p = found[s].extra["profile"]
                if isinstance(p, str):
                    line += f"; {p}"
                    break
                line += (f"; {s}: {p.stacks} stacks, {p.stacks / p.window:.1f}/s, "
                         f"{p.stack_seconds / p.stacks * 1e3:.1f} ms each, "
                         f"own CPU {p.own_cpu:.2f} s, added {p.added:.2f} s")  # fmt: skip
            print(line, flush=True)


def perl(names: list[str], runs: int, tmp: Path) -> None:
    command = f"exec perl {REPO / 'perl/bin/bench'}"
    for _ in range(runs):
        for name in names:
            load = _load()
            found = measure.measure(_launches(command, name, tmp), name, timeout=300,
                                    profile_dir=tmp / "s")  # fmt: skip
            line = f"load {load} {name}"
            for s in SIDES:
                p = found[s].extra["profile"]
                if isinstance(p, str):
                    line += f"; {p}"
                    break
                sampled = p.window / p.calls
                line += (f"; {s}: {p.unprofiled * 1e6:.1f} us a call measured, "
                         f"{sampled * 1e6:.1f} sampled (x{sampled / p.unprofiled:.2f}), "
                         f"{p.intervals} samples")  # fmt: skip
            if not isinstance(p, str):
                line += f"; the start of its own {2 * p.added:.2f} s"
            print(line, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("language", choices=("rust", "perl"))
    ap.add_argument("benchmarks", nargs="*")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--exe", help="rust: a criterion bench binary instead of the fixture")
    args = ap.parse_intermixed_args()
    with tempfile.TemporaryDirectory() as d:
        if args.language == "rust":
            rust(args.runs, Path(d), args.exe, args.benchmarks[0] if args.exe else "diag/nap")
        elif not args.benchmarks:
            print("perl: name the benchmarks (e.g. perl/coro/async/trivial)", file=sys.stderr)
            return 2
        else:
            perl(args.benchmarks, args.runs, Path(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
