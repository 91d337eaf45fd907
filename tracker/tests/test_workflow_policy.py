"""What the workflow files promise, read from the files, and run where a promise is behaviour.

Publishing (docs/architecture.md, "Publishing"): only main publishes; no concurrency group any
workflow could join holds the publish stage (GitHub would cancel all but one pending run of it);
every writer to gh-pages pulls before it pushes, so publishes of several pushes may run at once.

Tokens and comments (issue 46): no job with a write token keeps it in .git/config, where its
setup (which installs packages) could read it; the token reaches git in the steps that fetch or
push gh-pages alone (run here: real git answers for the server with it, with nothing else); the
sticky comment is github-actions[bot]'s alone (the lookup run by Node on comments of others);
pr-comment.yml posts one run at a time a PR. scripts/setup.sh, which every job runs first, uses
only the pinned uv, installed from PyPI with its hash checked (run here with an empty HOME).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github/workflows"
SETUP = REPO / "scripts/setup.sh"


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def test_only_main_publishes():
    publish = load(WORKFLOWS / "bench.yml")["jobs"]["publish"]
    assert publish["uses"] == "./.github/workflows/publish.yml"
    assert "github.ref == 'refs/heads/main'" in publish["if"]  # a dispatch elsewhere stops here


def test_no_concurrency_group_holds_the_publish_stage():
    bench = load(WORKFLOWS / "bench.yml")
    assert "concurrency" not in bench and "concurrency" not in bench["jobs"]["publish"]
    publish = load(WORKFLOWS / "publish.yml")
    assert "concurrency" not in publish
    assert all("concurrency" not in job for job in publish["jobs"].values())


def test_the_action_pulls_gh_pages_before_each_push():
    action = load(REPO / ".github/actions/store-benchmark/action.yml")
    calls = [s for s in action["runs"]["steps"] if "github-action-benchmark" in s.get("uses", "")]
    assert len(calls) == 2
    for call in calls:  # pull, commit, push; on a rejected push: drop the commit, pull, again
        assert call["with"]["skip-fetch-gh-pages"] is False
        assert call["with"]["auto-push"] is True


def test_a_storing_push_never_fails_or_comments_on_the_actions_own_alert():
    # github-action-benchmark's alert compares one value with the previous one: at 150% it
    # fails every PR of this suite (tracker/LAB.md, "The usual rules"). A comment per alert
    # would be that noise on every push, and it calls the GitHub API: a storing job failed on
    # it in the local engine ("::error::Not Found") when a quick run read 1.62x worse.
    action = load(REPO / ".github/actions/store-benchmark/action.yml")
    calls = [s for s in action["runs"]["steps"] if "github-action-benchmark" in s.get("uses", "")]
    for call in calls:
        assert call["with"]["comment-on-alert"] is False
        assert call["with"]["fail-on-alert"] is False


# --- tokens ---------------------------------------------------------------------------------


def jobs():
    """(file name, job id, job, the workflow) of every workflow."""
    for path in sorted(WORKFLOWS.glob("*.yml")):
        workflow = load(path)
        for name, job in workflow["jobs"].items():
            yield path.name, name, job, workflow


def writes(job: dict, workflow: dict) -> bool:
    """Whether the job's token may write anything (its permissions, else the workflow's)."""
    perms = job.get("permissions", workflow.get("permissions", "write-all"))
    return perms == "write-all" if isinstance(perms, str) else "write" in perms.values()


def test_no_job_with_a_write_token_persists_credentials():
    writers = []
    for file, name, job, workflow in jobs():
        if "steps" not in job or not writes(job, workflow):
            continue
        writers.append(f"{file}:{name}")
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, f"{file}:{name}"
    assert writers == [
        "confirm.yml:confirm",  # its push of confirmations.json and the dashboard to gh-pages
        *("pr-comment.yml:comment", "publish.yml:plan", "publish.yml:store", "publish.yml:site"),
    ]


TOKEN_RE = re.compile(r"\$\{\{\s*(github\.token|secrets\.GITHUB_TOKEN)\s*\}\}")


def token_steps(workflow: dict):
    """(job id, step) of each step given the job's token (in `env` or `with`)."""
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            given = {**step.get("env", {}), **step.get("with", {})}
            if any(TOKEN_RE.search(str(v)) for v in given.values()):
                yield name, step


def test_the_token_reaches_only_the_steps_that_fetch_or_push_gh_pages():
    steps = token_steps(load(WORKFLOWS / "publish.yml"))
    assert [(name, s.get("run") or s["uses"]) for name, s in steps] == [
        ("plan", "cargo make publish-plan"),
        ("store", "cargo make publish-plan"),
        ("store", "./.github/actions/store-benchmark"),  # github-action-benchmark's input
        ("store", "cargo make publish-plan"),  # after the action: repairs, pushes, validates
        ("site", "cargo make publish-site"),
    ]


def _filled(value: str, token: str) -> str:
    """A step's env value as GitHub fills in the two expressions these use."""
    value = value.replace("${{ github.server_url }}", "https://github.com")
    return TOKEN_RE.sub(token, value)


def test_a_pushing_steps_git_has_the_token_for_the_server_and_nothing_else(tmp_path):
    """publish.py fetches and pushes through `origin`: git asks its credential helpers. In each
    such step, git (real, with the step's environment) answers for https://github.com with the
    token, after dropping a helper the machine had; anywhere else it has no credential."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        '[credential]\n\thelper = "!f() { echo username=old; echo password=old-secret; }; f"\n'
    )
    base = {"HOME": str(home), "PATH": os.environ["PATH"], "GIT_TERMINAL_PROMPT": "0"}
    steps = [
        s
        for _, s in token_steps(load(WORKFLOWS / "publish.yml"))
        if "GIT_CONFIG_COUNT" in s.get("env", {})
    ]
    assert len(steps) == 4

    def fill(host: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "credential", "fill"], input=f"protocol=https\nhost={host}\n\n", env=env,
            cwd=tmp_path, capture_output=True, text=True, timeout=30,
        )  # fmt: skip

    for step in steps:
        env = base | {k: _filled(str(v), "ghs_policy_token") for k, v in step["env"].items()}
        got = fill("github.com", env)
        assert "username=x-access-token\npassword=ghs_policy_token\n" in got.stdout, got
        assert "old-secret" not in got.stdout
        elsewhere = fill("example.com", env)
        assert "ghs_policy_token" not in elsewhere.stdout + elsewhere.stderr
    # without the step's environment: the machine's helper, no token
    assert "ghs_policy_token" not in fill("github.com", base).stdout


# --- the sticky comment -----------------------------------------------------------------------


def comment_script() -> str:
    job = load(WORKFLOWS / "pr-comment.yml")["jobs"]["comment"]
    (step,) = [s for s in job["steps"] if s.get("name") == "post or update the sticky comment"]
    return step["with"]["script"]


def test_the_sticky_comment_is_github_actions_bots_alone():
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs Node")
    lookup = re.search(r"comments\.find\((\(c\) =>.*?)\);", comment_script(), re.DOTALL)
    assert lookup, "the script finds its comment with comments.find((c) => ...)"
    marker = "<!-- benchtrack-gate -->"
    comments = [  # as the REST API lists them: the oldest first
        {"id": 1, "user": {"login": "evil-app[bot]", "type": "Bot"}, "body": marker + " x"},
        {"id": 2, "user": {"login": "someone", "type": "User"}, "body": marker + " y"},
        {"id": 3, "user": {"login": "github-actions[bot]", "type": "Bot"}, "body": "other"},
        {"id": 4, "user": {"login": "github-actions[bot]", "type": "Bot"}, "body": marker},
    ]
    program = (
        f"const marker = {json.dumps(marker)};\n"
        f"const comments = {json.dumps(comments)};\n"
        f"const mine = comments.find({lookup.group(1)});\n"
        "console.log(JSON.stringify(mine ? mine.id : null));\n"
    )
    done = subprocess.run([node, "-e", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == 4
    assert json.loads(
        subprocess.run(
            [node, "-e", program.replace(marker + '"}]', 'not ours"}]')],
            capture_output=True, text=True, timeout=30,
        ).stdout
    ) is None  # fmt: skip


def test_pr_comment_posts_one_run_at_a_time_per_pr():
    workflow = load(WORKFLOWS / "pr-comment.yml")
    group = workflow["concurrency"]["group"]
    # the PR's head: a fork's PR is not in the event's pull_requests list
    for key in ("head_repository.full_name", "head_branch"):
        assert f"github.event.workflow_run.{key}" in group
    assert group.startswith("pr-comment-")
    assert workflow["concurrency"].get("cancel-in-progress", False) is False  # never mid-post


# --- uv in scripts/setup.sh -------------------------------------------------------------------

UV_VERSION = re.search(r"^UV_VERSION=(\S+)", SETUP.read_text(), re.MULTILINE)[1]


def setup_env(home: Path, path: str) -> dict[str, str]:
    """An empty HOME and only `path`; this machine's certificates, proxies and download caches."""
    keep = ("SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_CERT", "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL",
            "PIP_FIND_LINKS", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY")  # fmt: skip
    env = {k: os.environ[k] for k in keep if k in os.environ}
    caches = {
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache/uv")),
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache/pip")),
    }
    return env | caches | {"HOME": str(home), "PATH": path, "UV_PYTHON_DOWNLOADS": "never"}


needs_python3 = pytest.mark.skipif(
    not Path("/usr/bin/python3").is_file(), reason="setup.sh installs uv with python3 -m venv"
)


@needs_python3
@pytest.mark.parametrize("where", ["runner", "local-bin"])
def test_setup_passes_over_another_uv_and_installs_the_pinned_one(tmp_path, where):
    """A uv of another version first on PATH is named and not used: the pinned one is installed
    (its hash checked) and put first on PATH for what setup runs next and, through GITHUB_PATH,
    for the job's later steps. `runner`: in a directory of the runner's own; `local-bin`: in
    ~/.local/bin, where uv's standalone installer puts it (kept there as it is)."""
    home = tmp_path / "home"
    other = (tmp_path / "bin" if where == "runner" else home / ".local/bin") / "uv"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\necho 'uv 0.0.1 (the runner image)'\n")  # and succeeds at anything
    other.chmod(0o755)
    github_path = tmp_path / "github_path"
    github_path.write_text("")
    env = setup_env(home, f"{other.parent}:/usr/bin:/bin") | {"GITHUB_PATH": str(github_path)}
    done = subprocess.run(
        ["bash", str(SETUP), "--parts", "python"], env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"not using {other} (uv 0.0.1" in done.stdout
    assert f"installing uv {UV_VERSION} from PyPI" in done.stdout and "hash checked" in done.stdout
    (first,) = github_path.read_text().splitlines()
    pinned = subprocess.run([Path(first) / "uv", "--version"], capture_output=True, text=True)
    assert pinned.stdout.split()[:2] == ["uv", UV_VERSION]
    assert "0.0.1" in other.read_text()  # someone else's uv: left as it was
    # a later step: GITHUB_PATH's directory first, the pinned uv found, nothing more to do
    again = subprocess.run(
        ["bash", str(SETUP), "--parts", "python"], capture_output=True, text=True, timeout=600,
        env=env | {"PATH": f"{first}:{env['PATH']}"},
    )  # fmt: skip
    assert again.returncode == 0 and "uv" not in again.stdout, again.stdout + again.stderr


@needs_python3
def test_setup_refuses_a_uv_wheel_whose_hash_it_does_not_list(tmp_path):
    """setup.sh with every listed hash replaced: pip downloads the pinned wheel and refuses it."""
    text, n = re.subn(r"^(\s+)[0-9a-f]{64}\b", r"\g<1>" + "0" * 64, SETUP.read_text(), flags=re.M)
    assert n >= 10, "setup.sh lists the sha256 of each uv wheel"
    copy = tmp_path / "repo/scripts/setup.sh"
    copy.parent.mkdir(parents=True)
    copy.write_text(text)
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        ["bash", str(copy), "--parts", "python"], env=setup_env(home, "/usr/bin:/bin"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode != 0
    assert "DO NOT MATCH THE HASHES" in done.stderr, done.stdout + done.stderr
    assert "with a hash listed in scripts/setup.sh" in done.stderr
    assert not (home / ".local/bin/uv").exists()
