"""Who measured what: the commit (from git) and the runner (this machine) of a result document.

Precedence, highest first: command-line flags, `BENCHTRACK_RUNNER_LABEL` / `BENCHTRACK_RUNNER_CPUS`,
GitHub Actions' variables (GITHUB_SHA, GITHUB_SERVER_URL, GITHUB_REPOSITORY), then what git and
the machine say. The runner's CPUs are those this process may use (`os.sched_getaffinity`), so a
`taskset`-pinned run is recorded as the smaller runner size it simulates.
"""

from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchtrack import git
from benchtrack.errors import BadInput
from benchtrack.machine.cpuset import CpuSet
from benchtrack.result import Commit, Runner

ENV_LABEL = "BENCHTRACK_RUNNER_LABEL"
ENV_CPUS = "BENCHTRACK_RUNNER_CPUS"


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    # x86 says "model name"; many ARM kernels only say "Hardware" or "CPU part".
    for key in ("model name", "Hardware", "Model", "cpu model", "CPU part"):
        match = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or "unknown"


def os_name(os_release: Path = Path("/etc/os-release")) -> str:
    try:
        match = re.search(r'^PRETTY_NAME="?([^"\n]*)"?$', os_release.read_text(), re.MULTILINE)
    except OSError:
        match = None
    distro = f"{match.group(1)}, " if match else ""
    return f"{distro}{platform.system()} {platform.release()}"


def detect_runner(label: str | None = None, cpus: int | None = None) -> Runner:
    """This machine as a runner size; `label`/`cpus` (from flags) win over the environment."""
    if label is None:
        label = os.environ.get(ENV_LABEL) or ("ci" if os.environ.get("GITHUB_ACTIONS") else "local")
    if cpus is None and os.environ.get(ENV_CPUS):
        cpus = parse_cpus(os.environ[ENV_CPUS], ENV_CPUS)
    return Runner(
        label=label,
        cpus=cpus if cpus is not None else CpuSet.allowed().count,
        cpu_model=cpu_model(),
        os=os_name(),
        arch=platform.machine() or "unknown",
    )


def parse_cpus(text: str, where: str) -> int:
    try:
        cpus = int(text)
    except ValueError:
        cpus = 0
    if cpus < 1:
        raise BadInput(where, None, "a whole number of CPUs >= 1", text)
    return cpus


@dataclass(frozen=True)
class GitState:
    commit: Commit
    dirty: bool  # uncommitted changes to tracked files: the numbers may not match the commit


def _git(repo: Path, *args: str) -> str:
    done = git.run(repo, *args, check=False)
    if done.returncode != 0:
        raise BadInput(
            repo, f"git {' '.join(args)}", "a git repository with that commit", done.stderr.strip()
        )
    return done.stdout


def detect_commit(ref: str | None = None, repo: Path = Path()) -> GitState:
    """The commit `ref` (default: GITHUB_SHA in Actions, else HEAD) of the repository at `repo`."""
    ref = ref or os.environ.get("GITHUB_SHA") or "HEAD"
    fields = _git(repo, "log", "-1", "--format=%H%x00%cI%x00%an%x00%ae%x00%B", ref, "--")
    cid, timestamp, name, email, message = fields.split("\x00", 4)
    dirty = bool(_git(repo, "status", "--porcelain", "--untracked-files=no").strip())
    commit = Commit(cid, message.strip(), timestamp, name, email, commit_url(cid, repo))
    return GitState(commit, dirty)


def commit_url(cid: str, repo: Path) -> str | None:
    server, repository = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if server and repository:
        return f"{server}/{repository}/commit/{cid}"
    # Outside Actions: link to the origin's web page when it is a GitHub-style remote.
    try:
        origin = _git(repo, "remote", "get-url", "origin").strip()
    except BadInput:
        return None
    match = re.match(r"^(?:https://|git@)([^/:]+)[/:](.+?)(?:\.git)?/?$", origin)
    return f"https://{match.group(1)}/{match.group(2)}/commit/{cid}" if match else None
