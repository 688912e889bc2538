// Who sent a message to the service worker, and what it may ask for: a web page's content script acts only on its
// own tab and its own page; nothing of a private tab is written down.
(function (root) {
  "use strict";

  const { browser: B } = root.SC;

  /** A message from a content script (a web page's tab), not from one of our own pages (the side panel, the viewer,
   * the panel opened as a tab): it may act only on its own tab and its own page. */
  function fromPage(sender) {
    return !!(sender && sender.tab) && !String(sender.url || "").startsWith(B.url(""));
  }

  /** A private (incognito) tab: nothing of it is written to local storage (the history, a page's marks). */
  const incognito = (tab) => !!(tab && tab.incognito);

  /** A bad request from a page, as an answer. */
  const refused = (message) => ({ ok: false, error: { code: "request_failed", message } });

  root.SC.bg = root.SC.bg || {};
  root.SC.bg.sender = { fromPage, incognito, refused };
})(globalThis);
