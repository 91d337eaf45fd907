"""`benchtrack matrix`: the runner-size config becomes the CI matrix, bad configs exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.machine import runner_sizes

REPO = Path(__file__).resolve().parents[2]


def test_repo_config_gives_standard_sizes_and_larger_ones_on_request(capsys):
    assert main(["matrix", "--config", str(REPO / ".github/bench-runners.toml")]) == 0
    standard = json.loads(capsys.readouterr().out)["include"]
    keys = [row["key"] for row in standard]
    assert keys == ["ubuntu-latest-1cpu", "ubuntu-latest-2cpu", "ubuntu-latest-4cpu"]
    assert [row["taskset"] for row in standard] == ["0", "0-1", ""]

    config = str(REPO / ".github/bench-runners.toml")
    assert main(["matrix", "--config", config, "--larger-runners", "true"]) == 0
    larger = json.loads(capsys.readouterr().out)["include"]
    assert len(larger) == len(standard) + 2
    assert {"ubuntu-latest-8-cores-8cpu", "ubuntu-latest-16-cores-16cpu"} <= {
        row["key"] for row in larger
    }


def test_github_output_gets_matrix_and_keys(tmp_path, monkeypatch, capsys):
    out = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert (
        main(["matrix", "--config", str(REPO / ".github/bench-runners.toml"), "--github-output"])
        == 0
    )
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert json.loads(lines["keys"]) == [
        row["key"] for row in json.loads(lines["matrix"])["include"]
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[runner]\n", "expected valid TOML"),
        ("x = 1\n", "runner: expected a non-empty array"),
        ('[[runner]]\nruns-on = "a"\ncpus = 0\n', "runner[0].cpus: expected a whole number"),
        ("[[runner]]\ncpus = 2\n", "runner[0].runs-on: expected a runner label"),
        ('[[runner]]\nruns-on = "a"\ncpus = 2\npin = "yes"\n', "runner[0].pin: expected true"),
        ('[[runner]]\nruns-on = "a"\ncpus = 2\nenabled = "sometimes"\n', "runner[0].enabled"),
        ('[[runner]]\nruns-on = "a"\ncpus = 2\n[[runner]]\nruns-on = "a"\ncpus = 2\n', "once"),
        ('[[runner]]\nruns-on = "a"\ncpus = 2\nenabled = false\n', "at least one enabled"),
    ],
)
def test_bad_config_is_exit_2_naming_file_and_field(tmp_path, capsys, text, message):
    config = tmp_path / "runners.toml"
    config.write_text(text)
    assert main(["matrix", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert str(config) in err and message in err
    assert "Traceback" not in err


def test_missing_config_is_exit_2(tmp_path, capsys):
    assert main(["matrix", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml" in capsys.readouterr().err


def test_key_matches_result_document_runner_key():
    from benchtrack.result import Runner

    size = runner_sizes.RunnerSize("ubuntu-latest", 4, False)
    runner = Runner(label="ubuntu-latest", cpus=4, cpu_model="x", os="linux", arch="x86_64")
    assert size.key == runner.key
