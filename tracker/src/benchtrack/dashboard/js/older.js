/* "Load older history": the points [history.retention] moved from each data.js to its
 * archive.js, loaded only on request. `benchtrack site` writes them as data/archive/index.js
 * (window.BENCHTRACK_ARCHIVE: the commit table of the whole history, `recent` = where each
 * commit of index.js sits in it, the change points on it, each group's file names) and
 * data/archive/g/<group>.js (each group's series over the whole history). Loading them swaps
 * the page's data in place: the commit table grows to the whole history's, every commit index
 * the page holds (the cards' latest runs) moves to its new place, the change points become the
 * whole history's, and the groups load from data/archive/g/; then the view is drawn again. The
 * page shows the recent history again when it is reloaded. */
(function (app) {
  'use strict';

  const { BENCH, CHANGES, GROUPS, IDX, RUNNER_BY_KEY, RUNNERS, dateText, el, loadScript, plural,
    render, renderHeader, say, showError, switchGroups } = app;

  function refill(array, items) {  // in place: every file holds the same array
    array.length = 0;
    for (const item of items) array.push(item);
  }

  function extend(A) {
    const C = IDX.commits;
    for (const k of Object.keys(C)) refill(C[k], A.commits[k]);
    for (const b of BENCH.values()) for (const last of Object.values(b.last)) last[0] = A.recent[last[0]];
    refill(IDX.changes, A.changes);
    if (IDX.events && A.events) refill(IDX.events, A.events);
    CHANGES.clear();
    for (const c of IDX.changes) {
      if (!CHANGES.has(c.series)) CHANGES.set(c.series, []);
      CHANGES.get(c.series).push(c);
    }
    for (const r of A.runners) {
      for (const own of [RUNNER_BY_KEY.get(r.key), RUNNERS.find((x) => x.key === r.key)]) {
        if (own) Object.assign(own, { points: r.points, runs: r.runs });
      }
    }
    for (const g of GROUPS) {
      const files = A.groups[g.key];
      if (!files) continue;  // cannot happen: the whole history has every recent group
      g.file = files.file;
      if (files.ofile) g.ofile = files.ofile; else delete g.ofile;
    }
    switchGroups('data/archive/g/', '#archive');
  }

  function control(info) {
    const since = info.first != null ? ' since ' + dateText(info.first).slice(0, 10) : '';
    const note = el('span', { class: 'older-note', text: ` ${plural(info.commits, 'older run', 'older runs')}${since}` });
    const button = el('button', { type: 'button', id: 'load-older', onclick: () => {
      button.disabled = true;
      button.textContent = 'Loading older history…';
      loadScript(info.index).then(() => {
        const A = window.BENCHTRACK_ARCHIVE;
        if (!A) throw new Error('no older history in ' + info.index);
        delete window.BENCHTRACK_ARCHIVE;
        extend(A);
        info.loaded = true;
        renderHeader();
        render();
        note.textContent = ` ${plural(info.commits, 'older run', 'older runs')}${since} shown`;
        button.remove();
        say(`Older history loaded: ${note.textContent.trim()}`);
      }).catch((e) => {
        showError(e.message);
        button.disabled = false;
        button.textContent = 'Load older history';
      });
    } }, 'Load older history');
    return el('p', { class: 'older', id: 'older' }, button, note);
  }

  const info = IDX && IDX.archive;
  const brand = document.querySelector('.brand');
  if (info && brand && info.commits > 0) brand.append(control(info));
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
