// Marks in the page: one entry per checked sentence, anchored by selectors (lib/anchoring.js)
// and drawn with the CSS Custom Highlight API, so the page's own nodes (often owned by React or
// another framework) are never wrapped or changed. When the page re-renders, a debounced
// MutationObserver re-anchors every entry; entries that cannot be found are reported.
(function (root) {
  "use strict";

  const SC = root.SC || {};
  const AN = SC.anchoring || require("../lib/anchoring.js");
  const OFF = SC.offsets || require("../lib/offsets.js");
  const CS = SC.checkState || require("../lib/check-state.js");
  const L = SC.labels || require("../lib/labels.js");

  // One highlight per label drawn in the page (its styles: content/highlights.css), one for a label this extension
  // does not know (a newer backend's: a neutral mark), and two of our own.
  const HIGHLIGHT = Object.assign(Object.fromEntries(L.MARKED.map((label) => [label, "sourcecheck-" + label])), {
    other: "sourcecheck-other",
    focus: "sourcecheck-focus",
    active: "sourcecheck-active",  // the sentence whose card is open
  });
  // Highlights stack, the higher number painted over: the worse label (L.MARKED is worst first: contradicted 4 …
  // supported 1, an unknown label 0), a run's "-alt" over its label's, the open card's sentence on top.
  const N = L.MARKED.length;
  const PRIORITY = Object.assign(Object.fromEntries(L.MARKED.map((label, i) => [label, N - i])), {
    other: 0, alt: N, focus: 2 * N + 1, active: 2 * N + 2,
  });
  /** The highlight a label is drawn in: its own, or the neutral one. */
  const markOf = (label) => (L.MARKED.includes(label) ? label : "other");
  const DEBOUNCE_MS = 200;
  const MAX_WAIT_MS = 1000;

  class Marks {
    /** doc: the page; isOwnUi(element): our hosts, left out of the text; onMissing(keys, entries). */
    constructor(doc, { isOwnUi, onMissing } = {}) {
      this.doc = doc;
      this.isOwnUi = isOwnUi || (() => false);
      this.onMissing = onMissing || (() => {});
      this.entries = new Map(); // key "checkId:index" -> entry
      this.showSupported = false;
      this.index = null;
      this.observer = null;
      this.timer = null;
      this.firstDirty = 0;
      this.lastMissing = "";
      this.supported = !!(root.CSS && root.CSS.highlights && root.Highlight);
      this.active = null;
      this.dismissed = new Set(); // sentence texts the person said "I know" to on this page: never marked here
    }

    textIndex() {
      if (!this.index) this.index = AN.buildTextIndex(this.doc.body || this.doc.documentElement, this.isOwnUi);
      return this.index;
    }

    /**
     * Start a check of a DOM Range: return {text, extract, start, end} — the text to send and the
     * mapping from its offsets back to the page. The marks inside it stay until replace().
     */
    begin(range) {
      this.index = null;
      const idx = this.textIndex();
      const pos = AN.positionsOfRange(idx, range);
      const extract = AN.extract(idx, pos.start, pos.end);
      return { text: extract.text, extract, start: pos.start, end: pos.end };
    }

    /** Forget the marks a new check (begun) covers, once it is known to have started. */
    replace(begun) {
      for (const [key, e] of this.entries) {
        const p = e.selectors.position;
        if (p.start < begun.end && begun.start < p.end) this.entries.delete(key);
      }
      this.render();
    }

    /** Anchor the sentences of a check: text is what was sent, sentences the API's list, judge the event's. */
    addSentences(checkId, text, extract, sentences, judge) {
      const idx = this.textIndex();
      const table = OFF.codePointTable(text);
      for (const s of sentences) {
        const u = OFF.sentenceToUtf16(text, s, table);
        const start = extract.startAt(u.start);
        const end = extract.endAt(u.end);
        const key = checkId + ":" + s.index;
        this.entries.set(key, {
          key, checkId, index: s.index, text: s.text, checkable: s.checkable !== false,
          label: s.checkable === false ? "skipped" : "pending", verdict: null,
          selectors: AN.describe(idx.text, start, end), range: AN.rangeFor(idx, start, end), found: true,
          judge: judge || null,
        });
      }
      this.observe();
      this.render();
    }

    setVerdict(checkId, verdict) {
      const e = this.entries.get(checkId + ":" + verdict.index);
      if (!e) return null;
      e.verdict = verdict;
      e.label = verdict.label;
      this.render();
      return e;
    }

    setShowSupported(value) {
      this.showSupported = !!value;
      this.render();
    }

    /** Would this entry be drawn, were it found? */
    isMarked(e) {
      return CS.isMarked(e.label, this.showSupported) && !this.dismissed.has(e.text);
    }

    /** Entries drawn in the page now. */
    marked() {
      return [...this.entries.values()].filter((e) => e.found && e.range && this.isMarked(e));
    }

    /** Entries kept for this page (lib/page-marks.js records), anchored again by their selectors; returns them. */
    restore(records) {
      const added = [];
      for (const r of records) {
        if (this.entries.has(r.key) || !r.selectors || !r.selectors.quote) continue;
        const e = Object.assign({}, r, { selectors: { position: Object.assign({}, r.selectors.position), quote: r.selectors.quote }, range: null, found: false });
        this.entries.set(e.key, e);
        added.push(e);
      }
      this.observe();
      this.reanchor();
      return added;
    }

    /** Forget an entry: its mark goes (a dismissed sentence is also remembered, so it is not marked again here). */
    remove(entry) {
      this.entries.delete(entry.key);
      if (this.active === entry) this.active = null;
      this.render();
    }

    dismiss(entry) {
      this.dismissed.add(entry.text);
      this.remove(entry);
    }

    /**
     * Draw every entry's range into its label's highlight. A sentence right after one of the same label is also drawn
     * into the label's "-alt" highlight (every second of a run), or two neighbours would read as one long mark.
     */
    render() {
      if (!this.supported) return;
      const marked = this.marked();
      const byLabel = Object.fromEntries([...L.MARKED, "other"].map((label) => [label, []]));
      const alt = Object.fromEntries([...L.MARKED, "other"].map((label) => [label, []]));
      const isAlt = new Set();
      const at = new Map(marked.map((e) => [e.key, e]));
      for (const e of [...marked].sort((a, b) => a.index - b.index)) {
        byLabel[markOf(e.label)].push(e.range);
        const before = at.get(e.checkId + ":" + (e.index - 1));
        if (before && before.label === e.label && !isAlt.has(before.key)) {
          isAlt.add(e.key);
          alt[markOf(e.label)].push(e.range);
        }
      }
      for (const label of Object.keys(byLabel)) {
        this.draw(HIGHLIGHT[label], byLabel[label], PRIORITY[label]);
        this.draw(HIGHLIGHT[label] + "-alt", alt[label], PRIORITY.alt + PRIORITY[label]);
      }
      const active = this.active && at.get(this.active.key) === this.active ? [this.active.range] : [];
      this.draw(HIGHLIGHT.active, active, PRIORITY.active);
    }

    /** Set the highlight `name` to these ranges (none: remove it). */
    draw(name, ranges, priority) {
      if (!ranges.length) { root.CSS.highlights.delete(name); return; }
      const h = new root.Highlight(...ranges);
      h.priority = priority;
      root.CSS.highlights.set(name, h);
    }

    /** The entry whose card is open (drawn stronger), or null when no card is. */
    setActive(entry) {
      this.active = entry || null;
      this.render();
    }

    /** The marked entry under viewport point (x, y), or null. */
    hitTest(x, y) {
      for (const e of this.marked()) {
        for (const r of e.range.getClientRects()) {
          if (x >= r.left - 1 && x <= r.right + 1 && y >= r.top - 1 && y <= r.bottom + 1) return e;
        }
      }
      return null;
    }

    /** Scroll an entry into view and flash it. Returns the entry, or null when it is not found. */
    scrollTo(key) {
      const e = this.entries.get(key);
      if (!e || !e.found || !e.range) return null;
      const node = e.range.startContainer;
      const el = node.nodeType === 1 ? node : node.parentElement;
      if (el && el.scrollIntoView) el.scrollIntoView({ block: "center", inline: "nearest" });
      if (this.supported) {
        this.draw(HIGHLIGHT.focus, [e.range], PRIORITY.focus);
        clearTimeout(this.focusTimer);
        this.focusTimer = setTimeout(() => root.CSS.highlights.delete(HIGHLIGHT.focus), 1600);
      }
      return e;
    }

    /** Find every entry again in the current page (after it changed). */
    reanchor() {
      this.index = null;
      const idx = this.textIndex();
      const prepared = AN.prepare(idx.text);
      const missing = [];
      for (const e of this.entries.values()) {
        const a = AN.anchor(prepared, e.selectors);
        if (a) {
          e.selectors.position = { start: a.start, end: a.end };
          e.range = AN.rangeFor(idx, a.start, a.end);
          e.found = !!e.range;
        } else {
          e.range = null;
          e.found = false;
        }
        if (!e.found && e.label !== "skipped") missing.push(e);
      }
      this.render();
      const sig = missing.map((e) => e.key).join(",");
      if (sig !== this.lastMissing) {
        this.lastMissing = sig;
        this.onMissing(missing.map((e) => e.key), missing);
      }
      return missing;
    }

    /** Does every entry's range still hold its sentence (nodes attached, same text)? */
    allStillValid() {
      for (const e of this.entries.values()) {
        if (!e.found || !e.range) return false;
        if (!e.range.startContainer.isConnected || !e.range.endContainer.isConnected) return false;
        if (AN.collapse(AN.textOf(e.range)) !== AN.collapse(e.selectors.quote.exact)) return false;
      }
      return true;
    }

    /** Watch the page; re-anchor after it has been quiet for a moment (or at most every second). */
    observe() {
      if (this.observer || !root.MutationObserver) return;
      this.observer = new root.MutationObserver((records) => {
        const own = (n) => n.nodeType === 1 && this.isOwnUi(n);
        const relevant = records.some((r) => {
          const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
          if (t && t.closest && t.closest("[data-sourcecheck-ui]")) return false;
          // Our own hosts coming and going is not the page changing.
          return !(r.type === "childList" && [...r.addedNodes, ...r.removedNodes].every(own));
        });
        if (!relevant || !this.entries.size) return;
        this.index = null;
        const now = Date.now();
        if (!this.timer) this.firstDirty = now;
        clearTimeout(this.timer);
        const wait = Math.max(0, Math.min(DEBOUNCE_MS, this.firstDirty + MAX_WAIT_MS - now));
        this.timer = setTimeout(() => {
          this.timer = null;
          // Most mutations (a clock, a typing indicator) leave our sentences alone: skip the rebuild.
          if (!this.allStillValid()) this.reanchor();
        }, wait);
      });
      this.observer.observe(this.doc.body || this.doc.documentElement, { childList: true, subtree: true, characterData: true });
    }

    clear() {
      this.entries.clear();
      this.render();
    }
  }

  root.SC = root.SC || {};
  root.SC.Marks = Marks;
  root.SC.HIGHLIGHT = HIGHLIGHT;
  if (typeof module === "object" && module.exports) module.exports = { Marks, HIGHLIGHT };
})(typeof globalThis !== "undefined" ? globalThis : this);
