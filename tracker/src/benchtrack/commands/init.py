"""`benchtrack init`: track another repository with benchtrack.toml and a 25-line workflow.

Run at the repository's root. The suites are the ones detected there (benchtrack.adopt.harnesses)
or the one `--suite/--adapter/--command/--raw` declare; the workflow calls the composite action
named by `--action`. An existing file is never overwritten without `--force` (exit 2 naming it,
nothing written); `--dry-run` prints the files instead. `.gitignore` gets what bench-local, the
gate and the suites write (templates.ignore_entries): an existing one extended with the entries it
lacks, nothing removed or reordered; a missing one created.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchtrack.adopt import harnesses, templates
from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK, BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.gate import shards

NAME = "init"
HELP = (
    "Write benchtrack.toml (the suites found here, or --suite) and "
    ".github/workflows/benchtrack.yml (the composite action) in this repository, and add "
    "what benchtrack writes here (.bench/, target/) to .gitignore"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--action",
        default=os.environ.get("BENCHTRACK_ACTION", ""),
        help="the composite action the workflow uses, OWNER/REPO@REF (default: $BENCHTRACK_ACTION)",
    )
    parser.add_argument("--suite", help="declare one suite by name instead of detecting them")
    parser.add_argument("--adapter", help="with --suite: the ingest adapter (e.g. gotest)")
    parser.add_argument(
        "--command",
        dest="suite_command",  # not `command`: the CLI's own dest for the subcommand
        metavar="CMD",
        help="with --suite: the command producing its raw output",
    )
    parser.add_argument("--raw", help="with --suite: the file or directory the command writes")
    parser.add_argument("--dry-run", action="store_true", help="print the files, write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    flags.add_json(parser, "the suites and the files (with --dry-run, nothing written)")


def run(args: argparse.Namespace) -> int:
    root = Path.cwd()
    suites = _suites(args, root)
    n = templates.shards_needed(suites)
    files = {
        templates.CONFIG: templates.config_text(suites),
        templates.WORKFLOW: templates.workflow_text(
            args.action, n, templates.carries_builds(suites)
        ),
    }
    if n > 1:  # every benchmark dealt by its name until `shard-plan` deals them by their seconds
        files[templates.SHARD_PLAN] = shards.plan_bytes(shards.plan_doc(n, {})).decode()
    # bytes as they are (CRLF kept, any encoding): its lines are kept as they are
    ignore = root / templates.GITIGNORE
    old_ignore = ignore.read_bytes().decode(errors="surrogateescape") if ignore.is_file() else None
    missing = templates.missing_ignores(old_ignore, templates.ignore_entries(suites))
    extended = (
        {templates.GITIGNORE: templates.gitignore_text(old_ignore, missing)} if missing else {}
    )
    writes = files | extended
    report = {
        "suites": [s.to_dict() for s in suites],
        "files": {str(path): text for path, text in writes.items()},
        "written": [],
    }
    if args.dry_run:
        if args.json:
            flags.print_json(report)
            return EXIT_OK
        for path, text in writes.items():
            print(f"# --- {path}")
            print(text, end="")
        return EXIT_OK
    existing = [path for path in files if (root / path).exists()]
    if existing and not args.force:
        raise BadInput(existing[0], None, "a file init may write (it exists: --force replaces it)")
    for path, text in writes.items():
        atomic_write(root / path, text.encode(errors="surrogateescape"))
    if args.json:
        flags.print_json({**report, "written": [str(path) for path in writes]})
        return EXIT_OK
    for path in files:
        print(f"wrote {path}")
    if missing:
        how = "extended" if old_ignore is not None else "wrote"
        print(f"{how} {templates.GITIGNORE}: {', '.join(missing)}")
    names = ", ".join(s.name for s in suites)
    if n > 1:
        print(f"the gate runs as {n} shards (one runner's round cannot hold every benchmark)")
    print(f"suites: {names}; try them here with `benchtrack bench-local`, then commit the files")
    return EXIT_OK


def _suites(args: argparse.Namespace, root: Path) -> list[harnesses.Found]:
    given = {"--adapter": args.adapter, "--command": args.suite_command, "--raw": args.raw}
    if args.suite is not None:
        for flag, value in given.items():
            if value is None:
                raise BadInput(flag, None, f"a value with --suite {args.suite}")
        return [harnesses.declared(args.suite, args.adapter, args.suite_command, args.raw)]
    stray = [flag for flag, value in given.items() if value is not None]
    if stray:
        raise BadInput(stray[0], None, "--suite NAME beside it")
    found = harnesses.detect(root)
    if not found:
        raise BadInput(
            root,
            None,
            "a criterion dev-dependency in Cargo.toml, pytest-benchmark in pyproject.toml or a Go "
            "`func Benchmark`; or one declared: --suite NAME --adapter A --command CMD --raw PATH",
        )
    return found
