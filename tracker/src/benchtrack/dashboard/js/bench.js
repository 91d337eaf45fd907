/* One benchmark: a line per runner size, bands, markers, tooltip, zoom/pan, log, normalise, its
 * companion series. */
(function (app) {
  'use strict';

  const { AXIS_FONT, BENCH, CHANGES, FIRST_RUN, IDX, NO_HOVER, RUNNER_BY_KEY, SERIES, axisValues,
    changeMarkers, commitUrl, dateText, drawBands, drawLevels, drawMachines, drawMarkers, el, fmt,
    hashFor, hideTooltip, isRegression, live, loadGroup, machineText, main, miniChart, nCommits,
    nameNodes, observe, onScreen, pct, plural, render, runnerMachine, runnerName, runnerSwatch,
    saveState, say, seriesFor, seriesJudge, seriesLabel, seriesOfBench, short, state, tooltip, trim,
    utc, xSpan, yRange } = app;

  function judgedText(j) {
    // a run against its expected range, in words
    if (!j || !j.judged) return { text: 'not judged', note: 'fewer than 4 earlier runs since the last step' };
    if (j.confirmed) return { text: pct(j.change), note: 'a step change-point detection placed here' };
    const r = j.range;
    const where = j.kind ? `outside the expected ${fmt(r.lo)}–${fmt(r.hi)}` : `inside the expected ${fmt(r.lo)}–${fmt(r.hi)}`;
    return { text: pct(j.change) + ' vs expected', note: `${where} (the last ${r.runs} runs)` };
  }

  function seriesSwitch(bench, all) {
    // one link per series of this benchmark; the one shown is marked current
    if (all.length < 2) return null;
    return el('nav', { class: 'series-switch', id: 'series-switch', 'aria-label': 'Series of this benchmark' },
      el('span', { class: 'label', text: 'Series:' }),
      all.map((b) => el('a', { href: hashFor({ view: 'bench', bench: b.name }), 'data-series': b.series || 'time',
        'aria-current': b === bench ? 'page' : null, text: seriesLabel(b) })));
  }
  function otherSeries(bench, all) {
    // the benchmark's other series, each a small chart under the main one (drawn when in view)
    return all.filter((b) => b !== bench).map((o) => el('section', { class: 'other-series', 'data-series': o.series || 'time' },
      el('h3', null, el('a', { href: hashFor({ view: 'bench', bench: o.name }), text: seriesLabel(o) }),
        el('span', { class: 'count', text: o.unit + (o.dir === 'smaller' ? ' — lower is better' : ' — higher is better') })),
      el('div', { class: 'mini wide', 'data-bench': o.name, role: 'img', 'aria-label': `Trend of ${o.name} per runner size` })));
  }

  let mainSd = null;

  function renderBench() {
    const bench = BENCH.get(state.bench);
    const keys = state.only && bench.runners.includes(state.only) ? [state.only] : state.runners.filter((k) => bench.runners.includes(k));
    const head = el('div', { class: 'bench-head' },
      el('p', { class: 'crumbs' }, el('a', { href: hashFor({ view: 'overview', from: null, to: null }), text: '← Overview' }), ' / ', bench.suite, ' / ', bench.group.name),
      el('h2', null, ...nameNodes(bench.name)),  // wraps at "/" on a phone
      el('p', { class: 'unit', text: bench.unit + (bench.dir === 'smaller' ? ' — lower is better' : ' — higher is better') }),
      nCommits() === 1 ? el('p', { class: 'notice info', id: 'first-run', text: FIRST_RUN }) : null,
      state.only ? el('p', { class: 'notice info', id: 'only' }, `Showing ${runnerName(state.only)} only. `,
        el('a', { href: hashFor({ only: '' }), text: 'Show every selected runner size' })) : null);
    const tools = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Chart controls' },
      el('label', null, el('input', { type: 'checkbox', id: 'log', checked: state.log, onchange: (e) => { state.log = e.target.checked; saveState(); render(); } }), ' Log scale'),
      el('label', null, el('input', { type: 'checkbox', id: 'norm', checked: state.norm, onchange: (e) => { state.norm = e.target.checked; saveState(); render(); } }), ' Normalise to the first runs'),
      el('span', { class: 'sep' }),
      el('button', { type: 'button', id: 'zoom-in', 'aria-label': 'Zoom in', onclick: () => zoom(0.5) }, '+'),
      el('button', { type: 'button', id: 'zoom-out', 'aria-label': 'Zoom out', onclick: () => zoom(2) }, '−'),
      el('button', { type: 'button', id: 'pan-left', 'aria-label': 'Pan left', onclick: () => pan(-0.25) }, '←'),
      el('button', { type: 'button', id: 'pan-right', 'aria-label': 'Pan right', onclick: () => pan(0.25) }, '→'),
      el('button', { type: 'button', id: 'reset', onclick: resetZoom }, 'Reset zoom'));
    const host = el('div', { class: 'big', id: 'chart', tabindex: '0', role: 'application', 'aria-roledescription': 'chart',
      'aria-label': `${bench.name}: one line per runner size over commit date. Left and right arrows step through commits, Enter opens the commit, plus and minus zoom, Shift with arrows pans, 0 resets.` });
    const legend = el('ul', { class: 'legend', 'aria-label': 'Runner sizes' });
    const latest = el('table', { class: 'latest' },
      el('caption', { text: 'Latest result per runner size' }),
      el('thead', null, el('tr', null, ...['Runner', 'vCPUs', 'Machine', 'Commit', 'Value', 'Change vs expected'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody'));
    const marks = el('div', { class: 'marks' });
    const all = seriesOfBench(bench);
    const others = otherSeries(bench, all);
    const sw = seriesSwitch(bench, all);
    main.replaceChildren(head, ...(sw ? [sw] : []), tools, legend, host, el('p', { class: 'hint', text: 'Faint: each run; bold: the level between steps; shaded: the range its history expects; dashed: the runner changed machine. Drag across the chart to zoom; click a point to open its commit.' }), ...others, marks, el('div', { class: 'scroll' }, latest));
    observe(others.map((o) => o.querySelector('.mini')), miniChart);
    const token = onScreen.token;
    loadGroup(bench.group, 'full').then(() => { if (token === onScreen.token) drawBench(bench, keys, host, legend, latest, marks); });
  }

  function drawBench(bench, keys, host, legend, latest, marks) {
    const sd = seriesFor(bench.name, keys, state.norm);
    mainSd = { sd, bench };
    for (const [s, k] of sd.keys.entries()) {
      const r = RUNNER_BY_KEY.get(k);
      const n = sd.ys[s].filter((v) => v != null).length;
      const m = runnerMachine(k, nCommits() - 1);
      legend.append(el('li', { 'data-runner': k, title: machineText(m) }, runnerSwatch(k), `${r.key} (${runnerName(k)}, ${plural(n, 'point', 'points')})`));
    }
    const tbody = latest.tBodies[0];
    const per = SERIES.get(bench.name) || {};
    for (const k of sd.keys) {
      const s = per[k]; const n = s.v.length;
      const j = n > 1 ? seriesJudge(bench, k, s.i[n - 1]) : null;
      const t = judgedText(j);
      const m = runnerMachine(k, s.i[n - 1]);
      // data-label: a phone shows each row as a card, every cell labelled (style.css)
      tbody.append(el('tr', { 'data-runner': k }, el('th', { scope: 'row' }, runnerSwatch(k), ' ', k), el('td', { class: 'cpus', 'data-label': 'vCPUs', text: RUNNER_BY_KEY.get(k).cpus ?? '—' }),
        el('td', { class: 'machine', 'data-label': 'Machine', text: m ? m[1] : '—', title: machineText(m) }),
        el('td', { class: 'commit', 'data-label': 'Commit' }, el('code', { text: short(IDX.commits.id[s.i[n - 1]]) })),
        el('td', { class: 'value', 'data-label': 'Value', text: fmt(s.v[n - 1], 4) + (isNaN(s.r[n - 1]) ? '' : ' ± ' + fmt(s.r[n - 1], 3)) + ' ' + bench.unit }),
        el('td', { class: 'chg' + (j && j.kind ? ' ' + j.kind : ''), 'data-label': 'Change vs expected', 'data-judged': j ? (j.kind || (j.judged ? 'inside' : 'unjudged')) : null },
          n > 1 ? t.text : 'first run', j ? el('span', { class: 'why', text: ' · ' + t.note }) : null)));
    }
    const ms = changeMarkers(bench.name, sd);
    if (ms.length) {
      marks.append(el('h3', { text: 'Flagged changes' }));
      const ul = el('ul');
      for (const { c } of ms) {
        const bad = isRegression(c, bench);
        ul.append(el('li', { class: bad ? 'worse' : 'better' }, el('span', { 'aria-hidden': 'true', text: (c.change ?? 0) >= 0 ? '▲ ' : '▼ ' }),
          el('code', { text: short(c.commit) }), ` on ${c.runner}: ${pct(c.change)} (${bad ? 'regression' : 'improvement'})`));
      }
      marks.append(ul);
    }
    if (!sd.xs.length) { host.append(el('p', { class: 'notice', text: 'No data for the selected runner sizes.' })); return; }
    const width = host.clientWidth || 800;
    const height = Math.max(240, Math.min(420, Math.round(width * 0.45)));
    let down = null, tapped = null;
    const u = new uPlot({
      width, height,
      pxAlign: 0,
      legend: { show: false },
      cursor: {
        drag: { x: true, y: false, setScale: true },
        focus: { prox: 24 },
        points: { size: 8, width: 2 },
      },
      scales: {
        // one commit: a day around it (uPlot would give a single time value 1000 days to its right)
        x: sd.xs.length === 1 ? { time: true, range: () => xSpan(sd.xs[0], sd.xs[0]) } : { time: true },
        y: state.log ? { distr: 3, log: 10, range: yRange(sd, true) } : { range: yRange(sd, false) },
      },
      tzDate: utc,
      axes: [
        { font: AXIS_FONT, space: 70, grid: { stroke: 'rgba(0,0,0,0.06)' } },
        { font: AXIS_FONT, size: 58, values: axisValues(state.norm), grid: { stroke: 'rgba(0,0,0,0.08)' },
          label: state.norm ? 'relative to the first runs' : bench.unit, labelFont: AXIS_FONT, labelSize: 16 },
      ],
      series: [{}].concat(sd.keys.map((k, s) => {
        const r = RUNNER_BY_KEY.get(k);
        const n = sd.ys[s].reduce((c, v) => c + (v != null), 0);
        // each run faint, dots where there are few; the level is drawn over them (drawLevels)
        return { label: k, stroke: r.color + (n < 4 ? 'ff' : '66'), width: 1, spanGaps: true,
          points: { show: sd.xs.length <= 120 || n < 3, size: n < 3 ? 9 : 4, fill: r.color + (n < 4 ? 'ff' : '99'), stroke: r.color + (n < 4 ? 'ff' : '99') } };
      })),
      hooks: {
        drawAxes: [(u) => drawBands(u, sd)],
        draw: [(u) => { drawLevels(u, sd); drawMachines(u, sd); drawMarkers(u, sd, bench, true); }],
        setCursor: [(u) => showTooltip(u, sd, bench)],
        setScale: [(u, key) => {
          if (key !== 'x') return;
          const full = u.scales.x.min <= sd.xs[0] && u.scales.x.max >= sd.xs[sd.xs.length - 1];
          state.from = full ? null : u.scales.x.min; state.to = full ? null : u.scales.x.max;
          saveState();
        }],
      },
    }, [sd.xs].concat(sd.ys), host);
    live.set(host, u);
    window.benchtrack.main = u;
    host.dataset.lines = String(sd.keys.length);
    if (state.from != null && state.to != null && state.to > state.from) u.setScale('x', { min: state.from, max: state.to });
    u.over.addEventListener('mousedown', (e) => { down = [e.clientX, e.clientY]; });
    u.over.addEventListener('click', (e) => {
      if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
      const j = u.cursor.idx;
      if (j == null) return;
      // touch screens have no hover: the first tap shows the tooltip, a second tap opens the commit
      if (NO_HOVER && tapped !== j) { tapped = j; showTooltip(u, sd, bench); return; }
      tapped = null;
      const url = commitUrl(sd.idx[j]);
      if (url) window.open(url, '_blank', 'noopener');
    });
    u.over.addEventListener('mouseleave', hideTooltip);
    host.addEventListener('keydown', (e) => chartKey(e, u, sd));
    host.addEventListener('blur', hideTooltip);
    new ResizeObserver(() => {
      const w = host.clientWidth;
      if (w && Math.abs(w - u.width) > 2) u.setSize({ width: w, height: Math.max(240, Math.min(420, Math.round(w * 0.45))) });
    }).observe(host);
  }

  function currentRange(u) { return [u.scales.x.min, u.scales.x.max]; }
  function zoom(f) {
    const u = window.benchtrack.main; if (!u) return;
    const [a, b] = currentRange(u); const mid = (a + b) / 2, half = ((b - a) / 2) * f;
    u.setScale('x', { min: Math.max(mainSd.sd.xs[0] - 1, mid - half), max: Math.min(mainSd.sd.xs[mainSd.sd.xs.length - 1] + 1, mid + half) });
  }
  function pan(f) {
    const u = window.benchtrack.main; if (!u) return;
    const [a, b] = currentRange(u); const d = (b - a) * f;
    const lo = mainSd.sd.xs[0], hi = mainSd.sd.xs[mainSd.sd.xs.length - 1];
    const shift = Math.max(lo - a, Math.min(hi - b, d));
    u.setScale('x', { min: a + shift, max: b + shift });
  }
  function resetZoom() {
    const u = window.benchtrack.main; if (!u) return;
    const xs = mainSd.sd.xs;
    u.setScale('x', { min: xs[0], max: xs[xs.length - 1] });
    state.from = state.to = null; saveState();
  }

  function chartKey(e, u, sd) {
    const n = sd.xs.length; if (!n) return;
    let j = u.cursor.idx;
    const [i0, i1] = u.series[0].idxs || [0, n - 1];
    const move = (to) => {
      to = Math.max(i0, Math.min(i1, to));
      const left = u.valToPos(sd.xs[to], 'x');
      let s = 0; while (s < sd.ys.length && sd.ys[s][to] == null) s++;
      const top = s < sd.ys.length ? u.valToPos(sd.ys[s][to], 'y') : u.bbox.height / 2 / devicePixelRatio;
      u.setCursor({ left, top });
      u.cursor._kbd = true;
      showTooltip(u, sd, mainSd.bench);
    };
    switch (e.key) {
      case 'ArrowLeft': if (e.shiftKey) pan(-0.25); else move(j == null ? i1 : j - 1); break;
      case 'ArrowRight': if (e.shiftKey) pan(0.25); else move(j == null ? i1 : j + 1); break;
      case 'Home': move(i0); break;
      case 'End': move(i1); break;
      case '+': case '=': zoom(0.5); break;
      case '-': case '_': zoom(2); break;
      case '0': resetZoom(); break;
      case 'Enter': if (j != null) { const url = commitUrl(sd.idx[j]); if (url) window.open(url, '_blank', 'noopener'); } break;
      case 'Escape': hideTooltip(); break;
      default: return;
    }
    e.preventDefault();
  }

  function prevIndex(sd, s, j) {
    for (let k = j - 1; k >= 0; k--) if (sd.ys[s][k] != null) return k;
    return -1;
  }

  function showTooltip(u, sd, bench) {
    const j = u.cursor.idx;
    if (j == null || u.cursor.left < 0) { hideTooltip(); return; }
    const ci = sd.idx[j];
    const C = IDX.commits;
    const rows = el('table', { class: 'tt-vals' });
    const norm = state.norm;
    for (let s = 0; s < sd.keys.length; s++) {
      const y = sd.ys[s][j];
      if (y == null || !u.series[s + 1].show) continue;
      const key = sd.keys[s];
      const raw = ((SERIES.get(bench.name) || {})[key]) || null;
      let half = NaN;
      if (raw) for (let m = 0; m < raw.i.length; m++) if (raw.i[m] === ci) half = raw.r[m] / (norm ? raw.v[m] / y : 1);
      const judged = prevIndex(sd, s, j) < 0 ? null : seriesJudge(bench, key, ci);
      const t = judgedText(judged);
      rows.append(el('tr', { 'data-runner': key },
        el('th', { scope: 'row' }, runnerSwatch(key), ' ', runnerName(key)),
        el('td', { class: 'v', text: (norm ? trim(y.toPrecision(4)) + '×' : fmt(y, 4)) + (half > 0 ? ' ± ' + (norm ? trim(half.toPrecision(2)) : fmt(half, 3)) : '') }),
        el('td', { class: 'chg' + (judged && judged.kind ? ' ' + judged.kind : ''), title: judged ? t.note : null, text: judged ? t.text + (judged.judged && !judged.kind && !judged.confirmed ? ' (inside)' : '') : 'first point' })));
    }
    const moved = sd.keys.map((k) => (RUNNER_BY_KEY.get(k).machines || []).find((m, n) => n > 0 && m[0] === ci) ? k : null).filter(Boolean);
    const mark = (CHANGES.get(bench.name) || []).filter((c) => c.i === ci && sd.keys.includes(c.runner));
    tooltip.replaceChildren(...[
      el('div', { class: 'tt-head' }, el('code', { class: 'tt-id', text: short(C.id[ci]) }), el('span', { class: 'tt-date', text: dateText(C.t[ci]) })),
      el('div', { class: 'tt-msg', text: C.msg[ci] || '(no message)' }),
      el('div', { class: 'tt-author', text: C.author[ci] ? 'by ' + C.author[ci] : '' }),
      rows,
      el('div', { class: 'tt-unit', text: norm ? 'relative to each line’s first runs' : bench.unit + (bench.dir === 'smaller' ? ', lower is better' : '') }),
      mark.length ? el('div', { class: 'tt-flag', text: 'Flagged change: ' + mark.map((c) => `${c.runner} ${pct(c.change)}`).join(', ') }) : null,
      moved.length ? el('div', { class: 'tt-flag', text: 'Machine changed here: ' + moved.map((k) => `${runnerName(k)} → ${machineText(runnerMachine(k, ci))}`).join('; ') }) : null,
      commitUrl(ci) ? el('div', { class: 'tt-hint', text: NO_HOVER ? 'Tap again to open the commit' : 'Click (or Enter) opens the commit' }) : null].filter(Boolean));
    tooltip.hidden = false;
    const box = u.over.getBoundingClientRect();
    const tw = tooltip.offsetWidth, th = tooltip.offsetHeight;
    let x = box.left + u.cursor.left + 14, y = box.top + u.cursor.top + 14;
    if (x + tw > window.innerWidth - 8) x = box.left + u.cursor.left - tw - 14;
    if (y + th > window.innerHeight - 8) y = Math.max(8, box.top + u.cursor.top - th - 14);
    tooltip.style.left = Math.max(8, x) + window.scrollX + 'px';
    tooltip.style.top = y + window.scrollY + 'px';
    if (u.cursor._kbd) { u.cursor._kbd = false; say(tooltip.innerText); }
  }

  Object.assign(app, { renderBench });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
