// What is kept of a page's marks so they survive a reload (as Hypothesis keeps annotations): per URL, each checked
// sentence's text-quote and position selectors, its label and a slim verdict, and the sentences dismissed there.
// One storage key per page ("marks:" + URL), so loading a page reads only its own; an index bounds them to the
// pages checked last. Pure functions, used by the content script (what to keep) and the service worker (bounding).
(function (root) {
  "use strict";

  const MAX_PAGES = 20;
  const KEPT_EVIDENCE = 3;   // passages per sentence, as the history keeps
  const MAX_DISMISSED = 200; // per page

  /** The storage key of a page: its URL without the #fragment (a fragment is a place in the same page). */
  function keyFor(url) {
    return "marks:" + String(url).split("#")[0];
  }

  /** What a card needs of a verdict, without the bulk (internals, long evidence lists). */
  function slimVerdict(v) {
    if (!v) return null;
    return {
      index: v.index, label: v.label, p_supported: v.p_supported, error_type: v.error_type, critique: v.critique,
      revised: v.revised, final: v.final, cited: v.cited || [], conflict: v.conflict || null,
      evidence: (v.evidence || []).slice(0, KEPT_EVIDENCE).map((e) => ({
        document_id: e.document_id, filename: e.filename, page: e.page, quote: e.quote, stance: e.stance })),
    };
  }

  /** The record of a page: its mark entries that have an answer (not those still pending), and what was dismissed. */
  function toRecord(entries, dismissed, now) {
    const kept = [...entries].filter((e) => e.label !== "pending" && e.selectors).map((e) => ({
      key: e.key, checkId: e.checkId, index: e.index, text: e.text, checkable: e.checkable, label: e.label,
      selectors: e.selectors, verdict: slimVerdict(e.verdict),
    }));
    return { at: now, entries: kept, dismissed: [...dismissed].slice(-MAX_DISMISSED) };
  }

  /** The index ([{key, at}], newest first) after the page `key` was saved at `at` (or removed, when empty), and
   * the keys that fall out of it. */
  function bound(index, key, at, empty) {
    const rest = (Array.isArray(index) ? index : []).filter((i) => i.key !== key);
    const next = empty ? rest : [{ key, at }, ...rest];
    return { index: next.slice(0, MAX_PAGES), drop: next.slice(MAX_PAGES).map((i) => i.key).concat(empty ? [key] : []) };
  }

  const api = { MAX_PAGES, keyFor, slimVerdict, toRecord, bound };
  root.SC = root.SC || {};
  root.SC.pageMarks = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
