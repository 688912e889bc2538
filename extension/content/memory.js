// The page's marks kept across reloads (lib/page-marks.js says what is kept): saved through the service worker a
// moment after they change (it serialises the writes of all tabs and bounds them to the last pages), and drawn again
// from storage when the page loads, re-anchored by their text-quote selectors.
// A check's marks belong to the page it was started on (its URL then): a chat app that navigates in-page (pushState)
// after the check does not move them to the next conversation's URL. When the URL changes in-page, the new URL's
// marks are drawn too (navigated()). Nothing is saved in a private (incognito) window.
(function (root) {
  "use strict";

  const SC = root.SC || {};
  const PM = SC.pageMarks || require("../lib/page-marks.js");
  const SAVE_MS = 400;  // marks change in bursts (a verdict a sentence): one write after the burst

  class PageMemory {
    /** marks: content/marks.js; io: {url() -> the page's URL now, get(key) -> Promise<record|undefined>,
     * save(url, record), incognito: bool (then nothing is saved)}. */
    constructor(marks, io) {
      this.marks = marks;
      this.io = io;
      this.timer = null;
      this.checks = new Map();     // checkId -> {url, at}: the page a check was started on, and when
      this.dismissedOn = new Map(); // dismissed sentence -> the URL of the page it was dismissed on
      this.dirty = new Map();      // page key -> URL: pages with changes not saved yet
      this.restored = new Set();   // page keys whose kept marks were drawn in this document
      this.shown = PM.keyFor(io.url());  // the page key of the URL the document shows now
    }

    /** A check started now on the page at url (the URL when it started): its marks are kept under that page. */
    began(checkId, url) {
      this.checks.set(checkId, { url: url || this.io.url(), at: Date.now() });
    }

    /** The URL of the page entry was checked on. */
    pageOf(entry) {
      const c = this.checks.get(entry.checkId);
      return c ? c.url : this.io.url();
    }

    /** Is entry one of the page the document shows now (not of one the app navigated away from in-page)? */
    onThisPage(entry) {
      return PM.keyFor(this.pageOf(entry)) === PM.keyFor(this.io.url());
    }

    /** Save the marks of the page at url (the page the document shows, by default) after the burst. */
    save(url) {
      url = url || this.io.url();
      this.dirty.set(PM.keyFor(url), url);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.saveNow(), SAVE_MS);
    }

    /** Save every page with changes now: each its own entries and dismissed sentences. */
    saveNow() {
      clearTimeout(this.timer);
      const pages = [...this.dirty.entries()];
      this.dirty.clear();
      if (this.io.incognito) return Promise.resolve([]);
      const now = Date.now();
      const entries = [...this.marks.entries.values()];
      const dismissed = [...this.marks.dismissed];
      return Promise.all(pages.map(([key, url]) => {
        const mine = entries.filter((e) => PM.keyFor(this.pageOf(e)) === key).map((e) => {
          const c = this.checks.get(e.checkId);
          return e.checkedAt || !c ? e : Object.assign({}, e, { checkedAt: c.at });
        });
        const gone = dismissed.filter((t) => PM.keyFor(this.dismissedOn.get(t) || this.io.url()) === key);
        return this.io.save(url, PM.toRecord(mine, gone, now));
      }));
    }

    /** Draw the marks kept for the page at url (the one shown, by default), once per page in this document. Those not
     * found are reported by marks' onMissing, like after a re-render. */
    async restore(url) {
      url = url || this.io.url();
      const key = PM.keyFor(url);
      if (this.restored.has(key)) return [];
      this.restored.add(key);
      const record = await this.io.get(key);
      if (!record || !Array.isArray(record.entries)) return [];
      for (const text of Array.isArray(record.dismissed) ? record.dismissed : []) {
        if (!this.dismissedOn.has(text)) this.dismissedOn.set(text, url);
        this.marks.dismissed.add(text);
      }
      for (const e of record.entries) {
        if (e && !this.checks.has(e.checkId)) this.checks.set(e.checkId, { url, at: e.checkedAt || 0 });
      }
      return this.marks.restore(record.entries);
    }

    /** The document's URL may have changed in-page (pushState, popstate): draw the new page's kept marks. Changes of
     * the page left are saved first, under its own URL. Returns the entries restored. */
    navigated() {
      const key = PM.keyFor(this.io.url());
      if (key === this.shown) return Promise.resolve([]);
      this.shown = key;
      if (this.dirty.size) this.saveNow();
      return this.restore();
    }

    /** "I know": the mark goes, and stays gone on its page (after a reload, and for a later check of the text). */
    dismiss(entry) {
      const url = this.pageOf(entry);
      this.marks.dismiss(entry);
      this.dismissedOn.set(entry.text, url);
      this.dirty.set(PM.keyFor(url), url);
      return this.saveNow();
    }
  }

  root.SC = root.SC || {};
  root.SC.PageMemory = PageMemory;
  if (typeof module === "object" && module.exports) module.exports = { PageMemory };
})(typeof globalThis !== "undefined" ? globalThis : this);
