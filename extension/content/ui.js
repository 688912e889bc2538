// What the extension draws in a page: the button next to a selection, the card for a marked
// sentence, and a small status toast. All of it lives in ONE closed shadow root, so the page's
// CSS and scripts can neither restyle nor read it, and it never changes the page's own nodes.
(function (root) {
  "use strict";

  const LABEL_TEXT = {
    contradicted: "Contradicted by your sources",
    unsupported: "Not supported by your sources",
    supported: "Supported by your sources",
    skipped: "Not a factual claim",
    pending: "Checking…",
  };
  const ERROR_TYPE_TEXT = {
    entity: "wrong entity or number", relation: "wrong relation", contradictory: "contradicts the source",
    invented: "invented", subjective: "subjective", unverifiable: "unverifiable",
  };

  const CSS_TEXT = `
    :host { all: initial; }
    * { box-sizing: border-box; }
    .layer { position: fixed; inset: 0 auto auto 0; width: 0; height: 0; z-index: 2147483647;
      font: 13px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; }
    button { font: inherit; cursor: pointer; }
    .btn { position: fixed; display: none; align-items: center; gap: 4px; padding: 3px 9px 3px 7px;
      border: 1px solid #1a7f37; border-radius: 14px; background: #fff; color: #1a7f37; font-weight: 600;
      box-shadow: 0 2px 8px rgba(0,0,0,.18); white-space: nowrap; }
    .btn:hover { background: #1a7f37; color: #fff; }
    .btn.show { display: inline-flex; }
    .card { position: fixed; display: none; width: 380px; max-width: calc(100vw - 16px); max-height: 60vh;
      overflow: auto; overscroll-behavior: contain; background: #fff; border: 1px solid #d0d7de; border-radius: 10px; padding: 12px 14px;
      box-shadow: 0 8px 28px rgba(0,0,0,.22); }
    .card.show { display: block; }
    .head { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; flex-wrap: wrap; }
    .chip { border-radius: 10px; padding: 1px 8px; font-weight: 600; font-size: 12px; }
    .chip.contradicted { background: #ffebe9; color: #a40e26; border: 1px solid #ff8182; }
    .chip.unsupported { background: #fff8c5; color: #7d4e00; border: 1px solid #d4a72c; }
    .chip.supported { background: #dafbe1; color: #116329; border: 1px solid #4ac26b; }
    .chip.skipped, .chip.pending { background: #f6f8fa; color: #57606a; border: 1px solid #d0d7de; }
    .prob { color: #57606a; font-size: 12px; }
    .etype { color: #57606a; font-size: 12px; font-style: italic; }
    .close { margin-left: auto; border: 0; background: none; color: #57606a; font-size: 16px; line-height: 1; padding: 0 2px; }
    .critique { margin: 6px 0; }
    .critique.pending { color: #6a737d; font-style: italic; }
    .section { margin-top: 10px; }
    .section-title { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #57606a; margin-bottom: 4px; }
    .revised { display: flex; gap: 8px; align-items: flex-start; background: #f6f8fa; border-radius: 6px; padding: 6px 8px; }
    .revised-text { flex: 1; }
    .small { border: 1px solid #d0d7de; background: #fff; border-radius: 6px; padding: 1px 8px; font-size: 12px; }
    .small:hover { background: #f3f4f6; }
    .evidence { display: block; width: 100%; text-align: left; border: 1px solid #d0d7de; background: #fff;
      border-radius: 6px; padding: 6px 8px; margin-bottom: 6px; color: inherit; }
    .evidence:hover { border-color: #0969da; background: #f6f8fa; }
    .quote { display: block; font-style: italic; }
    .meta { display: block; color: #0969da; font-size: 12px; margin-top: 2px; }
    .note { color: #57606a; font-size: 12px; }
    .more summary { color: #57606a; font-size: 12px; cursor: pointer; margin: 2px 0 6px; }
    .toast { position: fixed; display: none; right: 16px; top: 16px; width: 340px; max-width: calc(100vw - 32px);
      background: #fff; border: 1px solid #d0d7de; border-left: 4px solid #0969da; border-radius: 8px;
      padding: 10px 12px; box-shadow: 0 6px 20px rgba(0,0,0,.18); }
    .toast.show { display: block; }
    .toast.error { border-left-color: #cf222e; }
    .toast .title { font-weight: 600; padding-right: 18px; }
    .toast .close { position: absolute; top: 8px; right: 8px; }
    .cmd { display: flex; gap: 6px; align-items: center; margin-top: 6px; }
    code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; border: 1px solid #d0d7de;
      border-radius: 4px; padding: 1px 6px; }
    ul { margin: 4px 0 0; padding-left: 18px; }
  `;

  function el(doc, tag, cls, text) {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  /** Copy text without losing the page's selection. */
  async function copyText(doc, text, shadow) {
    try {
      await root.navigator.clipboard.writeText(text);
      return true;
    } catch (_) {
      // The fallback selects a hidden textarea, so save and restore the user's selection around it.
      const sel = doc.getSelection();
      const saved = [];
      for (let i = 0; i < sel.rangeCount; i++) saved.push(sel.getRangeAt(i).cloneRange());
      const ta = el(doc, "textarea");
      ta.value = text;
      ta.style.cssText = "position:fixed;opacity:0;top:0;left:0;";
      shadow.appendChild(ta);
      ta.select();
      let ok = false;
      try { ok = doc.execCommand("copy"); } catch (_) { ok = false; }
      ta.remove();
      sel.removeAllRanges();
      for (const r of saved) sel.addRange(r);
      return ok;
    }
  }

  class UI {
    constructor(doc, handlers) {
      this.doc = doc;
      this.h = handlers;
      this.host = null;
      this.pinned = false;
      this.cardEntry = null;
    }

    /** Create the host on first use (pages that are never checked get nothing). */
    ensure() {
      if (this.host && this.host.isConnected) return;
      const doc = this.doc;
      this.host = doc.createElement("sourcecheck-ui");
      this.host.setAttribute("data-sourcecheck-ui", "");
      this.host.style.cssText = "all: initial; position: fixed; top: 0; left: 0; width: 0; height: 0; z-index: 2147483647;";
      // Closed: the page cannot reach into our UI (nor can its CSS).
      this.shadow = this.host.attachShadow({ mode: "closed" });
      // A constructed stylesheet is not subject to the page's CSP (style-src); <style> is the fallback.
      let style = null;
      try {
        const sheet = new root.CSSStyleSheet();
        sheet.replaceSync(CSS_TEXT);
        this.shadow.adoptedStyleSheets = [sheet];
      } catch (_) {
        style = el(doc, "style");
        style.textContent = CSS_TEXT;
      }
      const layer = el(doc, "div", "layer");
      this.button = el(doc, "button", "btn");
      this.button.type = "button";
      this.button.title = "Check the selected text against your PDFs (sourcecheck)";
      this.button.append(el(doc, "span", null, "✓"), el(doc, "span", null, "Check"));
      // mousedown would collapse the selection before click fires; keep it.
      this.button.addEventListener("mousedown", (e) => e.preventDefault());
      this.button.addEventListener("click", (e) => { e.preventDefault(); e.stopPropagation(); this.hideButton(); this.h.onCheck(); });
      this.card = el(doc, "div", "card");
      this.card.setAttribute("role", "dialog");
      this.card.addEventListener("mouseenter", () => this.h.onCardEnter && this.h.onCardEnter());
      this.card.addEventListener("mouseleave", () => this.h.onCardLeave && this.h.onCardLeave());
      this.card.addEventListener("mousedown", (e) => { if (e.target.closest && !e.target.closest("button")) return; e.preventDefault(); });
      this.toast = el(doc, "div", "toast");
      this.toast.setAttribute("role", "status");
      layer.append(this.button, this.card, this.toast);
      if (style) this.shadow.append(style);
      this.shadow.append(layer);
      doc.documentElement.appendChild(this.host);
    }

    /** Is this event inside our UI? (Events from a closed shadow root are retargeted to the host.) */
    owns(event) {
      return !!this.host && event.composedPath().includes(this.host);
    }

    showButton(rect) {
      this.ensure();
      const x = Math.min(rect.right + 6, root.innerWidth - 90);
      const y = Math.min(Math.max(rect.bottom + 4, 4), root.innerHeight - 32);
      this.button.style.left = x + "px";
      this.button.style.top = y + "px";
      this.button.classList.add("show");
    }

    hideButton() {
      if (this.button) this.button.classList.remove("show");
    }

    buttonVisible() {
      return !!this.button && this.button.classList.contains("show");
    }

    /**
     * Put the card next to its sentence (all of it, every line) without covering it: below when it fits, else
     * above (growing upwards), else beside, else in the larger gap with its height capped to it (it scrolls).
     */
    place(box, rect) {
      const W = root.innerWidth, H = root.innerHeight, GAP = 8, MIN = 140;
      const w = Math.min(380, W - 16);
      Object.assign(box.style, { top: "", bottom: "", left: "0px", maxHeight: "" });
      const cap = Math.min(box.offsetHeight || 200, Math.round(H * 0.6));
      const below = H - rect.bottom - 2 * GAP;
      const above = rect.top - 2 * GAP;
      const left = Math.max(GAP, Math.min(rect.left, W - w - GAP));
      const set = (pos) => Object.assign(box.style, pos);
      if (cap <= below) return set({ left: left + "px", top: rect.bottom + GAP + "px" });
      if (cap <= above) return set({ left: left + "px", bottom: H - rect.top + GAP + "px" });
      const right = W - rect.right - 2 * GAP;
      const leftRoom = rect.left - 2 * GAP;
      if (right >= w || leftRoom >= w) {
        const x = right >= w ? rect.right + GAP : rect.left - GAP - w;
        const top = Math.max(GAP, Math.min(rect.top, H - cap - GAP));
        return set({ left: x + "px", top: top + "px", maxHeight: H - top - GAP + "px" });
      }
      // A sentence taller than the window leaves no side free: use the larger gap, however small.
      if (below >= above) set({ left: left + "px", top: rect.bottom + GAP + "px", maxHeight: Math.max(MIN, below) + "px" });
      else set({ left: left + "px", bottom: H - rect.top + GAP + "px", maxHeight: Math.max(MIN, above) + "px" });
    }

    /** The sentence's box: every line of the range (or a rect given as is). */
    static boxOf(target) {
      return target && target.getBoundingClientRect ? target.getBoundingClientRect() : target;
    }

    /** Show the card for a mark entry next to its range (or a rect); pinned cards stay until closed. */
    showCard(entry, target, pinned) {
      this.ensure();
      const doc = this.doc;
      const opened = this.cardEntry !== entry || !this.cardVisible();
      this.cardEntry = entry;
      this.pinned = !!pinned;
      const v = entry.verdict || {};
      const label = entry.label;
      const card = this.card;
      card.replaceChildren();
      card.dataset.label = label;
      const head = el(doc, "div", "head");
      head.append(el(doc, "span", "chip " + label, LABEL_TEXT[label] || label));
      // The number only where it agrees with the label (supported at 50 % or more): a red mark found from a
      // conflict, or another sensitivity's threshold, would otherwise read "Contradicted · 79 %".
      if (typeof v.p_supported === "number" && (label === "supported") === (v.p_supported >= 0.5)) {
        head.append(el(doc, "span", "prob", "P(supported) " + Math.round(v.p_supported * 100) + "%"));
      }
      if (v.error_type && v.error_type !== "null") {
        head.append(el(doc, "span", "etype", ERROR_TYPE_TEXT[v.error_type] || v.error_type));
      }
      const close = el(doc, "button", "close", "×");
      close.title = "Close";
      close.addEventListener("click", () => this.hideCard(true));
      head.append(close);
      card.append(head);
      if (v.critique) card.append(el(doc, "p", "critique", v.critique));
      else if (v.final === false) card.append(el(doc, "p", "critique pending", "Writing the critique…"));
      // FacTool's citation check: a cited paper that is not in the library cannot back the sentence.
      const missing = (Array.isArray(v.cited) ? v.cited : []).filter((c) => !c.document_id).map((c) => c.text);
      if (missing.length) card.append(el(doc, "p", "note cited", `Cites ${missing.join(", ")}, which ${missing.length > 1 ? "are" : "is"} not in your library.`));
      const evidence = Array.isArray(v.evidence) ? v.evidence : [];
      // Passages that back or refute the sentence first; merely related ones folded away.
      const strong = evidence.filter((ev) => ev.stance === "supports" || ev.stance === "refutes");
      const related = evidence.filter((ev) => !strong.includes(ev));
      const sec = el(doc, "div", "section");
      sec.append(el(doc, "div", "section-title", strong.length ? "Evidence from your PDFs" : "Closest passages in your PDFs"));
      if (!evidence.length) sec.append(el(doc, "div", "note", "No passage in your library is about this sentence."));
      const evidenceButton = (ev) => {
        const b = el(doc, "button", "evidence");
        b.type = "button";
        b.title = "Open the PDF at this page";
        b.append(el(doc, "span", "quote", "“" + (ev.quote || "") + "”"));
        const bits = [ev.filename || ev.document_id, ev.page ? "p. " + ev.page : null, ev.stance && ev.stance !== "related" ? ev.stance : null];
        b.append(el(doc, "span", "meta", bits.filter(Boolean).join(" · ")));
        b.addEventListener("click", () => this.h.onOpenEvidence(ev));
        return b;
      };
      if (strong.length) {
        for (const ev of strong.slice(0, 5)) sec.append(evidenceButton(ev));
        if (related.length) {
          const more = el(doc, "details", "more");
          more.append(el(doc, "summary", null, `${related.length} related passage${related.length > 1 ? "s" : ""}`));
          for (const ev of related.slice(0, 5)) more.append(evidenceButton(ev));
          sec.append(more);
        }
      } else {
        for (const ev of related.slice(0, 3)) sec.append(evidenceButton(ev));
      }
      card.append(sec);
      if (v.revised && v.revised !== entry.text) {
        const sec = el(doc, "div", "section");
        sec.append(el(doc, "div", "section-title", "Suggested revision"));
        const box = el(doc, "div", "revised");
        const copy = el(doc, "button", "small", "Copy");
        copy.type = "button";
        copy.addEventListener("click", async () => {
          const ok = await copyText(doc, v.revised, this.shadow);
          copy.textContent = ok ? "Copied" : "Copy failed";
          setTimeout(() => { copy.textContent = "Copy"; }, 1500);
        });
        box.append(el(doc, "span", "revised-text", v.revised), copy);
        sec.append(box);
        card.append(sec);
      }
      card.classList.add("show");
      this.cardTarget = target;
      card.querySelectorAll("details").forEach((d) => d.addEventListener("toggle", () => this.follow()));
      this.follow();
      if (opened) card.scrollTop = 0;
    }

    /** Place the open card again, where its sentence is now (after a scroll, or when it grew). */
    follow() {
      if (this.cardVisible() && this.cardTarget) this.place(this.card, UI.boxOf(this.cardTarget));
    }

    hideCard(force) {
      if (!this.card || (this.pinned && !force)) return;
      this.card.classList.remove("show");
      this.cardEntry = null;
      this.pinned = false;
    }

    cardVisible() {
      return !!this.card && this.card.classList.contains("show");
    }

    /**
     * The status toast: {title, body, error (friendly), list, kind, autoHideMs}.
     * Errors show the hint, the command to run and a button to the side panel.
     */
    showToast(t) {
      this.ensure();
      const doc = this.doc;
      const box = this.toast;
      clearTimeout(this.toastTimer);
      box.replaceChildren();
      box.className = "toast show" + (t.error ? " error" : "");
      box.dataset.kind = t.kind || (t.error ? "error" : "info");
      const close = el(doc, "button", "close", "×");
      close.title = "Close";
      close.addEventListener("click", () => { this.hideToast(); if (t.onClose) t.onClose(); });
      box.append(close, el(doc, "div", "title", t.error ? t.error.message : t.title));
      if (t.body) box.append(el(doc, "div", "body", t.body));
      if (t.action) {
        const row = el(doc, "div", "cmd");
        const b = el(doc, "button", "small action", t.action.label);
        b.type = "button";
        b.addEventListener("click", () => t.action.onClick());
        row.append(b);
        box.append(row);
      }
      if (t.error && t.error.hint) box.append(el(doc, "div", "note", t.error.hint));
      if (t.error && t.error.command) {
        const row = el(doc, "div", "cmd");
        const copy = el(doc, "button", "small", "Copy");
        copy.addEventListener("click", async () => { copy.textContent = (await copyText(doc, t.error.command, this.shadow)) ? "Copied" : "Copy"; });
        row.append(el(doc, "code", null, t.error.command), copy);
        box.append(row);
      }
      if (t.list && t.list.length) {
        const ul = el(doc, "ul");
        for (const item of t.list) ul.append(el(doc, "li", null, item));
        box.append(ul);
      }
      if (t.error) {
        const row = el(doc, "div", "cmd");
        const open = el(doc, "button", "small", "Open the sourcecheck panel");
        open.addEventListener("click", () => this.h.onOpenPanel());
        row.append(open);
        box.append(row);
      }
      if (t.autoHideMs) this.toastTimer = setTimeout(() => this.hideToast(), t.autoHideMs);
    }

    hideToast() {
      if (this.toast) this.toast.classList.remove("show");
    }

    /** Change the body of the toast shown now, if it is of this kind; false when it is not shown (closed). */
    updateToast(kind, body) {
      if (this.toastKind() !== kind) return false;
      const node = this.toast.querySelector(".body");
      if (node) node.textContent = body;
      return !!node;
    }

    /** The kind of toast shown now ("progress", "missing", "error", ...), or "" when none is. */
    toastKind() {
      return this.toast && this.toast.classList.contains("show") ? this.toast.dataset.kind : "";
    }
  }

  root.SC = root.SC || {};
  root.SC.UI = UI;
  root.SC.LABEL_TEXT = LABEL_TEXT;
})(typeof globalThis !== "undefined" ? globalThis : this);
