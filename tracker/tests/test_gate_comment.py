"""gate-comment reads the PR's artifacts as untrusted data and renders one sticky comment."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.errors import BadInput
from benchtrack.gate import comment, function_diff
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
        comment.load(path)


def test_failure_text_cannot_break_out_of_its_code_block(tmp_path):
    data = verdict()
    data["failed"] = {"base": {}, "head": {"python/sleep/gather": "```\n# Approve me\n```"}}
    write(tmp_path, "ubuntu-latest-2cpu", data)
    body, sizes = comment.comment(tmp_path)
    assert sizes == 1 and "```\n# Approve me" not in body


def test_a_count_series_or_a_whole_suite_may_have_failed(tmp_path):
    # A count suite's step error is keyed by its series ("<name> (instructions)"), a run that
    # failed without naming a benchmark by its suite: both are shown, not refused.
    data = verdict()
    failed = {"rust/walk/rayon (instructions)": "exit 3", "rust-instructions (instructions)": "x"}
    data["failed"] = {"base": failed, "head": {}}
    write(tmp_path, "ubuntu-latest-2cpu", data)
    body, _ = comment.comment(tmp_path)
    assert "rust/walk/rayon (instructions)" in body and "rust-instructions (instructions)" in body
    data["failed"] = {"base": {"rust-x (<b>pwned</b>)": "x"}, "head": {}}  # shown as code
    assert (
        "`rust-x (<b>pwned</b>)`"
        in comment.comment(write(tmp_path / "x", "a-2cpu", data).parent.parent)[0]
    )
    data["failed"] = {"base": {"rust-x (\u202eyllaer)": "x"}, "head": {}}  # a name reads as written
    with pytest.raises(BadInput, match=r"failed\.base"):
        comment.load(write(tmp_path, "ubuntu-latest-4cpu", data))


def test_oversized_and_broken_artifacts_are_bad_input(tmp_path):
    big = write(tmp_path, "a", verdict())
    with big.open("r+b") as file:  # sparse: refused by its size, before a byte is read
        file.truncate(comment.MAX_BYTES + 1)
    with pytest.raises(BadInput, match=f"at most {comment.MAX_BYTES:,} bytes"):
        comment.load(big)
    # two benchmarks (a row, one only in head) of 8 rounds cannot fill 3 MB: refused by what it
    # holds, saying what it was allowed and why
    padded = write(tmp_path, "p", verdict())
    padded.write_bytes(padded.read_bytes() + b" " * 3_000_000)
    most = comment.FIXED_BYTES + 2 * (comment.ROW_BYTES + 8 * comment.ROUND_BYTES)
    with pytest.raises(BadInput, match=f"at most {most:,} bytes: .* the 2 benchmarks it names"):
        comment.load(padded)
    broken = write(tmp_path, "b", verdict())
    broken.write_text("{")
    assert (
        main(["gate-comment", "--artifacts", str(tmp_path), "--out", str(tmp_path / "c.md")]) == 2
    )
    assert not (tmp_path / "c.md").exists()


def counted(**changes) -> dict:
    """verdict() of a regressed instruction count."""
    return verdict(
        **{
            "benchmarks.0.unit": "instructions/number",
            "benchmarks.0.direction": "smaller",
            "benchmarks.0.name": "python/cpu/gather (instructions)",
            **changes,
        }
    )


HOSTILE = "[click me](https://evil.example) <img src=x onerror=alert(1)> @everyone"


def test_a_forks_hostile_texts_render_inert(tmp_path):
    data = counted()
    data["failed"] = {"base": {}, "head": {"python/sleep/other": HOSTILE + "\nsecond line"}}
    data["functions"] = {
        "python/cpu/gather (instructions)": {
            "source": "callgrind",
            "functions": [
                {"function": HOSTILE + " `x` | y", "base": 1.0, "head": 2.0, "share": 0.1}
            ],
        }
    }
    write(tmp_path, "ubuntu-latest-2cpu", data)
    body, _ = comment.comment(tmp_path)
    from test_comment_inert import live
    from test_gate_names import tables

    assert live(body) == [] and "second line" not in body  # nothing live; a message's first line
    grew = next(t for t in tables(body) if t[0][-1] == "where the work grew")[1][-1]
    assert grew == HOSTILE + " `x` | y +10.0% (instructions)"  # whole, in its cell, as it is


def test_the_mark_is_the_jobs_own_conclusion_not_the_artifacts(tmp_path):
    write(tmp_path, "ubuntu-latest-1cpu", verdict())  # regressed
    write(tmp_path, "ubuntu-latest-2cpu", verdict(**{"benchmarks.0.verdict": "unchanged"}))
    jobs = [{"name": "gate ubuntu-latest-1cpu", "conclusion": "success"},
            {"name": "gate ubuntu-latest-2cpu", "conclusion": "success"},
            {"name": "runner sizes", "conclusion": "success"}]  # fmt: skip
    body, _ = comment.comment(tmp_path, jobs=jobs)
    first = body.splitlines()[1]
    assert first == "## benchtrack: ✅ this PR: 1 regressed, on 1/2 vCPU", first
    jobs[1]["conclusion"] = "failure"
    assert (
        comment.comment(tmp_path, jobs=jobs)[0]
        .splitlines()[1]
        .startswith("## benchtrack: ❌ this PR: 1 regressed")
    )
    assert "❌" in comment.comment(tmp_path, run_conclusion="failure")[0].splitlines()[1]
    assert "❔" in comment.comment(tmp_path)[0].splitlines()[1]  # not known: never guessed
    # a job name the artifacts do not have decides nothing
    fake = [{"name": "gate other-4cpu", "conclusion": "success"}]
    assert "❔" in comment.comment(tmp_path, jobs=fake)[0].splitlines()[1]


def test_headline_counts_benchmarks_over_sizes_and_names_where_the_work_grew(tmp_path):
    data = counted(**{"benchmarks.0.change": 0.11})
    data["functions"] = {
        "python/cpu/gather (instructions)": {
            "source": "lines",
            "functions": [
                {
                    "function": "async_sigma (python/src/asyncio_patterns/cpu.py)",
                    "base": 2.0,
                    "head": 2.22,
                    "share": 0.11,
                }
            ],
        }
    }
    write(tmp_path, "ubuntu-latest-2cpu", data)
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps([{"name": "gate ubuntu-latest-2cpu", "conclusion": "failure"}]))
    out = tmp_path / "c.md"
    code = main(
        ["gate-comment", "--artifacts", str(tmp_path), "--out", str(out), "--jobs", str(jobs)]
    )
    assert code == 0
    body = out.read_text()
    assert body.splitlines()[1] == "## benchtrack: ❌ this PR: 1 regressed, on 2 vCPU"
    row = next(line for line in body.splitlines() if line.startswith("| `python/cpu/gather"))
    assert "`async_sigma (python/src/asyncio_patterns/cpu.py)` +11.0% (Python lines)" in row
    assert "<details>" in body  # the full table, collapsed


def test_functions_must_name_a_benchmark_of_the_artifact(tmp_path):
    data = verdict()
    data["functions"] = {"python/sleep/other": {"source": "callgrind", "functions": []}}
    path = write(tmp_path, "ubuntu-latest-2cpu", data)
    with pytest.raises(BadInput, match=r"functions\.python/sleep/other"):
        comment.load(path)


def test_a_huge_gate_stays_under_githubs_comment_limit(tmp_path):
    from benchtrack.gate import pr_comment

    for key in ("ubuntu-latest-1cpu", "ubuntu-latest-2cpu", "ubuntu-latest-4cpu"):
        data = verdict()
        row = data["benchmarks"][0]
        data["benchmarks"] = [
            {**row, "name": f"python/group{i // 50}/variant_with_a_long_name_{i}"}
            for i in range(1500)
        ]
        write(tmp_path, key, data)
    body, sizes = comment.comment(tmp_path, run_url="https://github.com/o/r/actions/runs/1")
    assert sizes == 3 and len(body) <= pr_comment.MAX_CHARS
    assert "job summary" in body and body.startswith(COMMENT_MARKER)
    assert body.splitlines()[1].startswith("## benchtrack: ❔ this PR: 1500 regressed")


def test_the_self_tests_comment_names_the_slowed_function_of_every_counted_regression(tmp_path):
    """The gate's own gate.json from a `cargo make gate-selftest` (shipped: recordings/README.md):
    for every counted benchmark it regressed, the comment's row names the function the patch
    made do more work (tracker/bench/selftest-patches.toml, `where`) among its top 3."""
    import fnmatch
    import shutil

    from benchtrack.commands.gate_selftest import load_patches
    from benchtrack.selftest.patches import slows

    work = load_patches(Path(__file__).parents[2])["work"]

    recording = Path(__file__).parents[1] / "bench/recordings/gate-selftest-s3.gate.json"
    target = tmp_path / "gate-local-2cpu" / "gate.json"
    target.parent.mkdir()
    shutil.copyfile(recording, target)
    body, _ = comment.comment(tmp_path)
    rows = {
        line.split("`")[1]: line.split(" | ")[-1]
        for line in body.split("<details>")[0].splitlines()
        if line.startswith("| `")
    }
    data = json.loads(recording.read_text())
    counted = [
        r["name"]
        for r in data["benchmarks"]
        if r["verdict"] == "regressed" and r["gates"] and r["unit"].startswith("instructions/")
    ]
    assert len(counted) == 9
    for name in counted:
        slow = next(s for s in slows(work) if fnmatch.fnmatchcase(name.split(" (")[0], s.glob))
        top = [cell.split("`")[1] for cell in rows[name].split(" · ")]
        assert 1 <= len(top) <= 3 and any(w in f for f in top for w in slow.where), (name, top)


def test_an_intervals_text_is_bounded_whatever_its_numbers(tmp_path):
    """An unconfirmed row's interval can end anywhere (a review saw a 150-digit percentage)."""
    from benchtrack.gate.render import pct

    assert [pct(x) for x in (0.042, 9.99, 9.991, -9.991, -1e148, math.inf, math.nan)] == [
        "+4.2%", "+999.0%", "> +999%", "< -999%", "< -999%", "∞", "—",
    ]  # fmt: skip
    write(tmp_path, "ubuntu-latest-2cpu", verdict(**{"benchmarks.0.hi": 1e148}))
    body, _ = comment.comment(tmp_path)
    assert "| -49.0% | [-52.0%, > +999%] |" in body and not re.search(r"\d{5}", body)
    # a function's share of the growth too: the artifact writes it
    shares = {"functions": [{"function": "f", "share": 1e148}, {"function": "g", "share": 0.25}]}
    assert function_diff.lines(shares) == "`f` > +999% · `g` +25.0%"


def test_code_shows_what_a_reader_cannot_see_as_escapes():
    from benchtrack.mdtext import block, code

    bidi_c1_zw = "ab\u202ecd\u2066\x85\x9b\u200d\ufeff\x00\n`|"
    shown = r"`` ab\u202ecd\u2066\u0085\u009b\u200d\ufeff\u0000\u000a` ``\|"  # a | between spans
    assert code(bidi_c1_zw) == shown
    assert code("\u202e" * 30, 20) == "`" + r"\u202e" * 3 + "…`"  # an escape is never split
    assert code("é—ü x" * 30, 10) == "`é—ü xé—ü …`" and code("") == "` `"
    assert block("a\tb\r\n````\u202e") == "a\tb\\u000d\n''''\\u202e"


def test_a_gate_json_that_is_not_a_regular_file_is_not_read(tmp_path):
    real = tmp_path / "elsewhere.json"
    real.write_text(json.dumps(verdict()))
    link = tmp_path / "gate-ubuntu-latest-2cpu" / "gate.json"
    link.parent.mkdir()
    link.symlink_to(real)  # an artifact's link could name /dev/zero or a runner's file
    with pytest.raises(BadInput, match="expected a regular file"):
        comment.comment(tmp_path)


def test_a_sharded_sizes_mark_is_its_merge_jobs_conclusion() -> None:
    from benchtrack.gate import pr_comment

    keys = ["ubuntu-latest-1cpu"]
    jobs = [{"name": "gate ubuntu-latest-1cpu shard 1 of 2", "conclusion": "success"},
            {"name": "merge ubuntu-latest-1cpu", "conclusion": "failure"},
            {"name": "gate ubuntu-latest-1cpu shard 2 of 2", "conclusion": "success"}]  # fmt: skip
    assert pr_comment.conclusions(jobs, keys) == {"ubuntu-latest-1cpu": "failure"}
    # unsharded, as before; a merge job decides over a gate job of the same size
    plain = [{"name": "gate ubuntu-latest-1cpu", "conclusion": "success"}]
    assert pr_comment.conclusions(plain, keys) == {keys[0]: "success"}
    both = [{"name": "merge ubuntu-latest-1cpu", "conclusion": "failure"},
            {"name": "gate ubuntu-latest-1cpu", "conclusion": "success"}]  # fmt: skip
    assert pr_comment.conclusions(both, keys) == {keys[0]: "failure"}


def test_the_matrix_has_a_gate_job_a_size_and_shard_with_a_plan(tmp_path) -> None:
    from benchtrack.commands.matrix import gate_jobs
    from benchtrack.machine import runner_sizes

    sizes = runner_sizes.load(Path(__file__).resolve().parents[2] / ".github/bench-runners.toml")
    one = gate_jobs(sizes, 1)
    assert [j["artifact"] for j in one] == [f"gate-{s.key}" for s in sizes]
    assert all(j["shard"] == "" for j in one)
    two = gate_jobs(sizes, 2)
    assert [(j["key"], j["shard"], j["artifact"]) for j in two[:2]] == [
        (sizes[0].key, "1/2", f"shard-{sizes[0].key}-1"),
        (sizes[0].key, "2/2", f"shard-{sizes[0].key}-2"),
    ]
    assert len(two) == 2 * len(sizes)


def test_a_lone_artifact_downloaded_flat_is_read_as_the_size_its_verdict_names(tmp_path):
    # download-artifact writes a lone artifact's files straight into the directory (one runner
    # size): its gate.json names its runner, as the gate wrote it from $BENCHTRACK_RUNNER_*
    (tmp_path / "gate.json").write_text(json.dumps({**verdict(), "runner": "ubuntu-latest-1cpu"}))
    body, sizes = comment.comment(tmp_path)
    assert sizes == 1 and "python/sleep/gather" in body and "1 vCPU" in body, body
    (tmp_path / "gate.json").write_text(json.dumps({**verdict(), "runner": "[x](y)"}))
    with pytest.raises(BadInput, match="runner"):
        comment.comment(tmp_path)


def test_a_shard_of_many_benchmarks_and_rounds_is_read_as_the_gate_wrote_it(tmp_path):
    """The size allowed grows with the benchmarks and rounds a gate.json holds: 1,400 benchmarks
    of 21 rounds, every round kept as the gate writes them (render.write), weigh more than the
    2,000,000 bytes that once bounded every file (a 1,000-benchmark suite's shard of ~1,400 was
    refused: tracker/bench/engine_1000.py), and are read."""
    import numpy as np

    from benchtrack.gate import render
    from benchtrack.gate.config import GateConfig
    from benchtrack.gate.model import Meta, Rounds
    from benchtrack.gate.outcome import analyse

    rng = np.random.default_rng(44)
    data, n, rounds = Rounds(), 1_400, 21
    meta = Meta("calls/s", "bigger", "synth", paired=True)
    for k in range(rounds):
        data.orders.append("base,head" if k % 2 == 0 else "head,base")
        for i in range(n):
            name = f"synth/g{i // 100}/b{i:04d}"
            base = 1e4 * (1 + i / n) * float(rng.lognormal(0, 0.02))
            data.add("base", k, name, [base], meta)
            data.add("head", k, name, [base * float(rng.lognormal(0, 0.02))], meta)
            data.bench_seconds.setdefault(name, []).append(float(rng.uniform(0.05, 0.09)))
    outcome = analyse(data, GateConfig("test"), [rounds])
    sides = {"base": {"ref": "main", "sha": "0" * 40}, "head": {"ref": "HEAD", "sha": ""}}
    outcome.meta = {**sides, "rounds": rounds, "seconds": 600.0, "threshold": 0.05}
    render.write(tmp_path, outcome, outcome.to_dict(data))
    size = (tmp_path / "gate.json").stat().st_size
    assert size > 2_000_000, size
    assert len(comment.load(tmp_path / "gate.json").rows) == n
