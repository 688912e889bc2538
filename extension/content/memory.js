// The page's marks kept across reloads (lib/page-marks.js says what is kept): saved through the service worker a
// moment after they change (it serialises the writes of all tabs and bounds them to the last pages), and drawn again
// from storage when the page loads, re-anchored by their text-quote selectors.
(function (root) {
  "use strict";

  const SC = root.SC || {};
  const PM = SC.pageMarks || require("../lib/page-marks.js");
  const SAVE_MS = 400;  // marks change in bursts (a verdict a sentence): one write after the burst

  class PageMemory {
    /** marks: content/marks.js; io: {url() -> string, get(key) -> Promise<record|undefined>, save(url, record)}. */
    constructor(marks, io) {
      this.marks = marks;
      this.io = io;
      this.timer = null;
    }

    save() {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.saveNow(), SAVE_MS);
    }

    saveNow() {
      clearTimeout(this.timer);
      return this.io.save(this.io.url(), PM.toRecord(this.marks.entries.values(), this.marks.dismissed, Date.now()));
    }

    /** Draw the marks kept for this page. Those not found are reported by marks' onMissing, like after a re-render. */
    async restore() {
      const record = await this.io.get(PM.keyFor(this.io.url()));
      if (!record || !Array.isArray(record.entries)) return [];
      for (const text of record.dismissed || []) this.marks.dismissed.add(text);
      return this.marks.restore(record.entries);
    }

    /** "I know": the mark goes, and stays gone on this page (after a reload, and for a later check of the text). */
    dismiss(entry) {
      this.marks.dismiss(entry);
      return this.saveNow();
    }
  }

  root.SC = root.SC || {};
  root.SC.PageMemory = PageMemory;
  if (typeof module === "object" && module.exports) module.exports = { PageMemory };
})(typeof globalThis !== "undefined" ? globalThis : this);
