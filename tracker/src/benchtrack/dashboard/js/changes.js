/* Change points (bench/changes.json, from `benchtrack detect`) as events: one per change (a
 * benchmark's series and runner sizes within a few commits, grouped by `benchtrack site`), with
 * its confirmation (bench/confirmations.json, `benchtrack confirm`), its recovery (a later event
 * of the same benchmark back the other way) and whether it was dismissed (local storage). */
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
    // one event per change (bench/changes.json grouped by `benchtrack site`: a benchmark's
    // series and runner sizes within a few commits), newest commit first, with its confirmation:
    // status confirmed / noise (checked) / candidate, its checks and the commit a bisect named
    const events = [];
    for (const x of (IDX && IDX.events) || []) {
      // its parts: indices into IDX.changes, where each part's own figures are
      const parts = x.parts.map((k) => IDX.changes[k]).filter((c) => c && BENCH.has(c.series) && RUNNER_BY_KEY.has(c.runner));
      if (!parts.length) continue;
      const b = BENCH.get(x.benchmark) || BENCH.get(parts[0].series);
      events.push({ key: x.id, b, series: b.name, commit: x.commit, i: x.i, bad: isRegression(parts[0], b),
        points: parts, runners: x.runners.filter((k) => parts.some((c) => c.runner === k)), change: x.change, isNew: !!x.new,
        status: x.status || 'candidate', checks: x.checks || [], culprit: x.culprit || null,
        tip: !!x.tip, dismissed: dismissed.has(x.id) });
    }
    for (const e of events) {
      // recovered: a later step of the same benchmark on one of its sizes, back the other way
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
    // only confirmed events are counted; candidates are shown and counted apart; noise never
    const live = events.filter((e) => !e.dismissed);
    const counted = live.filter((e) => e.status === 'confirmed');
    const bad = counted.filter((e) => e.bad);
    return { regressions: bad.length, improvements: counted.length - bad.length, all: counted.length,
      fresh: bad.filter((e) => e.isNew).length, dismissed: events.length - live.length,
      candidates: live.filter((e) => e.status === 'candidate').length,
      badCandidates: live.filter((e) => e.status === 'candidate' && e.bad).length,
      noise: live.filter((e) => e.status === 'noise').length };
  }

  Object.assign(app, { isRegression, changeEvents, changeCounts, setDismissed });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
