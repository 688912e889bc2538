// The service worker's message handlers (background/*.js) over a fake `chrome`: what a content script
// may ask (its own tab, its own page's marks, nothing kept for a private tab), the marks' shape checked, and two quick
// evidence clicks opening one viewer tab.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { load, EXT } from "./helpers.js";

const EXT_URL = "chrome-extension://sourcecheck-id/";

/** A storage area over a plain object. */
function area(data) {
  return {
    data,
    async get(keys) {
      if (keys === null || keys === undefined) return structuredClone(data);
      const list = typeof keys === "string" ? [keys] : Array.isArray(keys) ? keys : Object.keys(keys);
      return Object.fromEntries(list.filter((k) => k in data).map((k) => [k, structuredClone(data[k])]));
    },
    async set(items) { Object.assign(data, structuredClone(items)); },
    async remove(keys) { for (const k of [].concat(keys)) delete data[k]; },
  };
}

const listeners = {};
const on = (name) => ({ addListener: (fn) => { listeners[name] = fn; } });
const calls = [];
const contexts = [];  // runtime.getContexts' answer: a created tab's page shows up a moment after tabs.create
let nextTab = 100;

globalThis.chrome = {
  runtime: {
    id: "sourcecheck-id",
    getManifest: () => ({ content_scripts: [{ js: ["content/content.js"], css: ["content/highlights.css"] }] }),
    getURL: (path) => EXT_URL + path,
    getPlatformInfo: async () => ({}),
    getContexts: async ({ contextTypes }) => contexts.filter((c) => contextTypes.includes(c.contextType)),
    onMessage: on("message"), onConnect: on("connect"), onInstalled: on("installed"),
  },
  storage: { local: area({}), session: area({}), onChanged: on("changed") },
  tabs: {
    async sendMessage(tabId, msg) { calls.push(["sendMessage", tabId, msg.type]); return { ok: true }; },
    async update(tabId, props) { calls.push(["update", tabId, props.url ? "viewer" : "active"]); return { id: tabId, windowId: 1 }; },
    async create({ url }) {
      const id = nextTab++;
      calls.push(["create", id]);
      setTimeout(() => contexts.push({ contextType: "TAB", tabId: id, documentUrl: url }), 120);  // the page loads
      return { id, windowId: 1 };
    },
    async query() { return []; },
    onReplaced: on("replaced"),
  },
  windows: { async update() { return {}; } },
  scripting: { async insertCSS() {}, async executeScript() {} },
  contextMenus: { async removeAll() {}, create() {}, onClicked: on("menu") },
  commands: { onCommand: on("command") },
  sidePanel: { setPanelBehavior: async () => {} },
};
// Loaded the way Chromium loads the worker: the worker runs and imports its files, paths from its own folder.
const imported = [];
globalThis.importScripts = (...files) => {
  for (const f of files) {
    const rel = path.posix.join("background", f);
    imported.push(rel);
    load(rel);
  }
};
load("background/service-worker.js");
delete globalThis.importScripts;
const local = globalThis.chrome.storage.local.data;

/** Send msg to the worker as sender; resolves with its answer. */
function send(msg, sender) {
  return new Promise((resolve) => {
    if (listeners.message(msg, sender, resolve) === false) resolve("not handled");
  });
}

const PAGE = "https://chat.example/c/1";
const fromPage = (url = PAGE, tab = {}) => ({ id: "sourcecheck-id", url, tab: Object.assign({ id: 7, url, incognito: false }, tab) });
const fromPanel = { id: "sourcecheck-id", url: EXT_URL + "sidepanel/index.html" };
const fromPanelTab = { id: "sourcecheck-id", url: EXT_URL + "sidepanel/index.html", tab: { id: 9, url: EXT_URL + "sidepanel/index.html" } };

const ENTRY = {
  key: "c1:0", checkId: "c1", index: 0, text: "The model has 7 billion parameters.", checkable: true, label: "contradicted",
  selectors: { quote: { exact: "The model has 7 billion parameters.", prefix: "", suffix: "" }, position: { start: 0, end: 35 } },
  verdict: { index: 0, label: "contradicted", evidence: [{ document_id: "d", filename: "a.pdf", page: 1, quote: "q", stance: "refutes" }] },
};
const RECORD = { at: 1, entries: [ENTRY], dismissed: ["Hi there!"] };

test("the worker imports, in order, the files Firefox loads from the manifest's background.scripts", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(EXT, "manifest.json"), "utf8"));
  assert.deepEqual([...imported, "background/service-worker.js"], manifest.background.scripts);
  // the extension's own listeners are added when the worker runs (a woken worker hears the event that woke it)
  for (const name of ["message", "connect", "installed", "menu", "command", "replaced"]) assert.equal(typeof listeners[name], "function", name);
});

test("a page's marks are kept under the sender's own URL, or under its check's URL on the same site only", async () => {
  for (const k of Object.keys(local)) delete local[k];
  // The message says another site: refused, nothing kept there (nor anywhere).
  const other = await send({ type: "save-marks", url: "https://bank.example/account", record: RECORD }, fromPage());
  assert.equal(other.ok, false);
  assert.deepEqual(Object.keys(local), []);
  // No URL in the message: the sender's.
  assert.deepEqual(await send({ type: "save-marks", record: RECORD }, fromPage(PAGE + "#reply")), { ok: true, kept: true });
  assert.deepEqual(local["marks:" + PAGE].entries.map((e) => e.key), ["c1:0"]);
  // The URL the check started on, on the same site (the app navigated in-page since): kept there.
  await send({ type: "save-marks", url: "https://chat.example/c/0", record: RECORD }, fromPage());
  assert.ok(local["marks:https://chat.example/c/0"]);
  assert.deepEqual(local.marksIndex.map((i) => i.key), ["marks:https://chat.example/c/0", "marks:" + PAGE]);
  // Not from a page (the side panel): refused.
  assert.equal((await send({ type: "save-marks", url: "https://x.example/", record: RECORD }, fromPanel)).ok, false);
  assert.equal(local["marks:https://x.example/"], undefined);
});

test("a record that is not of the expected shape is refused, and only its known fields are kept", async () => {
  for (const k of Object.keys(local)) delete local[k];
  const bad = [
    { at: 1, entries: {}, dismissed: [] },
    { at: 1, entries: [ENTRY], dismissed: [{ evil: true }] },
    { at: 1, entries: [Object.assign({}, ENTRY, { selectors: { quote: "x" } })], dismissed: [] },
    { at: 1, entries: [Object.assign({}, ENTRY, { label: "<b>owned</b>" })], dismissed: [] },  // a label word may be new; markup never
    "junk",
  ];
  for (const record of bad) {
    const r = await send({ type: "save-marks", record }, fromPage());
    assert.equal(r.ok, false, JSON.stringify(record));
    assert.match(r.error.message, /not kept/);
  }
  assert.deepEqual(Object.keys(local), []);
  await send({ type: "save-marks", record: Object.assign({}, RECORD, { entries: [Object.assign({ html: "<b>" }, ENTRY)], junk: 1 }) }, fromPage());
  const kept = local["marks:" + PAGE];
  assert.deepEqual(Object.keys(kept).sort(), ["at", "dismissed", "entries"]);
  assert.equal(kept.entries[0].html, undefined);
  assert.ok(local.marksIndex[0].size > 0, "the index knows each page's size");
});

test("nothing of a private (incognito) tab is kept", async () => {
  for (const k of Object.keys(local)) delete local[k];
  const r = await send({ type: "save-marks", url: PAGE, record: RECORD }, fromPage(PAGE, { incognito: true }));
  assert.deepEqual(Object.keys(local), []);
  assert.deepEqual(r, { ok: true, kept: false });
});

test("a content script's check-tab and scroll-to act on its own tab only; the side panel names the tab", async () => {
  calls.length = 0;
  await send({ type: "check-tab", tabId: 3 }, fromPage());
  await send({ type: "scroll-to", tabId: 3, key: "c1:0" }, fromPage());
  assert.deepEqual(calls, [["sendMessage", 7, "start-check"], ["update", 7, "active"], ["sendMessage", 7, "scroll-to"]]);
  calls.length = 0;
  await send({ type: "check-tab", tabId: 3 }, fromPanel);
  await send({ type: "scroll-to", tabId: 3, key: "c1:0" }, fromPanelTab);  // the panel opened as a tab
  assert.deepEqual(calls, [["sendMessage", 3, "start-check"], ["update", 3, "active"], ["sendMessage", 3, "scroll-to"]]);
});

test("two quick evidence clicks open one viewer tab; the next click reuses it", async () => {
  calls.length = 0;
  const open = (page) => send({ type: "open-viewer", documentId: "d", page, quote: "q", filename: "a.pdf" }, fromPage());
  const [a, b] = await Promise.all([open(1), open(2)]);
  assert.deepEqual([a.tabId, b.tabId], [a.tabId, a.tabId]);
  assert.deepEqual(calls, [["create", a.tabId], ["update", a.tabId, "viewer"]]);
  await open(3);
  assert.deepEqual(calls.at(-1), ["update", a.tabId, "viewer"]);
  // A tab whose page the browser does not list as the viewer is never taken for it.
  contexts.length = 0;
  calls.length = 0;
  await open(4);
  assert.equal(calls[0][0], "create");
});

test("only the tab a check ran in reports its missing marks; the same page in another tab changes nothing", async () => {
  const session = globalThis.chrome.storage.session.data;
  const sentences = [0, 1].map((i) => ({ index: i, key: "c9:" + i, text: "s" + i, label: "unsupported", missing: false }));
  session.lastCheck = { checkId: "c9", tabId: 7, url: PAGE, status: "done", sentences };
  const other = await send({ type: "marks-status", checkId: "c9", missing: ["c9:1"] }, fromPage(PAGE, { id: 8 }));
  assert.deepEqual(other, { ok: true, kept: false });
  assert.deepEqual(session.lastCheck.sentences.map((s) => s.missing), [false, false]);
  assert.equal(session.lastCheck.tabId, 7);
  const panel = await send({ type: "marks-status", checkId: "c9", missing: ["c9:1"] }, fromPanel);
  assert.equal(panel.ok, false);
  assert.deepEqual(session.lastCheck.sentences.map((s) => s.missing), [false, false]);
  const own = await send({ type: "marks-status", checkId: "c9", missing: ["c9:1"] }, fromPage(PAGE, { id: 7 }));
  assert.deepEqual(own, { ok: true });
  assert.deepEqual(session.lastCheck.sentences.map((s) => s.missing), [false, true]);
});

test("a check whose tab is unknown takes the reporting tab's word; a replaced tab keeps reporting for its check", async () => {
  const session = globalThis.chrome.storage.session.data;
  const sentences = [0, 1].map((i) => ({ index: i, key: "c8:" + i, text: "s" + i, label: "unsupported", missing: false }));
  session.lastCheck = { checkId: "c8", tabId: null, url: null, status: "done", sentences };
  assert.deepEqual(await send({ type: "marks-status", checkId: "c8", missing: ["c8:0"] }, fromPage(PAGE, { id: 4 })), { ok: true });
  assert.deepEqual(session.lastCheck.sentences.map((s) => s.missing), [true, false]);

  session.lastCheck = Object.assign({}, session.lastCheck, { tabId: 7 });
  await listeners.replaced(11, 7);  // Chromium swapped tab 7 for tab 11 (prerendering)
  assert.equal(session.lastCheck.tabId, 11);
  assert.deepEqual(await send({ type: "marks-status", checkId: "c8", missing: [] }, fromPage(PAGE, { id: 7 })), { ok: true, kept: false });
  assert.deepEqual(await send({ type: "marks-status", checkId: "c8", missing: [] }, fromPage(PAGE, { id: 11 })), { ok: true });
  assert.deepEqual(session.lastCheck.sentences.map((s) => s.missing), [false, false]);
});
