/* Chart data (aligned series, their levels and expected-range bands, bucket means) and drawing
 * (y range, bands, level lines, change markers, machine changes, axes), and the small-multiple
 * trend chart of the overview. A chart shows the raw runs faintly and, over them, the level each
 * segment settles at (a rolling median between change points) with the band of the range its
 * history expects: a month of noisy wall time reads as a level and a band, not a tangle. */
(function (app) {
  'use strict';

  const { BENCH, BETTER, CHANGES, RUNNER_BY_KEY, T, WORSE, fmt, isRegression, levels, live,
    median, nCommits, seriesOf, state, trim, xSpan } = app;

  const DAY = 86400;

  function seriesFor(name, keys, norm, kind) {
    // Aligned data for uPlot: x = commit time; per runner the raw values, and their levels and
    // band (lv, lo, hi); nulls where a runner has no point. `norm`: each line divided by the
    // median of its first runs (one run alone is as noisy as any other).
    const per = seriesOf(name, kind || 'full') || {};
    const use = keys.filter((k) => per[k]);
    const n = nCommits();
    const seen = new Uint8Array(n);
    for (const k of use) for (const i of per[k].i) seen[i] = 1;
    const idx = [];
    for (let i = 0; i < n; i++) if (seen[i]) idx.push(i);
    const pos = new Int32Array(n).fill(-1);
    idx.forEach((c, j) => { pos[c] = j; });
    const xs = idx.map((i) => T[i]);
    const decimated = kind === 'overview' && !!BENCH.get(name).group.ofile;
    const ys = [], lvs = [], los = [], his = [];
    for (const k of use) {
      const s = per[k];
      const first = Array.from(s.v.slice(0, 10)).filter((v) => v > 0).sort((a, b) => a - b);
      const base = norm && first.length ? median(first) : 1;
      const at = new Set((CHANGES.get(name) || []).filter((c) => c.runner === k).map((c) => c.i));
      const steps = [];
      for (let m = 0; m < s.i.length; m++) if (at.has(s.i[m])) steps.push(m);
      // bucket means are smooth already: they are their own level, with no band
      const lv = decimated ? { mid: Array.from(s.v), lo: [], hi: [] } : levels(s.v, steps, 15);
      const row = () => new Array(idx.length).fill(null);
      const y = row(), l = row(), lo = row(), hi = row();
      const few = s.v.length < 4;  // the first runs: no level to speak of, each run's own ± range
      for (let m = 0; m < s.i.length; m++) {
        const j = pos[s.i[m]];
        y[j] = s.v[m] / base;
        if (few) {
          const r = isNaN(s.r[m]) ? 0 : s.r[m];
          lo[j] = Math.max(0, s.v[m] - r) / base; hi[j] = (s.v[m] + r) / base;
        } else if (lv.lo[m] != null) { lo[j] = lv.lo[m] / base; hi[j] = lv.hi[m] / base; }
        if (!few && lv.mid[m] != null) l[j] = lv.mid[m] / base;
      }
      ys.push(y); lvs.push(l); los.push(lo); his.push(hi);
    }
    return { keys: use, idx, xs, ys, lvs, los, his, decimated };
  }

  function visible(u, sd) {
    const i0 = u.series[0].idxs ? u.series[0].idxs[0] : 0;
    const i1 = u.series[0].idxs ? u.series[0].idxs[1] : sd.xs.length - 1;
    return [i0, i1];
  }

  function yRange(sd, logScale) {
    return (u) => {
      const [i0, i1] = visible(u, sd);
      let min = Infinity, max = -Infinity;
      for (let s = 0; s < sd.ys.length; s++) {
        if (!u.series[s + 1].show) continue;
        for (const arr of [sd.ys[s], sd.los[s], sd.his[s]]) {
          for (let j = i0; j <= i1; j++) {
            const v = arr[j];
            if (v == null) continue;
            if (v < min) min = v;
            if (v > max) max = v;
          }
        }
      }
      if (!isFinite(min)) return [logScale ? 1 : 0, 1];
      if (logScale) return uPlot.rangeLog(Math.max(min / 1.2, 1e-12), Math.max(max, min * 1.01), 10, true);
      const pad = (max - min) * 0.08 || Math.abs(max) * 0.05 || 1;
      // the data are positive: the axis never goes below zero (it read "−74.2 M")
      return [Math.max(0, min - pad), max + pad];
    };
  }

  function drawBands(u, sd, alpha) {
    // Under the lines: each runner's expected-range band around its level.
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    const [a, b] = visible(u, sd);
    const i0 = Math.max(0, a - 1), i1 = Math.min(sd.xs.length - 1, b + 1);
    const yPos = (v) => u.valToPos(u.scales.y.distr === 3 ? Math.max(v, u.scales.y.min) : v, 'y', true);
    for (let s = 0; s < sd.ys.length; s++) {
      if (!u.series[s + 1].show) continue;
      const lo = sd.los[s], hi = sd.his[s];
      ctx.fillStyle = RUNNER_BY_KEY.get(sd.keys[s]).color + (alpha || '24');
      let j = i0;
      while (j <= i1) {
        while (j <= i1 && lo[j] == null) j++;
        const start = j;
        while (j <= i1 && lo[j] != null) j++;
        const end = j - 1;
        if (end < start) continue;
        if (end === start) {
          // a lone point (the first run, or a runner's only one) has no band: an error bar
          const x = u.valToPos(sd.xs[start], 'x', true), w = 3 * devicePixelRatio;
          const y0 = yPos(hi[start]), y1 = yPos(Math.max(lo[start], u.scales.y.min));
          ctx.strokeStyle = RUNNER_BY_KEY.get(sd.keys[s]).color + '99';
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(x, y0); ctx.lineTo(x, y1);
          ctx.moveTo(x - w, y0); ctx.lineTo(x + w, y0);
          ctx.moveTo(x - w, y1); ctx.lineTo(x + w, y1);
          ctx.stroke();
          continue;
        }
        ctx.beginPath();
        for (let k = start; k <= end; k++) {
          const x = u.valToPos(sd.xs[k], 'x', true), y = yPos(hi[k]);
          k === start ? ctx.moveTo(x, y) : ctx.lineTo(x, y);
        }
        for (let k = end; k >= start; k--) ctx.lineTo(u.valToPos(sd.xs[k], 'x', true), yPos(lo[k]));
        ctx.closePath(); ctx.fill();
      }
    }
    ctx.restore();
  }

  function drawLevels(u, sd, width) {
    // Over the raw runs: each runner's level, a gap where it has no point.
    const ctx = u.ctx;
    const { left, top, width: w, height } = u.bbox;
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, w, height); ctx.clip();
    const [a, b] = visible(u, sd);
    for (let s = 0; s < sd.ys.length; s++) {
      if (!u.series[s + 1].show) continue;
      const r = RUNNER_BY_KEY.get(sd.keys[s]);
      ctx.strokeStyle = r.color;
      ctx.lineWidth = (width || 2.2) * devicePixelRatio;
      ctx.setLineDash(r.dash.map((d) => d * devicePixelRatio));
      ctx.beginPath();
      let open = false;
      for (let j = Math.max(0, a - 1); j <= Math.min(sd.xs.length - 1, b + 1); j++) {
        const v = sd.lvs[s][j];
        if (v == null) continue;  // this runner has no point here: the line runs on to its next one
        const x = u.valToPos(sd.xs[j], 'x', true), y = u.valToPos(v, 'y', true);
        if (open) ctx.lineTo(x, y); else { ctx.moveTo(x, y); open = true; }
      }
      ctx.stroke();
    }
    ctx.restore();
  }

  function machineChanges(sd) {
    // [{key, i, m}] where a shown runner's machine changed (its first known machine is no change)
    const out = [];
    for (const k of sd.keys) {
      const ms = RUNNER_BY_KEY.get(k).machines || [];
      for (let n = 1; n < ms.length; n++) out.push({ key: k, i: ms[n][0], from: ms[n - 1], to: ms[n] });
    }
    return out;
  }
  function drawMachines(u, sd) {
    // a dashed vertical line where a runner changed machine (a CPU change moves every level)
    const ctx = u.ctx, drawn = [];
    for (const c of machineChanges(sd)) {
      const x = u.valToPos(T[c.i], 'x', true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
      ctx.save();
      ctx.strokeStyle = RUNNER_BY_KEY.get(c.key).color;
      ctx.lineWidth = 1.2 * devicePixelRatio;
      ctx.setLineDash([3 * devicePixelRatio, 3 * devicePixelRatio]);
      ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
      ctx.restore();
      drawn.push({ runner: c.key, i: c.i, x: x / devicePixelRatio });
    }
    u.root.parentElement.dataset.machines = JSON.stringify(drawn);
  }

  function changeMarkers(name, sd) {
    const list = CHANGES.get(name) || [];
    const out = [];
    for (const c of list) {
      const s = sd.keys.indexOf(c.runner);
      if (s < 0) continue;
      // the point of that commit (in a decimated chart: the bucket holding it)
      let lo = 0, hi = sd.idx.length - 1;
      while (lo < hi) { const m = (lo + hi) >> 1; if (sd.idx[m] < c.i) lo = m + 1; else hi = m; }
      const j = lo;
      if (j >= sd.idx.length || (!sd.decimated && sd.idx[j] !== c.i) || sd.ys[s][j] == null) continue;
      out.push({ c, s, j });
    }
    return out;
  }

  function drawMarkers(u, sd, bench, big) {
    // where it drew goes to the chart host's data-markers (CSS pixels of the canvas), for tests
    const ctx = u.ctx;
    const size = (big ? 7 : 4.5) * devicePixelRatio;
    const drawn = [];
    for (const { c, s, j } of changeMarkers(bench.name, sd)) {
      if (!u.series[s + 1].show) continue;
      const level = sd.lvs[s][j] ?? sd.ys[s][j];
      const x = u.valToPos(sd.xs[j], 'x', true), y = u.valToPos(level, 'y', true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
      const up = c.change == null ? true : c.change > 0;
      const bad = isRegression(c, bench);
      ctx.save();
      ctx.fillStyle = bad ? WORSE : BETTER;
      ctx.strokeStyle = '#fff';
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.beginPath();
      // a drop: ▼ above the point, pointing at it; a rise: ▲ below it
      const gap = size * 0.6, h = size * 1.7;
      const tip = up ? y + gap : y - gap, base = up ? y + gap + h : y - gap - h;
      // the triangle's centre, in CSS pixels of the canvas
      drawn.push({ runner: c.runner, commit: c.commit, bad, x: x / devicePixelRatio, y: (tip + base) / 2 / devicePixelRatio });
      ctx.moveTo(x, tip);
      ctx.lineTo(x - size, base);
      ctx.lineTo(x + size, base);
      ctx.closePath(); ctx.stroke(); ctx.fill();
      ctx.restore();
    }
    u.root.parentElement.dataset.markers = JSON.stringify(drawn);
  }

  function label(v, norm, digits) { return norm ? trim(v.toPrecision(digits)) + '×' : fmt(v, digits); }
  function axisValues(norm) {
    // as few digits as keep the labels apart (a narrow range read "4 / 4 / 4")
    return (u, splits) => {
      const shown = splits.filter((v) => v != null);
      let digits = 3;
      while (digits < 7 && new Set(shown.map((v) => label(v, norm, digits))).size < shown.length) digits++;
      return splits.map((v) => (v == null ? '' : label(v, norm, digits)));
    };
  }
  const NO_HOVER = window.matchMedia('(hover: none)').matches;
  const AXIS_FONT = '11px system-ui, sans-serif';
  const utc = (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC');
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const dayText = (t) => { const d = new Date(t * 1000); return MONTHS[d.getUTCMonth()] + ' ' + d.getUTCDate(); };

  function xRange(span) {
    // the overview's x range: the whole history or its last `span` days, a little room each side
    const b = T[T.length - 1], a = span ? Math.max(T[0], b - span * DAY) : T[0];
    return xSpan(a - (b - a) * 0.03, b + (b - a) * 0.03);
  }

  function miniChart(host) {
    const bench = BENCH.get(host.dataset.bench);
    const keys = state.runners.filter((k) => bench.runners.includes(k));
    const w = host.clientWidth || 260;
    const sd = seriesFor(bench.name, keys, state.norm, 'overview');
    const [a, b] = xRange(Number(state.span) || 0);
    const u = new uPlot({
      width: w, height: host.clientHeight || 130,
      pxAlign: 0,
      cursor: { show: false },
      legend: { show: false },
      select: { show: false },
      scales: { x: { time: true, range: () => [a, b] }, y: { range: yRange(sd, false) } },
      axes: [
        { font: AXIS_FONT, size: 18, gap: 2, ticks: { size: 3 }, space: 64, grid: { show: false },
          splits: (u, ai, min, max) => [min + (max - min) * 0.08, (min + max) / 2, max - (max - min) * 0.08],
          values: (u, splits) => splits.map(dayText) },
        { size: 50, font: AXIS_FONT, ticks: { show: false }, gap: 3, values: axisValues(state.norm), splits: (u, ai, min, max) => [min + (max - min) * 0.1, (min + max) / 2, max - (max - min) * 0.1], grid: { stroke: 'rgba(0,0,0,0.06)', width: 1 } },
      ],
      series: [{}].concat(sd.keys.map((k, s) => {
        const r = RUNNER_BY_KEY.get(k);
        // the raw runs faint (their level is drawn over them); few points: dots, or nothing shows
        const n = sd.ys[s].reduce((c, v) => c + (v != null), 0);
        const sparse = n < 3 || n * 16 <= w;
        return { stroke: r.color + (sd.decimated ? '00' : '55'), width: 1, spanGaps: true,
          points: { show: sparse, size: n < 3 ? 7 : 4, fill: r.color, stroke: r.color } };
      })),
      hooks: {
        drawAxes: [(u) => drawBands(u, sd, '1c')],
        draw: [(u) => { drawLevels(u, sd, 1.6); drawMachines(u, sd); drawMarkers(u, sd, bench, false); }],
      },
    }, [sd.xs].concat(sd.ys), host);
    live.set(host, u);
    host.classList.add('drawn');
    host.dataset.lines = String(sd.keys.length);
  }

  miniChart.kind = 'overview';

  Object.assign(app, { seriesFor, yRange, drawBands, drawLevels, machineChanges, drawMachines,
    changeMarkers, drawMarkers, axisValues, NO_HOVER, AXIS_FONT, utc, dayText, miniChart });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
