/* Change points (bench/changes.json, from `benchtrack detect`) as events: one per series and
 * commit, across the runner sizes that found it, with its recovery (a later step of the same
 * series back the other way) and whether it was dismissed (kept in local storage). */
(function (app) {
  'use strict';

  const { BENCH, IDX, RUNNER_BY_KEY, median } = app;

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

  // Dismissed events, per repository, in this browser's local storage (file:// included).
  const STORE = 'benchtrack.dismissed:' + ((IDX && IDX.repoUrl) || 'local');
  function readDismissed() {
    try { return new Set(JSON.parse(localStorage.getItem(STORE) || '[]')); } catch (e) { return new Set(); }
  }
  const dismissed = readDismissed();
  function setDismissed(key, on) {
    if (on) dismissed.add(key); else dismissed.delete(key);
    try { localStorage.setItem(STORE, JSON.stringify([...dismissed])); } catch (e) { /* storage off: this page only */ }
  }

  function changeEvents() {
    // the index is newest commit first; one event per (series, commit), its sizes in index order
    const byKey = new Map();
    for (const c of (IDX && IDX.changes) || []) {
      const b = BENCH.get(c.series);
      if (!b || !RUNNER_BY_KEY.has(c.runner)) continue;
      const key = c.series + '@' + c.commit;
      if (!byKey.has(key)) byKey.set(key, { key, b, series: c.series, commit: c.commit, i: c.i, bad: isRegression(c, b), points: [], isNew: false });
      const e = byKey.get(key);
      e.points.push(c);
      e.isNew = e.isNew || !!c.new;
    }
    const events = [...byKey.values()];
    for (const e of events) {
      e.runners = e.points.map((c) => c.runner);
      const ch = e.points.map((c) => c.change).filter((x) => x != null).sort((a, b) => a - b);
      e.change = ch.length ? median(ch) : null;
      e.dismissed = dismissed.has(e.key);
    }
    for (const e of events) {
      // recovered: a later step of the same series on one of its sizes, back the other way
      const back = events.filter((o) => o.series === e.series && o.i > e.i && o.bad !== e.bad && o.runners.some((r) => e.runners.includes(r)));
      back.sort((x, y) => x.i - y.i);
      if (back.length) {
        const o = back[0];
        const net = e.change != null && o.change != null ? (1 + e.change) * (1 + o.change) - 1 : null;
        e.recovery = { commit: o.commit, i: o.i, change: o.change, net, whole: net != null && Math.abs(net) < 0.03 };
      }
    }
    return events;
  }
  function changeCounts(events) {
    const live = events.filter((e) => !e.dismissed);
    const bad = live.filter((e) => e.bad);
    return { regressions: bad.length, improvements: live.length - bad.length, all: live.length, fresh: bad.filter((e) => e.isNew).length, dismissed: events.length - live.length };
  }

  Object.assign(app, { isRegression, changeEvents, changeCounts, setDismissed });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
