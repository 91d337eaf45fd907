/* Chart data (aligned series, bucket means) and drawing (y range, ± bands, change markers,
 * axes), and the small-multiple trend chart. */
(function (app) {
  'use strict';

  const { BENCH, BETTER, CHANGES, RUNNER_BY_KEY, T, WORSE, fmt, isRegression, live, nCommits,
    seriesOf, state, trim, xSpan } = app;

  function seriesFor(name, keys, norm, kind) {
    // Aligned data for uPlot: x = commit time; per runner y, lo, hi (nulls where a runner has no point).
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
    const ys = [], los = [], his = [];
    for (const k of use) {
      const s = per[k];
      const y = new Array(idx.length).fill(null), lo = new Array(idx.length).fill(null), hi = new Array(idx.length).fill(null);
      const base = norm && s.v.length ? s.v[0] : 1;
      for (let j = 0; j < s.i.length; j++) {
        const at = pos[s.i[j]];
        const v = s.v[j] / base, r = (isNaN(s.r[j]) ? 0 : s.r[j]) / base;
        y[at] = v; lo[at] = v - r; hi[at] = v + r;
      }
      ys.push(y); los.push(lo); his.push(hi);
    }
    return { keys: use, idx, xs, ys, los, his, decimated: kind === 'overview' && !!BENCH.get(name).group.ofile };
  }

  function decimate(sd, buckets) {
    // Small multiples: bucket means (x, value, band) when there are many more points than pixels.
    const n = sd.xs.length;
    if (n <= buckets * 1.5) return sd;
    const k = Math.ceil(n / buckets), m = Math.ceil(n / k);
    const idx = new Array(m), xs = new Array(m);
    const mean = (arr, a, b) => {
      let sum = 0, c = 0;
      for (let j = a; j < b; j++) if (arr[j] != null) { sum += arr[j]; c++; }
      return c ? sum / c : null;
    };
    const ys = sd.ys.map(() => new Array(m)), los = sd.ys.map(() => new Array(m)), his = sd.ys.map(() => new Array(m));
    for (let b = 0; b < m; b++) {
      const a = b * k, e = Math.min(n, a + k);
      idx[b] = sd.idx[e - 1];
      xs[b] = mean(sd.xs, a, e);
      for (let s = 0; s < sd.ys.length; s++) {
        ys[s][b] = mean(sd.ys[s], a, e); los[s][b] = mean(sd.los[s], a, e); his[s][b] = mean(sd.his[s], a, e);
      }
    }
    return { keys: sd.keys, idx, xs, ys, los, his, decimated: true };
  }

  function yRange(sd, logScale) {
    return (u) => {
      const i0 = u.series[0].idxs ? u.series[0].idxs[0] : 0;
      const i1 = u.series[0].idxs ? u.series[0].idxs[1] : sd.xs.length - 1;
      let min = Infinity, max = -Infinity;
      for (let s = 0; s < sd.ys.length; s++) {
        if (!u.series[s + 1].show) continue;
        const lo = sd.los[s], hi = sd.his[s];
        for (let j = i0; j <= i1; j++) {
          if (lo[j] == null) continue;
          if (lo[j] < min) min = lo[j];
          if (hi[j] > max) max = hi[j];
        }
      }
      if (!isFinite(min)) return [logScale ? 1 : 0, 1];
      if (logScale) {
        let lmin = Infinity;
        for (const y of sd.ys) for (let j = i0; j <= i1; j++) if (y[j] > 0 && y[j] < lmin) lmin = y[j];
        min = Math.max(min, lmin / 2);
        return uPlot.rangeLog(Math.max(min, 1e-12), Math.max(max, min * 1.01), 10, true);
      }
      const pad = (max - min) * 0.08 || Math.abs(max) * 0.05 || 1;
      return [min >= 0 ? Math.max(0, min - pad) : min - pad, max + pad];
    };
  }

  function drawBands(u, sd, alpha) {
    // The uncertainty band (value ± range) of each runner, under its line.
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    const i0 = Math.max(0, (u.series[0].idxs || [0])[0] - 1);
    const i1 = Math.min(sd.xs.length - 1, (u.series[0].idxs || [0, sd.xs.length - 1])[1] + 1);
    for (let s = 0; s < sd.ys.length; s++) {
      if (!u.series[s + 1].show) continue;
      const lo = sd.los[s], hi = sd.his[s];
      ctx.fillStyle = RUNNER_BY_KEY.get(sd.keys[s]).color + (alpha || '2e');
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
          const y0 = u.valToPos(hi[start], 'y', true), y1 = u.valToPos(Math.max(lo[start], u.scales.y.min), 'y', true);
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
          const x = u.valToPos(sd.xs[k], 'x', true), y = u.valToPos(hi[k], 'y', true);
          k === start ? ctx.moveTo(x, y) : ctx.lineTo(x, y);
        }
        for (let k = end; k >= start; k--) {
          const lv = u.scales.y.distr === 3 ? Math.max(lo[k], u.scales.y.min) : lo[k];
          ctx.lineTo(u.valToPos(sd.xs[k], 'x', true), u.valToPos(lv, 'y', true));
        }
        ctx.closePath(); ctx.fill();
      }
    }
    ctx.restore();
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
      const x = u.valToPos(sd.xs[j], 'x', true), y = u.valToPos(sd.ys[s][j], 'y', true);
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

  function axisValues(norm) {
    return (u, splits) => splits.map((v) => (v == null ? '' : norm ? trim(v.toPrecision(3)) + '×' : fmt(v)));
  }
  const NO_HOVER = window.matchMedia('(hover: none)').matches;
  const AXIS_FONT = '11px system-ui, sans-serif';
  const utc = (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC');

  function miniChart(host) {
    const bench = BENCH.get(host.dataset.bench);
    const keys = state.runners.filter((k) => bench.runners.includes(k));
    const w = host.clientWidth || 260;
    const sd = decimate(seriesFor(bench.name, keys, state.norm, 'overview'), Math.max(40, Math.round(w / 2)));
    const u = new uPlot({
      width: w, height: host.clientHeight || 110,
      pxAlign: 0,
      cursor: { show: false },
      legend: { show: false },
      select: { show: false },
      // a little room left and right, so the first and latest points (and markers) are whole
      scales: { x: { time: true, range: () => { const a = T[0], b = T[T.length - 1]; return xSpan(a - (b - a) * 0.03, b + (b - a) * 0.03); } }, y: { range: yRange(sd, false) } },
      axes: [
        { show: false },
        { size: 50, font: AXIS_FONT, ticks: { show: false }, gap: 3, values: axisValues(state.norm), splits: (u, ai, min, max) => [min + (max - min) * 0.1, (min + max) / 2, max - (max - min) * 0.1], grid: { stroke: 'rgba(0,0,0,0.06)', width: 1 } },
      ],
      series: [{}].concat(sd.keys.map((k, s) => {
        const r = RUNNER_BY_KEY.get(k);
        // few points (the first runs) or far apart: a line alone would hide them, or be nothing
        const n = sd.ys[s].reduce((c, v) => c + (v != null), 0);
        const sparse = n < 3 || n * 16 <= w;
        return { stroke: r.color, width: 1.4, dash: r.dash, spanGaps: true,
          points: { show: sparse, size: n < 3 ? 7 : 5, fill: r.color, stroke: r.color } };
      })),
      hooks: {
        drawAxes: [(u) => drawBands(u, sd, '1c')],
        draw: [(u) => drawMarkers(u, sd, bench, false)],
      },
    }, [sd.xs].concat(sd.ys), host);
    live.set(host, u);
    host.classList.add('drawn');
    host.dataset.lines = String(sd.keys.length);
  }

  miniChart.kind = 'overview';

  Object.assign(app, { seriesFor, yRange, drawBands, changeMarkers, drawMarkers, axisValues,
    NO_HOVER, AXIS_FONT, utc, miniChart });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
