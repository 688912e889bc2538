// Where an evidence quote is in a page's text layer. The quote comes from the backend's reading of the PDF (ligatures
// expanded, words hyphenated over a line joined, blocks in reading order); the text layer is pdf.js's (a word may be
// split into two items, a hyphen left at a line's end, TeX left by the PDF's maker: "\mathcal{M}_{edit}",
// "editsubscript"). So both are compared as letters and digits only, without such residue, and the match is mapped
// back to exact offsets in the layer's text: the whole quote is highlighted, from its first letter to its last.
(function (root) {
  "use strict";

  const TEX = /[\\{}_^$]/;                 // a word with these is TeX residue, not prose
  const SCRIPT = /(sub|super)script$/i;    // "editsubscript": a math annotation glued to the word before it
  const KEEP = /[\p{L}\p{N}]/u;
  const ENOUGH = 0.85;                     // share of the quote's letters a fuzzy match must have
  const CROSSING = 40;                     // letters of a quote running over a page break that are enough on this page
  const EDGE = 60;                         // letters a page may have before or after such a quote (a running header)

  /** Letters and digits of text, folded (case, accents, ligatures), without TeX residue; map[k] = index in text. */
  function skeleton(text) {
    let chars = "";
    const map = [];
    const word = /\S+/g;
    let m;
    while ((m = word.exec(text))) {
      if (TEX.test(m[0])) continue;
      const w = m[0].replace(SCRIPT, "");
      for (let i = 0; i < w.length; i++) {
        const folded = w[i].normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
        for (const c of folded) if (KEEP.test(c)) { chars += c; map.push(m.index + i); }
      }
    }
    return { chars, map };
  }

  /**
   * The best local alignment of quote q in page p (skeletons): match +2, mismatch -3, gap -2 (Smith-Waterman, one
   * column at a time). Returns {pStart, pEnd, qStart, qEnd, matches} (end exclusive) or null.
   */
  function align(q, p) {
    const m = q.length;
    let H = new Float64Array(m + 1), S = new Int32Array(m + 1), Q = new Int32Array(m + 1), N = new Int32Array(m + 1);
    let H2 = new Float64Array(m + 1), S2 = new Int32Array(m + 1), Q2 = new Int32Array(m + 1), N2 = new Int32Array(m + 1);
    for (let i = 0; i <= m; i++) Q[i] = i;
    let best = null;
    for (let j = 1; j <= p.length; j++) {
      H2[0] = 0; S2[0] = j; Q2[0] = 0; N2[0] = 0;
      for (let i = 1; i <= m; i++) {
        const same = q[i - 1] === p[j - 1];
        let h = 0, s = j - 1, qs = i - 1, n = 0;  // a new alignment starts here
        const diag = H[i - 1] + (same ? 2 : -3);
        if (diag > h) { h = diag; s = S[i - 1]; qs = Q[i - 1]; n = N[i - 1] + (same ? 1 : 0); }
        if (H[i] - 2 > h) { h = H[i] - 2; s = S[i]; qs = Q[i]; n = N[i]; }           // a page letter the quote lacks
        if (H2[i - 1] - 2 > h) { h = H2[i - 1] - 2; s = S2[i - 1]; qs = Q2[i - 1]; n = N2[i - 1]; }  // the reverse
        if (h === 0) { s = j; qs = i; n = 0; }
        H2[i] = h; S2[i] = s; Q2[i] = qs; N2[i] = n;
        if (h > 0 && (!best || h > best.score)) best = { score: h, pStart: s, pEnd: j, qStart: qs, qEnd: i, matches: n };
      }
      [H, H2] = [H2, H]; [S, S2] = [S2, S]; [Q, Q2] = [Q2, Q]; [N, N2] = [N2, N];
    }
    return best;
  }

  /** {start, end} of quote in text (offsets into text), or null when it is not there. */
  function locate(text, quote) {
    const q = skeleton(quote);
    const p = skeleton(text);
    if (!q.chars.length || !p.chars.length) return null;
    // The quote's own punctuation at either end ("(", ".", "”") is the page's too where the page has it there.
    const lead = /^[^\p{L}\p{N}\s]*/u.exec(quote.trim())[0];
    const trail = /[^\p{L}\p{N}\s]*$/u.exec(quote.trim())[0];
    const span = (a, b) => {
      let start = p.map[a], end = p.map[b - 1] + 1;
      if (lead && text.slice(start - lead.length, start) === lead) start -= lead.length;
      if (trail && text.slice(end, end + trail.length) === trail) end += trail.length;
      return { start, end };
    };
    const at = p.chars.indexOf(q.chars);
    if (at >= 0) return span(at, at + q.chars.length);
    const hit = align(q.chars, p.chars);
    if (!hit) return null;
    const whole = hit.matches >= ENOUGH * q.chars.length;
    // A quote over a page break: its start ends this page, or its end begins it.
    const crossing = hit.matches >= CROSSING && hit.matches >= ENOUGH * (hit.qEnd - hit.qStart) &&
      ((hit.qStart <= 2 && hit.pEnd >= p.chars.length - EDGE) || (hit.qEnd >= q.chars.length - 2 && hit.pStart <= EDGE));
    return whole || crossing ? span(hit.pStart, hit.pEnd) : null;
  }

  const api = { skeleton, align, locate };
  root.SC = root.SC || {};
  root.SC.find = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
