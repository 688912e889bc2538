// What the card of a marked sentence says: the verdict, the probability, the kind of error, the critique, the
// evidence (deciding quotes first) and the suggested revision. Only the card's contents: content/ui.js shows and
// places it.
(function (root) {
  "use strict";

  const SC = root.SC || {};
  const { el } = SC.dom || require("../lib/dom.js");
  const L = SC.labels || require("../lib/labels.js");

  /** The top row: label chip, probability, error type, and the ×; they wrap, the × stays on the first row. */
  function head(doc, entry, onClose) {
    const v = entry.verdict || {};
    const row = el(doc, "div", "head");
    const info = el(doc, "div", "head-info");
    info.append(L.colourChip(el(doc, "span", "chip " + entry.label, L.LABEL_TEXT[entry.label] || entry.label), entry.label));
    // On every card with a score; where it disagrees with the label, with what decided instead (lib/labels.js pText).
    const p = L.pText(entry.label, v.p_supported, v.conflict, v.cited);
    if (p) info.append(el(doc, "span", "prob", p));
    const type = L.errorTypeText(v.error_type);
    if (type) {
      const span = el(doc, "span", "etype", type);
      span.title = L.errorTypeTitle(v.error_type);
      info.append(span);
    }
    const close = el(doc, "button", "close", "×");
    close.type = "button";
    close.title = "Close";
    close.addEventListener("click", onClose);
    row.append(info, close);
    return row;
  }

  function evidenceButton(doc, ev, onOpen) {
    const b = el(doc, "button", "evidence");
    b.type = "button";
    b.title = "Open the PDF at this page";
    b.append(el(doc, "span", "quote", "“" + (ev.quote || "") + "”"));
    const z = zoteroOf(ev);  // a PDF from Zotero is named as its item is cited: "Mishra et al. (2024)"
    const bits = [(z && z.cite) || ev.filename || ev.document_id, ev.page ? "p. " + ev.page : null, ev.stance && ev.stance !== "related" ? ev.stance : null];
    b.append(el(doc, "span", "meta", bits.filter(Boolean).join(" · ")));
    if (z && z.title) b.title += ": " + z.title;
    b.addEventListener("click", () => onOpen(ev));
    if (!z) return b;
    // Next to the viewer's button: the same page in Zotero's own reader, with the user's notes and highlights.
    const open = el(doc, "a", "zotero", ev.page ? "Open in Zotero at page " + ev.page : "Open in Zotero");
    open.href = z.url;
    open.title = "Open this PDF in Zotero (Zotero must be running)";
    const both = doc.createDocumentFragment();
    both.append(b, open);
    return both;
  }

  /** The evidence's Zotero link and citation, when its PDF came from Zotero: only a zotero:// address is kept. */
  function zoteroOf(ev) {
    const z = ev.zotero;
    return z && typeof z.url === "string" && z.url.startsWith("zotero://open-pdf/") ? z : null;
  }

  /** Passages that back or refute the sentence first; merely related ones folded away. */
  function evidence(doc, v, onOpen) {
    const all = Array.isArray(v.evidence) ? v.evidence : [];
    const strong = all.filter((ev) => ev.stance === "supports" || ev.stance === "refutes");
    const related = all.filter((ev) => !strong.includes(ev));
    const sec = el(doc, "div", "section");
    sec.append(el(doc, "div", "section-title", strong.length ? "Evidence from your PDFs" : "Closest passages in your PDFs"));
    if (!all.length) sec.append(el(doc, "div", "note", "No passage in your library is about this sentence."));
    if (!strong.length) {
      for (const ev of related.slice(0, 3)) sec.append(evidenceButton(doc, ev, onOpen));
      return sec;
    }
    for (const ev of strong.slice(0, 5)) sec.append(evidenceButton(doc, ev, onOpen));
    if (related.length) {
      const more = el(doc, "details", "more");
      more.append(el(doc, "summary", null, L.count(related.length, "related passage")));
      for (const ev of related.slice(0, 5)) more.append(evidenceButton(doc, ev, onOpen));
      sec.append(more);
    }
    return sec;
  }

  function button(doc, cls, label, title, onClick) {
    const b = el(doc, "button", cls, label);
    b.type = "button";
    b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  /** The suggested revision's text (its Apply and Copy are in the actions row). */
  function revision(doc, text) {
    const sec = el(doc, "div", "section");
    sec.append(el(doc, "div", "section-title", "Suggested revision"));
    const box = el(doc, "div", "revised");
    box.append(el(doc, "span", "revised-text", text));
    sec.append(box);
    return sec;
  }

  /** The card's foot, kept in view when the card scrolls (ui.css): Apply where the sentence's text can be edited in
   * place and Copy, for a revision; "I know", for a flagged sentence; and the keys. */
  function actions(doc, entry, h, revised) {
    const row = el(doc, "div", "actions");
    const apply = revised && h.canApply && h.canApply(entry);
    if (apply) row.append(button(doc, "small primary apply", "Apply", "Put the revision in place of the sentence (A)", () => h.onApply(entry)));
    if (revised) {
      const copy = button(doc, "small copy" + (apply ? "" : " primary"), "Copy", "Copy the revision (C)", async () => {
        copy.textContent = (await h.copy(revised)) ? "Copied" : "Copy failed";
        setTimeout(() => { copy.textContent = "Copy"; }, 1500);
      });
      row.append(copy);
    }
    const flagged = entry.label !== "supported" && h.onDismiss;
    if (flagged) row.append(button(doc, "small dismiss", "I know", "Remove this mark; it stays removed on this page (D)", () => h.onDismiss(entry)));
    const keys = ["J/K next, previous", revised ? (apply ? "A apply" : "A copy") : null, flagged ? "D I know" : null, "Esc close"];
    row.append(el(doc, "span", "keys", keys.filter(Boolean).join(" · ")));
    return row;
  }

  /** Fill card with entry's verdict. h: {onClose(), onOpenEvidence(ev), copy(text) -> Promise<bool>, canApply(entry),
   * onApply(entry), onDismiss(entry)}. */
  function fill(card, entry, h) {
    const doc = card.ownerDocument;
    const v = entry.verdict || {};
    card.replaceChildren(head(doc, entry, h.onClose));
    card.dataset.label = entry.label;
    // read again: its first card (the closest passage) is not its last word, so the card says what is under way
    if (v.rereading) card.append(el(doc, "p", "critique pending", "Not sure yet: reading it again against each passage on its own…"));
    else if (v.critique) card.append(el(doc, "p", "critique", v.critique));
    else if (v.final === false) card.append(el(doc, "p", "critique pending", "Writing the critique…"));
    // FacTool's citation check: a cited paper that is not in the library, or that has other authors, cannot back it.
    for (const note of L.citedNotes(v.cited)) card.append(el(doc, "p", "note cited", note));
    if (entry.judge && entry.judge.calibrated === false) card.append(el(doc, "p", "note uncalibrated", L.UNCALIBRATED));
    card.append(evidence(doc, v, h.onOpenEvidence));
    // An uncertain sentence has no critique of its own to revise by: never a revision, whatever came.
    const revised = v.revised && v.revised !== entry.text && entry.label !== "uncertain" ? v.revised : null;
    if (revised) card.append(revision(doc, revised));
    if (revised || (entry.label !== "supported" && h.onDismiss)) card.append(actions(doc, entry, h, revised));
  }

  const api = { fill };
  root.SC = root.SC || {};
  root.SC.card = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
