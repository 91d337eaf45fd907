"""The git-branch store against real bare repositories made here: orphan creation, 8 racing
publishers, and a remote that refuses every push."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

from benchtrack.cli import main
from benchtrack.history import format as fmt
from benchtrack.history import open_store
from benchtrack.lab import synthetic


def bare_repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def branch_file(repo: Path, branch: str, file: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"{branch}:{file}"], capture_output=True, check=True
    ).stdout


def tip(repo: Path, branch: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "-q", "--verify", f"refs/heads/{branch}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


write_run = partial(synthetic.dump_run, benches=12)


def test_first_append_creates_the_branch_as_an_orphan(tmp_path, capsys):
    remote = bare_repo(tmp_path / "remote.git")
    spec = f"git:{remote}#gh-pages"
    assert main(["validate-history", spec]) == 0
    assert "does not exist yet" in capsys.readouterr().out
    assert main(["append", spec, *write_run(tmp_path, 0, 2)]) == 0
    log = subprocess.run(
        ["git", "-C", str(remote), "log", "--format=%P", "gh-pages"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert log[0] == ""  # one commit, no parent: an orphan branch
    files = subprocess.run(
        ["git", "-C", str(remote), "ls-tree", "-r", "--name-only", "gh-pages"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert files == ["bench/ubuntu-latest-2cpu/data.js"]
    fmt.parse(branch_file(remote, "gh-pages", files[0]), files[0])
    history = open_store(spec).read()
    assert history.runners["ubuntu-latest-2cpu"].commits[0].id == synthetic.commit(0).id
    assert main(["validate-history", spec]) == 0


def test_eight_racing_publishers_lose_nothing_and_duplicate_nothing(tmp_path):
    remote = bare_repo(tmp_path / "remote.git")
    spec = f"git:{remote}#gh-pages"
    # Six distinct (commit, runner size) runs, two of them published twice: eight processes.
    jobs = [(0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2), (1, 1), (2, 2)]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchtrack.cli",
                "append",
                spec,
                "--backoff",
                "0.05",
                "--attempts",
                "30",
                *write_run(tmp_path, index, cpus),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index, cpus in jobs
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, results
    history = open_store(spec).read()
    for cpus in (1, 2):
        runner = history.runners[f"ubuntu-latest-{cpus}cpu"]
        for name, count in runner.entries.items():
            assert count == 3, name
        ids = sorted(c.id for c in runner.commits)
        assert ids == sorted(synthetic.commit(i).id for i in range(3))
        for series in runner.series.values():
            assert len(series) == 3  # every point once
    outs = "".join(out for out, _ in results)
    assert outs.count("already recorded") == 2  # the two repeats (12 benches: no smaller ones)
    assert main(["validate-history", spec]) == 0


def test_a_remote_that_refuses_every_push_is_a_clear_error(tmp_path, capsys):
    remote = bare_repo(tmp_path / "remote.git")
    spec = f"git:{remote}#gh-pages"
    assert main(["append", spec, *write_run(tmp_path, 0, 2)]) == 0
    before = tip(remote, "gh-pages")
    hook = remote / "hooks/pre-receive"
    hook.write_text("#!/bin/sh\necho 'pushes are closed' >&2\nexit 1\n")
    hook.chmod(0o755)
    capsys.readouterr()
    run = write_run(tmp_path, 1, 2)
    originals = [Path(p).read_bytes() for p in run]
    assert main(["append", spec, "--backoff", "0.01", *run]) == 2
    err = capsys.readouterr().err
    assert f"{spec}: the remote did not accept the history" in err
    assert "pushes are closed" in err
    assert "nothing was lost" in err
    assert "Traceback" not in err
    assert tip(remote, "gh-pages") == before
    assert [Path(p).read_bytes() for p in run] == originals


def test_an_unreachable_remote_is_bad_input(tmp_path, capsys):
    spec = f"git:{tmp_path / 'nowhere.git'}#gh-pages"
    assert main(["validate-history", spec]) == 2
    assert "expected a reachable git remote" in capsys.readouterr().err
