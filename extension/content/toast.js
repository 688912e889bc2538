// What the status toast says: a title, a body, a button, a list, and for an error its hint, the command to run
// and a way to the side panel; and the words of a check's progress and summary. Only the contents: content/ui.js
// shows it, hides it and updates its body.
(function (root) {
  "use strict";

  const SC = root.SC || {};
  const { el } = SC.dom || require("../lib/dom.js");
  const CS = SC.checkState || require("../lib/check-state.js");
  const L = SC.labels || require("../lib/labels.js");

  function button(doc, cls, label, onClick) {
    const b = el(doc, "button", cls, label);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }

  function row(doc, ...children) {
    const r = el(doc, "div", "cmd");
    r.append(...children);
    return r;
  }

  /**
   * Fill box with toast t: {title, body, error (friendly), list, action: {label, onClick}, onClose}.
   * h: {onClose(), onOpenPanel(), copy(text) -> Promise<bool>}.
   */
  function fill(box, t, h) {
    const doc = box.ownerDocument;
    const close = button(doc, "close", "×", () => { h.onClose(); if (t.onClose) t.onClose(); });
    close.title = "Close";
    box.replaceChildren(close, el(doc, "div", "title", t.error ? t.error.message : t.title));
    if (t.body) box.append(el(doc, "div", "body", t.body));
    if (t.action) box.append(row(doc, button(doc, "small action", t.action.label, () => t.action.onClick())));
    if (t.error && t.error.hint) box.append(el(doc, "div", "note", t.error.hint));
    if (t.error && t.error.command) {
      const copy = button(doc, "small", "Copy", async () => { copy.textContent = (await h.copy(t.error.command)) ? "Copied" : "Copy"; });
      box.append(row(doc, el(doc, "code", null, t.error.command), copy));
    }
    if (t.list && t.list.length) {
      const ul = el(doc, "ul");
      for (const item of t.list) ul.append(el(doc, "li", null, item));
      box.append(ul);
    }
    if (t.error) box.append(row(doc, button(doc, "small", "Open the sourcecheck panel", () => h.onOpenPanel())));
  }

  const clock = (ms) => { const s = Math.round(ms / 1000); return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`; };

  /** A running check: sentences done of total, the time so far, and the time left when it is known (ms, or null). */
  function progressText(state, elapsedMs, leftMs) {
    const c = CS.counts(state);
    const checkable = state.sentences.filter((s) => s.checkable !== false).length;
    const doneN = L.checkedCount(c);
    const pending = Object.values(state.verdicts).filter((v) => v.final === false);
    const rereading = pending.filter((v) => v.rereading).length;
    const writing = pending.length - rereading;
    const step = rereading ? `reading ${rereading} again` : writing ? `writing ${L.count(writing, "critique")}` : "";
    let text = !state.sentences.length ? "finding the sentences and their passages…"
      : doneN === checkable && step ? `${doneN} of ${L.count(checkable, "sentence")} checked; ${step}…`
        : `${doneN} of ${L.count(checkable, "sentence")} checked`;
    text += ` · ${clock(elapsedMs)}`;
    if (leftMs) text += ` · about ${clock(leftMs)} left`;
    return text;
  }

  /** A finished check's counts in words (lib/labels.js, as the side panel and the export say them). */
  function summaryText(state) {
    return L.countsText(CS.counts(state));
  }

  /** The finished check's toast: a title that agrees with the marks (grade counts, never P(all supported): ten
   * sentences at 0.6 make 0.6 %, which reads as the opposite of ten quiet marks) and the counts. */
  function doneText(state) {
    const c = CS.counts(state);
    const flagged = c.contradicted + c.unsupported;
    const title = flagged ? `${L.count(flagged, "sentence")} not backed by your PDFs`
      : c.uncertain ? `sourcecheck is not sure of ${L.count(c.uncertain, "sentence")}`
        : "Every checked sentence is backed by your PDFs";
    return { title, body: summaryText(state) + (flagged || c.uncertain ? ". Hover or click a mark for details." : ".") };
  }

  const api = { fill, progressText, summaryText, doneText };
  root.SC = root.SC || {};
  root.SC.toast = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
