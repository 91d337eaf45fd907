/* Small parts shared by the views: runner swatches and names, benchmark names that wrap at "/",
 * the commit picker. */
(function (app) {
  'use strict';

  const { IDX, RUNNER_BY_KEY, RUNNERS, dateText, el, nCommits, short } = app;

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

  function runnerSize(k) {
    // "2 vCPU" when every runner shares one label, else the key with its vCPUs
    const r = RUNNER_BY_KEY.get(k);
    if (!r) return k;
    const labels = new Set(RUNNERS.map((x) => x.label));
    if (r.cpus == null) return k;
    return labels.size === 1 ? runnerName(k) : `${k} (${r.cpus} vCPU)`;
  }

  // A benchmark name as text nodes with a line-break opportunity after each "/" (phones).
  function nameNodes(name) {
    const parts = String(name).split('/');
    return parts.flatMap((part, k) => (k < parts.length - 1 ? [part + '/', el('wbr')] : [part]));
  }

  function machineText(m) { return m ? m[1] + (m[2] ? ' · ' + m[2] : '') : 'machine not recorded'; }

  function commitOptions(select, selected) {
    const C = IDX.commits;
    for (let i = nCommits() - 1; i >= 0; i--) {
      select.append(el('option', { value: C.id[i], selected: i === selected, text: `${short(C.id[i])} · ${dateText(C.t[i]).slice(0, 10)} · ${C.msg[i].slice(0, 60)}` }));
    }
  }

  Object.assign(app, { runnerSwatch, shortRunner, runnerName, runnerSize, nameNodes, machineText,
    commitOptions });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
