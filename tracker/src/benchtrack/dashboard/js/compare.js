/* Compare: two commits side by side, the changes sorted by size. */
(function (app) {
  'use strict';

  const { BENCHES, IDX, commitIndex, commitOptions, dateText, el, flaggedAt, fmt, go, hashFor,
    judge, loadAll, main, matches, nCommits, onScreen, pct, runnerSwatch, short, state, valueAt } = app;

  function renderCompare() {
    let hi = commitIndex(state.head); if (hi < 0) hi = nCommits() - 1;
    let bi = commitIndex(state.base); if (bi < 0) bi = Math.max(0, hi - 1);
    const sb = el('select', { id: 'compare-base', onchange: (e) => go({ base: e.target.value, head: IDX.commits.id[hi] }) });
    const sh = el('select', { id: 'compare-head', onchange: (e) => go({ head: e.target.value, base: IDX.commits.id[bi] }) });
    commitOptions(sb, bi); commitOptions(sh, hi);
    const C = IDX.commits;
    const side = (i, label) => el('div', { class: 'side' }, el('h3', { text: label }), el('p', null, el('code', { text: short(C.id[i]) }), ' · ', dateText(C.t[i])),
      el('p', { class: 'msg', text: C.msg[i] }), el('p', { class: 'who', text: C.author[i] ? 'by ' + C.author[i] : '' }));
    const table = el('table', { class: 'compare', id: 'compare-table' },
      el('caption', { text: 'Changes per benchmark and runner size (results are never compared across runner sizes), largest first' }),
      el('thead', null, el('tr', null, ...['Benchmark', 'Runner', 'Base', 'Head', 'Change'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', null, el('tr', null, el('td', { colspan: '5', text: 'Loading…' }))));
    main.replaceChildren(el('div', { class: 'bench-head' }, el('h2', { text: 'Compare two commits' }),
      el('div', { class: 'pickers' }, el('label', { class: 'pick' }, 'Base ', sb), el('label', { class: 'pick' }, 'Head ', sh))),
    el('div', { class: 'sides' }, side(bi, 'Base'), side(hi, 'Head')), table);
    const token = onScreen.token;
    loadAll().then(() => {
      if (token !== onScreen.token) return;
      const rows = [];
      for (const b of BENCHES) {
        if (!matches(b, state.q)) continue;
        for (const k of state.runners) {
          const a = valueAt(b.name, k, bi), h = valueAt(b.name, k, hi);
          if (!a && !h) continue;
          const j = a && h ? judge(b.dir, a, h, flaggedAt(b.name, k, Math.min(bi, hi), Math.max(bi, hi))) : null;
          rows.push({ b, k, a, h, j, ch: a && h ? h.v / a.v - 1 : null });
        }
      }
      rows.sort((x, y) => (y.ch == null ? -1 : Math.abs(y.ch)) - (x.ch == null ? -1 : Math.abs(x.ch)) || x.b.name.localeCompare(y.b.name));
      const tb = el('tbody');
      for (const r of rows) {
        tb.append(el('tr', { 'data-bench': r.b.name, 'data-runner': r.k },
          el('td', null, el('a', { href: hashFor({ view: 'bench', bench: r.b.name, from: null, to: null }), text: r.b.name })),
          el('td', null, runnerSwatch(r.k), ' ', r.k),
          el('td', { text: r.a ? fmt(r.a.v, 4) + ' ' + r.b.unit : '—' }),
          el('td', { text: r.h ? fmt(r.h.v, 4) + ' ' + r.b.unit : '—' }),
          el('td', { class: 'chg' + (r.j && r.j.kind ? ' ' + r.j.kind : ''), 'data-change': r.ch ?? '', 'data-judged': r.j ? r.j.why : null, title: r.j ? r.j.note : null,
            text: r.ch == null ? 'missing' : pct(r.ch) + (r.j.kind ? ' ' + r.j.kind : r.j.why === 'noise' ? ' (within spread)' : '') })));
      }
      if (!rows.length) tb.append(el('tr', null, el('td', { colspan: '5', text: 'Nothing to compare.' })));
      table.tBodies[0].replaceWith(tb);
    });
  }

  Object.assign(app, { renderCompare });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
