"""The diagnosis in the PR comment: a PR's gate.json read back as untrusted data
(gate/diagnose/check.py), every name from the PR's run inert, anything off refused naming its
field (exit 2)."""

from __future__ import annotations

import json

import pytest
from test_comment_inert import live
from test_gate_comment import verdict, write

from benchtrack.cli import main
from benchtrack.errors import BadInput
from benchtrack.gate import comment as gate_comment
from benchtrack.gate import shards

WAITING = {
    "status": "ok",
    "loss": 1.75,
    "kinds": [
        {"kind": "waiting", "share": 0.95, "off_cpu": 0.0042, "voluntary": 1.0,
         "syscalls": [{"name": "clock_nanosleep", "base": 0.0, "head": 1.0}]},
        {"kind": "work", "share": None, "instructions": 0.125,
         "functions": [{"function": "sigma", "share": 0.25}]},
    ],
    "sides": {"base": {"wall": 0.001}, "head": {"wall": 0.0052}},
}  # fmt: skip


def comment(tmp_path, diagnosis) -> str:
    data = verdict()
    data["benchmarks"][0]["diagnosis"] = diagnosis
    write(tmp_path, "ubuntu-latest-2cpu", data)
    body, sizes = gate_comment.comment(tmp_path)
    assert sizes == 1
    return body


def test_the_comment_says_why_under_the_regressions(tmp_path):
    body = comment(tmp_path, WAITING)
    why = body.index("### Why it is slower")
    assert body.index("### Regressed") < why
    line = body[why:].splitlines()[2]
    assert line == (
        "- `python/sleep/gather` (2 vCPU): **waiting**: off-CPU time +4.2 ms a call, voluntary "
        "context switches +1 a call (+1 `clock_nanosleep` a call) (95% of this run's wall time "
        "a call +175.0%); more work: instructions +12.5%, in `sigma` (+25.0%)"
    )


def test_no_diagnosis_no_section(tmp_path):
    write(tmp_path, "ubuntu-latest-2cpu", verdict())
    body, _ = gate_comment.comment(tmp_path)
    assert "Why it is slower" not in body


def test_a_failed_or_skipped_diagnosis_says_so(tmp_path):
    body = comment(tmp_path, {"status": "failed", "reason": "the head side's worker timed out"})
    assert "(2 vCPU): diagnosis failed: `the head side's worker timed out`" in body
    body = comment(tmp_path / "b", {"status": "not run", "reason": "budget"})
    assert "(2 vCPU): diagnosis not run: `budget`" in body


def test_names_from_the_prs_run_are_inert(tmp_path):
    """A syscall, a function and a reason of the PR's choosing: no link, mention, HTML, table
    cell or hidden text gets out of its code span."""
    nasty = "x`</code><img src=x>|@org/team [a](https://evil)\u202e\n# Approve"
    diagnosis = json.loads(json.dumps(WAITING))
    diagnosis["kinds"][0]["syscalls"][0]["name"] = nasty
    diagnosis["kinds"][1]["functions"][0]["function"] = nasty
    body = comment(tmp_path, diagnosis)
    line = body[body.index("### Why it is slower") :].splitlines()[2]
    span = "``x`</code><img src=x>``\\|`@org/team [a](https://evil)\\u202e\\u000a# Approve`"
    assert span in line, line  # the function's: each `|` between spans, escaped
    assert "(+1 ``x`</code><img src=x>``\\|`@org/team [a](http…` a call)" in line  # cut at 40
    assert "\u202e" not in body and "\n# Approve" not in body and live(body) == []
    body = comment(tmp_path / "b", {"status": "failed", "reason": nasty})
    assert f"diagnosis failed: {span}" in body


PROFILE = {"status": "ok", "file": "wall-profiles/python_sleep_gather.txt",
           "data": "wall-profiles/python_sleep_gather.json",
           "top": [{"thread": "napper_N", "frame": "nap (worker.py)", "wall": 0.004,
                    "cpu": 0.0004}]}  # fmt: skip


def test_the_line_names_the_profile_diff_in_the_sizes_artifact(tmp_path):
    body = comment(tmp_path, {**WAITING, "profile": PROFILE})
    line = body[body.index("### Why it is slower") :].splitlines()[2]
    assert line.endswith(
        "; wall-time profile diff: `wall-profiles/python_sleep_gather.txt` in the "
        "`gate-ubuntu-latest-2cpu` artifact (most gained: `nap (worker.py)` in `napper_N`, "
        "+4 ms a call, 90% of it off-CPU)"
    ), line
    body = comment(tmp_path / "b", {**WAITING, "profile": {"status": "not run",
                                                           "reason": "no Python"}})  # fmt: skip
    assert "; no wall-time profile: `no Python`" in body
    body = comment(tmp_path / "c", {**WAITING, "profile": {"status": "failed", "reason": "x"}})
    assert "; wall-time profile failed: `x`" in body


def test_a_profiles_frame_and_thread_from_the_prs_run_are_inert(tmp_path):
    nasty = "x`</code><img src=x>|@org/team [a](https://evil)\u202e\n# Approve"
    top = [{"thread": nasty, "frame": nasty, "wall": 0.004, "cpu": 0.0}]
    body = comment(tmp_path, {**WAITING, "profile": {**PROFILE, "top": top}})
    line = body[body.index("### Why it is slower") :].splitlines()[2]
    assert (
        "most gained: ``x`</code><img src=x>``\\|`@org/team [a](https://evil)\\u202e\\u000a# Ap"
        in line
    )
    assert "\u202e" not in body and "\n# Approve" not in body


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"status": "fine"}, "benchmarks[0].diagnosis.status"),
        ({"loss": True}, "benchmarks[0].diagnosis.loss"),
        ({"loss": "1e999"}, "benchmarks[0].diagnosis.loss"),
        ({"kinds": [{"kind": "gremlins"}]}, r"benchmarks[0].diagnosis.kinds[0].kind"),
        ({"kinds": [{"kind": "waiting", "voluntary": 1.0}]}, "kinds[0].off_cpu"),
        ({"kinds": [{"kind": "parallelism", "base_threads": 2.0}]}, "kinds[0].head_threads"),
        ({"kinds": [{"kind": "work", "share": True}]}, "kinds[0].share"),
        ({"kinds": [{"kind": "memory", "base_busy": -1}]}, "kinds[0].base_busy"),
        ({"kinds": [{"kind": "syscalls", "syscalls": [{"name": 7, "base": 0, "head": 1}]}]},
         "kinds[0].syscalls[0].name"),
        ({"kinds": [{"kind": "syscalls", "syscalls": [{"name": "a", "base": 0, "head": 1}] * 4}]},
         "kinds[0].syscalls"),
        ({"kinds": [{"kind": "work", "functions": [{"function": "f" * 1001, "share": 0.1}]}]},
         "kinds[0].functions[0].function"),
        ({"kinds": [{"kind": "work"}] * 6}, "benchmarks[0].diagnosis.kinds"),
        ({"profile": {**PROFILE, "file": "../../etc/passwd"}}, "diagnosis.profile.file"),
        ({"profile": {**PROFILE, "data": "wall-profiles/[a](https://x).json"}},
         "diagnosis.profile.data"),
        ({"profile": {**PROFILE, "status": "great"}}, "diagnosis.profile.status"),
        ({"profile": {**PROFILE, "top": PROFILE["top"] * 4}}, "diagnosis.profile.top"),
        ({"profile": {**PROFILE, "top": [{**PROFILE["top"][0], "wall": "1"}]}},
         "diagnosis.profile.top[0].wall"),
        ({"profile": ["x"]}, "diagnosis.profile"),
    ],
)  # fmt: skip
def test_a_diagnosis_off_its_shape_is_refused_naming_the_field(tmp_path, change, field):
    diagnosis = {**WAITING, **change}
    data = verdict()
    data["benchmarks"][0]["diagnosis"] = diagnosis
    path = write(tmp_path, "ubuntu-latest-2cpu", data)
    with pytest.raises(BadInput, match=field.replace("[", r"\[").replace("]", r"\]")):
        gate_comment.load(path)
    out = tmp_path / "c.md"
    assert main(["gate-comment", "--artifacts", str(tmp_path), "--out", str(out)]) == 2
    assert not out.exists()


def test_a_reason_that_is_not_text_is_refused(tmp_path):
    data = verdict()
    data["benchmarks"][0]["diagnosis"] = {"status": "failed", "reason": ["x"]}
    with pytest.raises(BadInput, match=r"diagnosis\.reason"):
        gate_comment.load(write(tmp_path, "ubuntu-latest-2cpu", data))


def test_gate_merge_keeps_each_shards_diagnoses_on_their_rows(tmp_path):
    plan = tmp_path / "plan.json"
    shards.write_plan(plan, 2, {"python/sleep/gather": 1.0, "python/sleep/other": 1.0})
    paths = []
    for k, name in ((1, "python/sleep/gather"), (2, "python/sleep/other")):
        data = verdict(**{"benchmarks.0.name": name})
        data["shard"] = {"index": k, "of": 2, "benchmarks": [name]}
        data["benchmarks"][0]["diagnosis"] = (
            WAITING if k == 1 else {"status": "not run", "reason": "budget"}
        )
        paths.append(str(write(tmp_path, f"shard{k}", data)))
    out = tmp_path / "merged"
    assert main(["gate-merge", "--plan", str(plan), "--out", str(out), *paths]) == 1
    doc = json.loads((out / "gate.json").read_text())
    got = {r["name"]: r["diagnosis"]["status"] for r in doc["benchmarks"]}
    assert got == {"python/sleep/gather": "ok", "python/sleep/other": "not run"}
    assert "diagnosis" not in doc  # only on the rows
    md = (out / "gate.md").read_text()
    assert "- `python/sleep/gather`: **waiting**: off-CPU time +4.2 ms a call" in md
    assert "- `python/sleep/other`: diagnosis not run: `budget`" in md
