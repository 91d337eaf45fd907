"""The sticky PR comment, rendered from the runner sizes' checked outcomes (gate_comment.load).

It leads with one line: the check's own mark (✅/❌ from the gate jobs' conclusions, as GitHub
reports them, never from an artifact, which the PR's code wrote) and what changed, counted per
benchmark over every runner size ("this PR: 2 regressed, 1 improved, 77 unchanged, on 1/2/4
vCPU"). Then each regressed benchmark with, where it is counted, the functions whose work grew
most (benchtrack.gate.function_diff): the first place to look. Every runner size's full table stays
collapsed. Every string that came from an artifact is inert code (benchtrack.mdtext). The body
stays under GitHub's comment limit: past MAX_CHARS the full tables give way to a link to the job
summary, then the longest lists are shortened, and last the text is cut at a whole line (never
inside a code span, a fenced block closed), saying how much was cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchtrack.gate import function_diff, render
from benchtrack.gate.diagnose import text as diagnosis_text
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.mdtext import code
from benchtrack.stats import IMPROVED, INCONCLUSIVE, REGRESSED, UNCHANGED

MAX_CHARS = 60_000  # GitHub refuses a comment body over 65,536 characters
CONCLUSIONS = {"success", "failure", "cancelled", "skipped", "timed_out", "neutral",
               "action_required", "stale", "startup_failure"}  # fmt: skip
_CPUS = re.compile(r"-(\d+)cpu$")
_WORST = (REGRESSED, IMPROVED, INCONCLUSIVE, UNCHANGED)


@dataclass(frozen=True)
class Size:
    key: str  # the runner key of the artifact gate-<key>
    outcome: Outcome
    conclusion: str | None  # its gate job's conclusion, from GitHub; None: not known

    @property
    def label(self) -> str:
        """Markdown: `N vCPU`, else the key as code (a key like www.x.y is a link in text)."""
        m = _CPUS.search(self.key)
        return f"{m.group(1)} vCPU" if m else code(self.key)


def mark(sizes: list[Size], run_conclusion: str | None) -> str:
    """✅/❌ from the jobs' own conclusions (else the whole run's), never from an artifact."""
    known = [s.conclusion for s in sizes if s.conclusion]
    if known and len(known) == len(sizes):
        if all(c == "success" for c in known):
            return "✅"
        return "❌" if any(c == "failure" for c in known) else "⚠️"
    if run_conclusion in CONCLUSIONS:
        return {"success": "✅", "failure": "❌"}.get(run_conclusion, "⚠️")
    return "❔"


def per_benchmark(sizes: list[Size]) -> dict[str, str]:
    """Each gating benchmark's verdict over every size: its worst (regressed, then improved,
    then inconclusive)."""
    found: dict[str, str] = {}
    for s in sizes:
        for r in s.outcome.rows:
            if r.gates:
                now = found.get(r.name, UNCHANGED)
                found[r.name] = min(now, r.verdict, key=_WORST.index)
    return found


def headline(sizes: list[Size], run_conclusion: str | None) -> str:
    verdicts = per_benchmark(sizes)
    said_order = (REGRESSED, IMPROVED, UNCHANGED, INCONCLUSIVE)
    counts = [(k, sum(v == k for v in verdicts.values())) for k in said_order]
    said = ", ".join(f"{n} {k}" for k, n in counts if n)
    failed = sum(bool(s.outcome.suite_failures or any(s.outcome.failed.values())) for s in sizes)
    where = "/".join(s.label.removesuffix(" vCPU") for s in sizes)
    where += " vCPU" if all(_CPUS.search(s.key) for s in sizes) else ""
    text = f"{mark(sizes, run_conclusion)} this PR: {said or 'nothing measured'}, on {where}"
    if failed:
        text += f"; ⚠️ a benchmark failed to run on {failed} runner size{'s' * (failed != 1)}"
    return text


def _jobs_line(sizes: list[Size], run_conclusion: str | None) -> str:
    parts = [f"{s.label} {s.conclusion or 'unknown'}" for s in sizes]
    source = (
        "the gate jobs' own conclusions"
        if any(s.conclusion for s in sizes)
        else (
            f"the gate run: {run_conclusion}" if run_conclusion in CONCLUSIONS else "not known here"
        )
    )
    return f"The check: {' · '.join(parts)} ({source}; a PR's artifact never decides it)."


def _regressed(sizes: list[Size], limit: int) -> list[str]:
    rows: list[tuple[Row, Size]] = [
        (r, s) for s in sizes for r in s.outcome.rows if r.gates and r.verdict == REGRESSED
    ]
    if not rows:
        return []
    out = [
        "### Regressed",
        "",
        "| benchmark | runner | change | interval | where the work grew |",
        "|---|---|--:|:-:|---|",
    ]
    for r, s in rows[:limit]:
        entry = s.outcome.meta.get("functions", {}).get(r.name)
        grew = function_diff.lines(entry) + f" ({entry['unit']})" if entry else "—"
        change = f"{render.pct(r.change)} | {render.interval(r)}"
        out.append(f"| {code(r.name)} | {s.label} | {change} | {grew} |")
    if len(rows) > limit:
        out.append(f"| … and {len(rows) - limit} more (the job summary lists every one) | | | | |")
    return [*out, ""]


def _why(sizes: list[Size], limit: int) -> list[str]:
    """Each diagnosed benchmark's line (gate/diagnose/): why it is slower."""
    found = [  # the artifact gate-<key> holds the size's wall-time profiles beside gate.json
        (name, s.label, {**e, "artifact": f"gate-{s.key}"})
        for s in sizes
        for name, e in s.outcome.meta.get("diagnosis", {}).items()
    ]
    return diagnosis_text.comment(found, limit)


def _improved(sizes: list[Size], limit: int) -> list[str]:
    rows = [(r, s) for s in sizes for r in s.outcome.rows if r.gates and r.verdict == IMPROVED]
    if not rows:
        return []
    items = [f"{code(r.name)} {render.pct(r.change)} ({s.label})" for r, s in rows[:limit]]
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return ["### Improved", "", " · ".join(items) + more, ""]


def _failures(o: Outcome) -> list[str]:
    out = render.failures(o)
    return [*out, ""] if out else []


def _size_details(s: Size) -> list[str]:
    o = s.outcome
    if o.skipped:
        return [f"- {s.label}: {render.headline(o).split(' · ')[0]}", ""]
    # the table shows names as code (mdtext.code); the summary is HTML, where Markdown's code is
    # not: the key is a slugged runner key (comment.RUNNER_RE, [a-z0-9._-]), safe as it is
    label = f"{s.label} (<code>{s.key}</code>)" if _CPUS.search(s.key) else f"<code>{s.key}</code>"
    return [
        f"<details><summary>{label}: all {len(o.rows)} benchmarks</summary>",
        "",
        render.method_line(o),
        "",
        f"Verdicts: {render.counts(o)}.",
        "",
        *_failures(o),
        *render._table(o.rows),
        "",
        "</details>",
        "",
    ]


def body(sizes: list[Size], run_conclusion: str | None, run_url: str) -> str:
    """The comment: one line first, the regressions and their functions, the sizes collapsed."""
    link = f"[the gate run]({run_url})" if run_url else "the gate run"
    head = [render.COMMENT_MARKER, f"## benchtrack: {headline(sizes, run_conclusion)}", "",
            _jobs_line(sizes, run_conclusion), ""]  # fmt: skip
    if sizes and all(s.outcome.skipped for s in sizes):
        return "\n".join([*head, f"{render.headline(sizes[0].outcome)} (every runner size)", ""])
    for limit in (10_000, 50, 10):
        parts = [*head, *_regressed(sizes, limit), *_why(sizes, limit), *_improved(sizes, limit)]
        full = [line for s in sizes for line in _size_details(s)]
        text = "\n".join([*parts, *full, f"Every table is also in {link}'s job summary.", ""])
        if len(text) <= MAX_CHARS:
            return text
        failures = [line for s in sizes for line in _failures(s.outcome)]
        text = "\n".join([*parts, *failures,
                          f"The full tables ({sum(len(s.outcome.rows) for s in sizes)} rows) are "
                          f"too long for a comment: see {link}'s job summary.", ""])  # fmt: skip
        if len(text) <= MAX_CHARS:
            return text
    return cut(text, MAX_CHARS - 1_000, link)


def cut(text: str, budget: int, link: str) -> str:
    """`text`'s whole lines within `budget` characters, then how much was cut. An artifact's
    tails are the PR's to size, so they choose where a cut lands: never inside a line (a code
    span stays on one), and a fenced block it cuts is closed."""
    kept: list[str] = []
    size, fenced = 0, False
    for line in text.split("\n"):
        if size + len(line) + 1 > budget:
            break
        kept.append(line)
        size += len(line) + 1
        fenced ^= line == "```"  # only ours: block() leaves a tail no run of three backticks
    note = f"(cut: {len(text) - size:,} characters; every table and log is in {link}'s job summary)"
    return "\n".join([*kept, *(["```"] if fenced else []), "", note, ""])


def conclusions(jobs: Any, keys: list[str]) -> dict[str, str]:
    """{runner key: conclusion} from GitHub's job list [{name: "gate <key>", conclusion}]; a
    sharded gate's size is its merge job's ("merge <key>"), whose verdict is the shards' one."""
    out: dict[str, str] = {}
    merged: set[str] = set()
    for job in jobs if isinstance(jobs, list) else []:
        name = job.get("name") if isinstance(job, dict) else None
        conclusion = job.get("conclusion") if isinstance(job, dict) else None
        if not isinstance(name, str) or conclusion not in CONCLUSIONS:
            continue
        for prefix in ("gate ", "merge "):
            key = name.removeprefix(prefix).strip() if name.startswith(prefix) else None
            if key in keys and (prefix == "merge " or key not in merged):
                out[key] = conclusion
                if prefix == "merge ":
                    merged.add(key)
    return out
