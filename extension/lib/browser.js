// The one seam for browser APIs: Firefox's promise-based `browser` or Chromium's `chrome`.
// Everything else calls these helpers, so a difference between the two browsers is fixed here.
(function (root) {
  "use strict";

  const ext = root.browser && root.browser.runtime ? root.browser : root.chrome;
  const isFirefox = !!(root.browser && root.browser.runtime && root.browser.runtime.getBrowserInfo);

  function storageArea(name) {
    return ext && ext.storage && ext.storage[name];
  }

  const api = {
    ext,
    isFirefox,
    /** Read keys from extension storage (local). */
    get(keys) { return storageArea("local").get(keys); },
    /** Write items to extension storage (local). */
    set(items) { return storageArea("local").set(items); },
    /** Session storage (cleared when the browser closes); falls back to local. */
    sessionGet(keys) { return (storageArea("session") || storageArea("local")).get(keys); },
    sessionSet(items) { return (storageArea("session") || storageArea("local")).set(items); },
    /** Listen to storage changes: fn(changes, areaName). */
    onStorageChanged(fn) { ext.storage.onChanged.addListener(fn); },
    /** Send a runtime message; resolves with the response (undefined when nobody answered). */
    send(msg) { return ext.runtime.sendMessage(msg); },
    /** Send a message to a tab's content script. */
    sendToTab(tabId, msg) { return ext.tabs.sendMessage(tabId, msg); },
    connect(name) { return ext.runtime.connect({ name }); },
    url(path) { return ext.runtime.getURL(path); },
    /** Open the side panel (Chromium) or the sidebar (Firefox); needs a user gesture. */
    async openPanel(tab) {
      if (ext.sidePanel && ext.sidePanel.open) {
        const opts = tab && tab.id !== undefined ? { tabId: tab.id } : { windowId: tab && tab.windowId };
        return ext.sidePanel.open(opts);
      }
      if (ext.sidebarAction && ext.sidebarAction.open) return ext.sidebarAction.open();
      return undefined;
    },
  };
  root.SC = root.SC || {};
  root.SC.browser = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
