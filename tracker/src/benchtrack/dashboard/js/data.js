/* The index (window.BENCHTRACK_INDEX) and the series, loaded a group at a time with a <script>
 * tag (fetch() of JSON is blocked on file://) when the group is first needed. */
(function (app) {
  'use strict';

  const { DASHES, PALETTE, el, main, plural } = app;

  const IDX = window.BENCHTRACK_INDEX;

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
  // The commit table can grow in place ("load older history", js/older.js): read its length, not
  // a copy of it.
  const T = IDX ? IDX.commits.t : [];
  const nCommits = () => T.length;
  // One run a commit: every runner size measures each commit once (the history keeps no reruns).
  const runsText = () => plural(nCommits(), 'run', 'runs');
  const FIRST_RUN = '1 run so far: trends appear from the second run.';
  const HALF_DAY = 43200;        // the x axis around a single commit (a zero-width axis draws nothing)
  const xSpan = (a, b) => (a === b ? [a - HALF_DAY, b + HALF_DAY] : [a, b]);

  const loaded = new Map();      // group file -> Promise
  const SERIES = new Map();      // bench name -> {runnerKey: {i: Int32Array, v: Float64Array, r: Float64Array}}
  const OVERVIEW = new Map();    // the same, bucket means for the small multiples (large histories)
  const scriptBase = (document.currentScript && document.currentScript.src.replace(/js\/data\.js(\?.*)?$/, '')) || 'dashboard/';
  // Where group files come from: data/g/, or the whole history's after "load older history"
  // (their payloads under `<key>#archive`); `gen` tells a load started before a switch to drop it.
  const source = { dir: 'data/g/', suffix: '', gen: 0 };
  function switchGroups(dir, suffix) {
    Object.assign(source, { dir, suffix, gen: source.gen + 1 });
    loaded.clear(); SERIES.clear(); OVERVIEW.clear();
  }
  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = scriptBase + src;
      s.async = true;
      s.onload = resolve;
      s.onerror = () => reject(new Error('could not load ' + s.src));
      document.head.append(s);
    });
  }

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
    const storeKey = (file === g.file ? g.key : g.key + '#o') + source.suffix;
    const target = file === g.file ? SERIES : OVERVIEW;
    const gen = source.gen;
    const p = loadScript(source.dir + encodeURIComponent(file)).then(() => {
      const store = window.BENCHTRACK_DATA || {};
      const raw = store[storeKey];
      if (!raw) throw new Error('group ' + g.key + ' missing from ' + file);
      delete store[storeKey];
      if (gen !== source.gen) return;  // loaded for the data shown before a switch
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

  function commitUrl(i) {
    const u = IDX.commits.url[i];
    if (u && /^https?:\/\//i.test(u)) return u;
    if (IDX.repoUrl && /^https?:\/\//i.test(IDX.repoUrl)) return IDX.repoUrl.replace(/\/$/, '') + '/commit/' + IDX.commits.id[i];
    return null;
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

  function matches(b, q) {
    if (!q) return true;
    const name = [b.name].concat(b.companions || []).join(' ').toLowerCase();
    return q.toLowerCase().split(/\s+/).filter(Boolean).every((t) => name.includes(t));
  }

  Object.assign(app, { IDX, BENCH, T, RUNNERS, RUNNER_BY_KEY, BENCHES, listedWith, PRIMARY,
    seriesLabel, seriesOf, seriesOfBench, CHANGES, nCommits, runsText, FIRST_RUN,
    xSpan, SERIES, isLoaded, loadGroup, loadAll, commitUrl, valueAt, matches, GROUPS, loadScript,
    switchGroups, showError });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
