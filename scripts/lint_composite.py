"""actionlint over composite actions, which it reads only as workflows: each composite action
(action.yml at ROOT and .github/actions/*/action.yml) is written as a reusable workflow whose
`workflow_call` inputs are the action's inputs and whose one job runs the action's steps, then
linted. So its expressions are type-checked (an `inputs.x` the action does not declare fails)
and every `run:` goes through shellcheck as a workflow's would.

    python scripts/lint_composite.py [ROOT]     exit 1 on any finding, naming the action file
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import yaml


def composite_actions(root: Path) -> list[Path]:
    found = [root / "action.yml", *sorted((root / ".github/actions").glob("*/action.yml"))]
    return [p for p in found if p.is_file()]


def as_workflow(action: dict) -> dict:
    inputs = {
        name: {"type": "string", "required": bool(spec.get("required", False))}
        for name, spec in (action.get("inputs") or {}).items()
    }
    return {
        "name": action.get("name", "composite action"),
        "on": {"workflow_call": {"inputs": inputs}},
        "permissions": {},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }


def main(root: Path) -> int:
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        workflows = Path(tmp) / ".github/workflows"
        workflows.mkdir(parents=True)
        for path in composite_actions(root):
            action = yaml.safe_load(path.read_text())
            if action.get("runs", {}).get("using") != "composite":
                continue
            name = path.relative_to(root).as_posix()
            wrapped = workflows / (name.replace("/", "--").removesuffix(".yml") + ".yml")
            wrapped.write_text(yaml.safe_dump(as_workflow(action), sort_keys=False))
            done = subprocess.run(
                ["actionlint", "-no-color", str(wrapped)], cwd=tmp, capture_output=True, text=True
            )
            if done.returncode != 0:
                failed += 1
                print(f"{name} (its steps as a workflow):\n{done.stdout}{done.stderr}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")))
