"""What changed at the latest merge, told from noise: the dashboard on realistic histories.

Each history is built by the shipped generator (`python -m benchtrack.lab.simulate`: 160 merges on
1, 2 and 4 vCPU, every run's noise drawn from the shipped A/A recordings, 12 known steps, 6 of them
at the latest merge), its change points found by the real `benchtrack detect --write`, its site
built by the real `benchtrack site`, and read in Chromium. Two histories: steps in CPU-bound code
(wall time and the instruction count move) and steps only wall time shows (the count does not).

At the latest merge: of the unchanged benchmark x runner pairs at most 1% are coloured; of the
stepped pairs (every step >= 10%) at least 95% are, and by their quiet series; the sentence names
exactly the stepped benchmarks. The same rule judged in the page over the 40 merges before it
(Compare's judgement, each merge against its own history) colours at most 1% of unchanged pairs.
And the page's expected ranges are the index's (benchtrack.dashboard.expected), to the digit."""

from __future__ import annotations

import pytest
from dashboard_fixture import SIM_MERGES, Pages, Watched

MERGES = SIM_MERGES


@pytest.fixture(scope="module", params=["counted", "wall"])
def simulated(request: pytest.FixtureRequest, simulations):
    sim = simulations(request.param)
    return sim.scenario, sim.site, sim.truth


@pytest.fixture
def tall(pages: Pages):
    page = pages.new(viewport={"width": 1280, "height": 1200})
    yield page
    assert page.errors == [], page.errors
    assert page.dialogs == [], page.dialogs


CHIPS = """() => [...document.querySelectorAll('a.card')].flatMap((c) =>
  [...c.querySelectorAll('.last .chg')].map((s) => ({ bench: c.dataset.name,
    runner: s.dataset.runner, judged: s.dataset.judged, by: s.dataset.by || null })))"""


def test_the_latest_merge_colours_the_steps_and_not_the_noise(simulated, tall: Watched) -> None:
    scenario, site, truth = simulated
    latest = {s["benchmark"]: s for s in truth["steps"] if s["merge"] == MERGES - 1}
    assert len(latest) == 6 and all(abs(s["factor"] - 1) >= 0.1 - 1e-9 for s in latest.values())
    p = tall.page
    p.goto((site / "index.html").as_uri())
    p.wait_for_selector("#verdict")
    chips = p.evaluate(CHIPS)
    assert len(chips) == len(truth["benchmarks"]) * 3  # every benchmark measured on 3 sizes
    unchanged = [c for c in chips if c["bench"] not in latest]
    stepped = [c for c in chips if c["bench"] in latest]
    coloured = [c for c in unchanged if c["judged"] in ("worse", "better")]
    assert len(coloured) <= 0.01 * len(unchanged), coloured
    quiet = "instructions" if scenario == "counted" else "time"
    hits = [
        c
        for c in stepped
        if c["judged"] == ("worse" if latest[c["bench"]]["factor"] < 1 else "better")
        and c["by"] == quiet
    ]
    assert len(hits) >= 0.95 * len(stepped), [c for c in stepped if c not in hits]
    named = p.evaluate(
        "[...document.querySelectorAll('#verdict a.vname')].map(a => [a.dataset.bench,"
        " a.dataset.kind])"
    )
    expected = sorted([b, "worse" if s["factor"] < 1 else "better"] for b, s in latest.items())
    assert sorted(named) == expected
    text = p.locator("#verdict").inner_text()
    assert text.startswith(truth["commits"][-1][:7] + ": ")
    assert f"{len(truth['benchmarks']) - len(latest)} unchanged" in text
    if scenario == "counted":  # the wall-time change, and the count's in parentheses
        assert "(instructions +" in text


def test_compare_judges_every_merge_alike_and_the_page_agrees_with_the_index(
    simulated, tall: Watched
) -> None:
    _, site, truth = simulated
    p = tall.page
    p.goto((site / "index.html").as_uri() + "#view=compare")
    p.wait_for_selector("#compare-verdict #verdict")
    # the default pair is the latest merge and the one before: the overview's sentence
    named = p.evaluate(
        "[...document.querySelectorAll('#verdict a.vname')].map(a => a.dataset.bench)"
    )
    latest = {s["benchmark"] for s in truth["steps"] if s["merge"] == MERGES - 1}
    assert sorted(named) == sorted(latest)
    # the page's ranges (from the series) are the index's (benchtrack.dashboard.expected) at the
    # latest run
    diffs = p.evaluate(
        """() => { const app = window.BenchtrackDashboard, out = [];
          for (const b of app.BENCHES) for (const [key, l] of Object.entries(b.last)) {
            const s = app.SERIES.get(b.name)[key];
            const r = app.expectedRange(s.v, s.v.length - 1, app.stepsOf(b.name, key, s));
            const e = l[5];
            if (!r !== !e) { out.push([b.name, key, 'one side has no range']); continue; }
            if (!r) continue;
            for (const [x, y] of [[r.center, e[0]], [r.lo, e[1]], [r.hi, e[2]]])
              if (Math.abs(x / y - 1) > 1e-5) out.push([b.name, key, x, y]);
            if (r.runs !== e[3]) out.push([b.name, key, 'runs', r.runs, e[3]]);
          }
          return out; }"""
    )
    assert diffs == []
    # the 40 merges before the latest, each judged against its own history: noise stays neutral
    steps = {(s["benchmark"], s["merge"]) for s in truth["steps"]}
    found = p.evaluate(
        """(merges) => { const app = window.BenchtrackDashboard, out = [];
          const n = app.nCommits();
          for (let ci = n - 1 - merges; ci < n - 1; ci++)
            for (const b of app.PRIMARY) for (const key of b.runners) {
              const v = app.benchVerdict(b, (s) => app.seriesJudge(s, key, ci));
              if (v.judged) out.push([b.name, ci, v.kind]);
            }
          return out; }""",
        40,
    )
    judged = [(b, ci, kind) for b, ci, kind in found if (b, ci) not in steps]
    coloured = [x for x in judged if x[2]]
    assert len(judged) >= 40 * 3 * (len(truth["benchmarks"]) - 6)
    assert len(coloured) <= 0.01 * len(judged), (len(coloured), len(judged))
