// The marks with the keyboard, as a grammar checker's: Alt+Shift+N / Alt+Shift+P select the next / previous marked
// sentence (scrolled into view, drawn as an open card's is) and Enter opens its card with the focus in it (a click on
// a mark does too). Only in a card that has the focus: J / K (→ / ←) move it to the next / previous mark, A applies
// the revision (copies it where the text cannot be edited), C copies it, D is "I know", Esc closes it; the focus goes
// back where it was. Anywhere else a letter is the page's (a shortcut, or text typed). The keys are read in the
// capture phase, before the page's own shortcuts.
(function (root) {
  "use strict";

  class Keys {
    /** act: {open(entry, focus), apply(entry) -> bool (applied in place), copy(entry), dismiss(entry)} */
    constructor(doc, marks, ui, act) {
      this.doc = doc;
      this.marks = marks;
      this.ui = ui;
      this.act = act;
      this.selected = null;  // chosen by Alt+Shift+N/P; until another key, Enter opens it
      this.cursor = null;    // a collapsed Range at the start of the last mark visited (which may be gone now)
      this.back = null;      // where the focus was before a card took it: {el, range}
      doc.defaultView.addEventListener("keydown", (e) => this.onKey(e), true);
      doc.addEventListener("mousedown", () => { this.selected = null; }, true);
    }

    /** The marked entry after (dir 1) or before (dir -1) the cursor, round the end; null when none is marked. */
    step(dir) {
      const START = this.doc.defaultView.Range.START_TO_START;
      const list = this.marks.marked().sort((a, b) => a.range.compareBoundaryPoints(START, b.range));
      if (!list.length) return null;
      let pos = null;  // each entry's start compared with the cursor: > 0 after it
      try {
        if (this.cursor) pos = list.map((e) => e.range.compareBoundaryPoints(START, this.cursor));
      } catch (_) {
        this.cursor = null;  // its nodes left the page
      }
      if (!pos) return dir > 0 ? list[0] : list[list.length - 1];
      if (dir > 0) { const i = pos.findIndex((p) => p > 0); return list[i >= 0 ? i : 0]; }
      const i = pos.map((p) => p < 0).lastIndexOf(true);
      return list[i >= 0 ? i : list.length - 1];
    }

    visit(entry) {
      this.cursor = entry.range.cloneRange();
      this.cursor.collapse(true);
    }

    /** Select entry without opening its card: Enter will. */
    select(entry) {
      this.visit(entry);
      this.selected = entry;
      this.marks.scrollTo(entry.key);
      this.marks.setActive(entry);
    }

    /** Open entry's card (pinned); with focus, the card takes the focus and remembers where it was; scrolled into
     * view unless scroll is false (a click: the mark is where the pointer is). */
    open(entry, focus, scroll = true) {
      this.visit(entry);
      this.selected = null;
      if (focus && !this.ui.cardHasFocus()) {
        const sel = this.doc.getSelection();
        this.back = { el: this.doc.activeElement, range: sel && sel.rangeCount ? sel.getRangeAt(0).cloneRange() : null };
      }
      this.act.open(entry, focus, scroll);
    }

    /** Close the card and give the focus back to where it was before the card took it. */
    close() {
      const hadFocus = this.ui.cardHasFocus();
      this.ui.hideCard(true);
      if (!hadFocus || !this.back) return;
      const { el, range } = this.back;
      this.back = null;
      if (el && el.isConnected && el.focus && el !== this.doc.body) el.focus({ preventScroll: true });
      else if (this.doc.activeElement && this.doc.activeElement.blur) this.doc.activeElement.blur();
      if (range && range.startContainer.isConnected) {
        const sel = this.doc.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      }
    }

    dismiss(entry) {
      this.close();
      this.act.dismiss(entry);
    }

    /** Apply in place (the focus then stays in the edited text, after the revision), else copy. */
    apply(entry) {
      const host = root.SC.edit.editableHost(entry.range);
      if (!this.act.apply(entry)) return;
      this.back = null;
      this.ui.hideCard(true);
      this.markAgainOnUndo(host, entry);
    }

    /** Apply forgets the sentence's mark (its sentence goes on purpose); the editor's undo brings the sentence back,
     * and so its mark comes back too, and goes again on redo. */
    markAgainOnUndo(host, entry) {
      const AN = root.SC.anchoring;
      const record = Object.assign({}, entry, { range: null, found: false });
      host.addEventListener("input", (e) => {
        if (e.inputType !== "historyUndo" && e.inputType !== "historyRedo") return;
        const back = !!AN.findQuote(AN.prepare(AN.buildTextIndex(host).text), entry.selectors.quote);
        const marked = this.marks.entries.get(entry.key);
        if (back && !marked) {
          this.marks.restore([record]);
          if (this.act.restored) this.act.restored(entry);
        }
        else if (!back && marked) this.marks.remove(marked);
      });
    }

    onKey(e) {
      const ui = this.ui;
      const stop = () => { e.preventDefault(); e.stopPropagation(); };
      if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && (e.code === "KeyN" || e.code === "KeyP")) {
        const entry = this.step(e.code === "KeyN" ? 1 : -1);
        if (!entry) return;
        stop();
        if (ui.cardVisible() && ui.pinned) {
          const focus = ui.cardHasFocus();
          this.open(entry, focus);
          if (!focus) this.selected = entry;  // its keys act once it has the focus: Enter gives it
        } else this.select(entry);
        return;
      }
      const plain = !e.altKey && !e.ctrlKey && !e.metaKey;
      if (this.selected && e.key === "Enter" && plain) { stop(); this.open(this.selected, true); return; }
      if (e.key !== "Shift" && e.key !== "Alt") this.selected = null;  // any other key: Enter is the page's again
      const entry = ui.cardVisible() && ui.cardEntry;
      if (!entry || !plain) return;
      const inCard = ui.cardHasFocus();
      if (!inCard) {
        if (e.key === "Escape") ui.hideCard(true);
        return;
      }
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      const actions = {
        j: () => { const next = this.step(1); if (next) this.open(next, true); },
        k: () => { const prev = this.step(-1); if (prev) this.open(prev, true); },
        a: () => this.apply(entry),
        c: () => this.act.copy(entry),
        d: () => { if (entry.label !== "supported") this.dismiss(entry); },
        Escape: () => this.close(),
      };
      // ← / → as K / J (without Shift); ↑ / ↓ still scroll a long card.
      if (!e.shiftKey) Object.assign(actions, { ArrowRight: actions.j, ArrowLeft: actions.k });
      if (!actions[key]) return;
      stop();
      actions[key]();
    }
  }

  root.SC = root.SC || {};
  root.SC.Keys = Keys;
  if (typeof module === "object" && module.exports) module.exports = { Keys };
})(typeof globalThis !== "undefined" ? globalThis : this);
