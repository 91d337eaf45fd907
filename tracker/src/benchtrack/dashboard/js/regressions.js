/* Regressions: the change points `benchtrack detect` published (bench/changes.json), newest
 * first. A regression is a loss: a fall of a bigger-is-better metric, a rise of a
 * smaller-is-better one. Improvements are listed under their own filter. 'new' marks the changes
 * the latest publish reported for the first time (their first_seen is that changes.json's time). */
(function (app) {
  'use strict';

  const { IDX, SHOW, T, changeCounts, changeRows, commitUrl, dateText, el, fmt, hashFor, main,
    matches, nCommits, pct1, render, runnerSize, runnerSwatch, saveState, short, state } = app;

  const SHOW_LABEL = { regressions: 'Regressions', improvements: 'Improvements', all: 'All' };
  const SHOW_NOUN = { regressions: ['regression', 'regressions'], improvements: ['improvement', 'improvements'], all: ['change point', 'change points'] };
  const noun = (kind, n) => n + ' ' + SHOW_NOUN[kind][n === 1 ? 0 : 1];

  function windowAround(i, w) {
    // the x range of the benchmark view that puts commit i in the middle of ±w commits
    const a = Math.max(0, i - w), b = Math.min(nCommits() - 1, i + w);
    return a === 0 && b === nCommits() - 1 ? { from: null, to: null } : { from: T[a], to: T[b] };
  }

  function renderRegressions() {
    const all = changeRows();
    const rows = all.filter((r) => state.runners.includes(r.c.runner) && matches(r.b, state.q));
    const counts = changeCounts(rows);
    const shown = rows.filter((r) => state.show === 'all' || (state.show === 'regressions') === r.bad);
    const filters = el('fieldset', { class: 'show', id: 'show' }, el('legend', { class: 'sr-only', text: 'Show' }),
      ...SHOW.map((k) => el('label', { class: 'seg' },
        el('input', { type: 'radio', name: 'show', value: k, checked: state.show === k, onchange: () => { state.show = k; saveState(); render(); } }),
        el('span', null, SHOW_LABEL[k] + ' ', el('span', { class: 'n', text: counts[k] })))));
    const when = IDX.lastUpdate ? dateText(IDX.lastUpdate / 1000) : '';
    const intro = el('div', { class: 'bench-head' },
      el('h2', { text: 'Regressions' }),
      el('p', { class: 'unit' }, 'Steps in the history found by change-point detection (one benchmark on one runner size; sizes are never compared). ',
        'A regression is a loss: lower throughput, or a rise of a lower-is-better metric. ',
        el('span', { class: 'badge', text: 'new' }), ' = first reported after the latest data' + (when ? ` (${when})` : '') + '.'),
      filters);
    const hidden = all.length - rows.length;
    const note = hidden ? ` · ${hidden} hidden by the runner or name filter` : '';
    if (!all.length || !shown.length) {
      const text = !IDX.detect
        ? 'No change points yet: this history has no bench/changes.json. `benchtrack detect HISTORY --write` writes it (the publish job runs it on every merge).'
        : !all.length ? 'No change points in the history: every series is level.'
          : `No ${SHOW_NOUN[state.show][1]} for the selected runner sizes and filter` + note + '.';
      main.replaceChildren(intro, el('p', { class: 'notice', id: 'changes-empty', text }));
      return;
    }
    const head = ['Benchmark', 'Runner', 'Commit', 'Change', 'Level before → after'];
    const table = el('table', { class: 'changes', id: 'changes-table' },
      el('caption', { text: `${noun(state.show, shown.length)}, newest commit first` + note }),
      el('thead', null, el('tr', null, ...head.map((h) => el('th', { scope: 'col', text: h })))));
    const tb = el('tbody');
    for (const { c, b, bad } of shown) {
      const url = commitUrl(c.i);
      const id = el('code', { text: short(c.commit) });
      const w = windowAround(c.i, 15);
      const up = (c.change ?? 0) > 0;
      tb.append(el('tr', { class: bad ? 'worse' : 'better', 'data-series': c.series, 'data-runner': c.runner, 'data-commit': c.commit, 'data-new': c.new ? '1' : null },
        el('th', { scope: 'row', 'data-label': head[0] },
          el('a', { class: 'series', href: hashFor({ view: 'bench', bench: c.series, runners: [c.runner], from: w.from, to: w.to }), text: c.series }),
          c.new ? el('span', { class: 'badge', title: 'First reported after the latest data', text: 'new' }) : null),
        el('td', { class: 'runner-cell', 'data-label': head[1] }, runnerSwatch(c.runner), ' ', runnerSize(c.runner)),
        el('td', { class: 'commit', 'data-label': head[2] },
          url ? el('a', { href: url, rel: 'noopener', title: 'Open commit ' + c.commit }, id) : id,
          el('span', { class: 'msg', title: IDX.commits.msg[c.i] || null, text: IDX.commits.msg[c.i] || '(no message)' }),
          el('span', { class: 'when', text: dateText(T[c.i]).slice(0, 10) })),
        el('td', { class: 'chg ' + (bad ? 'worse' : 'better'), 'data-label': head[3], 'data-change': c.change ?? '' },
          el('span', { 'aria-hidden': 'true', text: up ? '▲ ' : '▼ ' }), pct1(c.change),
          el('span', { class: 'sr-only', text: bad ? ' (regression)' : ' (improvement)' })),
        el('td', { class: 'level', 'data-label': head[4], text: c.before != null && c.after != null ? `${fmt(c.before)} → ${fmt(c.after)} ${b.unit}` : '—' })));
    }
    table.append(tb);
    main.replaceChildren(intro, table);
  }

  Object.assign(app, { renderRegressions });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
