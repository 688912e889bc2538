// Each page's kept marks (what is kept: lib/page-marks.js): the content script sends them, the service worker writes
// them, so it can check that a page writes only its own and bound what all pages keep together.
(function (root) {
  "use strict";

  const { browser: B, pageMarks: PM } = root.SC;
  const { fromPage, incognito, refused } = root.SC.bg.sender;

  let writes = Promise.resolve(); // one write at a time: two tabs saving together must not drop a page

  /** The page whose marks a content script saves: the URL its check started on (msg.url, content/memory.js; a chat app
   * may have navigated in-page since), taken only when it has the origin of the page that sends it (sender.url, which
   * the browser sets); else the sender's own URL. */
  function marksPage(msg, sender) {
    const own = sender.url || sender.tab.url;
    if (!own) return null;
    if (typeof msg.url !== "string" || !msg.url) return own;
    try {
      const a = new URL(msg.url);
      const b = new URL(own);
      // An opaque origin (file:, data:) is no origin to compare: only the same document then.
      if (a.origin === "null" || b.origin === "null") return PM.keyFor(a.href) === PM.keyFor(b.href) ? own : null;
      return a.origin === b.origin ? a.href : null;
    } catch (_) {
      return null;
    }
  }

  /** Keep a page's marks under its own key; only the last PM.MAX_PAGES pages, PM.MAX_BYTES in all, are kept. From a
   * content script only, for its own page, never for a private (incognito) tab; a record that is not of the expected
   * shape is refused. */
  function saveMarks(msg, sender) {
    if (!fromPage(sender)) return refused("the marks of a page are saved by the page");
    if (incognito(sender.tab)) return { ok: true, kept: false };
    const url = marksPage(msg, sender);
    if (!url) return refused("the marks of another site");
    const cleaned = PM.clean(msg.record);
    if (cleaned.problem) return refused("the page's marks were not kept: " + cleaned.problem);
    const key = PM.keyFor(url);
    const record = cleaned.record;
    const empty = !record.entries.length && !record.dismissed.length;
    const size = JSON.stringify(record).length;
    writes = writes.then(async () => {
      const { marksIndex } = await B.get("marksIndex");
      const { index, drop } = PM.bound(marksIndex, key, Date.now(), empty, size);
      await B.set(Object.assign({ marksIndex: index }, empty ? {} : { [key]: record }));
      if (drop.length) await B.ext.storage.local.remove(drop);
    }).catch((err) => console.warn("sourcecheck: the page's marks were not kept:", err));
    return writes.then(() => ({ ok: true, kept: !empty }));
  }

  root.SC.bg.marksStore = { saveMarks };
})(globalThis);
