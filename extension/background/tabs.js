// Work in a web page's tab that only the service worker can ask for: start a check of its selection (the menu, the
// shortcut, the side panel) and scroll it to a mark (the side panel's results).
(function (root) {
  "use strict";

  const { browser: B, messages: M } = root.SC;
  const { MSG } = M;
  const { fromPage } = root.SC.bg.sender;
  const ext = B.ext;
  // The content script's files, as the manifest lists them (for tabs opened before the extension was installed).
  const CONTENT = ext.runtime.getManifest().content_scripts[0];

  /** Ask a tab to check its selection, injecting the content script if the tab predates us. */
  async function checkTab(tabId, fallbackText) {
    const msg = M.message(MSG.START_CHECK, { fallbackText: fallbackText || "" });
    try {
      return await B.sendToTab(tabId, msg);
    } catch (_) {
      // No content script in this tab (opened before the extension was installed): inject it.
      await ext.scripting.insertCSS({ target: { tabId }, files: CONTENT.css });
      await ext.scripting.executeScript({ target: { tabId }, files: CONTENT.js });
      return B.sendToTab(tabId, msg);
    }
  }

  /** The check-tab message: a page checks only its own tab; the side panel names one. */
  function onCheckTab(msg, sender) {
    return checkTab(fromPage(sender) ? sender.tab.id : msg.tabId, msg.fallbackText);
  }

  /** Scroll a tab to a mark: the side panel's row names the tab (or the last check's); a page, only its own tab. */
  async function scrollToMark(msg, sender) {
    const { lastCheck } = await B.sessionGet("lastCheck");
    const tabId = fromPage(sender) ? sender.tab.id : msg.tabId || (lastCheck && lastCheck.tabId);
    if (tabId === null || tabId === undefined) return { ok: false, error: { code: "request_failed", message: "No checked page." } };
    try {
      await ext.tabs.update(tabId, { active: true });
    } catch (_) {
      return { ok: false, error: { code: "not_found", message: "not on this page: the checked page is closed" } };
    }
    try {
      return await B.sendToTab(tabId, M.message(MSG.SCROLL_TO, { key: msg.key }));
    } catch (_) {  // a page without our content script (the tab went to a browser page)
      return { ok: false, error: { code: "not_found", message: "not on this page: the tab shows another page now" } };
    }
  }

  root.SC.bg.tabs = { checkTab, onCheckTab, scrollToMark };
})(globalThis);
