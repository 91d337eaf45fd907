"""One build for every shard of a runner size (gate/prebuilt.py): `gate --build-only FILE` in one
clone of a bare origin, `gate --prebuilt FILE` in another, as a build job and a shard job would.

The fixture suite is test_gate_e2e's Perl one, built as make and cargo build: its build copies
bench.pl into the side's cache when the copy there is missing or older than the source (mtimes),
and the suite's command runs that check again before it measures the copy (as the Rust step
worker's `cargo bench --no-run` does). Each compile appends a line to $BUILD_MARKER: a shard
that compiled anything, in its build step or in its workers, would leave it there. A second
suite, `env`, says `build_once = false`: its build (a line in the marker) runs in each job.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest
from test_gate_e2e import CONFIG, bench, commit, gate, git

BUILD = """\
# make-like: bench.pl "compiled" into the side's cache when the copy is missing or older
set -e
out="$GATE_CACHE/bench.pl"
if [ ! -e "$out" ] || [ bench.pl -nt "$out" ]; then
  perl -c bench.pl
  cp bench.pl "$out"
  echo "compiled $GATE_SIDE $(git rev-parse HEAD)" >> "$BUILD_MARKER"
fi
"""

MADE = CONFIG.replace('build = "perl -c bench.pl"', 'build = "bash build.sh"').replace(
    'command = "perl bench.pl', 'command = "bash build.sh && perl $GATE_CACHE/bench.pl'
)
# A suite whose build is made by every job (an environment, as a venv is): never carried. The
# fixture suite's tables, named env, measuring env.pl, its build a line in the marker.
ENV_SUITE = CONFIG[CONFIG.index("[bench.suites.fixture]") :].replace("fixture", "env")
ENV_SUITE = ENV_SUITE.replace("perl/perl.json", "perl/env.json").replace("bench.pl t", "env.pl t")
ENV_SUITE = ENV_SUITE.replace(
    '"perl -c bench.pl"', """'echo "env $GATE_SIDE" >> "$BUILD_MARKER"'"""
)
MADE += "\n" + ENV_SUITE + "build_once = false\n"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory) -> dict[str, Path]:
    """A bare origin (base c1; c2: square twice the work; c3: a comment), the builds of c1..c2
    made in one clone of it (the build job) and a second clone (a shard job's)."""
    tmp = tmp_path_factory.mktemp("prebuilt")
    src = tmp / "src"
    src.mkdir()
    git(src, "init", "-q", "-b", "main")
    files = {"benchtrack.toml": MADE, ".gitignore": "/target/\n", "build.sh": BUILD}
    files["env.pl"] = bench(3000, 1000).replace("perl/fixture/", "perl/env/")
    commit(src, "base", {**files, "bench.pl": bench(3000, 1000)})
    git(src, "tag", "c1")
    commit(src, "square does twice the work", {"bench.pl": bench(6000, 1000)})
    git(src, "tag", "c2")
    commit(src, "a comment", {"bench.pl": "# a comment\n" + bench(6000, 1000)})
    git(src, "tag", "c3")
    origin = tmp / "origin.git"
    git(tmp, "clone", "-q", "--bare", str(src), str(origin))
    builder, shard = tmp / "build-job", tmp / "shard-job"
    for clone in (builder, shard):
        git(tmp, "clone", "-q", str(origin), str(clone))
    builds = tmp / "builds.tar"
    marker = tmp / "build-job.marker"
    code, doc, text = run_gate(builder, marker, "--build-only", str(builds))
    assert code == 0 and doc is None and builds.is_file(), text
    lines = sorted(
        line.split()[0] + " " + line.split()[1] for line in marker.read_text().splitlines()
    )
    assert lines == ["compiled base", "compiled head"], lines  # the env suite: not here
    return {"tmp": tmp, "shard": shard, "builds": builds}


def run_gate(repo: Path, marker: Path, *args: str, head: str = "c2"):
    """test_gate_e2e's gate of c1..`head`, each compile logged to `marker`."""
    os.environ["BUILD_MARKER"] = str(marker)
    try:
        return gate(repo, "--base", "c1", "--head", head, *args)
    finally:
        del os.environ["BUILD_MARKER"]


def test_a_shard_measures_the_build_jobs_builds_without_building(jobs) -> None:
    marker = jobs["tmp"] / "shard-job.marker"
    builds = str(jobs["builds"])
    code, doc, text = run_gate(jobs["shard"], marker, "--prebuilt", builds, "--minutes", "10")
    # nothing compiled: not by the build step (not started) nor by the command's own check,
    # which a fresh clone's newer sources would have set off without the sources' stamped time;
    # the env suite (build_once = false) built here, on both sides
    assert sorted(marker.read_text().splitlines()) == ["env base", "env head"], text
    assert code == 1 and doc, text  # the verdict a normal run gives (test_gate_e2e)
    verdicts = {b["name"]: b["verdict"] for b in doc["benchmarks"]}
    assert verdicts["perl/fixture/square"] == "regressed", text
    assert verdicts["perl/fixture/cube"] != "regressed", text
    assert verdicts["perl/env/square"] != "regressed", text
    pre = doc["prebuilt"]
    assert pre["built_here"] == ["env"], pre
    assert pre["file"] == "builds.tar" and doc["build_seconds"] < 1.0, pre
    # the budget is the PR's wait: the build job's seconds are taken from it
    assert pre["budget_seconds"] == round(600 - pre["build_seconds"], 1), pre


def test_builds_of_another_head_are_refused_before_anything_is_written(jobs) -> None:
    shard, marker = jobs["shard"], jobs["tmp"] / "refused.marker"
    code, doc, text = run_gate(shard, marker, "--prebuilt", str(jobs["builds"]), head="c3")
    c3 = git(shard, "rev-parse", "c3")
    assert code == 2 and doc is None, text
    assert "build.json: head.sha: expected " + c3 in " ".join(text.split()), text
    assert not (shard / "target" / "gate" / "worktrees" / "head").exists()
    assert not marker.exists()
    # the right commits under another benchtrack.toml (here an uncommitted edit of it)
    config = shard / "benchtrack.toml"
    text = config.read_text()
    config.write_text(text + "# edited\n")
    try:
        code, doc, out = run_gate(shard, marker, "--prebuilt", str(jobs["builds"]))
    finally:
        config.write_text(text)
    assert code == 2 and doc is None and "build.json: config_sha256: expected" in out, out


def test_a_side_handed_the_other_sides_build_is_refused(jobs) -> None:
    # The same manifest, base's and head's caches swapped: each side's digest is not its own.
    swapped = jobs["tmp"] / "swapped.tar"
    with tarfile.open(jobs["builds"]) as src, tarfile.open(swapped, "w") as out:
        for member in src:
            data = src.extractfile(member) if member.isfile() else None
            parts = member.name.split("/")
            if parts[0] == "cache" and len(parts) > 1:
                parts[1] = {"base": "head", "head": "base"}[parts[1]]
                member.name = "/".join(parts)
            out.addfile(member, data)
    shard, marker = jobs["shard"], jobs["tmp"] / "swapped.marker"
    code, doc, text = run_gate(shard, marker, "--prebuilt", str(swapped))
    assert code == 3 and doc is None, text
    assert "the base cache restored has digest" in " ".join(text.split()), text
    assert "nothing measured" in text and not marker.exists()
    # a file that is no builds file: bad input naming it
    bogus = jobs["tmp"] / "bogus.tar"
    bogus.write_text("not a tar")
    code, doc, text = run_gate(shard, marker, "--prebuilt", str(bogus))
    assert code == 2 and doc is None and "bogus.tar" in text, text


def test_a_truncated_builds_file_is_refused_and_the_caches_left_alone(jobs) -> None:
    """Cut inside its last cache file (an upload that stopped): its manifest still reads, its
    end does not. Refused as bad input naming the file before any cache is replaced."""
    whole = jobs["builds"].read_bytes()
    shard, marker = jobs["shard"], jobs["tmp"] / "truncated.marker"
    cache = shard / "target" / "gate" / "cache"
    kept = cache / "base" / "kept.txt"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("a cache from an earlier gate")
    with tarfile.open(jobs["builds"]) as tar:
        last = [m for m in tar if m.isfile()][-1]
    for cut in (last.offset_data + last.size - 10, last.offset_data):
        truncated = jobs["tmp"] / "truncated.tar"
        truncated.write_bytes(whole[:cut])
        code, doc, text = run_gate(shard, marker, "--prebuilt", str(truncated))
        assert code == 2 and doc is None, text
        assert "truncated.tar: expected a whole builds file" in " ".join(text.split()), text
        assert kept.read_text() == "a cache from an earlier gate" and not marker.exists()
    kept.unlink()


def test_the_build_job_refuses_a_builds_path_it_cannot_write(jobs) -> None:
    code, doc, text = run_gate(jobs["shard"], jobs["tmp"] / "m", "--build-only", str(jobs["tmp"]))
    assert code == 2 and doc is None and "--build-only" in text, text
