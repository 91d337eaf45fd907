/* The charts on screen: drawn a few per frame when near the viewport (loading their group
 * first), released when scrolled away or when the view changes; the tooltip. */
(function (app) {
  'use strict';

  const { BENCH, isLoaded, loadGroup, showError } = app;

  const tooltip = document.getElementById('tooltip');

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
          if (!live.has(host) && !host._queued) { host._queued = true; queue.push([host, draw]); request(host, draw); }
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

  function request(host, draw) {
    // The group a chart needs, asked for when the chart is queued, not when a frame reaches it:
    // a frame that ran out of time used to leave charts whose group nobody had asked for, and no
    // load's completion pumped the queue again (Scaling stayed blank after a fast scroll).
    const g = BENCH.get(host.dataset.bench).group;
    if (!isLoaded(g, draw.kind)) loadGroup(g, draw.kind).then(pump, () => {});
  }

  function pump() {
    if (pumping) return;
    pumping = true;
    requestAnimationFrame(function step() {
      const t0 = performance.now();
      const later = [];
      while (queue.length && performance.now() - t0 < 8) {
        const [host, draw] = queue.shift();
        if (!host._queued || !host.isConnected) continue;
        if (!isLoaded(BENCH.get(host.dataset.bench).group, draw.kind)) { later.push([host, draw]); continue; }
        host._queued = false;
        try { draw(host); } catch (e) { host.classList.add('failed'); showError('a chart failed to draw: ' + e.message); }
      }
      queue.push(...later);
      if (queue.some(([h, d]) => h._queued && h.isConnected && isLoaded(BENCH.get(h.dataset.bench).group, d.kind))) requestAnimationFrame(step);
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

  function hideTooltip() { tooltip.hidden = true; }

  Object.assign(app, { tooltip, live, observe, teardown, hideTooltip });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
