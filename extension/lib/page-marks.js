// What is kept of a page's marks so they survive a reload (as Hypothesis keeps annotations): per URL, each checked
// sentence's text-quote and position selectors, its label and a slim verdict, and the sentences dismissed there.
// One storage key per page ("marks:" + URL), so loading a page reads only its own; an index bounds them to the
// pages checked last and to a total size. Pure functions, used by the content script (what to keep) and the service
// worker (checking what a page sends, and bounding).
(function (root) {
  "use strict";

  const L = (root.SC && root.SC.labels) || require("./labels.js");

  const MAX_PAGES = 20;
  const KEPT_EVIDENCE = 3;      // passages per sentence, as the history keeps
  const MAX_DISMISSED = 200;    // per page
  const MAX_ENTRIES = 200;      // sentences per page: the newest checks' first, the oldest checks' go
  const MAX_LOST = 3;           // a sentence of an older check not found in this many page loads (that saved) goes
  const MAX_PAGE_BYTES = 500000;  // one page's record, as JSON (UTF-16 code units)
  const MAX_BYTES = 2000000;    // all pages' records together, as JSON: the oldest pages go first

  const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
  const isInt = (x) => Number.isInteger(x) && x >= 0;
  const isStr = (x) => typeof x === "string";
  const time = (x) => (typeof x === "number" && isFinite(x) && x >= 0 ? x : 0);

  /** The storage key of a page: its URL without the #fragment (a fragment is a place in the same page). */
  function keyFor(url) {
    return "marks:" + String(url).split("#")[0];
  }

  /** What a card needs of a verdict, without the bulk (internals, long evidence lists). */
  function slimVerdict(v) {
    if (!v) return null;
    return {
      index: v.index, label: v.label, p_supported: v.p_supported, error_type: v.error_type, critique: v.critique,
      revised: v.revised, final: v.final, rereading: !!v.rereading, cited: v.cited || [], conflict: v.conflict || null,
      evidence: (v.evidence || []).slice(0, KEPT_EVIDENCE).map((e) => ({
        document_id: e.document_id, filename: e.filename, page: e.page, quote: e.quote, stance: e.stance,
        // a PDF from Zotero: its link and citation (content/card.js keeps only a zotero:// link)
        ...(isObj(e.zotero) ? { zotero: { url: e.zotero.url, cite: e.zotero.cite, title: e.zotero.title } } : {}) })),
    };
  }

  /** The kept fields of a mark entry (or of a kept one), nothing else. */
  function slimEntry(e) {
    const q = e.selectors.quote;
    const p = e.selectors.position;
    return {
      key: e.key, checkId: e.checkId, index: e.index, text: e.text, checkable: e.checkable !== false, label: e.label,
      selectors: { quote: { exact: q.exact, prefix: q.prefix || "", suffix: q.suffix || "" }, position: { start: p.start, end: p.end } },
      verdict: slimVerdict(e.verdict), checkedAt: time(e.checkedAt), lost: isInt(e.lost) ? e.lost : 0,
      judge: isObj(e.judge) ? { name: isStr(e.judge.name) ? e.judge.name : "", calibrated: e.judge.calibrated !== false } : null,
    };
  }

  /** The record within bounds: at most MAX_ENTRIES sentences, the newest checks' first (the order kept), at most
   * MAX_DISMISSED dismissed (the last ones), and at most MAX_PAGE_BYTES in all (the oldest sentences go first). */
  function fit(record) {
    const entries = record.entries;
    const byAge = entries.map((e, i) => i).sort((a, b) => time(entries[b].checkedAt) - time(entries[a].checkedAt) || a - b);
    const keep = byAge.slice(0, MAX_ENTRIES);
    const dismissed = record.dismissed.slice(-MAX_DISMISSED);
    const size = (x) => JSON.stringify(x).length + 1;
    let bytes = JSON.stringify(Object.assign({}, record, { entries: [], dismissed: [] })).length;
    bytes += keep.reduce((n, i) => n + size(entries[i]), 0) + dismissed.reduce((n, t) => n + size(t), 0);
    while (bytes > MAX_PAGE_BYTES && keep.length) bytes -= size(entries[keep.pop()]);
    while (bytes > MAX_PAGE_BYTES && dismissed.length) bytes -= size(dismissed.shift());
    const kept = new Set(keep);
    return Object.assign({}, record, { entries: entries.filter((e, i) => kept.has(i)), dismissed });
  }

  /** The record of a page: its mark entries that have an answer (not those still pending), and what was dismissed.
   * An entry not found on the page now counts one more page load lost (e.lost is what the record said when the page
   * loaded); one of a check older than the page's newest that was lost MAX_LOST times is not kept again. */
  function toRecord(entries, dismissed, now) {
    const kept = [...entries].filter((e) => e.label !== "pending" && e.selectors).map((e) => Object.assign(slimEntry(e), {
      lost: e.found === false ? (isInt(e.lost) ? e.lost : 0) + 1 : 0,
    }));
    const newest = kept.reduce((t, e) => Math.max(t, e.checkedAt), 0);
    const live = kept.filter((e) => e.lost < MAX_LOST || e.checkedAt >= newest);
    return fit({ at: now, entries: live, dismissed: [...dismissed] });
  }

  /** Why a record sent by a page is not one toRecord makes, or null when it is well-formed. */
  function problem(record) {
    if (!isObj(record)) return "not an object";
    if (!Array.isArray(record.entries)) return "entries is not a list";
    if (!Array.isArray(record.dismissed)) return "dismissed is not a list";
    if (record.at !== undefined && time(record.at) !== record.at) return "bad time";
    if (!record.dismissed.every(isStr)) return "a dismissed sentence is not a string";
    for (const e of record.entries) {
      if (!isObj(e) || !isStr(e.key) || !isStr(e.checkId) || !isInt(e.index) || !isStr(e.text)) return "bad entry";
      if (!L.isLabelWord(e.label)) return "bad label";  // a verdict's, maybe one this version does not know
      const s = e.selectors;
      if (!isObj(s) || !isObj(s.quote) || !isStr(s.quote.exact) || !isObj(s.position)) return "bad selectors";
      if ((s.quote.prefix !== undefined && !isStr(s.quote.prefix)) || (s.quote.suffix !== undefined && !isStr(s.quote.suffix))) return "bad selectors";
      if (!isInt(s.position.start) || !isInt(s.position.end) || s.position.end < s.position.start) return "bad selectors";
      if (e.verdict !== null && e.verdict !== undefined && !isObj(e.verdict)) return "bad verdict";
      if (e.verdict && e.verdict.evidence !== undefined && !Array.isArray(e.verdict.evidence)) return "bad verdict";
      if (e.verdict && Array.isArray(e.verdict.evidence) && !e.verdict.evidence.every(isObj)) return "bad verdict";
    }
    return null;
  }

  /** A record sent by a page as it will be stored ({record}: its known fields only, within bounds), or {problem}. */
  function clean(record) {
    const why = problem(record);
    if (why) return { problem: why };
    const entries = record.entries.map(slimEntry);
    return { record: fit({ at: time(record.at), entries, dismissed: record.dismissed }) };
  }

  /** The index ([{key, at, size}], newest first) after the page `key` was saved at `at` with a record of `size` bytes
   * (or removed, when empty), and the keys that fall out of it: past MAX_PAGES pages or MAX_BYTES in all, the oldest
   * go (the page just saved stays). */
  function bound(index, key, at, empty, size) {
    const rest = (Array.isArray(index) ? index : []).filter((i) => isObj(i) && isStr(i.key) && i.key !== key);
    const next = empty ? rest : [{ key, at, size: time(size) }, ...rest];
    const kept = [];
    const drop = [];
    let total = 0;
    for (const i of next) {
      total += time(i.size);
      if (i.key === key || (kept.length < MAX_PAGES && total <= MAX_BYTES)) kept.push(i);
      else drop.push(i.key);
    }
    return { index: kept, drop: empty ? drop.concat([key]) : drop };
  }

  const api = { MAX_PAGES, MAX_ENTRIES, MAX_LOST, MAX_PAGE_BYTES, MAX_BYTES, keyFor, slimVerdict, toRecord, fit, problem, clean, bound };
  root.SC = root.SC || {};
  root.SC.pageMarks = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
