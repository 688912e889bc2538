// What the extension draws in a page: the button next to a selection, the card for a marked
// sentence, and a small status toast. All of it lives in ONE closed shadow root, so the page's
// CSS and scripts can neither restyle nor read it, and it never changes the page's own nodes.
// What the card and the toast say is content/card.js's and content/toast.js's; where the card goes, lib/place.js's.
(function (root) {
  "use strict";

  const SC = root.SC || {};
  const { el, copyText } = SC.dom || require("../lib/dom.js");
  const { place, pointer } = SC.place || require("../lib/place.js");
  const CARD = SC.card || require("./card.js");
  const TOAST = SC.toast || require("./toast.js");
  const CARD_WIDTH = 380;
  // The page's own navigation and sidebars: a card over them hides where the person goes next.
  const NAVIGATION = "nav, aside, [role=navigation], [role=complementary]";

  class UI {
    /** handlers: onCheck, onOpenEvidence(ev), onOpenPanel, onCardEnter, onCardLeave, onCardChange(entry|null),
     * canApply(entry), onApply(entry), onDismiss(entry); cssUrl */
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
      // Hidden until its styles are in: an unstyled card would flash open in the corner.
      this.host.style.cssText = "all: initial; position: fixed; top: 0; left: 0; width: 0; height: 0; z-index: 2147483647; visibility: hidden;";
      // Closed: the page cannot reach into our UI (nor can its CSS).
      this.shadow = this.host.attachShadow({ mode: "closed" });
      // An extension file (web_accessible_resources): the page's CSP (style-src) does not govern it.
      const link = el(doc, "link");
      link.rel = "stylesheet";
      link.href = this.h.cssUrl || SC.browser.url("content/ui.css");
      const show = () => { this.host.style.visibility = ""; };
      link.addEventListener("load", show);
      link.addEventListener("error", show);  // unstyled but usable beats invisible
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
      this.card.tabIndex = -1;  // the keyboard (content/keys.js) can put the focus in it
      this.card.addEventListener("mouseenter", () => this.h.onCardEnter && this.h.onCardEnter());
      this.card.addEventListener("mouseleave", () => this.h.onCardLeave && this.h.onCardLeave());
      this.card.addEventListener("mousedown", (e) => { if (e.target.closest && !e.target.closest("button")) return; e.preventDefault(); });
      // The notch on the card's edge that points at its sentence; shown with the card (ui.css), placed by follow().
      this.pointer = el(doc, "div", "pointer");
      this.toast = el(doc, "div", "toast");
      this.toast.setAttribute("role", "status");
      layer.append(this.button, this.card, this.pointer, this.toast);
      this.shadow.append(link, layer);
      doc.documentElement.appendChild(this.host);
    }

    /** Is this event inside our UI? (Events from a closed shadow root are retargeted to the host.) */
    owns(event) {
      return !!this.host && event.composedPath().includes(this.host);
    }

    copy(text) {
      return copyText(this.doc, text, this.shadow);
    }

    // ---------------------------------------------------------------- the ✓ Check button

    /** Show the button after rect (the selection's last line); an open card moves off it and the selection. */
    showButton(rect, selectionRects) {
      this.ensure();
      const x = Math.min(rect.right + 6, root.innerWidth - 90);
      const y = Math.min(Math.max(rect.bottom + 4, 4), root.innerHeight - 32);
      this.button.style.left = x + "px";
      this.button.style.top = y + "px";
      this.button.classList.add("show");
      this.selectionRects = selectionRects || [rect];
      this.follow();
    }

    hideButton() {
      if (this.button) this.button.classList.remove("show");
    }

    buttonVisible() {
      return !!this.button && this.button.classList.contains("show");
    }

    // ---------------------------------------------------------------- the card

    /** Show the card for a mark entry next to its range (or a rect); pinned cards stay until closed; with focus, the
     * card takes the focus (its first action, else itself). */
    showCard(entry, target, pinned, focus) {
      this.ensure();
      const opened = this.cardEntry !== entry || !this.cardVisible();
      const hadFocus = this.cardHasFocus();  // filling replaces the card's buttons: the focus would fall to the page
      this.cardEntry = entry;
      this.pinned = !!pinned;
      if (opened && this.h.onCardChange) this.h.onCardChange(entry);
      CARD.fill(this.card, entry, {
        onClose: () => this.hideCard(true), onOpenEvidence: (ev) => this.h.onOpenEvidence(ev), copy: (t) => this.copy(t),
        canApply: this.h.canApply, onApply: this.h.onApply, onDismiss: this.h.onDismiss,
      });
      this.card.classList.add("show");
      this.cardTarget = target;
      this.card.querySelectorAll("details").forEach((d) => d.addEventListener("toggle", () => this.follow()));
      this.follow();
      if (opened) this.card.scrollTop = 0;
      if (focus || hadFocus) (this.card.querySelector("button.primary") || this.card).focus({ preventScroll: true });
    }

    /** Is the focus in the card? */
    cardHasFocus() {
      return !!this.shadow && !!this.shadow.activeElement && this.card.contains(this.shadow.activeElement);
    }

    /** Click the card's button of this class (the keys do what the buttons do); false when there is none. */
    press(cls) {
      const b = this.cardVisible() && this.card.querySelector("button." + cls);
      if (b) b.click();
      return !!b;
    }

    /** Place the open card again, where its sentence is now (after a scroll, or when it grew). */
    follow() {
      if (!this.cardVisible() || !this.cardTarget) return;
      const t = this.cardTarget;
      const lines = t.getClientRects ? [...t.getClientRects()] : [];
      const sentence = lines.length ? lines : [t.getBoundingClientRect ? t.getBoundingClientRect() : t];
      const box = this.card;
      Object.assign(box.style, { top: "0px", left: "0px", maxHeight: "" });  // measured at its natural height
      const viewport = { width: root.innerWidth, height: root.innerHeight };
      const size = { width: Math.min(CARD_WIDTH, viewport.width - 16), height: box.offsetHeight || 200 };
      // Never over the ✓ Check button of a selection made while the card is open; over the selection only if it must.
      const button = this.buttonVisible();
      const navigation = [...this.doc.querySelectorAll(NAVIGATION)].map((n) => n.getBoundingClientRect()).filter((r) => r.width && r.height);
      const p = place({
        sentence, size, viewport, navigation,
        avoid: button ? [this.button.getBoundingClientRect()] : [], preferAvoid: button ? this.selectionRects : [],
      });
      Object.assign(box.style, { left: p.left + "px", top: p.top + "px", maxHeight: p.maxHeight === null ? "" : p.maxHeight + "px" });
      const edge = pointer({ left: p.left, top: p.top, right: p.left + box.offsetWidth, bottom: p.top + box.offsetHeight }, sentence);
      this.pointer.dataset.side = edge.side;
      Object.assign(this.pointer.style, { left: edge.x + "px", top: edge.y + "px" });
    }

    hideCard(force) {
      if (!this.card || (this.pinned && !force)) return;
      const was = this.cardVisible();
      this.card.classList.remove("show");
      this.cardEntry = null;
      this.pinned = false;
      if (was && this.h.onCardChange) this.h.onCardChange(null);
    }

    cardVisible() {
      return !!this.card && this.card.classList.contains("show");
    }

    // ---------------------------------------------------------------- the toast

    /** The status toast: {title, body, error (friendly), list, action, kind, autoHideMs, onClose}. */
    showToast(t) {
      this.ensure();
      clearTimeout(this.toastTimer);
      TOAST.fill(this.toast, t, { onClose: () => this.hideToast(), onOpenPanel: () => this.h.onOpenPanel(), copy: (x) => this.copy(x) });
      this.toast.className = "toast show" + (t.error ? " error" : "");
      this.toast.dataset.kind = t.kind || (t.error ? "error" : "info");
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
  if (typeof module === "object" && module.exports) module.exports = { UI };
})(typeof globalThis !== "undefined" ? globalThis : this);
