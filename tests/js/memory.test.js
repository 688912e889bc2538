// Marks kept across a reload: what lib/page-marks.js keeps and bounds, and content/memory.js drawing them again in
// a fresh page (jsdom), naming those whose text is gone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, dom } from "./helpers.js";

const PM = load("lib/page-marks.js");

function page(html) {
  const win = dom(html);
  globalThis.MutationObserver = win.MutationObserver;
  globalThis.Highlight = class Highlight { constructor(...ranges) { this.ranges = ranges; } };
  globalThis.CSS = { highlights: new Map() };
  const { Marks } = load("content/marks.js");
  const { PageMemory } = load("content/memory.js");
  const reported = [];
  const marks = new Marks(win.document, { onMissing: (keys, entries) => reported.push(entries.map((e) => e.text)) });
  return { win, doc: win.document, marks, reported, PageMemory };
}

const HTML = "<div class=msg><p>Hi there! The model has 7 billion parameters.</p><p>It was trained in 2021. It uses RoPE.</p></div>";
const PARTS = ["Hi there!", "The model has 7 billion parameters.", "It was trained in 2021.", "It uses RoPE."];
const drawn = (name) => (globalThis.CSS.highlights.get(name) || { ranges: [] }).ranges.map(String);

/** Check the page's message: 1 contradicted, 2 unsupported, 3 supported; 0 skipped. */
function checkAndKeep(ctx) {
  const range = ctx.doc.createRange();
  range.selectNodeContents(ctx.doc.querySelector(".msg"));
  const begun = ctx.marks.begin(range);
  const sentences = PARTS.map((p, index) => {
    const start = begun.text.indexOf(p);
    return { index, start, end: start + p.length, text: p, checkable: index > 0 };
  });
  ctx.marks.addSentences("c1", begun.text, begun.extract, sentences);
  const evidence = [1, 2, 3, 4, 5].map((n) => ({ document_id: "d", filename: "a.pdf", page: n, quote: "q" + n, stance: "related", score: 0.5 }));
  ctx.marks.setVerdict("c1", { index: 1, label: "contradicted", evidence, internals: { big: true }, revised: "The model has 8 billion parameters." });
  ctx.marks.setVerdict("c1", { index: 2, label: "unsupported", evidence: [] });
  ctx.marks.setVerdict("c1", { index: 3, label: "supported", evidence: [] });
  return PM.toRecord(ctx.marks.entries.values(), ctx.marks.dismissed, 1000);
}

/** A PageMemory over a fake storage holding `record` for the page. */
function memoryWith(ctx, record) {
  const saved = [];
  const io = { url: () => "https://chat.example/c/1#reply", get: async (key) => (key === "marks:https://chat.example/c/1" ? record : undefined), save: (url, r) => saved.push([url, r]) };
  return { memory: new ctx.PageMemory(ctx.marks, io), saved };
}

test("a page's key drops the #fragment", () => {
  assert.equal(PM.keyFor("https://a.example/x?y=1#z"), "marks:https://a.example/x?y=1");
});

test("the kept record has the selectors, the label and a slim verdict of each answered sentence", () => {
  const record = checkAndKeep(page(HTML));
  assert.deepEqual(record.entries.map((e) => [e.key, e.label]), [["c1:0", "skipped"], ["c1:1", "contradicted"], ["c1:2", "unsupported"], ["c1:3", "supported"]]);
  const red = record.entries[1];
  assert.equal(red.selectors.quote.exact, "The model has 7 billion parameters.");
  assert.equal(red.selectors.quote.prefix, "Hi there! ");
  assert.deepEqual(red.verdict.evidence.map((e) => e.page), [1, 2, 3], "3 passages kept, as the history keeps");
  assert.equal(red.verdict.internals, undefined);
  assert.equal(red.verdict.revised, "The model has 8 billion parameters.");
  assert.deepEqual(JSON.parse(JSON.stringify(record)).entries[1].selectors, red.selectors, "storable as JSON");
});

test("after a reload the marks are drawn again at the same sentences", async () => {
  const record = checkAndKeep(page(HTML));
  const ctx = page(HTML);  // the reloaded page: new nodes
  const { memory } = memoryWith(ctx, record);
  const restored = await memory.restore();
  assert.equal(restored.length, 4);
  assert.deepEqual(drawn("sourcecheck-contradicted"), ["The model has 7 billion parameters."]);
  assert.deepEqual(drawn("sourcecheck-unsupported"), ["It was trained in 2021."]);
  assert.equal(ctx.marks.entries.get("c1:1").verdict.label, "contradicted");
  assert.deepEqual(ctx.reported, [], "nothing is missing");
  ctx.marks.observer.disconnect();
});

test("a reload of a changed page names the sentences no longer there and marks the rest", async () => {
  const record = checkAndKeep(page(HTML));
  const ctx = page("<div class=msg><p>Hi there! The model has 7 billion parameters. It is new.</p><p>Something else.</p></div>");
  const { memory } = memoryWith(ctx, record);
  await memory.restore();
  assert.deepEqual(drawn("sourcecheck-contradicted"), ["The model has 7 billion parameters."]);
  assert.deepEqual(ctx.reported, [["It was trained in 2021.", "It uses RoPE."]]);
  ctx.marks.observer.disconnect();
});

test("a dismissed sentence stays unmarked after a reload and is kept as dismissed", async () => {
  const first = page(HTML);
  checkAndKeep(first);
  first.marks.dismiss(first.marks.entries.get("c1:1"));
  assert.deepEqual(drawn("sourcecheck-contradicted"), []);
  const record = PM.toRecord(first.marks.entries.values(), first.marks.dismissed, 2000);
  assert.deepEqual(record.dismissed, ["The model has 7 billion parameters."]);
  const ctx = page(HTML);
  const { memory, saved } = memoryWith(ctx, record);
  await memory.restore();
  assert.deepEqual(drawn("sourcecheck-contradicted"), []);
  assert.deepEqual(drawn("sourcecheck-unsupported"), ["It was trained in 2021."]);
  await memory.dismiss(ctx.marks.entries.get("c1:2"));
  assert.deepEqual(drawn("sourcecheck-unsupported"), []);
  assert.equal(saved.at(-1)[0], "https://chat.example/c/1#reply");
  assert.deepEqual(saved.at(-1)[1].dismissed, ["The model has 7 billion parameters.", "It was trained in 2021."]);
  ctx.marks.observer.disconnect();
});

test("only the last 20 pages are kept; a page with nothing left is dropped", () => {
  let index = [];
  const dropped = [];
  for (let i = 0; i < 22; i++) {
    const r = PM.bound(index, "marks:p" + i, i, false);
    index = r.index;
    dropped.push(...r.drop);
  }
  assert.equal(index.length, 20);
  assert.equal(index[0].key, "marks:p21");
  assert.deepEqual(dropped, ["marks:p0", "marks:p1"]);
  // Saving an old page again makes it the newest; nothing drops.
  const again = PM.bound(index, "marks:p5", 99, false);
  assert.deepEqual([again.index[0].key, again.index.length, again.drop], ["marks:p5", 20, []]);
  const empty = PM.bound(again.index, "marks:p7", 100, true);
  assert.deepEqual([empty.index.length, empty.drop], [19, ["marks:p7"]]);
});

// ---------------------------------------------------------------- bounds (review findings)

/** n answered entries of check `checkId`, checked at `at`, as marks.js holds them. */
function entriesOf(checkId, n, at, extra = {}) {
  return Array.from({ length: n }, (_, index) => Object.assign({
    key: checkId + ":" + index, checkId, index, text: `Sentence ${index} of ${checkId}.`, checkable: true, label: "unsupported",
    selectors: { quote: { exact: `Sentence ${index} of ${checkId}.`, prefix: "", suffix: "" }, position: { start: index * 30, end: index * 30 + 20 } },
    verdict: { index, label: "unsupported", evidence: [] }, found: true, checkedAt: at,
  }, extra));
}
const byCheck = (record) => record.entries.reduce((n, e) => Object.assign(n, { [e.checkId]: (n[e.checkId] || 0) + 1 }), {});

test("a page keeps at most 200 sentences: the oldest checks' go first", () => {
  const record = PM.toRecord([...entriesOf("old", 90, 1000), ...entriesOf("mid", 90, 2000), ...entriesOf("new", 90, 3000)], [], 4000);
  assert.equal(record.entries.length, 200);
  assert.deepEqual(byCheck(record), { old: 20, mid: 90, new: 90 });
  assert.deepEqual(record.entries.filter((e) => e.checkId === "old").map((e) => e.index), Array.from({ length: 20 }, (_, i) => i));
});

test("one page's record stays under its size: the oldest sentences go first, then the oldest dismissed", () => {
  const long = (e) => Object.assign(e, { text: "x".repeat(20000), selectors: Object.assign({}, e.selectors, { quote: { exact: "y".repeat(20000), prefix: "", suffix: "" } }) });
  const record = PM.toRecord([...entriesOf("old", 10, 1000).map(long), ...entriesOf("new", 10, 2000).map(long)], ["a", "b"], 3000);
  assert.ok(JSON.stringify(record).length <= PM.MAX_PAGE_BYTES, JSON.stringify(record).length);
  assert.deepEqual(byCheck(record), { new: 10, old: 2 });
  assert.deepEqual(record.dismissed, ["a", "b"]);
});

test("the pages kept weigh at most 2 MB in all: the oldest pages go first, the page just saved stays", () => {
  let index = [];
  const dropped = [];
  for (let i = 0; i < 5; i++) {
    const r = PM.bound(index, "marks:p" + i, i, false, 600000);
    index = r.index;
    dropped.push(...r.drop);
  }
  assert.deepEqual(index.map((i) => i.key), ["marks:p4", "marks:p3", "marks:p2"]);
  assert.deepEqual(dropped, ["marks:p0", "marks:p1"]);
  const big = PM.bound(index, "marks:huge", 9, false, 3000000);
  assert.deepEqual([big.index.map((i) => i.key), big.drop], [["marks:huge"], ["marks:p4", "marks:p3", "marks:p2"]]);
});

test("sentences of an older check that are not found again are dropped after 3 page loads; the newest check's stay", async () => {
  // The page's text changed for good since check c1; a new check c2 is made on it, then the page is reloaded 3 times
  // (each time a mark changes, so the page is saved).
  let record = checkAndKeep(page(HTML));
  record.entries.forEach((e) => { e.checkedAt = 1000; });
  const lost = [];
  for (let load = 1; load <= 3; load++) {
    const ctx = page("<div class=msg><p>Something else entirely. And a second claim here.</p></div>");
    const { memory, saved } = memoryWith(ctx, record);
    await memory.restore();
    if (load === 1) {
      const range = ctx.doc.createRange();
      range.selectNodeContents(ctx.doc.querySelector(".msg"));
      const begun = ctx.marks.begin(range);
      memory.began("c2", "https://chat.example/c/1");
      ctx.marks.addSentences("c2", begun.text, begun.extract, [{ index: 0, start: 0, end: 24, text: "Something else entirely.", checkable: true }]);
      ctx.marks.setVerdict("c2", { index: 0, label: "unsupported", evidence: [] });
    }
    memory.save();
    await memory.saveNow();
    record = saved.at(-1)[1];
    lost.push(record.entries.map((e) => `${e.key}:${e.lost}`).join(" "));
    ctx.marks.observer.disconnect();
  }
  assert.deepEqual(lost, [
    "c1:0:1 c1:1:1 c1:2:1 c1:3:1 c2:0:0",  // key:page loads lost
    "c1:0:2 c1:1:2 c1:2:2 c1:3:2 c2:0:0",
    "c2:0:0",
  ]);
});

test("a check's marks are kept under the URL it started on, after the app navigated in-page, and the new URL's are drawn", async () => {
  const ctx = page(HTML);
  let url = "https://chat.example/c/1";
  const other = { at: 1, entries: [], dismissed: ["Somewhere else."] };
  const saved = [];
  const asked = [];
  const io = { url: () => url, get: async (key) => { asked.push(key); return key === "marks:https://chat.example/c/2" ? other : undefined; }, save: (u, r) => saved.push([u, r]) };
  const memory = new ctx.PageMemory(ctx.marks, io);
  await memory.restore();
  memory.began("c1", url);
  checkAndKeep(ctx);
  url = "https://chat.example/c/2";  // the app's pushState, the check's verdicts still coming
  await memory.navigated();
  assert.deepEqual(asked, ["marks:https://chat.example/c/1", "marks:https://chat.example/c/2"], "the new URL's marks are read");
  assert.ok(ctx.marks.dismissed.has("Somewhere else."));
  await memory.dismiss(ctx.marks.entries.get("c1:2"));
  assert.deepEqual(saved.map(([u]) => u), ["https://chat.example/c/1"], "saved under the check's URL, not location.href now");
  assert.deepEqual(saved[0][1].entries.map((e) => e.key), ["c1:0", "c1:1", "c1:3"]);
  assert.deepEqual(saved[0][1].dismissed, ["It was trained in 2021."]);
  memory.save();  // a change of the page shown now: its record has none of c1's marks
  await memory.saveNow();
  assert.deepEqual(saved.at(-1), ["https://chat.example/c/2", { at: saved.at(-1)[1].at, entries: [], dismissed: ["Somewhere else."] }]);
  assert.equal(memory.onThisPage(ctx.marks.entries.get("c1:1")), false);
  ctx.marks.observer.disconnect();
});

test("nothing is saved in a private window", async () => {
  const ctx = page(HTML);
  const saved = [];
  const memory = new ctx.PageMemory(ctx.marks, { url: () => "https://a.example/", get: async () => undefined, save: (u, r) => saved.push([u, r]), incognito: true });
  checkAndKeep(ctx);
  await memory.dismiss(ctx.marks.entries.get("c1:1"));
  memory.save();
  await memory.saveNow();
  assert.deepEqual(saved, []);
  ctx.marks.observer.disconnect();
});

test("a record sent by a page is checked: entries and dismissed of the expected shape, or refused", () => {
  const good = checkAndKeep(page(HTML));
  assert.equal(PM.problem(good), null);
  const cleaned = PM.clean(Object.assign({}, good, { extra: "x".repeat(10) }));
  assert.deepEqual(Object.keys(cleaned.record).sort(), ["at", "dismissed", "entries"]);
  const bad = (change) => PM.clean(change(structuredClone(good))).problem;
  assert.equal(bad((r) => Object.assign(r, { entries: "nope" })), "entries is not a list");
  assert.equal(bad((r) => Object.assign(r, { dismissed: [{ text: "x" }] })), "a dismissed sentence is not a string");
  assert.equal(bad((r) => { r.entries[1].selectors = null; return r; }), "bad selectors");
  assert.equal(bad((r) => { r.entries[1].selectors.position.start = -1; return r; }), "bad selectors");
  assert.equal(bad((r) => { r.entries[1].label = "<img onerror>"; return r; }), "bad label");
  assert.equal(bad((r) => { r.entries[1].index = "1"; return r; }), "bad entry");
  assert.equal(bad((r) => { r.entries[1].verdict = "supported"; return r; }), "bad verdict");
  assert.equal(bad(() => null), "not an object");
});
