// The service worker: loads its parts and wires them to the browser's events. Each part is a file of its own
// (background/): sender.js who may ask for what, last-check.js and history.js the last and the recent checks,
// checks.js the streamed check over a port, marks-store.js each page's kept marks, tabs.js work in a page's tab,
// menu.js the context menu and the shortcut, open-pages.js the viewer and the side panel. The side panel and the
// viewer are extension pages and call the backend themselves (lib/api-client.js).
"use strict";

// Chromium runs this file as a classic service worker and loads the rest here (paths from this file's folder);
// Firefox runs it as a background script after the same files, listed in the manifest's background.scripts.
if (typeof importScripts === "function" && !(globalThis.SC && globalThis.SC.bg)) {
  importScripts(
    "../lib/browser.js", "../lib/labels.js", "../lib/messages.js", "../lib/ndjson.js", "../lib/errors.js",
    "../lib/settings.js", "../lib/check-state.js", "../lib/api-client.js", "../lib/page-marks.js",
    "sender.js", "last-check.js", "history.js", "checks.js", "marks-store.js", "tabs.js", "menu.js", "open-pages.js"
  );
}

// The listeners are added at the top level, when the file runs: a stopped worker that an event wakes runs this file
// again and hears that event only if its listener is added before the first await.
(function (root) {
  const { browser: B, messages: M, apiClient: A, bg } = root.SC;
  const { MSG, PORT } = M;
  const ext = B.ext;

  ext.runtime.onMessage.addListener(M.createRouter({
    [MSG.OPEN_VIEWER]: bg.openPages.openViewer,
    [MSG.OPEN_SIDE_PANEL]: bg.openPages.openSidePanel,
    [MSG.SCROLL_TO]: bg.tabs.scrollToMark,
    [MSG.MARKS_STATUS]: bg.lastCheck.marksStatus,
    [MSG.SAVE_MARKS]: bg.marksStore.saveMarks,
    [MSG.CHECK_TAB]: bg.tabs.onCheckTab,
  }, A.toFriendly));

  ext.runtime.onConnect.addListener((port) => {
    if (port.name === PORT.CHECK) bg.checks.onCheckPort(port);
  });

  ext.runtime.onInstalled.addListener(bg.menu.create);
  ext.contextMenus.onClicked.addListener(bg.menu.onClicked);
  if (ext.commands) ext.commands.onCommand.addListener(bg.menu.onCommand);
  if (ext.tabs && ext.tabs.onReplaced) ext.tabs.onReplaced.addListener(bg.lastCheck.tabReplaced);

  // The toolbar button opens the side panel (Chromium) or toggles the sidebar (Firefox).
  if (ext.sidePanel && ext.sidePanel.setPanelBehavior) {
    ext.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
  } else if (ext.sidebarAction && ext.action) {
    ext.action.onClicked.addListener(() => ext.sidebarAction.toggle());
  }

  // For tests and debugging from the service worker console: the same path the menu takes.
  root.sourcecheck = { checkTab: bg.tabs.checkTab };
})(globalThis);
