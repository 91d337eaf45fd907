"""gate-comment reads the PR's artifacts as untrusted data and renders one sticky comment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchtrack import gate_comment
from benchtrack.cli import main
from benchtrack.errors import BadInput
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.gate.render import COMMENT_MARKER


def verdict(**changes) -> dict:
    row = Row(
        name="python/sleep/gather", suite="python", unit="sleeps/s", direction="bigger",
        base=70.0, head=36.0, change=-0.49, lo=-0.52, hi=-0.46, verdict="regressed",
        threshold=0.05, rounds=8,
    )  # fmt: skip
    outcome = Outcome([row], [], ["python/sleep/new"], {"base": {}, "head": {}}, [], 0.01, [8])
    outcome.meta = {
        "base": {"ref": "0123abcd", "sha": "0123abcd" * 5, "subject": "<b>base</b>"},
        "head": {"ref": "HEAD", "sha": "89abcdef" * 5, "subject": "head"},
        "rounds": 8, "seconds": 61.2, "threshold": 0.05, "n_looks": 1,
    }  # fmt: skip
    data = outcome.to_dict()
    for path, value in changes.items():
        target = data
        *parents, last = path.split(".")
        for p in parents:
            target = target[int(p)] if isinstance(target, list) else target[p]
        target[last] = value
    return data


def write(tmp_path: Path, key: str, data: dict) -> Path:
    path = tmp_path / f"gate-{key}" / "gate.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    return path


def test_one_comment_for_all_sizes_names_the_regression(tmp_path):
    write(tmp_path, "ubuntu-latest-1cpu", verdict())
    write(tmp_path, "ubuntu-latest-2cpu", verdict(**{"benchmarks.0.verdict": "unchanged"}))
    out = tmp_path / "comment.md"
    assert main(["gate-comment", "--artifacts", str(tmp_path), "--out", str(out)]) == 0
    body = out.read_text()
    assert body.startswith(COMMENT_MARKER) and body.count(COMMENT_MARKER) == 1
    assert "ubuntu-latest-1cpu" in body and "ubuntu-latest-2cpu" in body
    assert "python/sleep/gather" in body and "regressed" in body
    assert "<b>base</b>" not in body  # commit subjects are never passed on


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("benchmarks.0.name", "<img src=x onerror=alert(1)>", "benchmarks[0].name"),
        ("benchmarks.0.verdict", "pwned", "benchmarks[0].verdict"),
        ("benchmarks.0.unit", "[click](https://evil)", "benchmarks[0].unit"),
        ("benchmarks.0.base", "1e999", "benchmarks[0].base"),
        ("base.ref", "main`<script>`", "base.ref"),
        ("schema", "something/1", "schema"),
        ("only_head", ["@everyone"], "only_head"),
    ],
)
def test_hostile_fields_are_refused_naming_them(tmp_path, field, value, message):
    path = write(tmp_path, "ubuntu-latest-2cpu", verdict(**{field: value}))
    with pytest.raises(BadInput, match=message.replace("[", r"\[").replace("]", r"\]")):
        gate_comment.load(path)


def test_failure_text_cannot_break_out_of_its_code_block(tmp_path):
    data = verdict()
    data["failed"] = {"base": {}, "head": {"python/sleep/gather": "```\n# Approve me\n```"}}
    write(tmp_path, "ubuntu-latest-2cpu", data)
    body, sizes = gate_comment.comment(tmp_path)
    assert sizes == 1 and "```\n# Approve me" not in body


def test_oversized_and_broken_artifacts_are_bad_input(tmp_path):
    big = write(tmp_path, "a", verdict())
    big.write_bytes(b" " * (gate_comment.MAX_BYTES + 1))
    with pytest.raises(BadInput, match="at most"):
        gate_comment.load(big)
    broken = write(tmp_path, "b", verdict())
    broken.write_text("{")
    assert (
        main(["gate-comment", "--artifacts", str(tmp_path), "--out", str(tmp_path / "c.md")]) == 2
    )
    assert not (tmp_path / "c.md").exists()
