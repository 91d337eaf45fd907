/* What a change is: change points (regression or improvement) and whether a change between two
 * runs is measured or within the runs' noise. */
(function (app) {
  'use strict';

  const { BENCH, CHANGES, IDX, RUNNER_BY_KEY, pct } = app;

  function isRegression(c, bench) {
    // detect's own verdict when it gave one; else a fall of a bigger-is-better metric or a rise of
    // a smaller-is-better one (the metric's direction from the change, else from the benchmark)
    if (typeof c.regression === 'boolean') return c.regression;
    const d = (c.direction || '').toLowerCase();
    if (/regress|worse|slower/.test(d)) return true;
    if (/improv|better|faster/.test(d)) return false;
    if (c.change == null) return false;
    const dir = d === 'smaller' || d === 'bigger' ? d : bench.dir;
    return dir === 'smaller' ? c.change > 0 : c.change < 0;
  }
  // A change between two runs is coloured only when it is real: the runs' ± ranges (value ± half
  // its ci) do not overlap, or change-point detection flagged a step there. Runs of unchanged code
  // on a busy machine differ by tens of percent inside their own ranges; that is noise, shown
  // neutral. A (v, r) is a run's value and half-width (NaN: not recorded, so never judged real).
  const MIN_CHANGE = 0.02;       // smaller changes stay neutral unless detection flagged them
  function judge(dir, a, b, flagged) {
    if (!a || !b || !a.v) return { kind: '', note: '' };
    const ch = b.v / a.v - 1;
    const worse = dir === 'smaller' ? ch > 0 : ch < 0;
    const rel = (x) => pct(x.r / x.v).replace(/^[+−]/, '±');
    if (flagged) return { kind: worse ? 'worse' : 'better', why: 'confirmed', note: 'confirmed by change-point detection' };
    if (isNaN(a.r) || isNaN(b.r)) return { kind: '', why: 'unknown', note: 'no ± range recorded, so not judged' };
    if (Math.abs(b.v - a.v) <= a.r + b.r) return { kind: '', why: 'noise', note: `within the runs' spread (${rel(a)} before, ${rel(b)} after)` };
    if (Math.abs(ch) < MIN_CHANGE) return { kind: '', why: 'small', note: `beyond the runs' spread but under ${MIN_CHANGE * 100} %` };
    return { kind: worse ? 'worse' : 'better', why: 'beyond', note: `beyond the runs' spread (${rel(a)} before, ${rel(b)} after)` };
  }
  function flaggedAt(name, runner, from, to) {
    // detection flagged a step of this series on this runner at a commit in (from, to]
    return (CHANGES.get(name) || []).some((c) => c.runner === runner && c.i > from && c.i <= to);
  }

  function changeRows() {
    // every change point of a known benchmark, with its verdict; the index is newest first
    return ((IDX && IDX.changes) || []).filter((c) => BENCH.has(c.series) && RUNNER_BY_KEY.has(c.runner)).map((c) => ({ c, b: BENCH.get(c.series), bad: isRegression(c, BENCH.get(c.series)) }));
  }
  function changeCounts(rows) {
    const bad = rows.filter((r) => r.bad);
    return { regressions: bad.length, improvements: rows.length - bad.length, all: rows.length, fresh: bad.filter((r) => r.c.new).length };
  }

  Object.assign(app, { isRegression, judge, flaggedAt, changeRows, changeCounts });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
