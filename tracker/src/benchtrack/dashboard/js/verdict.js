/* A verdict per benchmark × runner size and per commit: each of a benchmark's series (wall time,
 * its instruction count) judged against its own expected range (js/expected.js); the benchmark
 * changed when any did, in the direction of the quietest series that moved. Then one sentence per
 * commit: "72421e7: 1 benchmark worse on all runner sizes: python/http/sequential −15 %
 * (instructions +20 %); 79 unchanged". */
(function (app) {
  'use strict';

  const { CHANGES, IDX, PRIMARY, RUNNER_BY_KEY, SERIES, el, expectedRange, fromIndex, hashFor,
    isRegression, judgeRange, median, nCommits, pct, runnerName, seriesOfBench, short, state,
    stepsOf } = app;

  function confirm(j, b, key, ci) {
    // a step change-point detection placed at this very run is a change, in its range or not
    const c = (CHANGES.get(b.name) || []).find((x) => x.runner === key && x.i === ci);
    if (!c || !j) return j;
    return Object.assign(j, { kind: isRegression(c, b) ? 'worse' : 'better', judged: true, confirmed: true,
      change: j.change ?? c.change, range: j.range || { sd: 0 } });
  }
  // A series' judgement at commit ci from the index: only its latest run (no series loaded).
  function latestJudge(b, key, ci) {
    const l = b.last[key];
    if (!l || l[0] !== ci) return null;
    return confirm(Object.assign(judgeRange(fromIndex(l[5]), l[1], b.dir), { v: l[1] }), b, key, ci);
  }
  // From the loaded series: the run at commit `head` against the range expected from the runs up
  // to commit `base` (default: the run before it).
  function seriesJudge(b, key, head, base) {
    const s = (SERIES.get(b.name) || {})[key];
    if (!s) return null;
    let k = -1, kb = -1;
    for (let m = 0; m < s.i.length; m++) {
      if (s.i[m] === head) k = m;
      if (base != null ? s.i[m] <= base : s.i[m] < head) kb = m;
    }
    if (k < 0) return null;
    const j = Object.assign(judgeRange(expectedRange(s.v, kb + 1, stepsOf(b.name, key, s)), s.v[k], b.dir), { v: s.v[k] });
    return kb === k - 1 ? confirm(j, b, key, head) : j;
  }

  // One benchmark on one runner size: every series judged; the quietest that moved decides.
  function benchVerdict(b, judgeOne) {
    const parts = seriesOfBench(b).map((s) => ({ s, j: judgeOne(s) })).filter((p) => p.j);
    const judged = parts.filter((p) => p.j.judged);
    const moved = judged.filter((p) => p.j.kind).sort((x, y) => x.j.range.sd - y.j.range.sd);
    return { kind: moved.length ? moved[0].j.kind : '', measured: parts.length > 0, judged: judged.length > 0, parts, by: moved[0] || null };
  }

  // Every benchmark at commit ci on the selected runner sizes; `judgeFor(b, key)` judges one.
  function commitVerdict(ci, judgeFor) {
    const rows = [];
    for (const b of PRIMARY) {
      const sizes = [];
      for (const key of state.runners) {
        if (!b.runners.includes(key)) continue;
        const v = benchVerdict(b, (s) => judgeFor(s, key));
        if (v.measured) sizes.push({ key, v });
      }
      if (!sizes.length) continue;
      const worse = sizes.filter((x) => x.v.kind === 'worse'), better = sizes.filter((x) => x.v.kind === 'better');
      const kind = worse.length ? 'worse' : better.length ? 'better' : sizes.some((x) => x.v.judged) ? 'unchanged' : 'unjudged';
      const flagged = kind === 'worse' ? worse : kind === 'better' ? better : [];
      // A change in the code shows on every runner size that ran it; one size of several alone is
      // more often that runner's noise (or its machine): named apart, not counted as a change.
      const lone = flagged.length === 1 && sizes.length > 1;
      rows.push({ b, sizes, kind: lone ? 'lone' : kind, flagged, lone: lone ? kind : '' });
    }
    return { ci, rows };
  }

  function changeOf(flagged, series) {
    // the median change vs the expected level of one series over the sizes that moved
    const xs = flagged.map((x) => x.v.parts.find((p) => (p.s.series || '') === series)).filter((p) => p && p.j.judged).map((p) => p.j.change);
    return xs.length ? median(xs.sort((a, b) => a - b)) : null;
  }
  function sizesText(row) {
    const n = row.sizes.length;
    if (row.flagged.length === n) return n > 1 ? 'on all runner sizes' : `on ${runnerName(row.sizes[0].key)}`;
    return 'on ' + row.flagged.map((x) => runnerName(x.key)).join(' and ') + ` (of ${n})`;
  }
  function item(row, kind) {
    const own = changeOf(row.flagged, row.b.series || '');
    const count = changeOf(row.flagged, 'instructions');
    return el('span', { class: 'vitem' },
      el('a', { href: hashFor({ view: 'bench', bench: row.b.name, from: null, to: null }), class: 'vname ' + kind, 'data-bench': row.b.name, 'data-kind': kind, text: row.b.name }),
      ' ' + (own != null ? pct(own) : '') + (count != null && row.b.series == null ? ` (instructions ${pct(count)})` : ''),
      ' ' + sizesText(row));
  }

  // The sentence in its box (each named benchmark a link with data-bench and data-kind), and a
  // second paragraph naming what moved on one runner size only; `note` goes last.
  function verdictSentence(v, id, title, note) {
    const C = IDX.commits;
    const size = (r) => Math.abs(changeOf(r.flagged, '') ?? changeOf(r.flagged, 'instructions') ?? 0);
    const by = (k) => v.rows.filter((r) => r.kind === k).sort((x, y) => size(y) - size(x));
    const worse = by('worse'), better = by('better'), lone = by('lone');
    const unchanged = v.rows.filter((r) => r.kind === 'unchanged').length, unjudged = v.rows.filter((r) => r.kind === 'unjudged').length;
    const p = el('p', { class: 'verdict' + (worse.length ? ' worse' : better.length ? ' better' : ''), id, 'data-commit': C.id[v.ci] },
      el('code', { text: short(C.id[v.ci]) }), ': ');
    const groups = [];
    for (const [rows, word] of [[worse, 'worse'], [better, 'better']]) {
      if (!rows.length) continue;
      const g = el('span', { class: 'vgroup ' + word }, `${rows.length} ${rows.length === 1 ? 'benchmark' : 'benchmarks'} ${word}: `);
      rows.forEach((r, k) => { if (k) g.append('; '); g.append(item(r, r.kind)); });
      groups.push(g);
    }
    if (unchanged || lone.length) groups.push(`${unchanged + lone.length} unchanged`);
    if (unjudged) groups.push(`${unjudged} not judged (fewer than 4 earlier runs)`);
    if (!groups.length) groups.push('nothing measured on the selected runner sizes');
    groups.forEach((g, k) => { if (k) p.append(' · '); p.append(g); });
    // the box's colour: a class, not a :has() rule (those re-match on every chart the page adds)
    const out = el('div', { class: 'verdict-box' + (worse.length ? ' worse' : better.length ? ' better' : '') });
    out.append(el('h2', { class: 'vh', text: title }), p);
    if (lone.length) {
      const q = el('p', { class: 'vlone', id: id + '-lone' }, 'Outside the expected range on one runner size only (more often that runner’s noise than the code): ');
      lone.forEach((r, k) => { if (k) q.append('; '); q.append(item(r, r.lone)); });
      out.append(q);
    }
    if (note) out.append(note);
    return out;
  }

  // The latest commit's verdict, from the index alone (the overview's first screen).
  function latestVerdict() {
    const ci = nCommits() - 1;
    return commitVerdict(ci, (s, key) => latestJudge(s, key, ci));
  }
  function runnerMachine(key, ci) {
    // the machine a runner ran on at commit ci: [since, cpu, os], or null when unknown
    const ms = (RUNNER_BY_KEY.get(key) || {}).machines || [];
    let found = null;
    for (const m of ms) if (m[0] <= ci) found = m;
    return found;
  }

  Object.assign(app, { latestJudge, seriesJudge, benchVerdict, commitVerdict, verdictSentence,
    latestVerdict, runnerMachine });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
