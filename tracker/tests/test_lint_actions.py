"""The lint gates cover the composite actions too: the adopters' action.yml and .github/actions/*.

`scripts/lint.sh --actions ROOT` runs the workflow and action gates of `cargo make lint`
(actionlint, the composite actions' steps as workflows, zizmor) on a copy of this repository's
workflows and actions: clean it passes; with an input expanded straight into a `run:` script
(template injection: the input's text becomes shell code) it fails, naming the file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ACTIONLINT = shutil.which("actionlint") or str(Path.home() / "go/bin/actionlint")

pytestmark = pytest.mark.skipif(
    not Path(ACTIONLINT).is_file(), reason="actionlint is installed by `cargo make setup`"
)


def copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(REPO / "action.yml", root / "action.yml")
    shutil.copytree(REPO / ".github", root / ".github")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    gobin = str(Path(ACTIONLINT).parent)
    env = {**os.environ, "PATH": f"{gobin}:{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", str(REPO / "scripts/lint.sh"), "--actions", str(root)],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip


def inject(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path}: the step this test changes is gone"
    path.write_text(text.replace(old, new, 1))


def test_the_actions_pass(tmp_path):
    done = lint(copy(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        (
            "action.yml",
            "benchtrack bench-local --no-history",
            'benchtrack bench-local --no-history --profile "${{ inputs.profile }}"',
        ),
        (
            ".github/actions/store-benchmark/action.yml",
            "name: store ${{ inputs.key }} (bigger is better)\n",
            "name: store ${{ inputs.key }} (bigger is better)\n"
            '      shell: bash\n      run: echo "storing ${{ inputs.key }}"\n'
            "    - name: the action\n",
        ),
    ],
)
def test_an_input_expanded_in_a_run_script_fails_lint(tmp_path, path, old, new):
    root = copy(tmp_path)
    inject(root / path, old, new)
    done = lint(root)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "FAILED: zizmor" in out and "template-injection" in out
    assert path in out
