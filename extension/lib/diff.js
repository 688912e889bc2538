// A word diff of two texts (longest common subsequence over words and the spaces between them), for showing
// the whole-text revision against the checked text.
(function (root) {
  "use strict";

  const MAX_CELLS = 4e6; // beyond this (texts of thousands of words) the diff is shown as one change

  /** [{op: "same"|"del"|"ins", text}] turning a into b, neighbours of one op merged. */
  function wordDiff(a, b) {
    const x = String(a).split(/(\s+)/).filter(Boolean);
    const y = String(b).split(/(\s+)/).filter(Boolean);
    const out = [];
    const push = (op, text) => {
      const last = out[out.length - 1];
      if (last && last.op === op) last.text += text; else out.push({ op, text });
    };
    if (x.length * y.length > MAX_CELLS) {
      if (a) push("del", String(a));
      if (b) push("ins", String(b));
      return out;
    }
    // lcs[i][j]: common length of x[i:] and y[j:]
    const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    let i = 0, j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) { push("same", x[i]); i++; j++; }
      else if (lcs[i + 1][j] >= lcs[i][j + 1]) push("del", x[i++]);
      else push("ins", y[j++]);
    }
    while (i < x.length) push("del", x[i++]);
    while (j < y.length) push("ins", y[j++]);
    return out;
  }

  const api = { wordDiff };
  root.SC = root.SC || {};
  root.SC.diff = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
