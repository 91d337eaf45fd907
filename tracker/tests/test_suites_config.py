"""One configuration model: one declaration per suite ([bench.suites.<name>], benchtrack.suites)
serves bench-local and the gate, which measures it whole each round unless the suite's
`[bench.suites.<name>.gate]` table (or array of tables, one gate suite per part) says otherwise.
The gate's old namespace, `[suites.<name>]`, is refused (exit 2) naming where its keys go now."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from benchtrack import cli, suites
from benchtrack.errors import BadInput
from benchtrack.gate import config

ROOT = Path(__file__).resolve().parents[2]

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

[bench.suites.c.gate]
adapter = "lockstep"
command = "./step"
"""

ONE_RUN = CONFIG + "[bench.suites.zig-instructions.gate]\n"

PARTS = """
[bench.suites.c]
adapter = "googlebenchmark"
command = "./bench --benchmark_format=json > out.json"
raw = "out.json"
[bench.suites.c.env]
C_FLAGS = "-O2"

[[bench.suites.c.gate]]
adapter = "lockstep"
command = "./step"
cpus = "one"
[bench.suites.c.gate.env]
BENCH_FILTER = "^c/single/"

[[bench.suites.c.gate]]
name = "c-threads"
adapter = "lockstep"
command = "./step"
[bench.suites.c.gate.env]
BENCH_FILTER = "^c/(?!single/)"

[[bench.suites.c.gate]]
name = "c-rss"
timeout = 60
"""


def _parse(text: str) -> config.GateConfig:
    return config.parse(tomllib.loads(text), "benchtrack.toml")


def test_bench_suites_are_gate_suites_unless_their_gate_table_says_otherwise() -> None:
    cfg = _parse(CONFIG)
    zig, counts, c = (cfg.suites[n] for n in ("zig", "zig-instructions", "c"))
    assert (zig.adapter, zig.command, zig.raw, zig.build) == (
        "bmf",
        "zig build bench",
        "zig-out/bmf.json",
        "zig build",
    )
    assert zig.env == {"ZIG_FLAGS": "-O ReleaseFast", "BENCH_PROFILE": "short"}
    assert zig.series == "time" and counts.series == "instructions"
    assert c.lockstep and c.command == "./step" and c.raw == ""  # the gate table's keys win
    assert [s.name for s in cfg.select(None)] == ["zig", "zig-instructions", "c"]  # file order


def test_one_suite_type_serves_bench_local_and_the_gate() -> None:
    parsed = suites.parse(tomllib.loads(CONFIG), "benchtrack.toml")
    assert type(parsed.bench["c"]) is type(parsed.gate["c"]) is config.Suite is suites.Suite
    assert parsed.bench["c"].adapter == "googlebenchmark"  # bench-local still runs the harness
    assert parsed.gate["c"].adapter == "lockstep"


def test_a_suite_measured_in_parts_has_a_gate_suite_per_part() -> None:
    cfg = _parse(PARTS)
    assert list(cfg.suites) == ["c", "c-threads", "c-rss"]
    one, threads, rss = cfg.suites.values()
    assert (one.cpus, threads.cpus) == ("one", "all")
    assert one.env == {"BENCH_FILTER": "^c/single/"}  # env given: it replaces the suite's
    # a part leaving keys out gets the suite's command, adapter, raw and env
    assert (rss.adapter, rss.command, rss.raw) == (
        "googlebenchmark",
        "./bench --benchmark_format=json > out.json",
        "out.json",
    )
    assert rss.env == {"C_FLAGS": "-O2"} and rss.timeout == 60
    assert suites.parse(tomllib.loads(PARTS), "t").bench.keys() == {"c"}  # bench-local: one


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (PARTS.replace('name = "c-threads"\n', ""), "bench.suites.c.gate[1].name"),
        (PARTS.replace('name = "c-rss"', 'name = "c-threads"'), "bench.suites.c"),
        (PARTS.replace('name = "c-rss"', 'name = "C RSS"'), "bench.suites.c.gate[2].name"),
        (PARTS.replace("timeout = 60", "timeout = 0"), "bench.suites.c.gate[2].timeout"),
        (PARTS.replace("timeout = 60", "rawz = 1"), "bench.suites.c.gate[2].rawz"),
        (
            PARTS + '[bench.suites.c-rss]\nadapter = "bmf"\ncommand = "x"\nraw = "y"\n',
            "bench.suites.c.gate[2].name",
        ),
        (
            CONFIG.replace('command = "./step"', 'command = "./step"\nadapter2 = 1'),
            "bench.suites.c.gate.adapter2",
        ),
        (
            CONFIG.replace('adapter = "lockstep"', 'adapter = "junit"'),
            "bench.suites.c.gate.adapter",
        ),
        (
            CONFIG.replace("companion = true", 'companion = "yes"'),
            "bench.suites.zig-instructions.companion",
        ),
        # one_run: a counted suite's rounds from one run, so only for counts with `rounds`
        (
            CONFIG.replace('command = "./step"', 'command = "./step"\none_run = true'),
            "bench.suites.c.gate.one_run",
        ),
        (ONE_RUN + "one_run = true\n", "bench.suites.zig-instructions.gate.one_run"),
        (ONE_RUN + "rounds = 3\none_run = 1\n", "bench.suites.zig-instructions.gate.one_run"),
        (CONFIG + "[gate]\nsuites = ['c', 'nope']\n", "suites"),
        ("", "bench.suites"),
    ],
)
def test_a_mistake_in_a_gate_table_is_exit_2_naming_the_field(text: str, field: str) -> None:
    with pytest.raises(BadInput) as refused:
        _parse(text)
    assert refused.value.exit_code == 2
    assert (refused.value.source, refused.value.field) == ("benchtrack.toml", field)


def test_a_refused_boolean_is_shown_as_the_file_spells_it() -> None:
    with pytest.raises(BadInput) as refused:
        _parse(ONE_RUN + "one_run = true\n")
    assert str(refused.value).endswith("got true")  # TOML's spelling, not Python's True


OLD = """\
[bench.suites.perl]
adapter = "perl"
command = "perl bench.pl"
raw = "out.json"

[suites.perl-rss]
adapter = "perl"
command = "perl bench.pl --rss"
raw = "out.json"
"""


def test_the_old_suites_namespace_is_refused_naming_the_file_field_and_new_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "benchtrack.toml"
    path.write_text(OLD, encoding="utf-8")
    for load in (config.load, suites.load, suites.order):
        with pytest.raises(BadInput) as refused:
            load(path)
        assert refused.value.exit_code == 2
        assert (refused.value.source, refused.value.field) == (str(path), "suites.perl-rss")
        assert "[bench.suites.<suite>.gate]" in str(refused.value)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["bench-local", "--config", str(path), "--no-history"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: suites.perl-rss: expected no [suites.<name>] tables" in err
    assert "[bench.suites.<suite>.gate]" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["benchtrack.toml"]  # nothing written


def test_this_repositorys_gate_suites_keep_their_names() -> None:
    cfg = config.load(ROOT / config.CONFIG_NAME)
    names = [
        "rust", "rust-threads", "rust-threads-pooled", "python", "python-threads", "perl",
        "perl-rss", "rust-instructions", "rust-instructions-streams", "python-instructions",
        "perl-instructions",
    ]  # fmt: skip
    assert list(cfg.suites) == names  # as gate.json and the shipped recordings name them
    assert sorted(cfg.default_suites) == sorted(names)
    # The counts that repeat in a fresh process take their rounds from one run a side.
    one_run = [n for n, s in cfg.suites.items() if s.one_run]
    assert one_run == ["rust-instructions-streams", "python-instructions", "perl-instructions"]
    assert list(suites.load(ROOT / config.CONFIG_NAME)) == [
        "rust", "python", "perl", "rust-instructions", "python-instructions", "perl-instructions"
    ]  # fmt: skip


def test_the_declared_order_is_the_table_order(tmp_path: Path) -> None:
    path = tmp_path / "benchtrack.toml"
    assert suites.order(path) == ()  # no file: nothing declared
    path.write_text(CONFIG)
    assert suites.order(path) == ("zig", "zig-instructions", "c")
    assert suites.load(path)["zig-instructions"].companion


# --- the documented defaults are the code's


GATE_TABLE = "bench.suites.<name>.gate."


def _documented() -> dict[str, object]:
    """tracker/GATE.md's "Configuration" table of defaults: key -> its default (a TOML value, or
    "none": no such setting)."""
    text = (ROOT / "tracker/GATE.md").read_text(encoding="utf-8")
    section = text.split("### Configuration", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| `?([^`|]+?)`? \|", section, re.M)
    assert rows, "the table of defaults"
    return {
        key.removeprefix(GATE_TABLE): None
        if value == "none"
        else tomllib.loads(f"v = {value}")["v"]
        for key, value in rows
    }


def test_the_documented_defaults_are_the_codes() -> None:
    s, g, c = suites.Suite("x", "c", "lockstep", ""), config.GateConfig("t"), config.Confirm()
    code = {
        "gate.threshold": g.threshold,
        "gate.alpha": g.alpha,
        "gate.jobs": g.jobs,
        "gate.rounds": g.rounds,
        "gate.looks": list(g.looks),
        "gate.minutes": g.minutes,
        "gate.confirm.rounds": c.rounds,
        "gate.confirm.looks": list(c.looks),
        "gate.confirm.most": c.most,
        "gate.confirm.uneven_rounds": c.uneven_rounds,
        "gate.idle": g.idle,
        "timeout": s.timeout,
        "series": s.series,
        "rounds": s.rounds,
        "pairs": s.pairs,
        "pair_seconds": s.pair_seconds,
        "processes": s.processes,
        "pool": s.pool,
        "min_pairs": s.min_pairs,
        "cpus": s.cpus,
        "one_run": s.one_run,
    }
    assert _documented() == code
    # and a config that leaves them out gets them
    bench = {"x": {"adapter": "perl", "command": "c", "raw": "r", "gate": {"adapter": "lockstep"}}}
    parsed = config.parse({"bench": {"suites": bench}, "gate": {"confirm": {}}}, "t")
    assert (parsed.rounds, parsed.looks, parsed.minutes) == (g.rounds, g.looks, g.minutes)
    assert (parsed.alpha, parsed.threshold, parsed.jobs) == (g.alpha, g.threshold, g.jobs)
    assert parsed.idle == g.idle
    assert parsed.confirm == c
    got = parsed.suites["x"]
    assert (got.timeout, got.pairs, got.pair_seconds, got.processes, got.cpus, got.rounds) == (
        s.timeout, s.pairs, s.pair_seconds, s.processes, s.cpus, s.rounds
    )  # fmt: skip
    assert got.pool == s.pool and got.one_run == s.one_run
