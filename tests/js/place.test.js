// Where a card goes (lib/place.js): a table of sentences, cards, windows and things not to cover, and the
// position each must get. Every case also holds the promises: inside the window, never over the sentence, never
// over the ✓ Check button.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const { place, union, overlaps } = load("lib/place.js");

const R = (left, top, right, bottom) => ({ left, top, right, bottom });
const VIEW = { width: 1100, height: 760 };
const CARD = { width: 380, height: 300 };

const CASES = [
  { name: "room below: below the sentence, at its left edge",
    sentence: [R(100, 100, 600, 120)], want: { left: 100, top: 128, maxHeight: null } },
  { name: "near the right edge: below, pulled back into the window",
    sentence: [R(900, 100, 1090, 120)], want: { left: 712, top: 128, maxHeight: null } },
  { name: "no room below: above, its bottom 8 px over the sentence",
    sentence: [R(100, 600, 600, 620)], want: { left: 100, top: 292, maxHeight: null } },
  { name: "every line counts: a sentence of two lines is cleared whole",
    sentence: [R(400, 600, 700, 620), R(100, 620, 300, 640)], want: { left: 100, top: 292, maxHeight: null } },
  { name: "no room above nor below: beside it, on the right",
    sentence: [R(100, 200, 500, 560)], want: { left: 508, top: 200, maxHeight: null } },
  { name: "no room on the right either: on the left",
    sentence: [R(600, 200, 1000, 560)], want: { left: 212, top: 200, maxHeight: null } },
  { name: "beside it, moved up so the card stays in the window",
    sentence: [R(100, 380, 500, 740)], card: { width: 380, height: 400 }, want: { left: 508, top: 352, maxHeight: null } },
  { name: "a sentence wider and taller than the room: the larger gap, the card capped to it",
    sentence: [R(10, 250, 1090, 700)], want: { left: 10, top: 8, maxHeight: 234 } },
  { name: "a tiny gap still leaves the card its least height",
    sentence: [R(10, 60, 1090, 700)], want: { left: 10, top: 708, maxHeight: 140 } },
  { name: "the ✓ Check button below the sentence: the card slides right of it",
    sentence: [R(100, 100, 600, 120)], avoid: [R(200, 130, 280, 156)], want: { left: 288, top: 128, maxHeight: null } },
  { name: "a button the card cannot slide past: below the button",
    sentence: [R(100, 100, 600, 120)], avoid: [R(300, 130, 800, 156)], view: { width: 820, height: 760 },
    want: { left: 100, top: 164, maxHeight: null } },
  { name: "the selection below the sentence: the card slides past it",
    sentence: [R(100, 400, 600, 420)], preferAvoid: [R(100, 430, 700, 720)], want: { left: 708, top: 428, maxHeight: null } },
  { name: "the selection below the sentence and no way past it: the card goes above",
    sentence: [R(100, 400, 600, 420)], preferAvoid: [R(60, 430, 1050, 720)], want: { left: 100, top: 92, maxHeight: null } },
  { name: "a selection that leaves no room is covered, the button still is not",
    sentence: [R(100, 100, 600, 120)], preferAvoid: [R(0, 0, 1100, 760)], avoid: [R(610, 104, 690, 130)],
    want: { left: 100, top: 128, maxHeight: null } },
  { name: "a small card in a small window",
    sentence: [R(20, 20, 200, 40)], card: { width: 304, height: 120 }, view: { width: 320, height: 480 },
    want: { left: 8, top: 48, maxHeight: null } },
];

for (const c of CASES) {
  test(`place: ${c.name}`, () => {
    const view = c.view || VIEW, card = c.card || CARD, avoid = c.avoid || [];
    const got = place({ sentence: c.sentence, size: card, viewport: view, avoid, preferAvoid: c.preferAvoid || [] });
    assert.deepEqual(got, c.want);
    const h = got.maxHeight === null ? card.height : got.maxHeight;
    const box = R(got.left, got.top, got.left + card.width, got.top + h);
    assert.ok(!overlaps(box, union(c.sentence)), "the card covers its sentence");
    for (const r of avoid) assert.ok(!overlaps(box, r), "the card covers the ✓ Check button");
    if (got.maxHeight === null) {
      assert.ok(box.left >= 0 && box.top >= 0 && box.right <= view.width && box.bottom <= view.height, "outside the window");
    }
  });
}

test("place: a lone rect is taken as the sentence's box", () => {
  assert.deepEqual(place({ sentence: R(100, 100, 600, 120), size: CARD, viewport: VIEW }), { left: 100, top: 128, maxHeight: null });
});
