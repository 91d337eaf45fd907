/* The header (meta line, runner checkboxes, the Regressions tab's count), the router and the
 * start: reads the URL, renders the view it names, re-renders on hash changes.
 *
 * The dashboard is vanilla JS with no build step; it runs from file:// and from GitHub Pages.
 * The files in js/ are classic scripts that index.html loads in order with defer (module scripts
 * do not load from file://); each is an IIFE that takes what it needs from the namespace
 * window.BenchtrackDashboard and adds what later files use: util <- data <- changes <- state <-
 * widgets <- verdict <- live <- charts <- the views <- main <- older (the "load older history" control). Every string from the data is put in the page
 * with textContent / text nodes, never as HTML. */
(function (app) {
  'use strict';

  const { IDX, PRIMARY, RUNNERS, SERIES, changeCounts, changeEvents, dateText, el, go, hashFor,
    hideTooltip, live, loadAll, machineText, main, nCommits, onScreen, plural, readHash, render,
    renderBench, renderCompare, renderOverview, renderRegressions, renderScaling, runnerMachine,
    runnerSwatch, runsText, saveState, setRouter, state, teardown } = app;

  function renderHeader() {
    const meta = document.getElementById('meta');
    const parts = [];
    parts.push('Last update ' + (IDX.lastUpdate ? dateText(IDX.lastUpdate / 1000) : 'unknown'));
    meta.replaceChildren(parts[0], ' · ',
      IDX.repoUrl && /^https?:\/\//i.test(IDX.repoUrl) ? el('a', { href: IDX.repoUrl, rel: 'noopener', text: IDX.repoUrl.replace(/^https?:\/\//, '') }) : 'no repository URL',
      ' · ' + plural(PRIMARY.length, 'benchmark', 'benchmarks') + ' · ' + runsText());
    const counts = changeCounts(changeEvents());
    const tab = document.querySelector('.tabs a[data-view="regressions"]');
    if (tab) {  // drawn again when the data grows ("load older history"): its label alone first
      tab.dataset.label = tab.dataset.label || tab.textContent.trim();
      tab.replaceChildren(tab.dataset.label);
    }
    if (tab && counts.regressions) {
      tab.append(' ', el('span', { class: 'tab-count' + (counts.fresh ? ' fresh' : ''), text: String(counts.regressions) }),
        el('span', { class: 'sr-only', text: counts.fresh ? ` (${counts.fresh} new)` : '' }));
    }
    const fs = document.getElementById('runners');
    fs.replaceChildren(el('legend', { text: 'Runner sizes' }));
    for (const r of RUNNERS) {
      const cb = el('input', { type: 'checkbox', value: r.key, checked: state.runners.includes(r.key), onchange: () => {
        state.runners = [...fs.querySelectorAll('input:checked')].map((i) => i.value);
        saveState(); render();
      } });
      const m = runnerMachine(r.key, nCommits() - 1);
      fs.append(el('label', { class: 'runner', 'data-machine': m ? m[1] : null, title: `${r.key}: ${r.points} results; machine: ${machineText(m)}` + ((r.machines || []).length > 1 ? ` (changed ${r.machines.length - 1}×)` : '') + (r.data ? ' — data: ' + r.data : '') }, cb, runnerSwatch(r.key), ` ${r.key}`, el('span', { class: 'cpus', text: r.cpus != null ? ` (${r.cpus} vCPU)` : '' })));
    }
  }

  // On a phone the search and the runner sizes fold behind the header's "Filter" button (the
  // style sheet shows them always on a wider screen); the button says when a filter is on.
  const top = document.querySelector('header.top');
  const toggle = document.getElementById('filter-toggle');
  function openFilters(on) {
    top.classList.toggle('open', on);
    toggle.setAttribute('aria-expanded', String(on));
  }
  function filterMark() {
    const on = [state.q ? `name “${state.q}”` : '', state.runners.length < RUNNERS.length ? `${state.runners.length} of ${RUNNERS.length} runner sizes` : ''].filter(Boolean);
    toggle.replaceChildren('Filter', ...(on.length ? [el('span', { class: 'filter-on', title: on.join(', '), text: 'on' }),
      el('span', { class: 'sr-only', text: ': ' + on.join(', ') })] : []));
  }

  function renderView() {
    onScreen.token++;
    readHash();
    teardown();
    for (const a of document.querySelectorAll('.tabs a')) {
      const on = a.dataset.view === state.view || (state.view === 'bench' && a.dataset.view === 'overview');
      if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
      a.href = hashFor({ view: a.dataset.view, from: null, to: null });
    }
    const search = document.getElementById('search');
    if (document.activeElement !== search) search.value = state.q;
    for (const cb of document.querySelectorAll('#runners input')) cb.checked = state.runners.includes(cb.value);
    filterMark();
    document.title = (state.view === 'bench' ? state.bench + ' · ' : state.view !== 'overview' ? state.view + ' · ' : '') + 'benchtrack';
    main.dataset.view = state.view;
    if (state.view === 'bench') renderBench();
    else if (state.view === 'scaling') renderScaling();
    else if (state.view === 'compare') renderCompare();
    else if (state.view === 'regressions') renderRegressions();
    else renderOverview();
  }

  function start() {
    window.benchtrack = { state, index: IDX, live, main: null, series: SERIES, loadAll };
    if (!IDX || typeof uPlot === 'undefined') {
      main.replaceChildren(el('p', { class: 'notice error', role: 'alert', text: !IDX
        ? 'No dashboard index (dashboard/data/index.js). Build the site with: benchtrack site HISTORY --out DIR'
        : 'The chart library (dashboard/vendor/uPlot.iife.min.js) did not load.' }));
      document.getElementById('meta').textContent = '';
      return;
    }
    readHash();
    renderHeader();
    toggle.addEventListener('click', () => openFilters(!top.classList.contains('open')));
    let timer = null;
    document.getElementById('search').addEventListener('input', (e) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        state.q = e.target.value.trim();
        if (state.view === 'bench') { go({ view: 'overview', from: null, to: null }); return; }
        saveState(); render();
      }, 150);
    });
    // "/" jumps to the search box, as on GitHub
    document.addEventListener('keydown', (e) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target;
      if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
      e.preventDefault();
      openFilters(true);
      document.getElementById('search').focus();
    });
    // Back to a view restores where it was scrolled to (charts keep their size while undrawn).
    const scrolled = new Map();
    onScreen.hash = location.hash;
    window.addEventListener('hashchange', () => {
      render();
      onScreen.hash = location.hash;
      main.focus({ preventScroll: true });
      window.scrollTo(0, scrolled.get(onScreen.hash) || 0);
    });
    window.addEventListener('scroll', () => { hideTooltip(); scrolled.set(onScreen.hash, window.scrollY); }, { passive: true });
    render();
  }

  Object.assign(app, { renderHeader });
  setRouter(renderView);
  start();
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
