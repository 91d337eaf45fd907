"""One declaration per suite ([bench.suites.<name>], benchtrack.suites) serves the gate too:
measured whole each round unless `[suites.<name>]` declares that name for the gate."""

from __future__ import annotations

import tomllib
from pathlib import Path

from benchtrack import suites
from benchtrack.gate import config

CONFIG = """
[bench.suites.zig]
adapter = "bmf"
command = "zig build bench"
raw = "zig-out/bmf.json"
build = "zig build"
profile = "short"
[bench.suites.zig.env]
ZIG_FLAGS = "-O ReleaseFast"

[bench.suites.zig-instructions]
adapter = "callgrind"
command = "bash count.sh"
raw = "target/counts"
companion = true

[bench.suites.c]
adapter = "googlebenchmark"
command = "./bench --benchmark_format=json > out.json"
raw = "out.json"

[suites.c]
adapter = "lockstep"
command = "./step"
"""


def test_bench_suites_are_gate_suites_unless_the_gate_declares_the_name() -> None:
    cfg = config.parse(tomllib.loads(CONFIG), "benchtrack.toml")
    zig, counts, c = (cfg.suites[n] for n in ("zig", "zig-instructions", "c"))
    assert (zig.adapter, zig.command, zig.raw, zig.build) == (
        "bmf",
        "zig build bench",
        "zig-out/bmf.json",
        "zig build",
    )
    assert zig.env == {"ZIG_FLAGS": "-O ReleaseFast", "BENCH_PROFILE": "short"}
    assert zig.series == "time" and counts.series == "instructions"
    assert c.lockstep and c.command == "./step"  # the gate's own table wins
    assert [s.name for s in cfg.select(None)][:2] == ["c", "zig"]  # gate tables first


def test_the_declared_order_is_the_table_order(tmp_path: Path) -> None:
    path = tmp_path / "benchtrack.toml"
    assert suites.order(path) == ()  # no file: nothing declared
    path.write_text(CONFIG)
    assert suites.order(path) == ("zig", "zig-instructions", "c")
    assert suites.load(path)["zig-instructions"].companion
