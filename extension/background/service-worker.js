// The service worker: the ONLY place that talks to the backend (with the token from extension
// storage). It serves the content script (streamed checks over a port), the side panel (status,
// pairing, documents, uploads) and the viewer (PDF bytes), and owns the context menu and shortcut.
/* global importScripts */
"use strict";

// Chromium runs this file as a classic service worker and loads the libraries here; Firefox runs
// it as a background script after the same libraries, listed in the manifest's background.scripts.
if (typeof importScripts === "function" && !(globalThis.SC && globalThis.SC.apiClient)) {
  importScripts(
    "../lib/browser.js", "../lib/messages.js", "../lib/ndjson.js", "../lib/errors.js",
    "../lib/settings.js", "../lib/check-state.js", "../lib/api-client.js"
  );
}

const { browser: B, messages: M, errors: E, settings: S, checkState: CS, apiClient: A } = globalThis.SC;
const { MSG, PORT } = M;
const ext = B.ext;
const MENU_ID = "sourcecheck-check-selection";
const CHUNK = 512 * 1024; // bytes per port message when moving PDFs (messages are JSON, so base64)
const CONTENT_FILES = [
  "lib/browser.js", "lib/messages.js", "lib/offsets.js", "lib/anchoring.js", "lib/errors.js",
  "lib/settings.js", "lib/check-state.js", "content/marks.js", "content/ui.js", "content/content.js",
];

async function client() {
  const s = await S.load(B.get);
  return new A.BackendClient({ baseUrl: s.backendUrl, token: s.token });
}

function toFriendly(err) {
  if (err && err.friendly) return err.friendly;
  return E.friendlyError({ code: "request_failed", message: String(err && err.message || err) });
}

// ------------------------------------------------------------------ status and pairing

/** Reachable? paired? which model? One call for the side panel's status line. */
async function status() {
  const c = await client();
  const out = { backendUrl: c.baseUrl, reachable: false, paired: false, hasToken: !!c.token, model: null, library: null, error: null };
  try {
    const h = await c.health();
    out.reachable = true;
    out.model = h.model || null;
    out.library = h.library || null;
    out.version = h.version || null;
  } catch (err) {
    out.error = toFriendly(err);
    return { ok: true, status: out };
  }
  if (!c.token) {
    out.error = E.friendlyError({ code: "not_paired" });
    return { ok: true, status: out };
  }
  try {
    // The token is only proven by an authenticated call.
    await c.documents();
    out.paired = true;
  } catch (err) {
    out.error = toFriendly(err);
  }
  return { ok: true, status: out };
}

async function pair(msg) {
  const c = await client();
  const res = await c.pair(msg.code);
  await B.set({ token: res.token });
  return { ok: true };
}

// ------------------------------------------------------------------ documents

async function documents() {
  const c = await client();
  const res = await c.documents();
  return { ok: true, documents: res.documents || [] };
}

async function documentOne(msg) {
  const c = await client();
  const res = await c.document(msg.id);
  return { ok: true, document: res.document };
}

async function deleteDocument(msg) {
  const c = await client();
  await c.deleteDocument(msg.id);
  return { ok: true };
}

function base64ToBytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/** Upload port: {type:"begin", name} {type:"chunk", data(base64)}... {type:"end"} -> uploaded|error. */
function onUploadPort(port) {
  let name = "upload.pdf";
  let parts = [];
  port.onMessage.addListener(async (msg) => {
    if (msg.type === "begin") { name = msg.name || name; parts = []; return; }
    if (msg.type === "chunk") { parts.push(base64ToBytes(msg.data)); port.postMessage({ type: "ack", n: parts.length }); return; }
    if (msg.type !== "end") return;
    try {
      const c = await client();
      const res = await c.upload([{ name, blob: new Blob(parts, { type: "application/pdf" }) }]);
      port.postMessage({ type: "uploaded", documents: res.documents || [] });
    } catch (err) {
      port.postMessage({ type: "error", error: toFriendly(err) });
    }
  });
}

/** File port for the viewer: {type:"get", id} -> meta, chunk..., end (or error). */
function onFilePort(port) {
  port.onMessage.addListener(async (msg) => {
    if (msg.type !== "get") return;
    try {
      const c = await client();
      const bytes = new Uint8Array(await c.file(msg.id));
      port.postMessage({ type: "meta", size: bytes.length });
      for (let i = 0; i < bytes.length; i += CHUNK) {
        port.postMessage({ type: "chunk", data: bytesToBase64(bytes.subarray(i, i + CHUNK)) });
      }
      port.postMessage({ type: "end" });
    } catch (err) {
      port.postMessage({ type: "error", error: toFriendly(err) });
    }
  });
}

// ------------------------------------------------------------------ checks

/** The last check, kept for the side panel's results list. */
async function saveLastCheck(state, tab) {
  const sentences = state.sentences.map((s) => {
    const v = state.verdicts[s.index] || null;
    return {
      index: s.index, key: state.checkId + ":" + s.index, text: s.text, label: CS.labelOf(state, s.index),
      p_supported: v ? v.p_supported : null, critique: v ? v.critique : null,
      missing: state.missing.includes(state.checkId + ":" + s.index),
    };
  });
  const lastCheck = {
    checkId: state.checkId, tabId: tab ? tab.id : null, url: tab ? tab.url : null, status: state.status,
    sentences, summary: state.summary, error: state.error, counts: CS.counts(state), at: Date.now(),
  };
  await B.sessionSet({ lastCheck });
}

const lastStates = new Map(); // checkId -> state, to merge re-anchoring reports

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
    lastStates.clear();
    lastStates.set(msg.checkId, state);
    const emit = (event) => {
      const problem = M.checkEventProblem(event);
      if (problem) event = { type: "error", error: { code: "request_failed", message: "Unexpected answer from the backend (" + problem + ")." } };
      if (event.type === "error") event = { type: "error", error: E.friendlyError(event.error) };
      state = CS.apply(state, event);
      lastStates.set(msg.checkId, state);
      try { port.postMessage(event); } catch (_) { /* the tab went away */ }
      saveLastCheck(state, tab);
    };
    checkStarted();
    try {
      const c = await client();
      if (!c.token) throw new A.BackendError({ code: "not_paired", status: 401 }, c.baseUrl);
      const { sensitivity } = await S.load(B.get);
      await c.check(msg.text, { onEvent: emit, signal: abort.signal, options: { sensitivity } });
      if (state.status === "checking") emit({ type: "summary", counts: CS.counts(state), p_all_supported: null });
    } catch (err) {
      if (err && err.name === "AbortError") return;
      const event = { type: "error", error: toFriendly(err) };
      state = CS.apply(state, event);
      try { port.postMessage(event); } catch (_) { /* the tab went away */ }
      saveLastCheck(state, tab);
    } finally {
      checkEnded();
    }
  });
}

async function marksStatus(msg, sender) {
  const state = lastStates.get(msg.checkId);
  if (!state) return { ok: true };
  const next = Object.assign({}, state, { missing: msg.missing || [] });
  lastStates.set(msg.checkId, next);
  await saveLastCheck(next, sender.tab);
  return { ok: true };
}

/** Ask a tab to check its selection, injecting the content script if the tab predates us. */
async function checkTab(tabId, fallbackText) {
  const msg = M.message(MSG.START_CHECK, { fallbackText: fallbackText || "" });
  try {
    return await B.sendToTab(tabId, msg);
  } catch (_) {
    // No content script in this tab (opened before the extension was installed): inject it.
    await ext.scripting.insertCSS({ target: { tabId }, files: ["content/highlights.css"] });
    await ext.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
    return B.sendToTab(tabId, msg);
  }
}

async function scrollTo(msg) {
  const { lastCheck } = await B.sessionGet("lastCheck");
  const tabId = msg.tabId || (lastCheck && lastCheck.tabId);
  if (tabId === null || tabId === undefined) return { ok: false, error: { code: "request_failed", message: "No checked page." } };
  await ext.tabs.update(tabId, { active: true });
  return B.sendToTab(tabId, M.message(MSG.SCROLL_TO, { key: msg.key }));
}

async function openViewer(msg) {
  const q = new URLSearchParams({ doc: msg.documentId, page: String(msg.page || 1), q: msg.quote || "", name: msg.filename || "" });
  const tab = await ext.tabs.create({ url: B.url("viewer/index.html?" + q.toString()) });
  return { ok: true, tabId: tab.id };
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
  [MSG.STATUS]: status,
  [MSG.PAIR]: pair,
  [MSG.DOCUMENTS]: documents,
  [MSG.DOCUMENT]: documentOne,
  [MSG.DELETE_DOCUMENT]: deleteDocument,
  [MSG.OPEN_VIEWER]: openViewer,
  [MSG.OPEN_SIDE_PANEL]: openSidePanel,
  [MSG.SCROLL_TO]: scrollTo,
  [MSG.MARKS_STATUS]: marksStatus,
  [MSG.CHECK_TAB]: (msg) => checkTab(msg.tabId, msg.fallbackText),
}, toFriendly));

ext.runtime.onConnect.addListener((port) => {
  if (port.name === PORT.CHECK) onCheckPort(port);
  else if (port.name === PORT.UPLOAD) onUploadPort(port);
  else if (port.name === PORT.FILE) onFilePort(port);
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

// The toolbar button opens the side panel (Chromium) or toggles the sidebar (Firefox).
if (ext.sidePanel && ext.sidePanel.setPanelBehavior) {
  ext.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
} else if (ext.sidebarAction && ext.action) {
  ext.action.onClicked.addListener(() => ext.sidebarAction.toggle());
}

// For tests and debugging from the service worker console: the same path the menu takes.
globalThis.sourcecheck = { checkTab, status };
