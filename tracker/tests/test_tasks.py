"""The cargo-make tasks as a user meets them: the tasks a user may run first bring up what they
need, bare `cargo make` is a one-line-a-task menu, arguments work with and without `--`, and no
build output is tracked by git."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The tasks a user may call first (README, quick start and tasks table).
USER_FACING = [
    "bench-local",
    "bench-rust",
    "bench-python",
    "bench-perl",
    "gate",
    "site",
    "test",
    "lint",
    "record-aa",
    "evaluate",
]
# The one way a task drops the `--` that `cargo make TASK -- ARGS` hands on to it.
IDIOM = 'if [ "${1-}" = "--" ]; then shift; fi'
ARGS = re.compile(r'"\$\{?@\}?"')  # "$@" or "${@}"
HANDED_TO_SCRIPT = re.compile(r'\bbash (scripts/[\w.-]+\.sh) "\$\{?@\}?"')

needs_cargo_make = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo-make")


def load_tasks() -> dict[str, dict]:
    """Every task of Makefile.toml and the tasks.toml files it extends; a name defined twice
    (one silently overriding the other) is an error."""
    root = tomllib.loads((REPO / "Makefile.toml").read_text())
    files = [REPO / "Makefile.toml"] + [REPO / e["path"] for e in root.get("extend", [])]
    tasks: dict[str, dict] = {}
    for path in files:
        for name, task in tomllib.loads(path.read_text()).get("tasks", {}).items():
            assert name not in tasks, f"{path.relative_to(REPO)}: task {name} is defined twice"
            tasks[name] = task
    return tasks


def dependency_order(tasks: dict[str, dict], name: str) -> list[str]:
    """The tasks cargo-make runs before `name`, in order (depth first, as it runs them)."""
    order: list[str] = []
    for dep in tasks[name].get("dependencies", []):
        dep = dep if isinstance(dep, str) else dep["name"]
        order += [*dependency_order(tasks, dep), dep]
    return order


def cargo_make(*args: str) -> subprocess.CompletedProcess[str]:
    # As from a user's shell: an outer `cargo make test` leaves CARGO_MAKE_* variables that make
    # the inner cargo-make log as a nested flow ("[cargo-make][1] INFO ...").
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARGO_MAKE")}
    env.update(NO_COLOR="1", COLUMNS="100")
    return subprocess.run(
        ["cargo", "make", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
        env=env,
        check=False,
    )


def without_trace(text: str) -> str:
    """Stderr without the shell's command trace: with CI=true cargo-make runs scripts at verbose
    level, which traces each command (`+ shift`), and a dropped `--` is one more command."""
    return "\n".join(line for line in without_log(text).splitlines() if not line.startswith("+"))


def without_log(text: str) -> str:
    """The task's own output: cargo-make's log lines (on stdout, at any log level that shows the
    task's output at all) removed, also where one follows output that had no final newline."""
    kept = []
    for line in text.splitlines():
        parts = LOG.split(line, 1)
        if parts[0] or len(parts) == 1:
            kept.append(parts[0])
    return "\n".join(kept)


LOG = re.compile(r"\[cargo-make\](?:\[\d+\])? ")  # nested flows log "[cargo-make][1] "


def test_every_task_has_a_description() -> None:
    tasks = load_tasks()
    missing = [name for name, task in tasks.items() if not task.get("description", "").strip()]
    assert missing == []


@pytest.mark.parametrize("name", USER_FACING)
def test_a_task_a_user_may_run_first_brings_up_setup_before_its_work(name: str) -> None:
    tasks = load_tasks()
    order = dependency_order(tasks, name)
    assert order, f"{name} has no dependencies: on a fresh clone its tools may be missing"
    first = order[0]
    assert first == "setup" or first.startswith("setup-"), (
        f"{name} runs {order} before its own work: a setup task must come first"
    )
    assert tasks[first]["command"] == "bash" and tasks[first]["args"][0] == "scripts/setup.sh"


def takes_arguments(task: dict) -> bool:
    return any(ARGS.search(a) for a in task.get("args", [])) or bool(
        ARGS.search(task.get("script", ""))
    )


def test_every_task_taking_arguments_drops_a_leading_double_dash_one_way() -> None:
    taking = {n: t for n, t in load_tasks().items() if takes_arguments(t)}
    assert {"bench-local", "gate", "bench-perl-raw", "bench-python-raw"} <= set(taking)
    for name, task in taking.items():
        if "script" in task:
            where, text = f"its script in {name}", task["script"]
            handed_on = HANDED_TO_SCRIPT.search(text)  # `exec bash scripts/X.sh "$@"`
            if handed_on and IDIOM not in text:
                where = handed_on.group(1)
                text = (REPO / where).read_text()
        else:
            # A command handing ${@} to a program that is not a script of ours, or to one
            # without the idiom, passes `--` on as an argument.
            assert task.get("command") == "bash", f"{name} hands ${{@}} to {task.get('command')}"
            where = task["args"][0]
            text = (REPO / where).read_text()
        assert IDIOM in text, f"{name}: {where} does not drop the leading --"
        assert not ARGS.search(text.split(IDIOM, 1)[0]), (
            f"{name}: {where} uses its arguments before dropping the leading --"
        )


@needs_cargo_make
@pytest.mark.parametrize(
    ("task", "args", "expect"),
    [
        ("evaluate", ["--help"], "usage: benchtrack evaluate"),
        ("bench-local", ["--help"], "usage: benchtrack bench-local"),
        ("gate", ["--help"], "usage: benchtrack gate"),
        ("gate-selftest", ["--help"], "usage: benchtrack gate-selftest"),
        ("record-aa", ["--help"], "usage: benchtrack record-aa"),
        ("site", ["--help"], "usage: benchtrack site"),
        ("bench-tracker", ["--help"], "--commits"),
        ("bench-python-raw", ["--help"], "Usage: run.py [FILTER]"),
        # Getopt takes every word after a `--` as a filter: --list must still be the option.
        ("bench-perl-raw", ["--list", "rss"], "perl/rss/"),
    ],
)
def test_arguments_work_with_and_without_double_dash(task: str, args: list[str], expect: str):
    dashed, plain = cargo_make(task, "--", *args), cargo_make(task, *args)
    assert dashed.returncode == 0, dashed.stdout + dashed.stderr
    assert plain.returncode == 0, plain.stdout + plain.stderr
    out = without_log(dashed.stdout)
    assert expect in out
    assert out == without_log(plain.stdout)
    assert without_trace(dashed.stderr) == without_trace(plain.stderr)


@needs_cargo_make
def test_bare_cargo_make_prints_the_menu_one_line_a_task_in_non_empty_groups() -> None:
    # Bare, as a user types it: `--loglevel error` would hide the menu with every task's output
    # (cargo-make treats that level as silent).
    done = cargo_make()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = without_log(done.stdout).splitlines()
    assert lines[0].startswith("benchtrack tasks:")
    tasks = load_tasks()
    listed: dict[str, str] = {}
    group, group_size = None, 0
    for line in lines[1:]:
        if not line.strip():
            continue
        if line.startswith("  "):  # a task: two spaces, its name, its description
            name, description = line.split(None, 1)
            assert name not in listed, f"{name} listed twice"
            listed[name] = description
            group_size += 1
        else:  # a group header
            assert group is None or group_size > 0, f"group {group!r} lists no task"
            group, group_size = line, 0
    assert group_size > 0, f"group {group!r} lists no task"
    assert set(listed) == set(tasks) - {"default"}  # the menu itself is what bare runs
    for name in USER_FACING:
        assert listed[name] == tasks[name]["description"]


def test_no_tracked_file_lies_under_a_target_directory() -> None:
    done = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, text=True, check=True
    )
    tracked = [p for p in done.stdout.split("\0") if "target" in p.split("/")[:-1]]
    assert tracked == [], "build output is tracked; `git rm --cached` it"
    # and .gitignore keeps a crate's own target/ out (cargo test runs benches in the crate's dir)
    probe = "rust/patterns/target/criterion/meta/walk.json"
    assert subprocess.run(["git", "-C", str(REPO), "check-ignore", "-q", probe]).returncode == 0
