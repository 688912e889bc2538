import { test } from "node:test";
import assert from "node:assert/strict";
import { load, dom } from "./helpers.js";

const AN = load("lib/anchoring.js");
const O = load("lib/offsets.js");

test("normalizeWithMap collapses whitespace and maps back", () => {
  const { norm, map } = AN.normalizeWithMap("a \n\t b\u200bc\u00a0 d");
  assert.equal(norm, "a bc d");
  assert.equal(map[2], 5); // "b"
  assert.equal(map[norm.length], "a \n\t b\u200bc\u00a0 d".length);
});

test("describe makes a quote with 32 characters of context", () => {
  const text = "x".repeat(50) + " The target sentence. " + "y".repeat(50);
  const start = text.indexOf("The");
  const end = text.indexOf(".") + 1;
  const d = AN.describe(text, start, end);
  assert.equal(d.quote.exact, "The target sentence.");
  assert.equal(d.quote.prefix.length, 32);
  assert.equal(d.quote.suffix.length, 32);
  assert.deepEqual(d.position, { start, end });
});

test("anchor uses the position when the text there is unchanged", () => {
  const text = "One. Two is here. Three.";
  const d = AN.describe(text, 5, 17);
  const a = AN.anchor(AN.prepare(text), d);
  assert.deepEqual(a, { start: 5, end: 17, method: "position" });
});

test("anchor falls back to the quote when the text moved", () => {
  const text = "One. Two is here. Three.";
  const d = AN.describe(text, 5, 17);
  const moved = "A new first line.\n\nOne.   Two is  here. Three.";
  const a = AN.anchor(AN.prepare(moved), d);
  assert.equal(a.method, "quote");
  assert.equal(AN.collapse(moved.slice(a.start, a.end)), "Two is here.");
});

test("the context picks the right one of repeated sentences", () => {
  const text = "Alpha says yes. It works. Beta says no. It works. Gamma.";
  const second = text.lastIndexOf("It works.");
  const d = AN.describe(text, second, second + 9);
  const shifted = "Intro. " + text;
  const a = AN.anchor(AN.prepare(shifted), d);
  assert.equal(a.start, shifted.lastIndexOf("It works."));
});

test("a quote that is gone is an orphan (null)", () => {
  const d = AN.describe("Keep this. Drop that.", 11, 21);
  assert.equal(AN.anchor(AN.prepare("Keep this. Something else."), d), null);
});

test("re-anchoring forgives case and curly quotes", () => {
  const d = AN.describe("He said \"fine\" today.", 0, 21);
  const a = AN.anchor(AN.prepare("he said \u201cfine\u201d today."), d);
  assert.ok(a);
  assert.equal(a.method, "quote");
});

const CHAT = `<div id="answer"><p>The <b>FAVA</b> model was trained on <a href="#">35,074 instances</a>. It is 🙂 <i>fast</i>.</p>
  <ul><li>First item has <code>x = 1</code> inside</li><li>Second item ends here</li></ul><p>Café prices rose 12% in 2023.</p></div>`;

test("the text index follows element boundaries and separates blocks", () => {
  const win = dom(CHAT);
  const idx = AN.buildTextIndex(win.document.body);
  assert.match(idx.text, /The FAVA model was trained on 35,074 instances\. It is 🙂 fast\./);
  // list items do not run together
  assert.match(idx.text, /inside\n+Second item/);
  assert.match(idx.text, /ends here\n+Café/);
});

test("rangeFor spans bold, link and code across nodes", () => {
  const win = dom(CHAT);
  const idx = AN.buildTextIndex(win.document.body);
  const s = idx.text.indexOf("The FAVA");
  const e = idx.text.indexOf("instances.") + "instances.".length;
  const r = AN.rangeFor(idx, s, e);
  assert.equal(r.toString(), "The FAVA model was trained on 35,074 instances.");
  const s2 = idx.text.indexOf("First");
  const e2 = idx.text.indexOf("inside") + 6;
  assert.equal(AN.rangeFor(idx, s2, e2).toString(), "First item has x = 1 inside");
});

test("positionsOfRange maps a selection (element boundaries too) to index offsets", () => {
  const win = dom(CHAT);
  const doc = win.document;
  const idx = AN.buildTextIndex(doc.body);
  const r = doc.createRange();
  const p = doc.querySelector("#answer p");
  r.setStart(p, 0); // element boundary
  r.setEnd(doc.querySelector("li").firstChild, 5); // "First"
  const pos = AN.positionsOfRange(idx, r);
  assert.equal(idx.text.slice(pos.start, pos.end).replace(/\s+/g, " ").trim().slice(0, 8), "The FAVA");
  assert.ok(idx.text.slice(pos.start, pos.end).endsWith("First"));
});

test("API code-point offsets land on the right DOM text after an emoji", () => {
  const win = dom(CHAT);
  const idx = AN.buildTextIndex(win.document.body);
  const ex = AN.extract(idx, 0, idx.text.length);
  // What Python would report for the last sentence (code points).
  const sentence = "Café prices rose 12% in 2023.";
  const u16 = ex.text.indexOf(sentence);
  const cpStart = [...ex.text.slice(0, u16)].length;
  const cpEnd = cpStart + [...sentence].length;
  assert.notEqual(cpStart, u16, "the emoji makes the two units differ");
  const u = O.sentenceToUtf16(ex.text, { start: cpStart, end: cpEnd, text: sentence });
  const range = AN.rangeFor(idx, ex.startAt(u.start), ex.endAt(u.end));
  assert.equal(range.toString(), sentence);
});

test("extract collapses whitespace and maps offsets back into the index", () => {
  const win = dom("<p>  Lots   of\n   space.  </p><p>Next.</p>");
  const idx = AN.buildTextIndex(win.document.body);
  const ex = AN.extract(idx, 0, idx.text.length);
  assert.equal(ex.text, "Lots of space.\n\nNext.");  // a blank line between blocks (tests/js/extract.test.js)
  const s = ex.text.indexOf("of space.");
  const r = AN.rangeFor(idx, ex.startAt(s), ex.endAt(s + "of space.".length));
  assert.equal(r.toString(), "of\n   space.");
});

test("our own UI and scripts are left out of the text", () => {
  const win = dom('<p>Visible.</p><script>var x = 1;</script><div data-sourcecheck-ui>Ours</div>');
  const idx = AN.buildTextIndex(win.document.body, (el) => el.hasAttribute("data-sourcecheck-ui"));
  assert.equal(idx.text.trim(), "Visible.");
});
