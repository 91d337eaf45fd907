/* The Overview: what changed at the latest merge (one sentence), then suites and groups as
 * sections, a small-multiples grid per group, drawn in view only. */
(function (app) {
  'use strict';

  const { BENCH, FIRST_RUN, IDX, PRIMARY, SPANS, benchVerdict, changeCounts, changeEvents, el,
    fmt, hashFor, latestJudge, latestVerdict, listedWith, main, matches, miniChart, nCommits,
    observe, pct, plural, render, runnerName, runnerSwatch, runsText, saveState, state,
    verdictSentence } = app;

  const SPAN_LABEL = { '': 'All', 90: '90 days', 30: '30 days' };

  function chipTitle(b, v, ch) {
    // what the card's colour means, in words
    if (!v.judged) return `${ch != null ? pct(ch) + ' vs the run before; ' : ''}not judged yet: fewer than 4 earlier runs of this series since its last step, too few to know its noise.`;
    const parts = v.parts.filter((p) => p.j.judged).map((p) => {
      const r = p.j.range;
      const what = p.s.series === 'instructions' ? 'instructions' : 'this run';
      if (p.j.confirmed) return `${what}: a step change-point detection placed here`;
      return `${what} ${pct(p.j.change)} vs its expected ${fmt(r.center)} (range ${fmt(r.lo)}–${fmt(r.hi)} from the last ${r.runs} runs): ${p.j.kind ? (p.j.kind === 'worse' ? 'outside, worse' : 'outside, better') : 'inside'}`;
    });
    return (v.kind ? (v.kind === 'worse' ? 'Worse' : 'Better') : 'Unchanged') + (ch != null ? ` (${pct(ch)})` : '') + ' — ' + parts.join('; ');
  }

  function chips(b, ci) {
    const row = el('ul', { class: 'last' });
    for (const k of state.runners) {
      const l = b.last[k];
      if (!l) continue;
      // l: [commit index, value, ± half-width, previous value, its ± half-width, expected range]
      const latest = l[0] === ci;
      const v = latest ? benchVerdict(b, (s) => latestJudge(s, k, ci)) : null;
      const own = v && v.parts.find((p) => p.s === b);
      // vs the level its history expects; not judged yet (too few runs): vs the run before
      const ch = own && own.j.change != null ? own.j.change : l[3] ? l[1] / l[3] - 1 : null;
      row.append(el('li', null, runnerSwatch(k), el('span', { class: 'rk', text: runnerName(k) }),
        el('span', { class: 'val', text: fmt(l[1]) }),
        v && v.measured && nCommits() > 1 ? el('span', {
          class: 'chg ' + (v.kind || (v.judged ? 'inside' : 'unjudged')), 'data-judged': v.kind || (v.judged ? 'inside' : 'unjudged'),
          'data-runner': k, 'data-by': v.by ? v.by.s.series || 'time' : null,
          title: chipTitle(b, v, ch), text: ch != null ? pct(ch) : '·' }) : null,
        latest ? null : el('span', { class: 'stale', title: 'not measured at the latest run', text: '(older)' })));
    }
    return row;
  }

  function renderOverview() {
    const frag = document.createDocumentFragment();
    const hosts = [];
    let shown = 0;
    const ci = nCommits() - 1;
    let groupsShown = 0;
    for (const s of IDX.suites) {
      const sec = el('section', { class: 'suite', 'aria-labelledby': 'suite-' + s.name });
      sec.append(el('h2', { id: 'suite-' + s.name, text: s.name }));
      let suiteShown = 0;
      for (const g of s.groups) {
        const grid = el('div', { class: 'grid' });
        let n = 0;
        const changed = { worse: 0, better: 0 };
        for (const b of g.benches) {
          if (listedWith(b) || !matches(b, state.q)) continue;
          n++;
          const host = el('div', { class: 'mini', 'data-bench': b.name, role: 'img', 'aria-label': 'Trend of ' + b.name + ' per runner size' });
          hosts.push(host);
          const link = el('a', { class: 'card', href: hashFor({ view: 'bench', bench: b.name, from: null, to: null }), 'data-name': b.name },
            el('span', { class: 'card-head' }, el('span', { class: 'card-title', text: b.variant }),
              el('span', { class: 'card-unit', text: b.unit + (b.dir === 'smaller' ? ' · lower is better' : '') })),
            host, chips(b, ci), companionLine(b));
          grid.append(link);
          for (const kind of ['worse', 'better']) if (link.querySelector('.last .chg.' + kind)) changed[kind]++;
        }
        if (!n) continue;
        suiteShown += n;
        sec.append(groupSection(g, n, changed, grid, !groupsShown++));
      }
      if (suiteShown) { frag.append(sec); shown += suiteShown; }
    }
    const summary = el('p', { class: 'summary', id: 'summary', text: `${shown} of ${plural(PRIMARY.length, 'benchmark', 'benchmarks')}` + (state.q ? ` match “${state.q}”` : '') + ` · ${runsText()} · a line per runner size: its level over the faint runs, the band its history expects; click a card to zoom` });
    const span = el('fieldset', { class: 'show span', id: 'span' }, el('legend', { class: 'sr-only', text: 'Time span' }),
      ...SPANS.map((k) => el('label', { class: 'seg' },
        el('input', { type: 'radio', name: 'span', value: k, checked: state.span === k, onchange: () => { state.span = k; saveState(); render(); } }),
        el('span', { text: SPAN_LABEL[k] }))));
    const rel = el('label', { class: 'rel' }, el('input', { type: 'checkbox', id: 'norm-overview', checked: state.norm,
      onchange: (e) => { state.norm = e.target.checked; saveState(); render(); } }), ' Relative: each line divided by its first runs');
    const counts = changeCounts(changeEvents());
    // confirmed regressions are counted; candidates (not yet checked in lockstep) said apart
    const pending = counts.badCandidates ? `${counts.regressions ? ' · ' : ''}${plural(counts.badCandidates, 'candidate', 'candidates')} not yet confirmed` : '';
    const flagged = counts.regressions || counts.badCandidates ? el('p', { class: 'flagged', id: 'flagged', 'data-confirmed': counts.regressions, 'data-candidates': counts.badCandidates },
      el('span', { class: 'flag-icon', 'aria-hidden': 'true', text: '▼' }),
      (counts.regressions ? `${counts.regressions} ${counts.regressions === 1 ? 'regression' : 'regressions'} confirmed in lockstep` : '') + pending,
      counts.fresh ? el('span', { class: 'badge', text: counts.fresh + ' new' }) : null,
      el('a', { href: hashFor({ view: 'regressions', from: null, to: null }), text: 'See the list' })) : null;
    const first = nCommits() === 1 ? el('p', { class: 'notice info', id: 'first-run', text: FIRST_RUN }) : null;
    const verdict = nCommits() > 1 ? verdictSentence(latestVerdict(), 'verdict', 'The latest run',
      el('p', { class: 'vnote' }, 'Each benchmark judged against the range its own recent runs expect (its instruction count too, where it has one); ',
        el('a', { href: hashFor({ view: 'compare', base: IDX.commits.id[ci - 1], head: IDX.commits.id[ci], changed: true }), text: 'compare with the run before' }), '.')) : null;
    main.replaceChildren(...(first ? [first] : []), ...(verdict ? [verdict] : []), ...(flagged ? [flagged] : []),
      el('div', { class: 'bar' }, summary, el('div', { class: 'bar-tools' }, span, rel)), frag);
    if (!shown) main.append(el('p', { class: 'notice', text: 'No benchmark matches the filter.' }));
    observe(hosts, miniChart);
  }

  // A group is a <details>, open on a wide screen. On a phone (the 640 px of style.css) only the
  // first group is open (every group while the name filter is on); the others are their summary
  // line (name, count, how many changed at the latest run) until tapped. A group opened or closed
  // by hand stays so until the page is reloaded.
  const PHONE = window.matchMedia('(max-width: 640px)');
  const toggled = new Map();  // group key -> open
  function groupSection(g, n, changed, grid, first) {
    const open = toggled.has(g.key) ? toggled.get(g.key) : !PHONE.matches || first || !!state.q;
    const box = el('details', { class: 'group', 'data-group': g.key, open },
      el('summary', { onclick: () => toggled.set(g.key, !box.open) },
        el('h3', { id: 'g-' + g.key }, el('span', { text: g.name || '(no group)' }),
          el('span', { class: 'count', text: n + (n === 1 ? ' benchmark' : ' benchmarks') }),
          ...['worse', 'better'].map((kind) => (changed[kind] ? el('span', { class: 'chg ' + kind, title: `${changed[kind]} of its benchmarks ${kind} at the latest run`, text: `${changed[kind]} ${kind}` }) : null)))),
      grid);
    return box;
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
