// The service worker: talks to the backend for content scripts (streamed checks over a port; a page's own fetch
// would be refused), keeps the last check and the recent ones, and owns the context menu and the shortcut. The
// side panel and the viewer are extension pages and call the backend themselves (lib/api-client.js).
"use strict";

// Chromium runs this file as a classic service worker and loads the libraries here; Firefox runs
// it as a background script after the same libraries, listed in the manifest's background.scripts.
if (typeof importScripts === "function" && !(globalThis.SC && globalThis.SC.apiClient)) {
  importScripts(
    "../lib/browser.js", "../lib/messages.js", "../lib/ndjson.js", "../lib/errors.js",
    "../lib/settings.js", "../lib/check-state.js", "../lib/api-client.js", "../lib/page-marks.js"
  );
}

const { browser: B, messages: M, errors: E, settings: S, checkState: CS, apiClient: A, pageMarks: PM } = globalThis.SC;
const { MSG, PORT } = M;
const ext = B.ext;
const MENU_ID = "sourcecheck-check-selection";
// The content script's files, as the manifest lists them (for tabs opened before the extension was installed).
const CONTENT = ext.runtime.getManifest().content_scripts[0];

async function client() {
  return A.clientFor(await S.load(B.get));
}

const toFriendly = A.toFriendly;

/** A private (incognito) tab: nothing of it is written to local storage (the history, a page's marks). */
const incognito = (tab) => !!(tab && tab.incognito);

/** A message from a content script (a web page's tab), not from one of our own pages (the side panel, the viewer,
 * the panel opened as a tab): it may act only on its own tab and its own page. */
function fromPage(sender) {
  return !!(sender && sender.tab) && !String(sender.url || "").startsWith(B.url(""));
}

/** A bad request from a page, as an answer. */
const refused = (message) => ({ ok: false, error: { code: "request_failed", message } });

// ------------------------------------------------------------------ checks

let latestCheckId = null; // a replaced check's late events must not overwrite the newer one's results

/** The last check, kept for the side panel's results list. A check that failed or was cancelled before it found
 * its sentences keeps the results of the one before it (as the page keeps its marks), a failure noted. */
async function saveLastCheck(state, tab) {
  if (state.checkId !== latestCheckId) return;
  if ((state.status === "error" || state.status === "cancelled") && !state.sentences.length) {
    const { lastCheck: before } = await B.sessionGet("lastCheck");
    if (before && before.sentences && before.sentences.length) {
      if (state.status === "error") await B.sessionSet({ lastCheck: Object.assign({}, before, { recheckError: state.error }) });
      return;
    }
  }
  const sentences = state.sentences.map((s) => {
    const v = state.verdicts[s.index] || null;
    return {
      index: s.index, key: state.checkId + ":" + s.index, text: s.text, label: CS.labelOf(state, s.index),
      p_supported: v ? v.p_supported : null, critique: v ? v.critique : null, error_type: v ? v.error_type : null,
      missing: state.missing.includes(state.checkId + ":" + s.index),
    };
  });
  const lastCheck = {
    checkId: state.checkId, tabId: tab ? tab.id : null, url: tab ? tab.url : null, status: state.status, text: state.text,
    sentences, summary: state.summary, error: state.error, counts: CS.counts(state), at: Date.now(),
  };
  await B.sessionSet({ lastCheck });
}

const HISTORY = 20; // finished checks kept for the side panel (and its Markdown export), across restarts

const KEPT_EVIDENCE = 3; // passages kept per sentence: 20 checks stay far below storage.local's 10 MB
let historyWrites = Promise.resolve(); // one write at a time: two checks ending together both stay

/** Keep a finished (or cancelled) check in local storage, newest first. */
function saveHistory(state, tab) {
  const verdicts = Object.values(state.verdicts).map((v) => Object.assign({}, v, {
    evidence: (v.evidence || []).slice(0, KEPT_EVIDENCE).map((e) => ({
      filename: e.filename, document_id: e.document_id, page: e.page, stance: e.stance, quote: e.quote })),
  }));
  const entry = {
    checkId: state.checkId, at: Date.now(), url: tab ? tab.url : "", title: tab ? tab.title : "", status: state.status,
    counts: CS.counts(state), result: { sentences: state.sentences, verdicts, summary: state.summary },
  };
  historyWrites = historyWrites.then(async () => {
    const { history } = await B.get("history");
    const kept = (Array.isArray(history) ? history : []).filter((h) => h.checkId !== state.checkId);
    await B.set({ history: [entry, ...kept].slice(0, HISTORY) });
  }).catch((err) => console.warn("sourcecheck: the check was not kept in history:", err));
  return historyWrites;
}

const lastStates = new Map(); // checkId -> state, to merge re-anchoring reports
const checkTabs = new Map(); // checkId -> the tab it ran in: only that tab reports its missing marks

// Chromium stops an idle service worker after 30 s; the first verdict of a real model can take
// longer than that (model load), so an API call every 20 s keeps the worker alive while checking.
let running = 0;
let keepAlive = null;
function checkStarted() {
  running += 1;
  if (!keepAlive) keepAlive = setInterval(() => ext.runtime.getPlatformInfo(), 20000);
}
function checkEnded() {
  running = Math.max(0, running - 1);
  if (!running && keepAlive) { clearInterval(keepAlive); keepAlive = null; }
}

/** Check port: the content script sends {type:"check", text, checkId}; events stream back. */
function onCheckPort(port) {
  const abort = new AbortController();
  port.onDisconnect.addListener(() => abort.abort());
  port.onMessage.addListener(async (msg) => {
    if (msg.type !== "check") return;
    const tab = port.sender && port.sender.tab;
    let state = CS.initial(msg.checkId, msg.text);
    latestCheckId = msg.checkId;
    lastStates.clear();
    lastStates.set(msg.checkId, state);
    checkTabs.clear();
    if (tab) checkTabs.set(msg.checkId, tab);
    const emit = (event) => {
      const problem = M.checkEventProblem(event);
      if (problem) event = { type: "error", error: { code: "request_failed", message: "Unexpected answer from the backend (" + problem + ")." } };
      if (event.type === "error") event = { type: "error", error: E.friendlyError(event.error) };
      // from the kept state: it holds the missing marks the page reported meanwhile (marksStatus)
      state = CS.apply(lastStates.get(msg.checkId) || state, event);
      if (lastStates.has(msg.checkId)) lastStates.set(msg.checkId, state);
      try { port.postMessage(event); } catch (_) { /* the tab went away */ }
      saveLastCheck(state, tab);
      if (event.type === "summary" && !incognito(tab)) saveHistory(state, tab);
    };
    checkStarted();
    try {
      const c = await client();
      if (!c.token) throw new A.BackendError({ code: "not_paired", status: 401 }, c.baseUrl);
      const { sensitivity } = await S.load(B.get);
      await c.check(msg.text, { onEvent: emit, signal: abort.signal, options: { sensitivity } });
      if (state.status === "checking") emit({ type: "summary", counts: CS.counts(state), p_all_supported: null });
    } catch (err) {
      if (err && err.name === "AbortError") {
        // The page closed the port: the check was cancelled (or replaced, or its tab closed).
        if (state.status === "checking") {
          const cancelled = Object.assign({}, state, { status: "cancelled" });
          saveLastCheck(cancelled, tab);
          if (state.sentences.length && !incognito(tab)) saveHistory(cancelled, tab);
        }
        return;
      }
      const event = { type: "error", error: toFriendly(err) };
      state = CS.apply(state, event);
      try { port.postMessage(event); } catch (_) { /* the tab went away */ }
      saveLastCheck(state, tab);
    } finally {
      checkEnded();
    }
  });
}

/** Which sentences of a check the page can no longer find (re-anchoring). A check of an earlier life of this worker
 * (a reloaded page restoring its marks) is found in the kept last check. Only the tab the check ran in reports for
 * it: the same page open in another tab (its marks restored from memory) must not move the panel's last check to
 * that tab nor set its "not on this page" flags. */
async function marksStatus(msg, sender) {
  if (!fromPage(sender)) return refused("which marks are missing is reported by the page");
  const state = lastStates.get(msg.checkId);
  const ran = checkTabs.get(msg.checkId);  // unknown (a check started without a tab): the reporting tab stands in
  if (state) {
    if (ran && ran.id !== sender.tab.id) return { ok: true, kept: false };
    const next = Object.assign({}, state, { missing: msg.missing || [] });
    lastStates.set(msg.checkId, next);
    await saveLastCheck(next, ran || sender.tab);
    return { ok: true };
  }
  const { lastCheck } = await B.sessionGet("lastCheck");
  if (!lastCheck || lastCheck.checkId !== msg.checkId) return { ok: true, kept: false };
  if (lastCheck.tabId !== null && lastCheck.tabId !== undefined && lastCheck.tabId !== sender.tab.id) return { ok: true, kept: false };
  const missing = new Set(msg.missing || []);
  const sentences = lastCheck.sentences.map((s) => Object.assign({}, s, { missing: missing.has(s.key) }));
  await B.sessionSet({ lastCheck: Object.assign({}, lastCheck, { sentences }) });
  return { ok: true };
}

let marksWrites = Promise.resolve(); // one write at a time: two tabs saving together must not drop a page

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

/** Keep a page's marks (content/memory.js) under its own key; only the last PM.MAX_PAGES pages, PM.MAX_BYTES in all,
 * are kept. From a content script only, for its own page, never for a private (incognito) tab; a record that is not
 * of the expected shape is refused. */
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
  marksWrites = marksWrites.then(async () => {
    const { marksIndex } = await B.get("marksIndex");
    const { index, drop } = PM.bound(marksIndex, key, Date.now(), empty, size);
    await B.set(Object.assign({ marksIndex: index }, empty ? {} : { [key]: record }));
    if (drop.length) await B.ext.storage.local.remove(drop);
  }).catch((err) => console.warn("sourcecheck: the page's marks were not kept:", err));
  return marksWrites.then(() => ({ ok: true, kept: !empty }));
}

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

// ------------------------------------------------------------------ wiring (top level, so a
// restarted service worker hears the event that woke it)

ext.runtime.onMessage.addListener(M.createRouter({
  [MSG.OPEN_VIEWER]: openViewer,
  [MSG.OPEN_SIDE_PANEL]: openSidePanel,
  [MSG.SCROLL_TO]: scrollToMark,
  [MSG.MARKS_STATUS]: marksStatus,
  [MSG.SAVE_MARKS]: saveMarks,
  // A page checks only its own tab; the side panel names one.
  [MSG.CHECK_TAB]: (msg, sender) => checkTab(fromPage(sender) ? sender.tab.id : msg.tabId, msg.fallbackText),
}, toFriendly));

ext.runtime.onConnect.addListener((port) => {
  if (port.name === PORT.CHECK) onCheckPort(port);
});

ext.runtime.onInstalled.addListener(() => {
  Promise.resolve(ext.contextMenus.removeAll()).then(() => {
    ext.contextMenus.create({ id: MENU_ID, title: "Check against my PDFs", contexts: ["selection"] });
  });
});

ext.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === MENU_ID && tab) checkTab(tab.id, info.selectionText).catch(() => {});
});

if (ext.commands) {
  ext.commands.onCommand.addListener(async (command, tab) => {
    if (command !== "check-selection") return;
    const target = tab || (await ext.tabs.query({ active: true, currentWindow: true }))[0];
    if (target) checkTab(target.id).catch(() => {});
  });
}

// A tab the browser swaps for another (a prerendered page, a restored tab) takes a new id: its check follows it, so
// the page's missing-mark reports are still its own (marksStatus).
if (ext.tabs && ext.tabs.onReplaced) {
  ext.tabs.onReplaced.addListener(async (added, removed) => {
    for (const [checkId, tab] of checkTabs) if (tab.id === removed) checkTabs.set(checkId, Object.assign({}, tab, { id: added }));
    const { lastCheck } = await B.sessionGet("lastCheck");
    if (lastCheck && lastCheck.tabId === removed) await B.sessionSet({ lastCheck: Object.assign({}, lastCheck, { tabId: added }) });
  });
}

// The toolbar button opens the side panel (Chromium) or toggles the sidebar (Firefox).
if (ext.sidePanel && ext.sidePanel.setPanelBehavior) {
  ext.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
} else if (ext.sidebarAction && ext.action) {
  ext.action.onClicked.addListener(() => ext.sidebarAction.toggle());
}

// For tests and debugging from the service worker console: the same path the menu takes.
globalThis.sourcecheck = { checkTab };
