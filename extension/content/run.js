// One check of a selection at a time: its port to the service worker, the progress toast with Cancel, and each
// event put on the marks as it comes; this machine's pace is kept across checks (lib/pace.js). content.js starts it.
(function (root) {
  "use strict";

  const { browser: B, messages: M, errors: E, checkState: CS, anchoring: AN, pace: PACE, toast: TOAST } = root.SC;

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
      return { ok: true, started: true, checkId, text: begun.text };
    }

    /** The progress toast's text; the time left from this machine's measured pace, critiques included. */
    progressText(mine) {
      return TOAST.progressText(mine.state, Date.now() - mine.started, PACE.estimate(mine.pace, Date.now()));
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
      const c = CS.counts(mine.state);
      const checked = c.supported + c.contradicted + c.unsupported;
      this.ui.showToast({ kind: "cancelled", title: "Check cancelled",
        body: `${checked} sentence${checked === 1 ? "" : "s"} checked before it stopped; their marks stay.`,
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
          marks.addSentences(mine.checkId, mine.begun.text, mine.begun.extract, event.sentences);
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
          const c = CS.counts(mine.state);
          const flagged = c.contradicted + c.unsupported;
          ui.showToast({
            kind: "done",
            title: flagged ? `${flagged} sentence${flagged > 1 ? "s" : ""} not backed by your PDFs` : "Every checked sentence is backed by your PDFs",
            body: TOAST.summaryText(mine.state) + (flagged ? ". Hover or click a mark for details." : "."),
            autoHideMs: 8000,
          });
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
