// The browser's own ways to start a check: the selection's context menu item and the keyboard shortcut (the manifest's
// "check-selection" command). Both ask the tab to check its selection (tabs.js).
(function (root) {
  "use strict";

  const { browser: B } = root.SC;
  const { checkTab } = root.SC.bg.tabs;
  const ext = B.ext;
  const MENU_ID = "sourcecheck-check-selection";

  /** Add the menu item (on install and update: the browser keeps it across restarts of the worker). */
  function create() {
    Promise.resolve(ext.contextMenus.removeAll()).then(() => {
      ext.contextMenus.create({ id: MENU_ID, title: "Check against my PDFs", contexts: ["selection"] });
    });
  }

  /** A menu click: ours only (other extensions' items come here too); the selection goes along in case the page's
   * own selection cannot be read. */
  function onClicked(info, tab) {
    if (info.menuItemId === MENU_ID && tab) checkTab(tab.id, info.selectionText).catch(() => {});
  }

  /** The shortcut: the tab it was pressed in, or the active one when the browser names none. */
  async function onCommand(command, tab) {
    if (command !== "check-selection") return;
    const target = tab || (await ext.tabs.query({ active: true, currentWindow: true }))[0];
    if (target) checkTab(target.id).catch(() => {});
  }

  root.SC.bg.menu = { create, onClicked, onCommand };
})(globalThis);
