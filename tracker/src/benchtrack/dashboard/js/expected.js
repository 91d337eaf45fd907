/* Is a run a change, or its series' own noise? The range a series' recent history expects a run
 * in, the same rule as benchtrack/dashboard/expected.py (the index carries that module's range for each
 * series' latest run; gh-pages/tests/test_verdicts.py checks the two agree): the median of the
 * (at most WINDOW) points before it since the series' latest change point, ± the widest of
 * SPREAD robust standard deviations of their logs, REACH times their farthest point from the
 * median, and FLOOR. Also what the charts draw over the raw points: per segment, the rolling
 * median of the points around each one, and at each point the range its history expected. */
(function (app) {
  'use strict';

  const { CHANGES } = app;

  const WINDOW = 30, MIN_RUNS = 4, SPREAD = 4, REACH = 1.5, FLOOR = 0.02, MAD_SD = 1.4826;

  function median(sorted) {
    const n = sorted.length;
    return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  function stepsOf(name, key, s) {
    // the series positions (into s.i) of the change points of `name` on runner `key`
    const at = new Set((CHANGES.get(name) || []).filter((c) => c.runner === key).map((c) => c.i));
    const out = [];
    if (at.size) for (let k = 0; k < s.i.length; k++) if (at.has(s.i[k])) out.push(k);
    return out;
  }

  // The range point j of `values` is expected in (from the points before it), or null.
  function expectedRange(values, j, steps) {
    let start = 0;
    for (const c of steps || []) if (c < j && c > start) start = c;
    start = Math.max(start, j - WINDOW, 0);
    const logs = [];
    for (let k = start; k < j; k++) if (values[k] > 0 && isFinite(values[k])) logs.push(Math.log(values[k]));
    if (logs.length < MIN_RUNS) return null;
    logs.sort((a, b) => a - b);
    const center = median(logs);
    const devs = logs.map((x) => Math.abs(x - center)).sort((a, b) => a - b);
    const sd = MAD_SD * median(devs);
    const half = Math.max(SPREAD * sd, REACH * devs[devs.length - 1], Math.log1p(FLOOR));
    return { center: Math.exp(center), lo: Math.exp(center - half), hi: Math.exp(center + half), runs: logs.length, sd };
  }
  function fromIndex(exp) {  // the index's [center, lo, hi, runs, sd] (benchtrack.dashboard.expected)
    return exp ? { center: exp[0], lo: exp[1], hi: exp[2], runs: exp[3], sd: exp[4] } : null;
  }
  // {kind: 'worse' | 'better' | '', change (vs the expected level), range} of a value
  function judgeRange(range, value, dir) {
    if (!range || !(value > 0)) return { kind: '', change: null, range, judged: false };
    const change = value / range.center - 1;
    if (value >= range.lo && value <= range.hi) return { kind: '', change, range, judged: true };
    const up = value > range.hi;
    return { kind: up === (dir !== 'smaller') ? 'better' : 'worse', change, range, judged: true };
  }

  // What the charts draw over a series: per segment (between change points) the level, a centred
  // rolling median of up to `w` points; and at each point the band of the range its history
  // expected it in (expectedRange: a point outside its band is one the dashboard colours).
  function levels(values, steps, w) {
    const n = values.length, mid = new Array(n).fill(null), lo = new Array(n).fill(null), hi = new Array(n).fill(null);
    const cuts = [0, ...(steps || []).filter((c) => c > 0 && c < n).sort((a, b) => a - b), n];
    const h = Math.floor((w || 15) / 2);
    for (let s = 0; s + 1 < cuts.length; s++) {
      const a = cuts[s], b = cuts[s + 1];
      for (let k = a; k < b; k++) {
        const win = [];
        for (let m = Math.max(a, k - h); m < Math.min(b, k + h + 1); m++) if (values[m] > 0) win.push(values[m]);
        if (win.length) mid[k] = median(win.sort((x, y) => x - y));
      }
    }
    for (let k = 0; k < n; k++) {
      const r = expectedRange(values, k, steps);
      if (r) { lo[k] = r.lo; hi[k] = r.hi; }
    }
    return { mid, lo, hi };
  }

  Object.assign(app, { WINDOW, median, stepsOf, expectedRange, fromIndex, judgeRange, levels });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
