/* Scaling: throughput against vCPUs at one commit, with the ideal linear line. */
(function (app) {
  'use strict';

  const { AXIS_FONT, BENCH, IDX, PALETTE, RUNNER_BY_KEY, RUNNERS, axisValues, commitIndex,
    commitOptions, el, fmt, go, hashFor, listedWith, live, main, matches, nCommits, observe,
    runnerSwatch, shortRunner, state, trim, valueAt } = app;

  function latestCommonCommit() {
    // the newest commit measured on the most runner sizes (the newest commit may have only some)
    const n = IDX.commits.runners || [];
    let best = nCommits() - 1, most = -1;
    for (let i = nCommits() - 1; i >= 0; i--) if ((n[i] ?? 0) > most) { most = n[i] ?? 0; best = i; }
    return best;
  }

  function renderScaling() {
    let ci = commitIndex(state.commit);
    if (ci < 0) ci = latestCommonCommit();
    const select = el('select', { id: 'scaling-commit', onchange: (e) => go({ commit: e.target.value }) });
    commitOptions(select, ci);
    const multi = RUNNERS.filter((r) => r.cpus != null).length;
    if (multi < 2) {
      main.replaceChildren(el('div', { class: 'bench-head' }, el('h2', { text: 'Scaling: does more vCPU help?' })),
        el('p', { class: 'notice info', id: 'scaling-empty', text: `Scaling needs results on at least two runner sizes; this history has ${multi === 1 ? 'one (' + RUNNERS.find((r) => r.cpus != null).cpus + ' vCPU)' : 'none with a vCPU count'}. Run the suites on another size (bench-local --cpus 1 --cpus 2, or a CI matrix of runner sizes).` }));
      return;
    }
    const intro = el('div', { class: 'bench-head' },
      el('h2', { text: 'Scaling: does more vCPU help?' }),
      el('p', { class: 'unit', text: `Throughput against vCPUs across the ${multi} runner sizes at one commit; the dashed line is ideal linear scaling from the smallest runner. Efficiency = speed-up ÷ vCPU ratio.` }),
      el('label', { class: 'pick' }, 'Commit ', select));
    const frag = document.createDocumentFragment();
    const hosts = [];
    for (const s of IDX.suites) {
      const sec = el('section', { class: 'suite' }, el('h2', { text: s.name }));
      let n = 0;
      for (const g of s.groups) {
        const grid = el('div', { class: 'grid wide' });
        for (const b of g.benches) {
          if (listedWith(b) || !matches(b, state.q)) continue;
          n++;
          const host = el('div', { class: 'mini scal', 'data-bench': b.name, 'data-commit': String(ci), role: 'img', 'aria-label': 'Throughput against vCPUs for ' + b.name });
          const table = el('table', { class: 'scaling', 'data-bench': b.name },
            el('thead', null, el('tr', null, ...['Runner', 'vCPUs', 'Value', 'Speed-up', 'Efficiency'].map((h) => el('th', { scope: 'col', text: h })))),
            el('tbody'));
          hosts.push(host);
          grid.append(el('div', { class: 'card static' }, el('span', { class: 'card-head' },
            el('a', { class: 'card-title', href: hashFor({ view: 'bench', bench: b.name, from: null, to: null }), text: b.name }),
            el('span', { class: 'card-unit', text: b.unit + (b.dir === 'smaller' ? ' · lower is better, no ideal line' : '') })), host, table));
        }
        if (grid.childElementCount) sec.append(el('h3', { text: g.name }), grid);
      }
      if (n) frag.append(sec);
    }
    main.replaceChildren(intro, frag);
    observe(hosts, scalingChart);
  }

  scalingChart.kind = 'full';
  function scalingChart(host) {
    const bench = BENCH.get(host.dataset.bench);
    const ci = Number(host.dataset.commit);
    const pts = [];
    for (const k of state.runners) {
      const r = RUNNER_BY_KEY.get(k);
      if (r.cpus == null) continue;
      const at = valueAt(bench.name, k, ci);
      pts.push({ k, cpus: r.cpus, at });
    }
    pts.sort((a, b) => a.cpus - b.cpus);
    const have = pts.filter((p) => p.at);
    const base = have[0];
    const tbody = host.nextElementSibling.tBodies[0];
    tbody.replaceChildren();
    for (const p of pts) {
      // speed-up and efficiency are for throughput; a smaller-is-better metric (memory) has neither
      const sp = base && p.at && have.length > 1 && bench.dir !== 'smaller' ? p.at.v / base.at.v : null;
      const eff = sp != null ? sp / (p.cpus / base.cpus) : null;
      tbody.append(el('tr', { 'data-runner': p.k },
        el('th', { scope: 'row', title: p.k }, runnerSwatch(p.k), ' ', shortRunner(p.k)),
        el('td', { class: 'cpus', text: p.cpus }),
        el('td', { class: 'value', 'data-value': p.at ? p.at.v : '', text: p.at ? fmt(p.at.v, 4) + (isNaN(p.at.r) ? '' : ' ± ' + fmt(p.at.r, 3)) : 'no result' }),
        el('td', { text: sp == null ? '—' : trim(sp.toFixed(2)) + '×' }),
        el('td', { text: eff == null ? '—' : Math.round(eff * 100) + ' %' })));
    }
    const maxc = Math.max(1, ...pts.map((p) => p.cpus));
    const xs = [0].concat(pts.map((p) => p.cpus));
    const meas = [null].concat(pts.map((p) => (p.at ? p.at.v : null)));
    // the ideal line needs two sizes measured at this commit: through one point it says nothing
    const ideal = xs.map((c) => (base && have.length > 1 && bench.dir !== 'smaller' ? (base.at.v * c) / base.cpus : null));
    const uniq = xs.map((x, i) => x + i * 1e-9); // x must increase strictly
    const u = new uPlot({
      width: host.clientWidth || 300, height: host.clientHeight || 160,
      cursor: { show: false }, legend: { show: false }, select: { show: false },
      scales: { x: { time: false, range: () => [0, maxc + 0.5] }, y: { range: (u, min, max) => [0, (Math.max(max || 0, ...meas.filter((v) => v != null).map((v) => v)) || 1) * 1.12] } },
      axes: [
        { font: AXIS_FONT, size: 30, splits: () => pts.map((p) => p.cpus), values: (u, s) => s.map((v) => v + ' vCPU'), grid: { show: false } },
        { font: AXIS_FONT, size: 54, values: axisValues(false), grid: { stroke: 'rgba(0,0,0,0.06)' } },
      ],
      series: [{}, { stroke: '#777', width: 1.2, dash: [5, 4], points: { show: false }, spanGaps: true },
        { stroke: PALETTE[0], width: 2, spanGaps: true, points: { show: true, size: 9, fill: PALETTE[0] } }],
      hooks: {
        draw: [(u) => {
          // error bars: each point's ± range
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = PALETTE[0];
          ctx.lineWidth = 1.5 * devicePixelRatio;
          pts.forEach((p, k) => {
            if (!p.at || isNaN(p.at.r) || !p.at.r) return;
            const x = u.valToPos(uniq[k + 1], 'x', true);
            const y0 = u.valToPos(p.at.v - p.at.r, 'y', true), y1 = u.valToPos(p.at.v + p.at.r, 'y', true);
            const w = 4 * devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(x, y0); ctx.lineTo(x, y1);
            ctx.moveTo(x - w, y0); ctx.lineTo(x + w, y0);
            ctx.moveTo(x - w, y1); ctx.lineTo(x + w, y1);
            ctx.stroke();
          });
          ctx.restore();
        }],
      },
    }, [uniq, ideal, meas], host);
    live.set(host, u);
    host.classList.add('drawn');
  }

  Object.assign(app, { renderScaling });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
