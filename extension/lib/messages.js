// The one message contract between the service worker, content script, side panel and viewer.
// Every runtime message is {type, ...fields}; long jobs use named ports. Handlers are looked up in
// a table (createRouter), never in an if-chain.
(function (root) {
  "use strict";

  const L = (root.SC && root.SC.labels) || require("./labels.js");

  /** Runtime message types. */
  const MSG = Object.freeze({
    // to the service worker
    OPEN_VIEWER: "open-viewer",       // {documentId, page, quote, filename} -> {ok}
    OPEN_SIDE_PANEL: "open-side-panel", // {} -> {ok}
    SCROLL_TO: "scroll-to",           // side panel -> SW {tabId, key}; SW -> content {key}
    MARKS_STATUS: "marks-status",     // content -> SW {checkId, missing: [key]} (re-anchoring)
    CHECK_TAB: "check-tab",           // {tabId} -> asks the tab's content script to check its selection
    SAVE_MARKS: "save-marks",         // content -> SW {url, record} (lib/page-marks.js): the page's marks, kept
    // to the content script
    START_CHECK: "start-check",       // {fallbackText} -> {ok, started}
    PING: "ping",                     // {} -> {ok}
  });

  /** Port names (runtime.connect) for streamed or chunked jobs. */
  const PORT = Object.freeze({
    CHECK: "sourcecheck/check",   // content -> SW: {type:"check", text, checkId}; SW -> content: check events
  });

  /** Check events as the backend streams them (NDJSON lines), forwarded unchanged. */
  const EVENT = Object.freeze({ SENTENCES: "sentences", VERDICT: "verdict", SUMMARY: "summary", ERROR: "error" });
  const LABELS = L.VERDICTS;  // the labels of a verdict this extension knows (lib/labels.js)

  function message(type, fields) {
    if (!Object.values(MSG).includes(type)) throw new Error("unknown message type: " + type);
    return Object.assign({ type }, fields || {});
  }

  function isObj(x) { return x !== null && typeof x === "object" && !Array.isArray(x); }
  function isInt(x) { return Number.isInteger(x) && x >= 0; }

  /** Why a backend check event is malformed, or null when it is well-formed. */
  function checkEventProblem(e) {
    if (!isObj(e)) return "not an object";
    switch (e.type) {
      case EVENT.SENTENCES:
        if (!Array.isArray(e.sentences)) return "sentences is not a list";
        for (const s of e.sentences) {
          if (!isObj(s) || !isInt(s.index) || !isInt(s.start) || !isInt(s.end) || s.end < s.start) {
            return "bad sentence " + JSON.stringify(s);
          }
        }
        return null;
      case EVENT.VERDICT:
        if (!isInt(e.index)) return "verdict without index";
        // a label this extension does not know (a newer backend's) is shown neutral; only a non-word is refused
        if (!L.isLabelWord(e.label)) return "bad label " + JSON.stringify(e.label);
        if (e.evidence !== undefined && e.evidence !== null && !Array.isArray(e.evidence)) return "evidence is not a list";
        return null;
      case EVENT.SUMMARY:
        return null;
      case EVENT.ERROR:
        return isObj(e.error) ? null : "error event without error";
      default:
        return "unknown event type " + e.type;
    }
  }

  /**
   * A runtime.onMessage listener from a table {type: handler(msg, sender)}. A handler may return
   * a value or a promise; thrown errors become {ok:false, error}. Unknown types are left to other
   * listeners (returns false), as the API expects.
   */
  function createRouter(handlers, onError) {
    return function listener(msg, sender, sendResponse) {
      if (!isObj(msg) || typeof msg.type !== "string" || !Object.prototype.hasOwnProperty.call(handlers, msg.type)) {
        return false;
      }
      let result;
      try {
        result = handlers[msg.type](msg, sender);
      } catch (err) {
        result = Promise.reject(err);
      }
      Promise.resolve(result).then(
        (value) => sendResponse(value === undefined ? { ok: true } : value),
        (err) => sendResponse({ ok: false, error: onError ? onError(err) : { code: "internal", message: String(err && err.message || err) } })
      );
      return true; // keep the channel open for the async response
    };
  }

  const api = { MSG, PORT, EVENT, LABELS, message, checkEventProblem, createRouter };
  root.SC = root.SC || {};
  root.SC.messages = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
