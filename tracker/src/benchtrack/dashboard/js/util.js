/* The page's fixed elements, building DOM nodes, number and date formats, the palette. */
(function (app) {
  'use strict';

  const main = document.getElementById('main');
  const announce = document.getElementById('announce');

  // Okabe–Ito: a palette that stays distinct for the common colour-vision deficiencies. Each
  // runner also gets its own dash pattern, so colour is never the only cue.
  const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000', '#F0E442'];
  const DASHES = [[], [7, 3], [2, 3], [9, 3, 2, 3], [4, 4], [1, 2]];
  const WORSE = '#D55E00';
  const BETTER = '#0072B2';

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

  function say(text) { announce.textContent = text; }

  Object.assign(app, { main, PALETTE, DASHES, WORSE, BETTER, el, fmt, trim, pct, pct1, plural,
    dateText, short, say });
})(window.BenchtrackDashboard = window.BenchtrackDashboard || {});
