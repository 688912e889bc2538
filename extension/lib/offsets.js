// Unicode code points (the API's offsets: Python string indices) <-> UTF-16 code units (the DOM's).
// A character outside the Basic Multilingual Plane (most emoji) is one code point but two UTF-16
// units, so "🙂 The study..." puts every later sentence one unit further right in the DOM.
// Classic script: shares the SC namespace with the other extension scripts, and is require()-able
// by the node tests.
(function (root) {
  "use strict";

  function isHigh(c) { return c >= 0xd800 && c <= 0xdbff; }
  function isLow(c) { return c >= 0xdc00 && c <= 0xdfff; }

  /** Table t where t[cp] is the UTF-16 offset of code point cp (t.length = code points + 1). */
  function codePointTable(str) {
    const table = [];
    let u = 0;
    while (u < str.length) {
      table.push(u);
      // A lone surrogate counts as one code point, as Python (json.loads) counts it.
      u += isHigh(str.charCodeAt(u)) && u + 1 < str.length && isLow(str.charCodeAt(u + 1)) ? 2 : 1;
    }
    table.push(str.length);
    return table;
  }

  /** UTF-16 offset of code point offset cp in str (clamped to the string). */
  function cpToUtf16(str, cp, table) {
    const t = table || codePointTable(str);
    if (cp <= 0) return 0;
    if (cp >= t.length - 1) return str.length;
    return t[cp];
  }

  /** Code point offset of UTF-16 offset u in str; an offset inside a pair counts as after it. */
  function utf16ToCp(str, u) {
    let cp = 0;
    let i = 0;
    const end = Math.min(Math.max(u, 0), str.length);
    while (i < end) {
      i += isHigh(str.charCodeAt(i)) && i + 1 < str.length && isLow(str.charCodeAt(i + 1)) ? 2 : 1;
      cp += 1;
    }
    return cp;
  }

  /** Number of code points in str (what Python's len() says). */
  function cpLength(str) {
    return codePointTable(str).length - 1;
  }

  /**
   * Convert an API sentence {start, end} (code points into text) to UTF-16 {start, end}.
   * If the slice does not equal sentence.text (a server that counted differently), look for the
   * text near where it should be, so one miscount never shifts every later mark.
   */
  function sentenceToUtf16(text, sentence, table) {
    const t = table || codePointTable(text);
    const start = cpToUtf16(text, sentence.start, t);
    const end = cpToUtf16(text, sentence.end, t);
    if (typeof sentence.text !== "string" || text.slice(start, end) === sentence.text) {
      return { start, end, exact: true };
    }
    const want = sentence.text;
    let best = -1;
    let from = 0;
    for (;;) {
      const i = text.indexOf(want, from);
      if (i < 0) break;
      if (best < 0 || Math.abs(i - start) < Math.abs(best - start)) best = i;
      from = i + 1;
    }
    if (best >= 0) return { start: best, end: best + want.length, exact: false };
    return { start, end, exact: false };
  }

  const api = { codePointTable, cpToUtf16, utf16ToCp, cpLength, sentenceToUtf16 };
  root.SC = root.SC || {};
  root.SC.offsets = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
