// Opening our own pages for a web page's content script, which cannot open them itself: the PDF viewer at a piece of
// evidence (one viewer tab, reused) and the side panel.
(function (root) {
  "use strict";

  const { browser: B } = root.SC;
  const ext = B.ext;
  const VIEWER_WAIT_MS = 5000;  // how long an open waits for the viewer tab it created to show the viewer

  /** The tab showing the viewer now, if any: evidence opens there, not in one more tab per click. Only a tab whose
   * document the browser lists as our viewer (runtime.getContexts: in Chromium since 116, in Firefox before 142, the
   * manifest's minimum versions), never a tab whose URL cannot be read. */
  async function viewerTabId(tabId) {
    const page = B.url("viewer/index.html");
    const tabs = await ext.runtime.getContexts({ contextTypes: ["TAB"] });
    const found = tabs.find((c) => (c.documentUrl || "").startsWith(page) && c.tabId >= 0 && (tabId === undefined || c.tabId === tabId));
    return found ? found.tabId : null;
  }

  /** Until the tab just created shows the viewer (getContexts lists it only once its page has loaded), or a while. */
  async function viewerShown(tabId) {
    const until = Date.now() + VIEWER_WAIT_MS;
    while (Date.now() < until) {
      if (await viewerTabId(tabId) !== null) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }

  let viewerOpening = Promise.resolve(); // one open at a time: two quick clicks open one viewer tab, not two

  function openViewer(msg) {
    const q = new URLSearchParams({ doc: msg.documentId, page: String(msg.page || 1), q: msg.quote || "", name: msg.filename || "" });
    const url = B.url("viewer/index.html?" + q.toString());
    const opened = viewerOpening.catch(() => {}).then(async () => {
      const id = await viewerTabId();
      if (id === null) {
        const tab = await ext.tabs.create({ url });
        await viewerShown(tab.id);  // the next click finds it
        return { ok: true, tabId: tab.id };
      }
      const tab = await ext.tabs.update(id, { url, active: true });
      if (ext.windows && tab.windowId !== undefined) ext.windows.update(tab.windowId, { focused: true }).catch(() => {});
      await viewerShown(tab.id);
      return { ok: true, tabId: tab.id };
    });
    viewerOpening = opened;
    return opened;
  }

  async function openSidePanel(msg, sender) {
    try {
      await B.openPanel(sender.tab);
    } catch (_) {
      // sidePanel.open() wants a user gesture, which a message from a page does not always carry.
      await ext.tabs.create({ url: B.url("sidepanel/index.html") });
    }
    return { ok: true };
  }

  root.SC.bg.openPages = { openViewer, openSidePanel };
})(globalThis);
