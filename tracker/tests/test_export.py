"""`benchtrack export`: the action's custom-tool input, one direction at a time."""

from __future__ import annotations

import json
from functools import partial

from benchtrack.cli import main
from benchtrack.history.extra import parse_extra
from benchtrack.lab import synthetic

dump_run = partial(synthetic.dump_run, benches=60)


def test_export_prints_bigger_and_smaller_lists(tmp_path, capsys):
    run = dump_run(tmp_path, 0, 2)
    docs = synthetic.run(0, 2, benches=60)
    assert main(["export", *run]) == 0
    bigger = json.loads(capsys.readouterr().out)
    assert main(["export", "--direction", "smaller", *run]) == 0
    smaller = json.loads(capsys.readouterr().out)
    expected = {b.name: b for d in docs for b in d.benchmarks}
    assert {r["name"] for r in bigger} | {r["name"] for r in smaller} == set(expected)
    assert smaller and all(expected[r["name"]].direction == "smaller" for r in smaller)
    for record in bigger:
        bench = expected[record["name"]]
        assert list(record) == ["name", "value", "range", "unit", "extra"]
        assert record["value"] == bench.value and record["unit"] == bench.unit
        assert record["range"].startswith("± ")
        extra = parse_extra(record["extra"])
        assert extra["cpus"] == "2" and extra["samples"] == str(len(bench.samples))
        lo, hi = (float(x) for x in extra["ci"].split(".."))
        assert (lo, hi) == bench.ci
        assert extra["suite"] == bench.suite and extra["runner"] == "ubuntu-latest"
    assert main(["export", "--entry-name", "--direction", "smaller", *run]) == 0
    assert capsys.readouterr().out == "ubuntu-latest-2cpu (smaller is better)\n"


def test_export_refuses_documents_of_two_runs(tmp_path, capsys):
    mixed = dump_run(tmp_path, 0, 2)[:1] + dump_run(tmp_path, 0, 4)[1:2]
    assert main(["export", *mixed]) == 2
    assert "expected the runner size of" in capsys.readouterr().err
    twice = dump_run(tmp_path, 1, 2)[:1] * 2
    assert main(["export", *twice]) == 2
    assert "once per run" in capsys.readouterr().err
