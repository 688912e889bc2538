import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const O = load("lib/offsets.js");

test("ASCII offsets are the same in both units", () => {
  const s = "Hello world.";
  assert.equal(O.cpToUtf16(s, 5), 5);
  assert.equal(O.utf16ToCp(s, 5), 5);
  assert.equal(O.cpLength(s), s.length);
});

test("an emoji is one code point but two UTF-16 units", () => {
  const s = "I 🙂 it. Next sentence.";
  // Python: s.index("Next") == 8 ; JS: s.indexOf("Next") == 9
  assert.equal(s.indexOf("Next"), 9);
  assert.equal(O.cpToUtf16(s, 8), 9);
  assert.equal(O.utf16ToCp(s, 9), 8);
  assert.equal(O.cpLength(s), s.length - 1);
});

test("accents (precomposed and combining) are single units each", () => {
  const s = "Café naïve e\u0301t\u00e9. Done.";
  const cp = [...s].indexOf("D");
  assert.equal(O.cpToUtf16(s, cp), s.indexOf("D"));
});

test("several astral characters accumulate", () => {
  const s = "𝔸𝔹ℂ 👩‍🔬 science. Then 🧪 tests.";
  for (let u = 0, cp = 0; u <= s.length; ) {
    assert.equal(O.cpToUtf16(s, cp), u);
    assert.equal(O.utf16ToCp(s, u), cp);
    if (u === s.length) break;
    u += s.codePointAt(u) > 0xffff ? 2 : 1;
    cp += 1;
  }
});

test("offsets beyond the ends are clamped", () => {
  const s = "ab🙂";
  assert.equal(O.cpToUtf16(s, -3), 0);
  assert.equal(O.cpToUtf16(s, 99), s.length);
  assert.equal(O.utf16ToCp(s, 99), 3);
});

test("a lone surrogate counts as one code point, as Python counts it", () => {
  const s = "a\ud800b";
  assert.equal(O.cpLength(s), 3);
  assert.equal(O.cpToUtf16(s, 2), 2);
});

test("sentenceToUtf16 converts API sentences and checks their text", () => {
  const text = "Emoji 🙂 first. Second one here.";
  const cps = [...text];
  const start = cps.join("").indexOf("Second"); // UTF-16 index
  const cpStart = [...text.slice(0, start)].length;
  const sentence = { start: cpStart, end: cps.length, text: "Second one here." };
  const r = O.sentenceToUtf16(text, sentence);
  assert.deepEqual(r, { start, end: text.length, exact: true });
  // A server that counted UTF-16 units instead: the text is found nearby anyway.
  const wrong = { start: start, end: text.length + 1, text: "Second one here." };
  const r2 = O.sentenceToUtf16(text, wrong);
  assert.equal(text.slice(r2.start, r2.end), "Second one here.");
  assert.equal(r2.exact, false);
});
