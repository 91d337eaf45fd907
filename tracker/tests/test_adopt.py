"""Adoption: `benchtrack init`, the composite action (action.yml) and docs/adopting.md's example.

The example repository is a Go module with one benchmark of its own, made in tmp_path. `init`
writes its two files; the docs must show exactly them. Then the workflow runs as GitHub would run
it on a push to main: the bench job's checkout is a clone of a local bare `origin`, and the action
step runs action.yml's `run:` steps (those whose `if:` holds for the mode) with bash, the inputs
and the environment GitHub gives a composite action (GITHUB_ACTION_PATH is this repository). The
benchmark's results must then be on origin's gh-pages, in data.js, with the dashboard.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
import yaml
from test_workflows_local import git, run  # the same runner: a step's env, no VIRTUAL_ENV

from benchtrack.gate import config as gate_config
from benchtrack.gate.decide import levels

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs/adopting.md"
ACTION = "OWNER/benchtrack@COMMIT"  # as the docs' example writes it
# Where a test runs init's Go suite whole (`go test -bench . -count 5`): a thousand calls a run
# rather than a second of them; the command stays the one init wrote.
SHORT_GO_RUNS = "-benchtime=1000x"  # GOFLAGS
BENCH_GO = """\
package sum

import "testing"

func BenchmarkSum(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\t_ = i
\t}
}
"""


def benchtrack(cwd: Path, *args: str, check: bool = True):
    uv = ("uv", "run", "--frozen", "--project", str(REPO))
    return run(cwd, *uv, "benchtrack", *args, check=check)


def one_stage(config: str, rounds: int, looks: str) -> str:
    """init's benchtrack.toml with a short one-stage gate, a test's own choice: the screening's
    `rounds` and `looks` (e.g. "[4]") replaced and the second stage, `[gate.confirm]`, left out."""
    config, m = re.subn(r"(?m)\n(# [^\n]*\n)*\[gate\.confirm\]\n(\w+ = [^\n]*\n)*", "", config)
    config, n = re.subn(
        r"(?m)^rounds = \d+\nlooks = \[[\d, ]*\]$", f"rounds = {rounds}\nlooks = {looks}", config
    )
    assert n == 1 and m == 1, config
    return config


def example_repo(path: Path) -> Path:
    """The docs' example: a Go module with one benchmark, committed."""
    path.mkdir(parents=True)
    (path / "go.mod").write_text("module example.com/sum\n\ngo 1.21\n")
    (path / "sum.go").write_text("package sum\n")
    (path / "sum_test.go").write_text(BENCH_GO)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "dev")
    git(path, "config", "user.email", "dev@example.com")
    return path


def dry_run(repo: Path) -> dict[str, str]:
    """`init --dry-run`'s files by path."""
    out = benchtrack(repo, "init", "--dry-run", "--action", ACTION).stdout
    parts = re.split(r"^# --- (\S+)\n", out, flags=re.MULTILINE)
    assert parts[0] == ""
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def doc_block(lang: str) -> str:
    """Section 1's one block of `lang` (the files init writes; later sections show others)."""
    first = DOC.read_text().split("\n## 2.", 1)[0]
    blocks = re.findall(rf"^```{lang}\n(.*?)^```$", first, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"one ```{lang} block in {DOC.name}"
    return blocks[0]


def test_docs_example_is_what_init_writes(tmp_path):
    files = dry_run(example_repo(tmp_path / "ex"))
    assert doc_block("toml") == files["benchtrack.toml"]
    assert doc_block("yaml") == files[".github/workflows/benchtrack.yml"]
    assert len(doc_block("yaml").splitlines()) <= 26


def test_inits_gate_has_the_second_stage_that_decides_what_the_screening_left_open(tmp_path):
    """A PR that changes nothing must end with its benchmarks decided, not "could not be told
    apart" after the first look (issue 44): init's [gate] is the two-stage gate, a screening of
    one look and a [gate.confirm] that measures the open benchmarks on (tracker/GATE.md, step 5).
    A go-runewidth trial with the one-stage gate init wrote before left 28 of 28 open after 5
    rounds, 4.4 of its 15 minutes (docs/adopting.md, section 5)."""
    files = dry_run(example_repo(tmp_path / "ex"))
    cfg = gate_config.parse(tomllib.loads(files["benchtrack.toml"]), "benchtrack.toml")
    assert cfg.confirm is not None
    assert cfg.look_schedule() == [5]  # the screening: one look, every benchmark measured
    assert cfg.confirm.look_schedule() == [16] and cfg.confirm.most == 24  # this repository's
    assert cfg.minutes == 15
    # the equivalence test's level is split over both stages' looks: the screening's own test
    # and the pooled one (1 screening look x (1 + 1)), a fifth of β to the first
    assert levels(cfg, cfg.look_schedule()) == pytest.approx((0.05 * 0.2, 0.05 * 0.8))


def test_generated_workflow_passes_actionlint(tmp_path):
    actionlint = shutil.which("actionlint") or str(Path.home() / "go/bin/actionlint")
    if not Path(actionlint).is_file():
        pytest.skip("actionlint is installed by `cargo make setup`")
    repo = example_repo(tmp_path / "ex")
    benchtrack(repo, "init", "--action", ACTION)
    done = run(repo, actionlint, "-no-color", ".github/workflows/benchtrack.yml", check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_action_is_a_composite_action_of_benchtrack_commands():
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {
        *("mode", "runner-label", "profile", "github-token", "config", "gh-pages-branch"),
        *("working-directory", "shard", "shard-plan", "shard-verdicts", "builds"),
    }
    steps = action["runs"]["steps"]
    assert all("shell" in s for s in steps if "run" in s)
    install, *rest = steps
    assert "scripts/setup.sh" in install["run"]
    for step in rest:
        # one command a step, the tracker from the action's own locked checkout (the publish
        # step's command is given the token's auth header in its environment alone)
        command = " ".join(step["run"].split())
        command = re.sub(r'^GIT_CONFIG_VALUE_1="[^"]*\$\([^)]*\)" ', "", command)
        prefix = 'uv run --frozen --project "$GITHUB_ACTION_PATH" benchtrack '
        assert command.startswith(prefix) and "&&" not in command and ";" not in command, command


def test_init_refuses_to_overwrite_and_checks_what_it_is_given(tmp_path):
    repo = example_repo(tmp_path / "ex")
    (repo / "benchtrack.toml").write_text("# mine\n")
    done = benchtrack(repo, "init", "--action", ACTION, check=False)
    assert done.returncode == 2
    assert "benchtrack.toml" in done.stderr and "--force" in done.stderr
    assert (repo / "benchtrack.toml").read_text() == "# mine\n"
    assert not (repo / ".github").exists()  # nothing written
    done = benchtrack(repo, "init", "--action", "not-an-action", "--force", check=False)
    assert (done.returncode, "--action" in done.stderr) == (2, True)
    done = benchtrack(repo, "init", "--action", ACTION, "--suite", "x", check=False)
    assert (done.returncode, "--adapter" in done.stderr) == (2, True)
    declared = [
        *("init", "--action", ACTION, "--force", "--suite", "mine", "--adapter"),
        *("customBiggerIsBetter", "--command", "sh bench.sh > out.json", "--raw", "out.json"),
    ]
    benchtrack(repo, *declared)
    text = (repo / "benchtrack.toml").read_text()
    assert '[bench.suites.mine]\ncommand = "sh bench.sh > out.json"\n' in text
    assert 'adapter = "customBiggerIsBetter"\nraw = "out.json"\n' in text


def test_init_finds_no_suite_in_an_empty_repository(tmp_path):
    done = benchtrack(tmp_path, "init", "--action", ACTION, check=False)
    assert done.returncode == 2 and "--suite NAME" in done.stderr
    assert list(tmp_path.iterdir()) == []


def status(repo: Path) -> list[str]:
    """`git status --porcelain`: what git would show the user as changed or untracked."""
    return git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()


@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go")
def test_init_ignores_what_bench_local_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("GOFLAGS", SHORT_GO_RUNS)
    repo = example_repo(tmp_path / "ex")
    done = benchtrack(repo, "init", "--action", ACTION)
    assert "wrote .gitignore: .bench/, target/" in done.stdout
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "track the benchmarks with benchtrack")
    benchtrack(repo, "bench-local")
    assert (repo / ".bench/history").is_dir() and (repo / "target/bench/results").is_dir()
    assert status(repo) == []


def test_init_extends_an_existing_gitignore_keeping_every_line(tmp_path):
    repo = example_repo(tmp_path / "ex")
    # CRLF line ends, no newline at the end, /target anchored: target/ is there already
    mine = b"# mine\r\n/target\r\n*.log\r\n!keep.log"
    (repo / ".gitignore").write_bytes(mine)
    done = benchtrack(repo, "init", "--action", ACTION)
    assert "extended .gitignore: .bench/\n" in done.stdout
    text = (repo / ".gitignore").read_bytes()
    assert text.startswith(mine + b"\r\n")
    added = text[len(mine) + 2 :].decode().split("\r\n")
    assert added[0].startswith("# benchtrack") and added[1:] == [".bench/", ""]
    # again, with --force: the two files replaced, .gitignore already has all it needs
    done = benchtrack(repo, "init", "--action", ACTION, "--force")
    assert ".gitignore" not in done.stdout
    assert (repo / ".gitignore").read_bytes() == text


def test_init_dry_run_leaves_gitignore_and_a_refusal_writes_none(tmp_path):
    repo = example_repo(tmp_path / "ex")
    assert dry_run(repo)[".gitignore"].splitlines()[1:] == [".bench/", "target/"]
    assert not (repo / ".gitignore").exists()
    (repo / "benchtrack.toml").write_text("# mine\n")
    assert benchtrack(repo, "init", "--action", ACTION, check=False).returncode == 2
    assert not (repo / ".gitignore").exists()


def test_init_ignores_what_a_pytest_suite_writes(tmp_path):
    """pytest compiles the test modules into __pycache__/ beside them (uv's .venv/ and pytest's
    .pytest_cache/ carry their own .gitignore). Also where bench-local runs init's pytest suite
    (test_adopt_lockstep gates this python_repo)."""
    from test_adopt_lockstep import python_repo  # a uv project, two tests (it imports this file)

    repo = tmp_path / "py"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    python_repo(repo)
    benchtrack(repo, "init", "--action", ACTION)
    assert (repo / ".gitignore").read_text().splitlines()[1:] == [
        *(".bench/", "target/", "__pycache__/")
    ]
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=dev", "-c", "user.email=dev@example.com", "commit", "-qm", "bt")
    # PYTHONDONTWRITEBYTECODE and PYTHONPYCACHEPREFIX empty (scripts/test-all.sh sets the
    # prefix): Python writes bytecode beside the modules, as on most machines
    bench = ("uv", "run", "--frozen", "--project", str(REPO), "benchtrack", "bench-local")
    run(repo, *bench, env={"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": ""})
    assert list(repo.glob("tests/__pycache__/*.pyc"))
    assert status(repo) == []


def _expand(text: str, inputs: dict[str, str], event: dict[str, str]) -> str:
    """The `${{ … }}` expressions action.yml uses, as GitHub fills them in."""

    def value(m: re.Match[str]) -> str:
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        if expr == "github.server_url":
            return "https://github.com"
        return event[expr]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def _holds(condition: str | None, inputs: dict[str, str]) -> bool:
    """The `if:`s of action.yml (the mode and !cancelled()): nothing here is cancelled."""
    if condition is None:
        return True
    expr = condition.strip().removeprefix("${{").removesuffix("}}").strip()
    expr = expr.replace("!cancelled() && ", "")
    holds = True
    for part in expr.split(" && "):
        m = re.fullmatch(r"inputs\.mode (==|!=) '(\w+)'", part)
        assert m, f"an if: this test cannot read: {condition}"
        holds &= (inputs["mode"] == m.group(2)) == (m.group(1) == "==")
    return holds


def run_action(checkout: Path, with_: dict, tmp: Path, event: dict[str, str], check: bool = True):
    """action.yml's steps for these inputs; the last one's process (`check` applies to it)."""
    action = yaml.safe_load((REPO / "action.yml").read_text())
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update({k: str(v) for k, v in with_.items()})
    summary = tmp / "summary.md"
    summary.write_text("")
    steps = [s for s in action["runs"]["steps"] if _holds(s.get("if"), inputs)]
    done = None
    for i, step in enumerate(steps):
        env = {k: _expand(str(v), inputs, event) for k, v in step.get("env", {}).items()}
        env |= {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(REPO),
            "GITHUB_SHA": git(checkout, "rev-parse", "HEAD"),
            "GITHUB_STEP_SUMMARY": str(summary),
            "NO_COLOR": "1",
        }
        script = _expand(step["run"], inputs, event)
        last = i == len(steps) - 1
        done = run(checkout, step["shell"], "-e", "-c", script, env=env, check=check or not last)
    return done


@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go")
def test_the_docs_example_runs_against_a_scratch_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("GOFLAGS", SHORT_GO_RUNS)
    repo = example_repo(tmp_path / "dev")
    benchtrack(repo, "init", "--action", ACTION)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "track the benchmarks with benchtrack")
    origin = tmp_path / "origin.git"
    run(tmp_path, "git", "clone", "-q", "--bare", str(repo), str(origin))

    workflow = yaml.safe_load((repo / ".github/workflows/benchtrack.yml").read_text())
    job = workflow["jobs"]["bench"]  # a push to main
    assert job["if"] == "github.event_name == 'push'"
    checkout_step, action_step = job["steps"]
    assert checkout_step["uses"].startswith("actions/checkout@")
    assert action_step["uses"] == ACTION
    checkout = tmp_path / "runner"  # actions/checkout: origin's main, origin as the remote
    run(tmp_path, "git", "clone", "-q", "-b", "main", str(origin), str(checkout))
    git(checkout, "config", "user.name", "github-actions")
    git(checkout, "config", "user.email", "actions@example.com")
    run_action(checkout, action_step["with"], tmp_path, {})

    sha = git(checkout, "rev-parse", "HEAD")
    git(checkout, "fetch", "-q", "origin", "gh-pages")
    key = f"ci-{len(os.sched_getaffinity(0))}cpu"
    entry_name = f"{key} (smaller is better)"  # go test's ns/op
    text = git(checkout, "show", f"origin/gh-pages:bench/{key}/data.js")
    data = json.loads(text.split("=", 1)[1])
    (entry,) = data["entries"][entry_name]
    assert entry["commit"]["id"] == sha
    names = [b["name"] for b in entry["benches"]]
    assert any(n.startswith("go/BenchmarkSum") for n in names), names
    tree = git(checkout, "ls-tree", "-r", "--name-only", "origin/gh-pages").split()
    assert "index.html" in tree and "bench/changes.json" in tree

    # The same push again (a re-run): kept as it was, nothing appended twice.
    run_action(checkout, action_step["with"], tmp_path, {})
    git(checkout, "fetch", "-q", "origin", "gh-pages")
    again = git(checkout, "show", f"origin/gh-pages:bench/{key}/data.js")
    assert len(json.loads(again.split("=", 1)[1])["entries"][entry_name]) == 1


# A pull request that makes BenchmarkSum do far more work per iteration (an empty loop before,
# thirty writes to memory after): a loss no round spread of a loaded machine can hide, so the
# gate's verdict on it cannot hang on the machine's noise (docs/architecture.md, "Tests").
SLOWER_GO = """\
package sum

import "testing"

var sink int

func BenchmarkSum(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tfor j := 0; j < 30; j++ {
\t\t\tsink += i ^ j
\t\t}
\t}
}
"""


@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go")
def test_the_docs_examples_gate_fails_a_pull_request_that_regresses(tmp_path):
    """The workflow's gate job on a pull request: head against its merge base, exit 1, the
    regressed benchmark named in the job summary."""
    repo = example_repo(tmp_path / "dev")
    benchtrack(repo, "init", "--action", ACTION)
    config = repo / "benchtrack.toml"
    # the user's own choices, to keep this test short: one stage, one look at 4 rounds
    config.write_text(one_stage(config.read_text(), 4, "[4]"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "track the benchmarks with benchtrack")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "switch", "-q", "-c", "slower")
    (repo / "sum_test.go").write_text(SLOWER_GO)
    git(repo, "commit", "-q", "-am", "sum: thirty writes a call")

    workflow = yaml.safe_load((repo / ".github/workflows/benchtrack.yml").read_text())
    job = workflow["jobs"]["gate"]  # a pull request
    assert job["if"] == "github.event_name == 'pull_request'"
    checkout_step, action_step = job["steps"]
    assert checkout_step["with"]["fetch-depth"] == 0  # the merge base must be reachable
    event = {"github.event.pull_request.base.sha": base}
    done = run_action(repo, action_step["with"], tmp_path, event, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = (tmp_path / "summary.md").read_text()
    rows = [x for x in summary.splitlines() if x.startswith("|") and "go/BenchmarkSum" in x]
    assert rows and all("regressed" in row for row in rows), summary
    assert status(repo) == []  # the gate's worktrees, caches and verdict: ignored (init)
