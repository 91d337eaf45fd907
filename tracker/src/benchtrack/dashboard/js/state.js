/* The state of the page and the URL that holds it (the permalink): view, benchmark, runners, x
 * range, toggles, commits, search. */
(function (app) {
  'use strict';

  const { BENCH, IDX, RUNNERS, RUNNER_BY_KEY } = app;

  const state = {};
  const VIEWS = ['overview', 'bench', 'scaling', 'compare', 'regressions'];
  const SHOW = ['regressions', 'improvements', 'all'];   // what the Regressions list shows
  const SPANS = ['', '90', '30'];                        // the overview's x range: all, or days
  const SINCE = ['', '7', '30', '90'];                   // the Regressions list: all, or days
  function readHash() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ''));
    const runners = p.get('r');
    Object.assign(state, {
      view: VIEWS.includes(p.get('view')) ? p.get('view') : 'overview',
      bench: p.get('b') || '',
      runners: runners ? runners.split(',').filter((k) => RUNNER_BY_KEY.has(k)) : RUNNERS.map((r) => r.key),
      from: p.has('from') ? Number(p.get('from')) : null,
      to: p.has('to') ? Number(p.get('to')) : null,
      log: p.get('log') === '1',
      norm: p.get('norm') === '1',
      q: p.get('q') || '',
      commit: p.get('c') || '',
      base: p.get('base') || '',
      head: p.get('head') || '',
      show: SHOW.includes(p.get('show')) ? p.get('show') : SHOW[0],
      span: SPANS.includes(p.get('span')) ? p.get('span') : '',
      since: SINCE.includes(p.get('since')) ? p.get('since') : '',
      changed: p.get('changed') === '1',
      hidden: p.get('hidden') === '1',
      // one runner size in focus (a Regressions row's link): the benchmark view only, never the
      // runner selection every view shares
      only: RUNNER_BY_KEY.has(p.get('only')) ? p.get('only') : '',
    });
    if (state.view === 'bench' && !BENCH.has(state.bench)) state.view = 'overview';
  }
  function hashFor(over) {
    const s = Object.assign({}, state, over || {});
    const p = new URLSearchParams();
    p.set('view', s.view);
    if (s.view === 'bench') p.set('b', s.bench);
    if (s.runners.length !== RUNNERS.length) p.set('r', s.runners.join(','));
    if (s.view === 'bench' && s.from != null && s.to != null) { p.set('from', String(Math.round(s.from))); p.set('to', String(Math.round(s.to))); }
    if (s.view === 'bench' && s.log) p.set('log', '1');
    if ((s.view === 'bench' || s.view === 'overview') && s.norm) p.set('norm', '1');
    if (s.view === 'scaling' && s.commit) p.set('c', s.commit);
    if (s.view === 'compare' && s.base) p.set('base', s.base);
    if (s.view === 'compare' && s.head) p.set('head', s.head);
    if (s.view === 'regressions' && s.show !== SHOW[0]) p.set('show', s.show);
    if (s.view === 'regressions' && s.since) p.set('since', s.since);
    if (s.view === 'regressions' && s.hidden) p.set('hidden', '1');
    if (s.view === 'overview' && s.span) p.set('span', s.span);
    if (s.view === 'compare' && s.changed) p.set('changed', '1');
    if (s.view === 'bench' && s.only) p.set('only', s.only);
    if (s.q && s.view !== 'bench') p.set('q', s.q);
    return '#' + p.toString();
  }

  // The view on screen: its hash (scroll positions are kept per hash) and its render count (a
  // view's asynchronous work draws only if its view is still the one on screen).
  const onScreen = { hash: '', token: 0 };
  function saveState() { history.replaceState(null, '', hashFor()); onScreen.hash = location.hash; }
  function go(over) {
    const h = hashFor(over);
    if (h === location.hash) render(); else location.hash = h;
  }
  function commitIndex(prefix) {
    if (!prefix) return -1;
    const ids = IDX.commits.id;
    for (let i = ids.length - 1; i >= 0; i--) if (ids[i].startsWith(prefix)) return i;
    return -1;
  }

  // The router (renderView in main.js) renders the view the URL names. Views re-render through
  // render(), so none of them needs main.js, which loads last and registers it with setRouter.
  let router = null;
  function render() { router(); }
  function setRouter(fn) { router = fn; }

  Object.assign(app, { state, SHOW, SPANS, SINCE, readHash, hashFor, render, onScreen, saveState, go, commitIndex,
    setRouter });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
