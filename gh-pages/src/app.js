/* benchtrack dashboard: vanilla JS, no build step, runs from file:// and from GitHub Pages.
 *
 * Data: window.BENCHTRACK_INDEX (dashboard/data/index.js, written by `benchtrack site`) holds the
 * runners, the commits (deduplicated across runners), the benchmarks with their latest values and
 * the change points (markers and the Regressions list). Each suite/group's series live in dashboard/data/g/<file>.js and are loaded
 * with a <script> tag (fetch() of JSON is blocked on file://) when the group first comes into view.
 *
 * Every string from the data is put in the page with textContent / text nodes, never as HTML.
 */
(function () {
  'use strict';

  const IDX = window.BENCHTRACK_INDEX;
  const main = document.getElementById('main');
  const tooltip = document.getElementById('tooltip');
  const announce = document.getElementById('announce');

  // Okabe–Ito: a palette that stays distinct for the common colour-vision deficiencies. Each
  // runner also gets its own dash pattern, so colour is never the only cue.
  const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000', '#F0E442'];
  const DASHES = [[], [7, 3], [2, 3], [9, 3, 2, 3], [4, 4], [1, 2]];
  const WORSE = '#D55E00';
  const BETTER = '#0072B2';

  // ------------------------------------------------------------------------------------------
  // Small helpers

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v == null || v === false) continue;
        if (k === 'class') node.className = v;
        else if (k === 'text') node.textContent = v;
        else if (k === 'style') node.style.cssText = v;
        else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const c of children.flat()) {
      if (c == null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const SI = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  function fmt(v, digits) {
    if (v == null || !isFinite(v)) return '—';
    const a = Math.abs(v);
    for (const [f, s] of SI) if (a >= f) return trim((v / f).toPrecision(digits || 3)) + ' ' + s;
    if (a === 0) return '0';
    if (a < 0.01) return v.toExponential(2);
    return trim(v.toPrecision(digits || 3));
  }
  function trim(s) { return s.includes('e') ? s : s.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''); }
  function pct(x) {
    if (x == null || !isFinite(x)) return '—';
    const s = (Math.abs(x) * 100).toFixed(Math.abs(x) < 0.1 ? 1 : 0);
    return (Number(s) === 0 ? '±' : x > 0 ? '+' : '−') + s + ' %';
  }
  function pct1(x) {
    // one decimal always (the Regressions list: −19.7 %, not −20 %)
    if (x == null || !isFinite(x)) return '—';
    const s = (Math.abs(x) * 100).toFixed(1);
    return (Number(s) === 0 ? '±' : x > 0 ? '+' : '−') + s + ' %';
  }
  const plural = (n, one, many) => n + ' ' + (n === 1 ? one : many);
  function dateText(t) {
    return new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  }
  const short = (id) => String(id).slice(0, 7);
  function commitUrl(i) {
    const u = IDX.commits.url[i];
    if (u && /^https?:\/\//i.test(u)) return u;
    if (IDX.repoUrl && /^https?:\/\//i.test(IDX.repoUrl)) return IDX.repoUrl.replace(/\/$/, '') + '/commit/' + IDX.commits.id[i];
    return null;
  }
  function say(text) { announce.textContent = text; }

  // ------------------------------------------------------------------------------------------
  // Index and lazy data

  const RUNNERS = IDX ? IDX.runners : [];
  const RUNNER_BY_KEY = new Map(RUNNERS.map((r, i) => [r.key, Object.assign({ color: PALETTE[i % PALETTE.length], dash: DASHES[i % DASHES.length] }, r)]));
  const BENCHES = [];            // flat list of {name, variant, unit, dir, runners, last, suite, group}
  const BENCH = new Map();
  const GROUPS = [];
  if (IDX) {
    for (const s of IDX.suites) {
      for (const g of s.groups) {
        g.suite = s.name;
        GROUPS.push(g);
        for (const b of g.benches) {
          b.suite = s.name; b.group = g;
          BENCHES.push(b); BENCH.set(b.name, b);
        }
      }
    }
  }
  // A companion series (`<name> (instructions)`: the benchmark's instruction count, listed in
  // the index with `of` = its benchmark) is shown with its benchmark: a line on the benchmark's
  // card, a chart under the benchmark's own and a series switch; it is no card of its own.
  const listedWith = (b) => !!(b.of && BENCH.has(b.of));
  const PRIMARY = BENCHES.filter((b) => !listedWith(b));
  const seriesLabel = (b) => (b.series === 'instructions' ? 'instructions (callgrind)' : b.series || 'wall time');
  function seriesOfBench(b) {
    // the benchmark and its companions, its own series first
    const own = listedWith(b) ? BENCH.get(b.of) : b;
    return [own].concat((own.companions || []).map((n) => BENCH.get(n)).filter(Boolean));
  }
  const CHANGES = new Map();     // bench name -> [change]
  for (const c of (IDX && IDX.changes) || []) {
    if (!CHANGES.has(c.series)) CHANGES.set(c.series, []);
    CHANGES.get(c.series).push(c);
  }
  const NCOMMITS = IDX ? IDX.commits.id.length : 0;
  const T = IDX ? IDX.commits.t : [];
  const T_MIN = NCOMMITS ? T[0] : 0;
  const T_MAX = NCOMMITS ? T[NCOMMITS - 1] : 1;
  // One run a commit: every runner size measures each commit once (the history keeps no reruns).
  const runsText = () => plural(NCOMMITS, 'run', 'runs');
  const FIRST_RUN = '1 run so far: trends appear from the second run.';
  const HALF_DAY = 43200;        // the x axis around a single commit (a zero-width axis draws nothing)
  const xSpan = (a, b) => (a === b ? [a - HALF_DAY, b + HALF_DAY] : [a, b]);

  const loaded = new Map();      // group file -> Promise
  const SERIES = new Map();      // bench name -> {runnerKey: {i: Int32Array, v: Float64Array, r: Float64Array}}
  const OVERVIEW = new Map();    // the same, bucket means for the small multiples (large histories)
  const scriptBase = (document.currentScript && document.currentScript.src.replace(/app\.js(\?.*)?$/, '')) || 'dashboard/';

  // kind 'full': every point; 'overview': the group's bucket-mean file when it has one.
  function fileOf(g, kind) { return kind === 'overview' && g.ofile ? g.ofile : g.file; }
  function isLoaded(g, kind) { return loaded.has(fileOf(g, kind)) && loaded.get(fileOf(g, kind)).done; }
  function seriesOf(name, kind) {
    const g = BENCH.get(name).group;
    return (kind === 'overview' && g.ofile ? OVERVIEW : SERIES).get(name);
  }

  function loadGroup(g, kind) {
    const file = fileOf(g, kind);
    if (loaded.has(file)) return loaded.get(file);
    const storeKey = file === g.file ? g.key : g.key + '#o';
    const target = file === g.file ? SERIES : OVERVIEW;
    const p = new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = scriptBase + 'data/g/' + encodeURIComponent(file);
      s.async = true;
      s.onload = () => {
        const store = window.BENCHTRACK_DATA || {};
        const raw = store[storeKey];
        if (!raw) { reject(new Error('group ' + g.key + ' missing from ' + file)); return; }
        delete store[storeKey];
        for (const [name, perRunner] of Object.entries(raw)) {
          const out = {};
          for (const [key, [deltas, values, ranges]] of Object.entries(perRunner)) {
            const n = deltas.length;
            const i = new Int32Array(n), v = new Float64Array(n), r = new Float64Array(n);
            let acc = 0;
            for (let k = 0; k < n; k++) {
              acc += deltas[k]; i[k] = acc; v[k] = values[k];
              r[k] = ranges[k] == null ? NaN : ranges[k];
            }
            out[key] = { i, v, r };
          }
          target.set(name, out);
        }
        p.done = true;
        resolve();
      };
      s.onerror = () => reject(new Error('could not load ' + s.src));
      document.head.append(s);
    });
    loaded.set(file, p);
    p.catch((e) => showError(e.message));
    return p;
  }
  function loadAll() { return Promise.all(GROUPS.map((g) => loadGroup(g, 'full'))); }

  function showError(text) {
    if (document.getElementById('load-error')) return;
    main.prepend(el('p', { class: 'notice error', id: 'load-error', role: 'alert', text }));
  }

  // ------------------------------------------------------------------------------------------
  // State <-> URL (the permalink): view, benchmark, runners, x range, toggles, commits, search

  const state = {};
  const VIEWS = ['overview', 'bench', 'scaling', 'compare', 'regressions'];
  const SHOW = ['regressions', 'improvements', 'all'];   // what the Regressions list shows
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
    if (s.q && s.view !== 'bench') p.set('q', s.q);
    return '#' + p.toString();
  }
  let shownHash = '';            // the hash of the view on screen (scroll positions are kept per hash)
  function saveState() { history.replaceState(null, '', hashFor()); shownHash = location.hash; }
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

  // ------------------------------------------------------------------------------------------
  // Chart data and drawing

  function seriesFor(name, keys, norm, kind) {
    // Aligned data for uPlot: x = commit time; per runner y, lo, hi (nulls where a runner has no point).
    const per = seriesOf(name, kind || 'full') || {};
    const use = keys.filter((k) => per[k]);
    const seen = new Uint8Array(NCOMMITS);
    for (const k of use) for (const i of per[k].i) seen[i] = 1;
    const idx = [];
    for (let i = 0; i < NCOMMITS; i++) if (seen[i]) idx.push(i);
    const pos = new Int32Array(NCOMMITS).fill(-1);
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
  function isRegression(c, bench) {
    // detect's own verdict when it gave one; else a fall of a bigger-is-better metric or a rise of
    // a smaller-is-better one (the metric's direction from the change, else from the benchmark)
    if (typeof c.regression === 'boolean') return c.regression;
    const d = (c.direction || '').toLowerCase();
    if (/regress|worse|slower/.test(d)) return true;
    if (/improv|better|faster/.test(d)) return false;
    if (c.change == null) return false;
    const dir = d === 'smaller' || d === 'bigger' ? d : bench.dir;
    return dir === 'smaller' ? c.change > 0 : c.change < 0;
  }
  // A change between two runs is coloured only when it is real: the runs' ± ranges (value ± half
  // its ci) do not overlap, or change-point detection flagged a step there. Runs of unchanged code
  // on a busy machine differ by tens of percent inside their own ranges; that is noise, shown
  // neutral. A (v, r) is a run's value and half-width (NaN: not recorded, so never judged real).
  const MIN_CHANGE = 0.02;       // smaller changes stay neutral unless detection flagged them
  function judge(dir, a, b, flagged) {
    if (!a || !b || !a.v) return { kind: '', note: '' };
    const ch = b.v / a.v - 1;
    const worse = dir === 'smaller' ? ch > 0 : ch < 0;
    const rel = (x) => pct(x.r / x.v).replace(/^[+−]/, '±');
    if (flagged) return { kind: worse ? 'worse' : 'better', why: 'confirmed', note: 'confirmed by change-point detection' };
    if (isNaN(a.r) || isNaN(b.r)) return { kind: '', why: 'unknown', note: 'no ± range recorded, so not judged' };
    if (Math.abs(b.v - a.v) <= a.r + b.r) return { kind: '', why: 'noise', note: `within the runs' spread (${rel(a)} before, ${rel(b)} after)` };
    if (Math.abs(ch) < MIN_CHANGE) return { kind: '', why: 'small', note: `beyond the runs' spread but under ${MIN_CHANGE * 100} %` };
    return { kind: worse ? 'worse' : 'better', why: 'beyond', note: `beyond the runs' spread (${rel(a)} before, ${rel(b)} after)` };
  }
  function flaggedAt(name, runner, from, to) {
    // detection flagged a step of this series on this runner at a commit in (from, to]
    return (CHANGES.get(name) || []).some((c) => c.runner === runner && c.i > from && c.i <= to);
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

  // ------------------------------------------------------------------------------------------
  // Overview: suites and groups as sections, a small-multiples grid per group, drawn in view only

  const live = new Map();        // chart host element -> uPlot (the charts currently drawn)
  let observer = null;
  const queue = [];              // hosts waiting to be drawn, a few per frame
  let pumping = false;
  let firstPaintMarked = false;

  function teardown() {
    if (observer) { observer.disconnect(); observer = null; }
    for (const u of live.values()) u.destroy();
    live.clear();
    queue.length = 0;
    hideTooltip();
    if (window.benchtrack) window.benchtrack.main = null;
  }

  function observe(hosts, draw) {
    observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const host = e.target;
        if (e.isIntersecting) {
          if (!live.has(host) && !host._queued) { host._queued = true; queue.push([host, draw]); }
        } else {
          host._queued = false;
          const u = live.get(host);
          if (u) { u.destroy(); live.delete(host); host.classList.remove('drawn'); }
        }
      }
      pump();
    }, { rootMargin: '300px 0px' });
    for (const h of hosts) observer.observe(h);
  }

  function pump() {
    if (pumping) return;
    pumping = true;
    requestAnimationFrame(function step() {
      const t0 = performance.now();
      while (queue.length && performance.now() - t0 < 8) {
        const [host, draw] = queue.shift();
        if (!host._queued || !host.isConnected) continue;
        const g = BENCH.get(host.dataset.bench).group;
        if (!isLoaded(g, draw.kind)) {
          loadGroup(g, draw.kind).then(() => { queue.push([host, draw]); pump(); });
          continue;
        }
        host._queued = false;
        draw(host);
      }
      if (queue.length && queue.some(([h, d]) => isLoaded(BENCH.get(h.dataset.bench).group, d.kind))) requestAnimationFrame(step);
      else {
        pumping = false;
        if (!firstPaintMarked && live.size) {
          firstPaintMarked = true;
          performance.mark('benchtrack:first-charts');
          document.documentElement.dataset.firstCharts = String(Math.round(performance.now()));
        }
      }
    });
  }

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
      scales: { x: { time: true, range: () => xSpan(T_MIN - (T_MAX - T_MIN) * 0.03, T_MAX + (T_MAX - T_MIN) * 0.03) }, y: { range: yRange(sd, false) } },
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

  function matches(b, q) {
    if (!q) return true;
    const name = [b.name].concat(b.companions || []).join(' ').toLowerCase();
    return q.toLowerCase().split(/\s+/).filter(Boolean).every((t) => name.includes(t));
  }

  function runnerSwatch(k) {
    const r = RUNNER_BY_KEY.get(k);
    return el('span', { class: 'swatch', style: `--c:${r.color}`, 'data-dash': r.dash.length ? 'dashed' : 'solid', 'aria-hidden': 'true' });
  }
  function shortRunner(k) {
    // the runner key without the label all runners share (ubuntu-latest-2cpu -> 2cpu)
    const labels = new Set(RUNNERS.map((r) => r.label));
    const r = RUNNER_BY_KEY.get(k);
    return labels.size === 1 && k.startsWith(r.label + '-') ? k.slice(r.label.length + 1) : k;
  }
  function runnerName(k) {
    const r = RUNNER_BY_KEY.get(k);
    return r.cpus != null ? r.cpus + ' vCPU' : r.key;
  }

  miniChart.kind = 'overview';

  function renderOverview() {
    const frag = document.createDocumentFragment();
    const hosts = [];
    let shown = 0;
    for (const s of IDX.suites) {
      const sec = el('section', { class: 'suite', 'aria-labelledby': 'suite-' + s.name });
      sec.append(el('h2', { id: 'suite-' + s.name, text: s.name }));
      let suiteShown = 0;
      for (const g of s.groups) {
        const grid = el('div', { class: 'grid' });
        let n = 0;
        for (const b of g.benches) {
          if (listedWith(b) || !matches(b, state.q)) continue;
          n++;
          const host = el('div', { class: 'mini', 'data-bench': b.name, role: 'img', 'aria-label': 'Trend of ' + b.name + ' per runner size' });
          hosts.push(host);
          const lastRow = el('ul', { class: 'last' });
          for (const k of state.runners) {
            const l = b.last[k];
            if (!l) continue;
            // l: [commit index, value, ± half-width, previous value, its ± half-width]
            const ch = l[3] ? l[1] / l[3] - 1 : null;
            const j = ch == null ? null : judge(b.dir, { v: l[3], r: l[4] ?? NaN }, { v: l[1], r: l[2] ?? NaN }, flaggedAt(b.name, k, l[0] - 1, l[0]));
            lastRow.append(el('li', null, runnerSwatch(k), el('span', { class: 'rk', text: runnerName(k) }),
              el('span', { class: 'val', text: fmt(l[1]) }),
              j ? el('span', { class: 'chg' + (j.kind ? ' ' + j.kind : ' ' + j.why), 'data-judged': j.why, title: `${pct(ch)} vs the previous run: ${j.note}`, text: pct(ch) }) : null));
          }
          const link = el('a', { class: 'card', href: hashFor({ view: 'bench', bench: b.name, from: null, to: null }), 'data-name': b.name },
            el('span', { class: 'card-head' }, el('span', { class: 'card-title', text: b.variant }),
              el('span', { class: 'card-unit', text: b.unit + (b.dir === 'smaller' ? ' · lower is better' : '') })),
            host, lastRow, companionLine(b));
          grid.append(link);
        }
        if (!n) continue;
        suiteShown += n;
        sec.append(el('section', { class: 'group', 'aria-labelledby': 'g-' + g.key },
          el('h3', { id: 'g-' + g.key }, el('span', { text: g.name || '(no group)' }), el('span', { class: 'count', text: n + (n === 1 ? ' benchmark' : ' benchmarks') })),
          grid));
      }
      if (suiteShown) { frag.append(sec); shown += suiteShown; }
    }
    const summary = el('p', { class: 'summary', id: 'summary', text: `${shown} of ${plural(PRIMARY.length, 'benchmark', 'benchmarks')}` + (state.q ? ` match “${state.q}”` : '') + ` · ${runsText()} · drag on a chart to zoom, click a card for details` });
    const rel = el('label', { class: 'rel' }, el('input', { type: 'checkbox', id: 'norm-overview', checked: state.norm,
      onchange: (e) => { state.norm = e.target.checked; saveState(); render(); } }), ' Relative: each line divided by its first point');
    const counts = changeCounts(changeRows());
    const flagged = counts.regressions ? el('p', { class: 'flagged', id: 'flagged' },
      el('span', { class: 'flag-icon', 'aria-hidden': 'true', text: '▼' }),
      `${counts.regressions} ${counts.regressions === 1 ? 'regression' : 'regressions'} flagged by change-point detection`,
      counts.fresh ? el('span', { class: 'badge', text: counts.fresh + ' new' }) : null,
      el('a', { href: hashFor({ view: 'regressions', from: null, to: null }), text: 'See the list' })) : null;
    const first = NCOMMITS === 1 ? el('p', { class: 'notice info', id: 'first-run', text: FIRST_RUN }) : null;
    main.replaceChildren(el('div', { class: 'bar' }, summary, rel), ...(first ? [first] : []), ...(flagged ? [flagged] : []), frag);
    if (!shown) main.append(el('p', { class: 'notice', text: 'No benchmark matches the filter.' }));
    observe(hosts, miniChart);
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

  // ------------------------------------------------------------------------------------------
  // One benchmark: a line per runner size, bands, markers, tooltip, zoom/pan, log, normalise

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
    const keys = state.runners.filter((k) => bench.runners.includes(k));
    const head = el('div', { class: 'bench-head' },
      el('p', { class: 'crumbs' }, el('a', { href: hashFor({ view: 'overview', from: null, to: null }), text: '← Overview' }), ' / ', bench.suite, ' / ', bench.group.name),
      el('h2', { text: bench.name }),
      el('p', { class: 'unit', text: bench.unit + (bench.dir === 'smaller' ? ' — lower is better' : ' — higher is better') }),
      NCOMMITS === 1 ? el('p', { class: 'notice info', id: 'first-run', text: FIRST_RUN }) : null);
    const tools = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Chart controls' },
      el('label', null, el('input', { type: 'checkbox', id: 'log', checked: state.log, onchange: (e) => { state.log = e.target.checked; saveState(); render(); } }), ' Log scale'),
      el('label', null, el('input', { type: 'checkbox', id: 'norm', checked: state.norm, onchange: (e) => { state.norm = e.target.checked; saveState(); render(); } }), ' Normalise to first point'),
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
      el('thead', null, el('tr', null, el('th', { scope: 'col', text: 'Runner' }), el('th', { scope: 'col', text: 'vCPUs' }), el('th', { scope: 'col', text: 'Commit' }), el('th', { scope: 'col', text: 'Value' }), el('th', { scope: 'col', text: 'Change vs previous' }))),
      el('tbody'));
    const marks = el('div', { class: 'marks' });
    const all = seriesOfBench(bench);
    const others = otherSeries(bench, all);
    const sw = seriesSwitch(bench, all);
    main.replaceChildren(head, ...(sw ? [sw] : []), tools, legend, host, el('p', { class: 'hint', text: 'Drag across the chart to zoom; click a point to open its commit.' }), ...others, marks, latest);
    observe(others.map((o) => o.querySelector('.mini')), miniChart);
    const token = renderToken;
    loadGroup(bench.group, 'full').then(() => { if (token === renderToken) drawBench(bench, keys, host, legend, latest, marks); });
  }

  function drawBench(bench, keys, host, legend, latest, marks) {
    const sd = seriesFor(bench.name, keys, state.norm);
    mainSd = { sd, bench };
    for (const [s, k] of sd.keys.entries()) {
      const r = RUNNER_BY_KEY.get(k);
      const n = sd.ys[s].filter((v) => v != null).length;
      legend.append(el('li', { 'data-runner': k }, runnerSwatch(k), `${r.key} (${runnerName(k)}, ${plural(n, 'point', 'points')})`));
    }
    const tbody = latest.tBodies[0];
    const per = SERIES.get(bench.name) || {};
    for (const k of sd.keys) {
      const s = per[k]; const n = s.v.length;
      const ch = n > 1 ? s.v[n - 1] / s.v[n - 2] - 1 : null;
      const j = ch == null ? null : judge(bench.dir, { v: s.v[n - 2], r: s.r[n - 2] }, { v: s.v[n - 1], r: s.r[n - 1] }, flaggedAt(bench.name, k, s.i[n - 2], s.i[n - 1]));
      tbody.append(el('tr', null, el('th', { scope: 'row' }, runnerSwatch(k), ' ', k), el('td', { text: RUNNER_BY_KEY.get(k).cpus ?? '—' }),
        el('td', null, el('code', { text: short(IDX.commits.id[s.i[n - 1]]) })),
        el('td', { text: fmt(s.v[n - 1], 4) + (isNaN(s.r[n - 1]) ? '' : ' ± ' + fmt(s.r[n - 1], 3)) + ' ' + bench.unit }),
        el('td', { class: 'chg' + (j && j.kind ? ' ' + j.kind : '') }, ch == null ? 'first run' : pct(ch), j ? el('span', { class: 'why', text: ' · ' + j.note }) : null)));
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
          label: state.norm ? 'relative to first point' : bench.unit, labelFont: AXIS_FONT, labelSize: 16 },
      ],
      series: [{}].concat(sd.keys.map((k, s) => {
        const r = RUNNER_BY_KEY.get(k);
        const n = sd.ys[s].reduce((c, v) => c + (v != null), 0);
        return { label: k, stroke: r.color, width: 2, dash: r.dash, spanGaps: true,
          points: { show: sd.xs.length <= 120 || n < 3, size: n < 3 ? 9 : 5, fill: r.color, stroke: r.color } };
      })),
      hooks: {
        drawAxes: [(u) => drawBands(u, sd)],
        draw: [(u) => drawMarkers(u, sd, bench, true)],
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
      const half = (sd.his[s][j] - sd.los[s][j]) / 2;
      const p = prevIndex(sd, s, j);
      const prev = p < 0 ? null : sd.ys[s][p];
      const ch = prev ? y / prev - 1 : null;
      const judged = ch == null ? null : judge(bench.dir, { v: prev, r: (sd.his[s][p] - sd.los[s][p]) / 2 }, { v: y, r: half }, flaggedAt(bench.name, sd.keys[s], sd.idx[p], ci));
      rows.append(el('tr', { 'data-runner': sd.keys[s] },
        el('th', { scope: 'row' }, runnerSwatch(sd.keys[s]), ' ', runnerName(sd.keys[s])),
        el('td', { class: 'v', text: (norm ? trim(y.toPrecision(4)) + '×' : fmt(y, 4)) + (half > 0 ? ' ± ' + (norm ? trim(half.toPrecision(2)) : fmt(half, 3)) : '') }),
        el('td', { class: 'chg' + (judged && judged.kind ? ' ' + judged.kind : ''), title: judged ? judged.note : null, text: ch == null ? 'first point' : pct(ch) + ' vs prev' + (judged.why === 'noise' ? ' (within spread)' : '') })));
    }
    const mark = (CHANGES.get(bench.name) || []).filter((c) => c.i === ci && sd.keys.includes(c.runner));
    tooltip.replaceChildren(...[
      el('div', { class: 'tt-head' }, el('code', { class: 'tt-id', text: short(C.id[ci]) }), el('span', { class: 'tt-date', text: dateText(C.t[ci]) })),
      el('div', { class: 'tt-msg', text: C.msg[ci] || '(no message)' }),
      el('div', { class: 'tt-author', text: C.author[ci] ? 'by ' + C.author[ci] : '' }),
      rows,
      el('div', { class: 'tt-unit', text: norm ? 'relative to each line’s first point' : bench.unit + (bench.dir === 'smaller' ? ', lower is better' : '') }),
      mark.length ? el('div', { class: 'tt-flag', text: 'Flagged change: ' + mark.map((c) => `${c.runner} ${pct(c.change)}`).join(', ') }) : null,
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
  function hideTooltip() { tooltip.hidden = true; }

  // ------------------------------------------------------------------------------------------
  // Scaling: throughput against vCPUs at one commit, with the ideal linear line

  function commitOptions(select, selected) {
    const C = IDX.commits;
    for (let i = NCOMMITS - 1; i >= 0; i--) {
      select.append(el('option', { value: C.id[i], selected: i === selected, text: `${short(C.id[i])} · ${dateText(C.t[i]).slice(0, 10)} · ${C.msg[i].slice(0, 60)}` }));
    }
  }

  function valueAt(name, key, ci) {
    const s = (SERIES.get(name) || {})[key];
    if (!s) return null;
    // binary search: commit indices are increasing
    let lo = 0, hi = s.i.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (s.i[m] === ci) return { v: s.v[m], r: s.r[m] };
      if (s.i[m] < ci) lo = m + 1; else hi = m - 1;
    }
    return null;
  }

  function latestCommonCommit() {
    // the newest commit measured on the most runner sizes (the newest commit may have only some)
    const n = IDX.commits.runners || [];
    let best = NCOMMITS - 1, most = -1;
    for (let i = NCOMMITS - 1; i >= 0; i--) if ((n[i] ?? 0) > most) { most = n[i] ?? 0; best = i; }
    return best;
  }

  function renderScaling() {
    let ci = commitIndex(state.commit);
    if (ci < 0) ci = latestCommonCommit();
    const select = el('select', { id: 'scaling-commit', onchange: (e) => go({ commit: e.target.value }) });
    commitOptions(select, ci);
    const multi = RUNNERS.filter((r) => r.cpus != null).length;
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
      const sp = base && p.at && bench.dir !== 'smaller' ? p.at.v / base.at.v : null;
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
    const ideal = xs.map((c) => (base && bench.dir !== 'smaller' ? (base.at.v * c) / base.cpus : null));
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

  // ------------------------------------------------------------------------------------------
  // Compare: two commits side by side, the changes sorted by size

  function renderCompare() {
    let hi = commitIndex(state.head); if (hi < 0) hi = NCOMMITS - 1;
    let bi = commitIndex(state.base); if (bi < 0) bi = Math.max(0, hi - 1);
    const sb = el('select', { id: 'compare-base', onchange: (e) => go({ base: e.target.value, head: IDX.commits.id[hi] }) });
    const sh = el('select', { id: 'compare-head', onchange: (e) => go({ head: e.target.value, base: IDX.commits.id[bi] }) });
    commitOptions(sb, bi); commitOptions(sh, hi);
    const C = IDX.commits;
    const side = (i, label) => el('div', { class: 'side' }, el('h3', { text: label }), el('p', null, el('code', { text: short(C.id[i]) }), ' · ', dateText(C.t[i])),
      el('p', { class: 'msg', text: C.msg[i] }), el('p', { class: 'who', text: C.author[i] ? 'by ' + C.author[i] : '' }));
    const table = el('table', { class: 'compare', id: 'compare-table' },
      el('caption', { text: 'Changes per benchmark and runner size (results are never compared across runner sizes), largest first' }),
      el('thead', null, el('tr', null, ...['Benchmark', 'Runner', 'Base', 'Head', 'Change'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', null, el('tr', null, el('td', { colspan: '5', text: 'Loading…' }))));
    main.replaceChildren(el('div', { class: 'bench-head' }, el('h2', { text: 'Compare two commits' }),
      el('div', { class: 'pickers' }, el('label', { class: 'pick' }, 'Base ', sb), el('label', { class: 'pick' }, 'Head ', sh))),
    el('div', { class: 'sides' }, side(bi, 'Base'), side(hi, 'Head')), table);
    const token = renderToken;
    loadAll().then(() => {
      if (token !== renderToken) return;
      const rows = [];
      for (const b of BENCHES) {
        if (!matches(b, state.q)) continue;
        for (const k of state.runners) {
          const a = valueAt(b.name, k, bi), h = valueAt(b.name, k, hi);
          if (!a && !h) continue;
          const j = a && h ? judge(b.dir, a, h, flaggedAt(b.name, k, Math.min(bi, hi), Math.max(bi, hi))) : null;
          rows.push({ b, k, a, h, j, ch: a && h ? h.v / a.v - 1 : null });
        }
      }
      rows.sort((x, y) => (y.ch == null ? -1 : Math.abs(y.ch)) - (x.ch == null ? -1 : Math.abs(x.ch)) || x.b.name.localeCompare(y.b.name));
      const tb = el('tbody');
      for (const r of rows) {
        tb.append(el('tr', { 'data-bench': r.b.name, 'data-runner': r.k },
          el('td', null, el('a', { href: hashFor({ view: 'bench', bench: r.b.name, from: null, to: null }), text: r.b.name })),
          el('td', null, runnerSwatch(r.k), ' ', r.k),
          el('td', { text: r.a ? fmt(r.a.v, 4) + ' ' + r.b.unit : '—' }),
          el('td', { text: r.h ? fmt(r.h.v, 4) + ' ' + r.b.unit : '—' }),
          el('td', { class: 'chg' + (r.j && r.j.kind ? ' ' + r.j.kind : ''), 'data-change': r.ch ?? '', 'data-judged': r.j ? r.j.why : null, title: r.j ? r.j.note : null,
            text: r.ch == null ? 'missing' : pct(r.ch) + (r.j.kind ? ' ' + r.j.kind : r.j.why === 'noise' ? ' (within spread)' : '') })));
      }
      if (!rows.length) tb.append(el('tr', null, el('td', { colspan: '5', text: 'Nothing to compare.' })));
      table.tBodies[0].replaceWith(tb);
    });
  }

  // ------------------------------------------------------------------------------------------
  // Regressions: the change points `benchtrack detect` published (bench/changes.json), newest
  // first. A regression is a loss: a fall of a bigger-is-better metric, a rise of a smaller-is-
  // better one. Improvements are listed under their own filter. "new" marks the changes the
  // latest publish reported for the first time (their first_seen is that changes.json's time).

  function changeRows() {
    // every change point of a known benchmark, with its verdict; the index is newest first
    return ((IDX && IDX.changes) || []).filter((c) => BENCH.has(c.series) && RUNNER_BY_KEY.has(c.runner)).map((c) => ({ c, b: BENCH.get(c.series), bad: isRegression(c, BENCH.get(c.series)) }));
  }
  function changeCounts(rows) {
    const bad = rows.filter((r) => r.bad);
    return { regressions: bad.length, improvements: rows.length - bad.length, all: rows.length, fresh: bad.filter((r) => r.c.new).length };
  }
  const SHOW_LABEL = { regressions: 'Regressions', improvements: 'Improvements', all: 'All' };
  const SHOW_NOUN = { regressions: ['regression', 'regressions'], improvements: ['improvement', 'improvements'], all: ['change point', 'change points'] };
  const noun = (kind, n) => n + ' ' + SHOW_NOUN[kind][n === 1 ? 0 : 1];

  function windowAround(i, w) {
    // the x range of the benchmark view that puts commit i in the middle of ±w commits
    const a = Math.max(0, i - w), b = Math.min(NCOMMITS - 1, i + w);
    return a === 0 && b === NCOMMITS - 1 ? { from: null, to: null } : { from: T[a], to: T[b] };
  }

  function runnerSize(k) {
    // "2 vCPU" when every runner shares one label, else the key with its vCPUs
    const r = RUNNER_BY_KEY.get(k);
    if (!r) return k;
    const labels = new Set(RUNNERS.map((x) => x.label));
    if (r.cpus == null) return k;
    return labels.size === 1 ? runnerName(k) : `${k} (${r.cpus} vCPU)`;
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

  // ------------------------------------------------------------------------------------------
  // Header and routing

  function renderHeader() {
    const meta = document.getElementById('meta');
    const parts = [];
    parts.push('Last update ' + (IDX.lastUpdate ? dateText(IDX.lastUpdate / 1000) : 'unknown'));
    meta.replaceChildren(parts[0], ' · ',
      IDX.repoUrl && /^https?:\/\//i.test(IDX.repoUrl) ? el('a', { href: IDX.repoUrl, rel: 'noopener', text: IDX.repoUrl.replace(/^https?:\/\//, '') }) : 'no repository URL',
      ' · ' + plural(PRIMARY.length, 'benchmark', 'benchmarks') + ' · ' + runsText());
    const counts = changeCounts(changeRows());
    const tab = document.querySelector('.tabs a[data-view="regressions"]');
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
      fs.append(el('label', { class: 'runner', title: `${r.key}: ${r.points} results` + (r.data ? ' — data: ' + r.data : '') }, cb, runnerSwatch(r.key), ` ${r.key}`, el('span', { class: 'cpus', text: r.cpus != null ? ` (${r.cpus} vCPU)` : '' })));
    }
  }

  let renderToken = 0;
  function render() {
    renderToken++;
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
      document.getElementById('search').focus();
    });
    // Back to a view restores where it was scrolled to (charts keep their size while undrawn).
    const scrolled = new Map();
    shownHash = location.hash;
    window.addEventListener('hashchange', () => {
      render();
      shownHash = location.hash;
      main.focus({ preventScroll: true });
      window.scrollTo(0, scrolled.get(shownHash) || 0);
    });
    window.addEventListener('scroll', () => { hideTooltip(); scrolled.set(shownHash, window.scrollY); }, { passive: true });
    render();
  }

  start();
})();
