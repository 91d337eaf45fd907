/* Regressions: the steps `benchtrack detect` found (bench/changes.json), one row per event (one
 * change: a benchmark's series and runner sizes within a few commits), newest first: whether the
 * lockstep A/B confirmed it (`benchtrack confirm`: confirmed, candidate, or noise, checked), the
 * commit a bisect named, its sizes, its change, each part's levels, whether a later step brought
 * it back, whether the runner changed machine there. Only confirmed events are counted.
 * Filters: regressions / improvements / all, a date range, the runner and name filters; a row
 * can be dismissed (kept in this browser's local storage). Steps older than data.js keeps are in
 * the archive: the list says how many, and "Load older history" brings them in. */
(function (app) {
  'use strict';

  const { BENCH, IDX, RUNNER_BY_KEY, SHOW, SINCE, T, changeCounts, changeEvents, commitUrl, dateText, el, fmt, hashFor,
    machineText, main, matches, nCommits, nameNodes, pct1, plural, render, runnerMachine,
    runnerName, runnerSize, runnerSwatch, saveState, setDismissed, short, state } = app;

  const SHOW_LABEL = { regressions: 'Regressions', improvements: 'Improvements', all: 'All' };
  const SHOW_NOUN = { regressions: ['regression', 'regressions'], improvements: ['improvement', 'improvements'], all: ['change point', 'change points'] };
  const SINCE_LABEL = { '': 'any time', 7: 'last 7 days', 30: 'last 30 days', 90: 'last 90 days' };
  const noun = (kind, n) => n + ' ' + SHOW_NOUN[kind][n === 1 ? 0 : 1];
  const STATUS_TEXT = { confirmed: 'confirmed', candidate: 'candidate', noise: 'noise, checked' };

  function statusCell(e, label) {
    // what the lockstep A/B said, per runner size it ran on, and the commit a bisect named
    const checks = e.checks.map((c) => `${runnerSize(c.runner)}: ${c.outcome}` + (c.rows[0] && c.rows[0].change != null ? ` ${pct1(c.rows[0].change)}` : ''));
    const found = e.tip ? 'Found in the newest runs (a step at the tip)' : 'Found by change-point detection';
    const title = e.status === 'candidate' ? found + '; not yet checked in lockstep (benchtrack confirm)'
      : 'Lockstep A/B of the commit before against the commit after: ' + checks.join('; ');
    const cell = el('td', { class: 'status', 'data-label': label, 'data-status': e.status, 'data-tip': e.tip ? 'true' : null, title },
      STATUS_TEXT[e.status] || e.status, e.tip ? ' · at the tip' : '');
    if (e.culprit) {
      cell.append(el('span', { class: 'culprit', 'data-commit': e.culprit.commit }, ' · at ', el('code', { text: short(e.culprit.commit) }),
        e.culprit.pr ? ` (#${e.culprit.pr})` : ''));
    }
    const run = e.checks.find((c) => c.run);
    if (run && /^https?:\/\//i.test(run.run)) cell.append(' ', el('a', { href: run.run, rel: 'noopener', text: 'run' }));
    // the gate's diagnosis of the loss (its "Why it is slower" line), as text: names are the run's
    const why = e.checks.find((c) => c.why);
    if (why) cell.append(el('div', { class: 'why', text: 'why: ' + why.why }));
    return cell;
  }

  function partText(e, c) {
    // one part of the event: its size, its series when not the wall time, its levels
    const b = BENCH.get(c.series);
    const what = c.series === e.series ? '' : (b && b.series ? b.series + ' ' : c.series + ' ');
    const levels = c.before != null && c.after != null ? `${fmt(c.before)} → ${fmt(c.after)} ${b ? b.unit : ''}` : '—';
    return `${runnerSize(c.runner)} ${what}${pct1(c.change)}: ${levels}`.trim();
  }

  function windowAround(i, w) {
    // the x range of the benchmark view that puts commit i in the middle of ±w commits
    const a = Math.max(0, i - w), b = Math.min(nCommits() - 1, i + w);
    return a === 0 && b === nCommits() - 1 ? { from: null, to: null } : { from: T[a], to: T[b] };
  }

  function emptyText(all, note) {
    const d = IDX.detect;
    if (!d) return 'No change points yet: this history has no bench/changes.json. `benchtrack detect HISTORY --write` writes it (the publish job runs it on every merge).';
    if (!all.length && d.series && d.skipped >= d.series) {
      return `No series can be judged yet: change-point detection needs ${d.min_points} runs of a series (${d.min_points / 2} on each side of a step), and this history has ${plural(nCommits(), 'run', 'runs')}.`;
    }
    if (!all.length) return 'No change points in the history: every series it could judge is level' + (d.skipped ? ` (${d.skipped} too short to judge yet)` : '') + '.';
    return `No ${SHOW_NOUN[state.show][1]} for the selected runner sizes, dates and filter` + note + '.';
  }

  function machineNote(e) {
    // the runner changed machine at this commit: the step may be the machine, not the code
    const moved = e.runners.filter((k) => (RUNNER_BY_KEY.get(k).machines || []).some((m, n) => n > 0 && m[0] === e.i));
    return moved.length ? el('span', { class: 'machine-note', text: `the runner changed machine here (${moved.map((k) => `${runnerName(k)}: ${machineText(runnerMachine(k, e.i))}`).join('; ')})` }) : null;
  }

  function renderRegressions() {
    const all = changeEvents();
    const since = state.since ? T[nCommits() - 1] - Number(state.since) * 86400 : -Infinity;
    const rows = all.filter((e) => e.runners.some((k) => state.runners.includes(k)) && matches(e.b, state.q) && T[e.i] >= since);
    const counts = changeCounts(rows);
    const shown = rows.filter((e) => (state.hidden || !e.dismissed) && (state.show === 'all' || (state.show === 'regressions') === e.bad));
    const filters = el('fieldset', { class: 'show', id: 'show' }, el('legend', { class: 'sr-only', text: 'Show' }),
      ...SHOW.map((k) => el('label', { class: 'seg' },
        el('input', { type: 'radio', name: 'show', value: k, checked: state.show === k, onchange: () => { state.show = k; saveState(); render(); } }),
        el('span', null, SHOW_LABEL[k] + ' ', el('span', { class: 'n', text: counts[k] })))));
    const dates = el('select', { id: 'since', onchange: (e) => { state.since = e.target.value; saveState(); render(); } },
      ...SINCE.map((k) => el('option', { value: k, selected: state.since === k, text: SINCE_LABEL[k] })));
    const hiddenBox = counts.dismissed ? el('label', { class: 'rel' }, el('input', { type: 'checkbox', id: 'show-dismissed', checked: state.hidden,
      onchange: (e) => { state.hidden = e.target.checked; saveState(); render(); } }), ` Show ${counts.dismissed} dismissed`) : null;
    const when = IDX.lastUpdate ? dateText(IDX.lastUpdate / 1000) : '';
    const older = IDX.archive && IDX.archive.changes && !IDX.archive.loaded ? el('p', { class: 'notice info', id: 'older-changes' },
      `${plural(IDX.archive.changes, 'older change point is', 'older change points are')} in the archived history: load older history (the button at the top) to see ${IDX.archive.changes === 1 ? 'it' : 'them'}.`) : null;
    const intro = el('div', { class: 'bench-head' },
      el('h2', { text: 'Regressions' }),
      el('p', { class: 'unit' }, 'Steps in the history found by change-point detection, one row per change: a benchmark’s wall time and instruction count and its runner sizes within a few commits (sizes are never compared). ',
        'Each is a candidate until a lockstep A/B of the commit before against the commit after confirms it; only confirmed ones are counted, those it did not find stay listed as noise, checked. ',
        'A regression is a loss: lower throughput, or a rise of a lower-is-better metric. ',
        el('span', { class: 'badge', text: 'new' }), ' = first reported after the latest data' + (when ? ` (${when})` : '') + '.'),
      el('div', { class: 'filters' }, filters, el('label', { class: 'pick' }, 'Found ', dates), hiddenBox), older);
    const hidden = all.length - rows.length;
    const note = hidden ? ` · ${hidden} hidden by the runner, date or name filter` : '';
    if (!shown.length) {
      main.replaceChildren(intro, el('p', { class: 'notice', id: 'changes-empty', text: emptyText(all, note) }));
      return;
    }
    const head = ['Benchmark', 'Status', 'Runner sizes', 'Commit', 'Change', 'Level before → after', 'Since', ''];
    const confirmed = shown.filter((e) => e.status === 'confirmed').length;
    const table = el('table', { class: 'changes', id: 'changes-table' },
      el('caption', { text: `${noun(state.show, confirmed)} confirmed, ${shown.filter((e) => e.status === 'candidate').length} candidates, ${shown.filter((e) => e.status === 'noise').length} noise (checked); newest commit first` + note }),
      el('thead', null, el('tr', null, ...head.map((h) => el('th', { scope: 'col', text: h })))));
    const tb = el('tbody');
    for (const e of shown) {
      const url = commitUrl(e.i);
      const id = el('code', { text: short(e.commit) });
      const w = windowAround(e.i, 15);
      const up = (e.change ?? 0) > 0;
      const one = e.runners.length === 1 ? e.runners[0] : '';
      const rec = e.recovery;
      tb.append(el('tr', { class: (e.bad ? 'worse' : 'better') + (e.dismissed ? ' dismissed' : ''), 'data-series': e.series, 'data-status': e.status, 'data-parts': e.points.length, 'data-runners': e.runners.join(','), 'data-runner': one || null, 'data-commit': e.commit, 'data-new': e.isNew ? '1' : null },
        el('th', { scope: 'row', 'data-label': head[0] },
          el('a', { class: 'series', href: hashFor({ view: 'bench', bench: e.series, only: one, from: w.from, to: w.to }) }, ...nameNodes(e.series)),
          e.isNew && !e.dismissed ? el('span', { class: 'badge', title: 'First reported after the latest data', text: 'new' }) : null),
        statusCell(e, head[1]),
        el('td', { class: 'runner-cell', 'data-label': head[2] }, ...e.runners.flatMap((k, n) => [n ? ', ' : '', runnerSwatch(k), ' ', runnerSize(k)])),
        el('td', { class: 'commit', 'data-label': head[3] },
          url ? el('a', { href: url, rel: 'noopener', title: 'Open commit ' + e.commit }, id) : id,
          el('span', { class: 'msg', title: IDX.commits.msg[e.i] || null, text: IDX.commits.msg[e.i] || '(no message)' }),
          el('span', { class: 'when', text: dateText(T[e.i]).slice(0, 10) }), machineNote(e)),
        el('td', { class: 'chg ' + (e.bad ? 'worse' : 'better'), 'data-label': head[4], 'data-change': e.change ?? '' },
          el('span', { 'aria-hidden': 'true', text: up ? '▲ ' : '▼ ' }), pct1(e.change),
          el('span', { class: 'sr-only', text: e.bad ? ' (regression)' : ' (improvement)' })),
        el('td', { class: 'level', 'data-label': head[5], text: e.points.map((c) => partText(e, c)).join(' · ') }),
        el('td', { class: 'recovery', 'data-label': 'Since', 'data-recovered': rec ? (rec.whole ? 'whole' : 'partly') : null },
          rec ? [rec.whole ? 'recovered at ' : 'partly reversed at ', el('code', { text: short(rec.commit) }), ` (${pct1(rec.change)})`] : 'not reversed'),
        el('td', { class: 'act' }, el('button', { type: 'button', class: 'dismiss', 'aria-label': (e.dismissed ? 'Restore ' : 'Dismiss ') + e.series + ' at ' + short(e.commit),
          onclick: () => { setDismissed(e.key, !e.dismissed); render(); app.renderHeader(); } }, e.dismissed ? 'Restore' : 'Dismiss'))));
    }
    table.append(tb);
    main.replaceChildren(intro, el('div', { class: 'scroll' }, table));
  }

  Object.assign(app, { renderRegressions });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
