/* Compare: two commits side by side. The head's runs are judged against the range the base's
 * recent history expects (js/verdict.js): a sentence first, then every benchmark × runner size,
 * the changes that count first; "changed only" hides the rest. */
(function (app) {
  'use strict';

  const { IDX, PRIMARY, benchVerdict, commitIndex, commitOptions, commitVerdict, dateText, el, fmt,
    go, hashFor, loadAll, main, matches, nCommits, nameNodes, onScreen, pct, runnerSwatch,
    saveState, seriesJudge, short, state, valueAt, verdictSentence } = app;

  const RANK = { worse: 0, better: 1, '': 2 };

  function renderCompare() {
    if (nCommits() < 2) {
      main.replaceChildren(el('div', { class: 'bench-head' }, el('h2', { text: 'Compare two commits' })),
        el('p', { class: 'notice info', id: 'compare-empty', text: `Compare needs two runs; this history has ${nCommits()} so far. It fills in from the next run.` }));
      return;
    }
    let hi = commitIndex(state.head); if (hi < 0) hi = nCommits() - 1;
    let bi = commitIndex(state.base); if (bi < 0) bi = Math.max(0, hi - 1);
    const sb = el('select', { id: 'compare-base', onchange: (e) => go({ base: e.target.value, head: IDX.commits.id[hi] }) });
    const sh = el('select', { id: 'compare-head', onchange: (e) => go({ head: e.target.value, base: IDX.commits.id[bi] }) });
    commitOptions(sb, bi); commitOptions(sh, hi);
    const C = IDX.commits;
    const side = (i, label) => el('div', { class: 'side' }, el('h3', { text: label }), el('p', null, el('code', { text: short(C.id[i]) }), ' · ', dateText(C.t[i])),
      el('p', { class: 'msg', text: C.msg[i] }), el('p', { class: 'who', text: C.author[i] ? 'by ' + C.author[i] : '' }));
    const only = el('label', { class: 'rel' }, el('input', { type: 'checkbox', id: 'changed-only', checked: state.changed,
      onchange: (e) => { state.changed = e.target.checked; saveState(); renderCompare(); } }), ' Changed only');
    const table = el('table', { class: 'compare', id: 'compare-table' },
      el('caption', { text: 'Each benchmark and runner size (never compared across sizes): the head against the range the base’s recent runs expect; changes first' }),
      el('thead', null, el('tr', null, ...['Benchmark', 'Runner', 'Base', 'Head', 'Change', 'Instructions'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', null, el('tr', null, el('td', { colspan: '6', text: 'Loading…' }))));
    const same = bi === hi ? el('p', { class: 'notice info', id: 'compare-same', text: 'Base and head are the same commit: pick two different ones.' }) : null;
    const sentence = el('div', { id: 'compare-verdict' });
    main.replaceChildren(el('div', { class: 'bench-head' }, el('h2', { text: 'Compare two commits' }),
      el('div', { class: 'pickers' }, el('label', { class: 'pick' }, 'Base ', sb), el('label', { class: 'pick' }, 'Head ', sh), only)),
    el('div', { class: 'sides' }, side(bi, 'Base'), side(hi, 'Head')), ...(same ? [same] : [sentence]), el('div', { class: 'scroll' }, table));
    if (same) { table.tBodies[0].replaceChildren(); return; }
    const token = onScreen.token;
    loadAll().then(() => {
      if (token !== onScreen.token) return;
      const judge = (s, key) => seriesJudge(s, key, hi, bi);
      sentence.replaceChildren(verdictSentence(commitVerdict(hi, judge), 'verdict', 'Head against the base’s recent runs'));
      const rows = [];
      for (const b of PRIMARY) {
        if (!matches(b, state.q)) continue;
        for (const k of state.runners) {
          const a = valueAt(b.name, k, bi), h = valueAt(b.name, k, hi);
          if (!a && !h) continue;
          const v = a && h ? benchVerdict(b, (s) => judge(s, k)) : null;
          const count = v && v.parts.find((p) => p.s.series === 'instructions');
          const ca = count && valueAt(count.s.name, k, bi), chd = count && valueAt(count.s.name, k, hi);
          rows.push({ b, k, a, h, v, count, ch: a && h ? h.v / a.v - 1 : null, cch: ca && chd ? chd.v / ca.v - 1 : null });
        }
      }
      const kind = (r) => (r.v ? r.v.kind : '');
      rows.sort((x, y) => RANK[kind(x)] - RANK[kind(y)] || (y.ch == null ? -1 : Math.abs(y.ch)) - (x.ch == null ? -1 : Math.abs(x.ch)) || x.b.name.localeCompare(y.b.name));
      const tb = el('tbody');
      let hidden = 0;
      for (const r of rows) {
        if (state.changed && !kind(r)) { hidden++; continue; }
        const why = !r.v ? 'missing on one side' : kind(r) ? kind(r) : r.v.judged ? 'inside the expected range' : 'not judged (too few earlier runs)';
        tb.append(el('tr', { 'data-bench': r.b.name, 'data-runner': r.k, class: kind(r) || null },
          el('td', { class: 'name', 'data-label': 'Benchmark' }, el('a', { href: hashFor({ view: 'bench', bench: r.b.name, from: null, to: null }) }, ...nameNodes(r.b.name))),
          el('td', { 'data-label': 'Runner' }, runnerSwatch(r.k), ' ', r.k),
          el('td', { 'data-label': 'Base', text: r.a ? fmt(r.a.v, 4) + ' ' + r.b.unit : '—' }),
          el('td', { 'data-label': 'Head', text: r.h ? fmt(r.h.v, 4) + ' ' + r.b.unit : '—' }),
          el('td', { class: 'chg' + (kind(r) ? ' ' + kind(r) : ''), 'data-label': 'Change', 'data-change': r.ch ?? '', 'data-judged': r.v ? (kind(r) || (r.v.judged ? 'inside' : 'unjudged')) : null, title: why,
            text: r.ch == null ? 'missing' : pct(r.ch) + (kind(r) ? ' ' + kind(r) : '') }),
          el('td', { class: 'chg' + (r.count && r.count.j.kind ? ' ' + r.count.j.kind : ''), 'data-label': 'Instructions',
            text: r.cch != null ? pct(r.cch) : '—' })));
      }
      if (!tb.childElementCount) tb.append(el('tr', null, el('td', { colspan: '6', text: hidden ? `No change between these commits (${hidden} benchmark × runner pairs inside their expected ranges).` : 'Nothing to compare.' })));
      table.tBodies[0].replaceWith(tb);
    });
  }

  Object.assign(app, { renderCompare });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
