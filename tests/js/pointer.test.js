// A card tied to its sentence (lib/place.js): its pointer sits on the edge facing the sentence, across from the line
// nearest the card; and a card keeps off the page's own navigation while it can go elsewhere, even capped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const { place, pointer, overlaps } = load("lib/place.js");

const R = (left, top, right, bottom) => ({ left, top, right, bottom });
const WIDE = { width: 1440, height: 600 };
const SIDEBAR = R(0, 0, 260, 600);
const TALL = { width: 380, height: 420 };

test("pointer: a card below points up at the sentence's last line, within both", () => {
  const lines = [R(470, 280, 1230, 300), R(470, 300, 700, 320)];
  const p = pointer(R(470, 328, 850, 600), lines);
  assert.deepEqual(p, { side: "top", x: 593, y: 328 });
});

test("pointer: a card above points down at the first line, kept off the card's corners", () => {
  const p = pointer(R(100, 20, 480, 292), [R(900, 300, 1000, 320), R(100, 320, 600, 340)]);
  assert.equal(p.side, "bottom");
  assert.equal(p.y, 292);
  assert.equal(p.x, 464, "the line is right of the card: the pointer goes as near it as the card's corner allows");
});

test("pointer: a card beside points sideways at a line level with it", () => {
  const lines = [R(100, 200, 500, 220), R(100, 220, 500, 240), R(100, 240, 300, 260)];
  assert.deepEqual(pointer(R(508, 200, 888, 500), lines), { side: "left", x: 508, y: 216 });
  assert.deepEqual(pointer(R(10, 230, 92, 600), [R(100, 240, 300, 260)]), { side: "right", x: 92, y: 250 });
});

test("place: a tall card beside a sentence in the column goes below it, capped, rather than over the sidebar", () => {
  const sentence = [R(470, 250, 1230, 270), R(470, 270, 900, 290)];
  const before = place({ sentence, size: TALL, viewport: WIDE });
  assert.ok(overlaps(R(before.left, before.top, before.left + 380, before.top + 420), SIDEBAR), "without the sidebar known, it goes over it");
  const got = place({ sentence, size: TALL, viewport: WIDE, navigation: [SIDEBAR] });
  assert.deepEqual(got, { left: 470, top: 298, maxHeight: 294 });
});

test("place: beside, the side away from the navigation", () => {
  const sentence = [R(520, 150, 900, 450)];
  const right = R(1100, 0, 1440, 600);
  const got = place({ sentence, size: { width: 380, height: 300 }, viewport: WIDE, navigation: [right] });
  assert.deepEqual(got, { left: 132, top: 150, maxHeight: null });
});

test("place: with no room but over the navigation, the card goes there (whole) rather than nowhere", () => {
  const sentence = [R(470, 150, 1230, 450)];
  const got = place({ sentence, size: { width: 380, height: 300 }, viewport: WIDE, navigation: [SIDEBAR] });
  assert.deepEqual(got, { left: 82, top: 150, maxHeight: null });
});

test("place: navigation that holds the sentence is not kept clear of", () => {
  const sentence = [R(20, 100, 240, 120)];
  const got = place({ sentence, size: { width: 380, height: 300 }, viewport: WIDE, navigation: [SIDEBAR] });
  assert.deepEqual(got, { left: 20, top: 128, maxHeight: null });
});
