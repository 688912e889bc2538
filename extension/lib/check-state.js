// The state of one check as its events arrive (a reducer: state + event -> state). Used by the
// content script to mark the page and by the service worker to keep "the last check" for the
// side panel, so both read the stream the same way.
(function (root) {
  "use strict";

  const L = (root.SC && root.SC.labels) || require("./labels.js");

  function initial(checkId, text) {
    return { checkId, text, status: "checking", sentences: [], verdicts: {}, summary: null, error: null, missing: [], judge: null };
  }

  /** Apply one check event; returns a new state (the old one is not modified). */
  function apply(state, event) {
    const next = Object.assign({}, state, { verdicts: Object.assign({}, state.verdicts) });
    switch (event.type) {
      case "sentences":
        next.sentences = event.sentences.slice();
        next.judge = event.judge || null;  // {name, calibrated}: an uncalibrated judge says so on each card
        break;
      case "verdict": {
        const v = Object.assign({}, event);
        delete v.type;
        next.verdicts[v.index] = v;
        break;
      }
      case "summary":
        next.summary = Object.assign({}, event);
        delete next.summary.type;
        next.status = "done";
        break;
      case "error":
        next.error = event.error;
        next.status = "error";
        break;
      default:
        break;
    }
    return next;
  }

  /** The label shown for sentence i: its verdict's, "skipped" when not checkable, else "pending". */
  function labelOf(state, i) {
    const v = state.verdicts[i];
    if (v) return v.label;
    const s = state.sentences.find((x) => x.index === i);
    if (s && s.checkable === false) return "skipped";
    if (state.status === "checking") return "pending";
    return state.status === "cancelled" ? "cancelled" : "skipped";
  }

  /** Counts by label over the sentences seen so far. */
  function counts(state) {
    const c = Object.fromEntries(L.LABELS.map((l) => [l.key, 0]));
    for (const s of state.sentences) {
      const label = labelOf(state, s.index);
      c[label] = (c[label] || 0) + 1;  // a label this extension does not know is counted too
    }
    return c;
  }

  /** Should a sentence with this label be marked in the page? A label this extension does not know is (neutral). */
  function isMarked(label, showSupported) {
    if (!L.isKnown(label)) return L.isLabelWord(label);
    return L.MARKED.includes(label) && (label !== "supported" || !!showSupported);
  }

  const api = { initial, apply, labelOf, counts, isMarked };
  root.SC = root.SC || {};
  root.SC.checkState = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
