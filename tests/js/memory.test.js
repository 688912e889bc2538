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
