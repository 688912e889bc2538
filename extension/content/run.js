// One check of a selection at a time: its port to the service worker, the progress toast with Cancel, and each
// event put on the marks as it comes; this machine's pace is kept across checks (lib/pace.js). content.js starts it.
(function (root) {
  "use strict";

  const { browser: B, messages: M, errors: E, checkState: CS, anchoring: AN, pace: PACE, toast: TOAST, labels: L } = root.SC;
  const MARGIN = 16;
  const STEP = 12;  // px between the points looked at under a place for the toast: less than a line of text
  // What a person may be reading or about to use under the toast: a control, a picture, an editor, or a line of text.
  const CONTENT = "a, button, input, textarea, select, img, svg, video, canvas, [role=button], [role=textbox], " +
    "[contenteditable]:not([contenteditable=false])";
  const BASIS = { kept: " (from your earlier checks)", default: " (a first guess)" };

  /** How much the page shows at viewport point (x, y): 2 for text or a control, 1 for an app's fixed bar or message
   * box (position fixed or sticky, even where it is blank), else 0. Our own UI does not count. */
  function shows(doc, x, y, range) {
    const el = doc.elementsFromPoint(x, y).find((e) => !e.hasAttribute("data-sourcecheck-ui"));
    if (!el || el === doc.body || el === doc.documentElement) return 0;
    if (el.closest(CONTENT)) return 2;
    for (const n of el.childNodes) {
      if (n.nodeType !== 3 || !n.data.trim()) continue;
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return 2;
    }
    for (let a = el; a && a !== doc.body; a = a.parentElement) {
      if (/fixed|sticky/.test(root.getComputedStyle(a).position)) return 1;
    }
    return 0;
  }

  class Runs {
    /** memory: the page's kept marks (content/memory.js). */
    constructor(doc, marks, ui, memory) {
      this.doc = doc;
      this.marks = marks;
      this.ui = ui;
      this.memory = memory;
      this.current = null;  // {checkId, port, url, state, begun, done, started, pace}
      this.seq = 0;
      this.tick = null;     // the progress toast's clock
      this.keptPace = null; // this machine's time per verdict and per critique, from earlier checks
      B.get("pace").then((r) => { this.keptPace = (r && r.pace) || null; }).catch(() => {});
      B.onStorageChanged((changes, area) => {
        if (area === "local" && changes.pace) this.keptPace = changes.pace.newValue || null;
      });
    }

    /** Check the text of range; the answer the menu and the shortcut get. */
    start(range) {
      const begun = this.marks.begin(range);
      if (!begun.text) {
        this.ui.showToast({ error: E.friendlyError({ code: "empty_text" }), autoHideMs: 6000 });
        return { ok: true, started: false };
      }
      if (this.current && this.current.port) { try { this.current.port.disconnect(); } catch (_) { /* already gone */ } }
      const checkId = Date.now().toString(36) + "-" + (++this.seq);
      this.ui.hideButton();
      const port = B.connect(M.PORT.CHECK);
      // The marks are kept under the page's URL now: an app that navigates in-page meanwhile does not move them.
      const url = root.location.href;
      this.memory.began(checkId, url);
      const mine = { checkId, port, url, state: CS.initial(checkId, begun.text), begun, done: false, started: Date.now(), pace: PACE.start(this.keptPace) };
      this.current = mine;
      this.showProgress(mine, true);
      clearInterval(this.tick);
      this.tick = setInterval(() => { if (this.current === mine && !mine.done) this.showProgress(mine); else clearInterval(this.tick); }, 1000);
      port.onMessage.addListener((event) => this.onEvent(mine, event));
      port.onDisconnect.addListener(() => {
        if (!mine.done && this.current === mine) {
          this.onEvent(mine, { type: "error", error: E.friendlyError({ code: "request_failed", message: "the connection to the extension's service worker closed" }) });
        }
      });
      port.postMessage({ type: "check", text: begun.text, checkId });
      // after the check is sent: where the toast goes is a nicety, never a reason for a check not to start
      try { this.placeToast(range); } catch (err) { console.warn("sourcecheck: the toast stays where it is:", err); }
      return { ok: true, started: true, checkId, text: begun.text };
    }

    /** The progress toast's text; the time left from this machine's measured pace, critiques included, and until this
     * check has a pace of its own, where the estimate comes from. */
    progressText(mine) {
      const left = PACE.estimate(mine.pace, Date.now());
      const text = TOAST.progressText(mine.state, Date.now() - mine.started, left);
      return left ? text + (BASIS[PACE.basis(mine.pace)] || "") : text;
    }

    /** Put the toast in the corner where it covers the least: the selection and the text above it in its column most
     * of all (a chat page puts the person's own message there, at the top right), then other text and controls, then
     * an app's fixed bars (its message box at the bottom). */
    placeToast(range) {
      const doc = this.doc;
      const box = this.ui.toast;
      const w = Math.min(340, root.innerWidth - 2 * MARGIN);
      // Its height once its stylesheet is in (on a page's first check it may still be loading), else a progress toast's.
      const h = root.getComputedStyle(box).position === "fixed" ? box.getBoundingClientRect().height : 130;
      const lines = [...range.getClientRects()].filter((r) => r.width && r.height);
      const column = lines.length && { left: Math.min(...lines.map((r) => r.left)) - 24,
        right: Math.max(...lines.map((r) => r.right)) + 24, bottom: Math.max(...lines.map((r) => r.bottom)) + 8 };
      const inColumn = (x, y) => column && x >= column.left && x <= column.right && y <= column.bottom;
      const probe = doc.createRange();
      let best = null;
      for (const c of [{ top: true, right: true }, { top: false, right: true }, { top: true, right: false }, { top: false, right: false }]) {
        const left = c.right ? root.innerWidth - MARGIN - w : MARGIN;
        const top = c.top ? MARGIN : root.innerHeight - MARGIN - h;
        let covered = 0;
        for (let x = left + 2; x < left + w; x += STEP) {
          for (let y = top + 2; y < top + h; y += STEP) {
            const seen = shows(doc, x, y, probe);
            covered += seen === 2 && inColumn(x, y) ? 3 : seen;
          }
        }
        if (!best || covered < best.covered) best = { c, covered };
        if (!covered) break;
      }
      const px = MARGIN + "px";
      Object.assign(box.style, { top: best.c.top ? px : "auto", bottom: best.c.top ? "auto" : px,
        right: best.c.right ? px : "auto", left: best.c.right ? "auto" : px });
    }

    /** The progress toast: shown when the check starts, then only its text changes (a closed toast stays closed,
     * another notice is not covered, and Cancel stays the same button under the pointer). */
    showProgress(mine, start) {
      if (!start && this.ui.updateToast("progress", this.progressText(mine))) return;
      // Not shown: closed by the person (it stays closed), or a notice took its place and has gone (it comes back).
      if (!start && (mine.toastClosed || this.ui.toastKind())) return;
      this.ui.showToast({
        kind: "progress", title: "Checking the selection against your PDFs…", body: this.progressText(mine),
        action: { label: "Cancel", onClick: () => this.cancel(mine) }, onClose: () => { mine.toastClosed = true; },
      });
    }

    /** Stop a running check: closing the port aborts the request, and the backend stops at the next sentence. */
    cancel(mine) {
      if (this.current !== mine || mine.done) return;
      mine.done = true;
      clearInterval(this.tick);
      try { mine.port.disconnect(); } catch (_) { /* already closed */ }
      const checked = L.checkedCount(CS.counts(mine.state));
      this.ui.showToast({ kind: "cancelled", title: "Check cancelled",
        body: `${L.count(checked, "sentence")} checked before it stopped; their marks stay.`,
        autoHideMs: 5000 });
    }

    onEvent(mine, event) {
      if (this.current !== mine) return;
      const { marks, ui, memory } = this;
      mine.state = CS.apply(mine.state, event);
      mine.pace = PACE.observe(mine.pace, event, Date.now());
      switch (event.type) {
        case "sentences":
          // Only now does this check replace the marks it overlaps: one that fails before this keeps them.
          marks.replace(mine.begun);
          marks.addSentences(mine.checkId, mine.begun.text, mine.begun.extract, event.sentences, event.judge);
          this.collapseSelection(mine.begun);
          this.showProgress(mine);
          break;
        case "verdict": {
          // A sentence that is not supported comes twice: scored first, then with its critique (final).
          const entry = marks.setVerdict(mine.checkId, event);
          if (entry && entry.range && ui.cardVisible() && ui.cardEntry === entry) ui.showCard(entry, entry.range, ui.pinned);
          this.showProgress(mine);
          memory.save(mine.url);
          break;
        }
        case "summary": {
          mine.done = true;
          clearInterval(this.tick);
          this.keptPace = PACE.remember(this.keptPace, mine.pace);
          B.set({ pace: this.keptPace }).catch(() => {});
          ui.showToast(Object.assign({ kind: "done", autoHideMs: 8000 }, TOAST.doneText(mine.state)));
          try { mine.port.disconnect(); } catch (_) { /* already closed */ }
          memory.save(mine.url);
          break;
        }
        case "error":
          mine.done = true;
          clearInterval(this.tick);
          ui.showToast({ error: event.error });
          break;
        default:
          break;
      }
    }

    /** The marks sit under the selection's blue: once the check is under way, the selection goes. */
    collapseSelection(begun) {
      const sel = this.doc.getSelection();
      if (!sel || sel.isCollapsed || !sel.rangeCount) return;
      const pos = AN.positionsOfRange(this.marks.textIndex(), sel.getRangeAt(0));
      if (pos.start < begun.end && begun.start < pos.end) sel.removeAllRanges();
    }
  }

  root.SC = root.SC || {};
  root.SC.Runs = Runs;
})(typeof globalThis !== "undefined" ? globalThis : this);
