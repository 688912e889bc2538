// The content script's marks, in jsdom: anchoring a check's sentences, and finding them again
// after the page re-renders its message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, dom } from "./helpers.js";

const O = load("lib/offsets.js");

function setup(html) {
  const win = dom(html);
  globalThis.MutationObserver = win.MutationObserver;
  globalThis.Highlight = class Highlight { constructor(...ranges) { this.ranges = ranges; } };
  globalThis.CSS = { highlights: new Map() };
  const { Marks } = load("content/marks.js");
  const missing = [];
  const marks = new Marks(win.document, {
    isOwnUi: (el) => el.hasAttribute("data-sourcecheck-ui"),
    onMissing: (keys) => missing.push(keys),
  });
  return { win, doc: win.document, marks, missing };
}

/** Sentences as the API would report them for text (code point offsets). */
function apiSentences(text, parts) {
  return parts.map((p, index) => {
    const u = text.indexOf(p);
    const start = [...text.slice(0, u)].length;
    return { index, start, end: start + [...p].length, text: p, checkable: true };
  });
}

const HTML = `<main><div class="msg"><p>Hello 👋 there! The model has <b>7 billion</b> parameters.</p>
  <ul><li>It was trained in <a href="#">2021</a>.</li><li>It uses <code>RoPE</code> embeddings.</li></ul></div></main>`;
const PARTS = ["Hello 👋 there!", "The model has 7 billion parameters.", "It was trained in 2021.", "It uses RoPE embeddings."];

function check(ctx) {
  const range = ctx.doc.createRange();
  range.selectNodeContents(ctx.doc.querySelector(".msg"));
  const begun = ctx.marks.begin(range);
  ctx.marks.addSentences("c1", begun.text, begun.extract, apiSentences(begun.text, PARTS));
  ctx.marks.setVerdict("c1", { index: 1, label: "contradicted" });
  ctx.marks.setVerdict("c1", { index: 2, label: "unsupported" });
  ctx.marks.setVerdict("c1", { index: 3, label: "supported" });
  return begun;
}

test("a check's sentences are anchored across markup and drawn by label", () => {
  const ctx = setup(HTML);
  const begun = check(ctx);
  // A paragraph's sentences by a space; the list items each after a blank line (lib/anchoring.js extract).
  assert.equal(begun.text, `${PARTS[0]} ${PARTS[1]}\n\n${PARTS[2]}\n\n${PARTS[3]}`);
  assert.deepEqual([...ctx.marks.entries.values()].map((e) => e.range.toString().replace(/\s+/g, " ")), PARTS);
  const hl = globalThis.CSS.highlights;
  assert.deepEqual(hl.get("sourcecheck-contradicted").ranges.map(String), ["The model has 7 billion parameters."]);
  assert.deepEqual(hl.get("sourcecheck-unsupported").ranges.map(String), ["It was trained in 2021."]);
  assert.equal(hl.get("sourcecheck-supported"), undefined, "supported marks are off by default");
  ctx.marks.setShowSupported(true);
  assert.deepEqual(hl.get("sourcecheck-supported").ranges.map(String), ["It uses RoPE embeddings."]);
});

test("after a re-render that replaces the nodes, marks are found again", async () => {
  const ctx = setup(HTML);
  check(ctx);
  // Re-render the message the way a framework does: new nodes, same text, plus a new paragraph.
  const msg = ctx.doc.querySelector(".msg");
  msg.innerHTML = "<p>Edited intro.</p>" + msg.innerHTML;
  const missing = ctx.marks.reanchor();
  assert.equal(missing.length, 0);
  const hl = globalThis.CSS.highlights;
  assert.deepEqual(hl.get("sourcecheck-contradicted").ranges.map(String), ["The model has 7 billion parameters."]);
  assert.ok(hl.get("sourcecheck-contradicted").ranges[0].startContainer.isConnected);
});

test("sentences that disappear are reported as missing", () => {
  const ctx = setup(HTML);
  check(ctx);
  ctx.doc.querySelector("li").remove(); // "It was trained in 2021."
  const missing = ctx.marks.reanchor();
  assert.deepEqual(missing.map((e) => e.text), ["It was trained in 2021."]);
  assert.deepEqual(ctx.missing.at(-1), ["c1:2"]);
  assert.equal(globalThis.CSS.highlights.get("sourcecheck-unsupported"), undefined);
});

test("the MutationObserver re-anchors after a debounce", async () => {
  const ctx = setup(HTML);
  check(ctx);
  const msg = ctx.doc.querySelector(".msg");
  msg.innerHTML = msg.innerHTML.replace("7 billion", "7 billion");
  await new Promise((r) => setTimeout(r, 400));
  const r = globalThis.CSS.highlights.get("sourcecheck-contradicted").ranges[0];
  assert.ok(r.startContainer.isConnected, "the range points at the new nodes");
  assert.equal(String(r), "The model has 7 billion parameters.");
  ctx.marks.observer.disconnect();
});

test("a new check over the same text replaces the old marks", () => {
  const ctx = setup(HTML);
  check(ctx);
  check(ctx);
  assert.equal(ctx.marks.entries.size, 4);
});

test("the text sent counts code points like the API", () => {
  const ctx = setup(HTML);
  const begun = check(ctx);
  assert.equal(O.cpLength(begun.text), begun.text.length - 1, "one emoji");
});

test("a mutation elsewhere in the page does not rebuild the anchors", async () => {
  const ctx = setup(HTML + '<div id="clock">12:00</div>');
  check(ctx);
  let rebuilt = 0;
  const original = ctx.marks.reanchor.bind(ctx.marks);
  ctx.marks.reanchor = () => { rebuilt += 1; return original(); };
  ctx.doc.getElementById("clock").textContent = "12:01";
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(rebuilt, 0);
  ctx.doc.querySelector("b").textContent = "70 billion";
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(rebuilt, 1);
  ctx.marks.observer.disconnect();
});

test("a re-check keeps the old marks until it has started (a failed one loses nothing)", () => {
  const ctx = setup(HTML);
  check(ctx);
  const range = ctx.doc.createRange();
  range.selectNodeContents(ctx.doc.querySelector("ul"));
  const again = ctx.marks.begin(range);
  assert.equal(again.text, "It was trained in 2021.\n\nIt uses RoPE embeddings.");
  assert.equal(ctx.marks.entries.size, 4, "begin() alone forgets nothing");
  assert.deepEqual(globalThis.CSS.highlights.get("sourcecheck-unsupported").ranges.map(String), ["It was trained in 2021."]);
  ctx.marks.replace(again);
  assert.deepEqual([...ctx.marks.entries.values()].map((e) => e.text), PARTS.slice(0, 2), "the covered sentences go");
  assert.equal(globalThis.CSS.highlights.get("sourcecheck-unsupported"), undefined);
});

// Issue 28: neighbouring flagged sentences are told apart, and the sentence of the open card stands out.
const RUN = "<p class=\"msg\">One is wrong here. Two is wrong too. Three is wrong again. Four is red. Five is wrong. Six is fine.</p>";
const RUN_PARTS = ["One is wrong here.", "Two is wrong too.", "Three is wrong again.", "Four is red.", "Five is wrong.", "Six is fine."];

function checkRun(ctx, labels) {
  const range = ctx.doc.createRange();
  range.selectNodeContents(ctx.doc.querySelector(".msg"));
  const begun = ctx.marks.begin(range);
  ctx.marks.addSentences("c1", begun.text, begun.extract, apiSentences(begun.text, RUN_PARTS));
  labels.forEach((label, index) => ctx.marks.setVerdict("c1", { index, label }));
}

const drawn = (name) => (globalThis.CSS.highlights.get(name) || { ranges: [] }).ranges.map(String);

test("consecutive sentences of one label alternate between two styles; a different label starts over", () => {
  const ctx = setup(RUN);
  checkRun(ctx, ["unsupported", "unsupported", "unsupported", "contradicted", "unsupported", "supported"]);
  // every unsupported sentence stays in its label's highlight, each its own range
  assert.deepEqual(drawn("sourcecheck-unsupported"), ["One is wrong here.", "Two is wrong too.", "Three is wrong again.", "Five is wrong."]);
  // the second of a run is drawn in the other style; "Five" follows a red sentence, so it is not
  assert.deepEqual(drawn("sourcecheck-unsupported-alt"), ["Two is wrong too."]);
  assert.deepEqual(drawn("sourcecheck-contradicted-alt"), []);
  ctx.marks.setVerdict("c1", { index: 3, label: "unsupported" });
  assert.deepEqual(drawn("sourcecheck-unsupported-alt"), ["Two is wrong too.", "Four is red."]);
  ctx.marks.setShowSupported(true);
  ctx.marks.setVerdict("c1", { index: 5, label: "unsupported" });
  assert.deepEqual(drawn("sourcecheck-unsupported-alt"), ["Two is wrong too.", "Four is red.", "Six is fine."]);
});

test("the sentence of the open card is drawn stronger, follows a re-render, and goes when the card closes", () => {
  const ctx = setup(RUN);
  checkRun(ctx, ["unsupported", "unsupported", "unsupported", "contradicted", "unsupported", "supported"]);
  ctx.marks.setActive(ctx.marks.entries.get("c1:1"));
  assert.deepEqual(drawn("sourcecheck-active"), ["Two is wrong too."]);
  const msg = ctx.doc.querySelector(".msg");
  msg.innerHTML = msg.innerHTML + "";  // new nodes, same text
  ctx.marks.reanchor();
  assert.deepEqual(drawn("sourcecheck-active"), ["Two is wrong too."]);
  assert.ok(globalThis.CSS.highlights.get("sourcecheck-active").ranges[0].startContainer.isConnected);
  assert.ok(globalThis.CSS.highlights.get("sourcecheck-active").priority > globalThis.CSS.highlights.get("sourcecheck-contradicted").priority);
  ctx.marks.setActive(null);
  assert.equal(globalThis.CSS.highlights.get("sourcecheck-active"), undefined);
});
