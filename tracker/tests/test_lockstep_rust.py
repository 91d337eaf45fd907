"""The repository's own Rust (criterion) harness in step mode, driven by the gate's lockstep.

Apart from test_lockstep.py (whose scripted workers and helpers these use) so that pytest-xdist
runs them on a worker of their own: each spends a minute or more starting real harnesses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_lockstep import REPO, _harness, by_name


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_rust_harness_in_step_mode(tmp_path: Path) -> None:
    # Two groups in two bench binaries (fanout, tasks), served binary by binary in sorted order;
    # within fanout the benchmarks come sorted although the bench file registers them otherwise.
    # Built first: the workers' own `cargo bench --no-run` then finds it done, within the timeout.
    # The protocol is what is tested: built with cargo's dev profile in the suite's own target
    # dir, where `cargo make test-rust` (the other lane of `cargo make test`) builds the same
    # dependencies with the same profile (one cold build of them in a fresh clone, not two);
    # the user's optimised build is left alone.
    cargo = {
        "BENCH_CARGO_PROFILE": "dev",
        "CARGO_TARGET_DIR": str(REPO / "rust" / "target"),
    }
    build = ["cargo", "bench", "--manifest-path", "rust/Cargo.toml", "--locked", "-p", "patterns"]
    build += ["--profile", "dev"]
    subprocess.run(
        [*build, "--no-run"],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=1200,
        env={**os.environ, **cargo},
    )
    wanted = "fanout/chanchan_uniform/cap[01]|fanout/unordered_uniform|tasks/one_by_one"
    out = _harness(
        tmp_path, "bash scripts/bench-rust-step.sh", {"BENCH_FILTER": f"^({wanted})$", **cargo}
    )
    assert out.exit_codes == {"base": 0, "head": 0}, (tmp_path / "head.log").read_text()[-2000:]
    assert out.errors == {"base": [], "head": []}
    assert [b.name for b in out.benchmarks] == [
        "rust/fanout/chanchan_uniform/cap0",
        "rust/fanout/chanchan_uniform/cap1",
        "rust/fanout/unordered_uniform",
        "rust/tasks/one_by_one",
    ]
    got = by_name(out)
    assert got["rust/fanout/unordered_uniform"].unit == "items/s"
    assert got["rust/tasks/one_by_one"].unit == "tasks/s"
    for b in out.benchmarks:
        assert [len(b.samples[s]) for s in ("base", "head")] == [5, 5]
    # 20 items through 5 workers sleeping 2 ms each: at most ~2500 items/s; iterations (>= 8 ms
    # each) would give at most 125/s, so the best of the ten steps above it shows the items
    # counted (it fails only if every step took 20 times its sleeps).
    fan = got["rust/fanout/unordered_uniform"].samples
    assert all(x < 2600 for side in ("base", "head") for x in fan[side])
    assert max(fan["base"] + fan["head"]) > 125
