/* The Overview: suites and groups as sections, a small-multiples grid per group, drawn in view
 * only. */
(function (app) {
  'use strict';

  const { BENCH, FIRST_RUN, IDX, PRIMARY, changeCounts, changeRows, el, flaggedAt, fmt, hashFor,
    judge, listedWith, main, matches, miniChart, nCommits, observe, pct, plural, render, runnerName,
    runnerSwatch, runsText, saveState, state } = app;

  function renderOverview() {
    const frag = document.createDocumentFragment();
    const hosts = [];
    let shown = 0;
    for (const s of IDX.suites) {
      const sec = el('section', { class: 'suite', 'aria-labelledby': 'suite-' + s.name });
      sec.append(el('h2', { id: 'suite-' + s.name, text: s.name }));
      let suiteShown = 0;
      for (const g of s.groups) {
        const grid = el('div', { class: 'grid' });
        let n = 0;
        for (const b of g.benches) {
          if (listedWith(b) || !matches(b, state.q)) continue;
          n++;
          const host = el('div', { class: 'mini', 'data-bench': b.name, role: 'img', 'aria-label': 'Trend of ' + b.name + ' per runner size' });
          hosts.push(host);
          const lastRow = el('ul', { class: 'last' });
          for (const k of state.runners) {
            const l = b.last[k];
            if (!l) continue;
            // l: [commit index, value, ± half-width, previous value, its ± half-width]
            const ch = l[3] ? l[1] / l[3] - 1 : null;
            const j = ch == null ? null : judge(b.dir, { v: l[3], r: l[4] ?? NaN }, { v: l[1], r: l[2] ?? NaN }, flaggedAt(b.name, k, l[0] - 1, l[0]));
            lastRow.append(el('li', null, runnerSwatch(k), el('span', { class: 'rk', text: runnerName(k) }),
              el('span', { class: 'val', text: fmt(l[1]) }),
              j ? el('span', { class: 'chg' + (j.kind ? ' ' + j.kind : ' ' + j.why), 'data-judged': j.why, title: `${pct(ch)} vs the previous run: ${j.note}`, text: pct(ch) }) : null));
          }
          const link = el('a', { class: 'card', href: hashFor({ view: 'bench', bench: b.name, from: null, to: null }), 'data-name': b.name },
            el('span', { class: 'card-head' }, el('span', { class: 'card-title', text: b.variant }),
              el('span', { class: 'card-unit', text: b.unit + (b.dir === 'smaller' ? ' · lower is better' : '') })),
            host, lastRow, companionLine(b));
          grid.append(link);
        }
        if (!n) continue;
        suiteShown += n;
        sec.append(el('section', { class: 'group', 'aria-labelledby': 'g-' + g.key },
          el('h3', { id: 'g-' + g.key }, el('span', { text: g.name || '(no group)' }), el('span', { class: 'count', text: n + (n === 1 ? ' benchmark' : ' benchmarks') })),
          grid));
      }
      if (suiteShown) { frag.append(sec); shown += suiteShown; }
    }
    const summary = el('p', { class: 'summary', id: 'summary', text: `${shown} of ${plural(PRIMARY.length, 'benchmark', 'benchmarks')}` + (state.q ? ` match “${state.q}”` : '') + ` · ${runsText()} · drag on a chart to zoom, click a card for details` });
    const rel = el('label', { class: 'rel' }, el('input', { type: 'checkbox', id: 'norm-overview', checked: state.norm,
      onchange: (e) => { state.norm = e.target.checked; saveState(); render(); } }), ' Relative: each line divided by its first point');
    const counts = changeCounts(changeRows());
    const flagged = counts.regressions ? el('p', { class: 'flagged', id: 'flagged' },
      el('span', { class: 'flag-icon', 'aria-hidden': 'true', text: '▼' }),
      `${counts.regressions} ${counts.regressions === 1 ? 'regression' : 'regressions'} flagged by change-point detection`,
      counts.fresh ? el('span', { class: 'badge', text: counts.fresh + ' new' }) : null,
      el('a', { href: hashFor({ view: 'regressions', from: null, to: null }), text: 'See the list' })) : null;
    const first = nCommits() === 1 ? el('p', { class: 'notice info', id: 'first-run', text: FIRST_RUN }) : null;
    main.replaceChildren(el('div', { class: 'bar' }, summary, rel), ...(first ? [first] : []), ...(flagged ? [flagged] : []), frag);
    if (!shown) main.append(el('p', { class: 'notice', text: 'No benchmark matches the filter.' }));
    observe(hosts, miniChart);
  }

  function companionLine(b) {
    // a card's companions: their latest value on the first selected runner that has one
    const comps = (b.companions || []).map((n) => BENCH.get(n));
    const parts = [];
    for (const c of comps) {
      const k = state.runners.find((r) => c.last[r]);
      if (k) parts.push(`${c.series}: ${fmt(c.last[k][1])} ${c.unit.replace(/^instructions\//, '/ ')}`);
    }
    return parts.length ? el('p', { class: 'card-companion', text: '+ ' + parts.join(' · ') }) : null;
  }

  Object.assign(app, { renderOverview });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
