// Where a card goes: next to its sentence and never over it, nor over the ✓ Check button, nor (when there is room)
// over the selection. A pure function of rectangles, so every case is tested without a browser (tests/js/place.test.js).
(function (root) {
  "use strict";

  const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

  /** The smallest rectangle holding every rect (a sentence's lines). */
  function union(rects) {
    const list = Array.isArray(rects) ? rects : [rects];
    return list.map(box).reduce((u, r) => ({
      left: Math.min(u.left, r.left), top: Math.min(u.top, r.top),
      right: Math.max(u.right, r.right), bottom: Math.max(u.bottom, r.bottom),
    }));
  }

  /**
   * sentence: its rects (every line) or one rect; size: {width, height} of the card; viewport: {width, height};
   * avoid: rects never to cover (the ✓ Check button); preferAvoid: rects not to cover when there is room (the selection).
   * Returns {left, top, maxHeight}: viewport pixels; maxHeight is null when the card fits whole, else its capped height.
   */
  function place({ sentence, size, viewport, avoid = [], preferAvoid = [], gap = 8, minHeight = 140 }) {
    const s = union(sentence);
    const W = viewport.width, H = viewport.height, w = size.width;
    const hard = avoid.map(box), soft = preferAvoid.map(box);
    const clampX = (x) => Math.max(gap, Math.min(x, W - w - gap));
    const clampY = (y, h) => Math.max(gap, Math.min(y, H - h - gap));

    /** The first place (in order of preference) where a card of height h fits clear of s and of the obstacles. */
    function attempt(h, obstacles) {
      const lefts = [clampX(s.left), ...obstacles.flatMap((r) => [clampX(r.right + gap), clampX(r.left - gap - w)])];
      // Below, then above: next to the sentence, else past an obstacle in the way.
      const below = [s.bottom + gap, ...obstacles.map((r) => r.bottom + gap).filter((y) => y > s.bottom + gap)].sort((a, b) => a - b);
      const above = [s.top - gap - h, ...obstacles.map((r) => r.top - gap - h).filter((y) => y < s.top - gap - h)].sort((a, b) => b - a);
      const sideTops = [clampY(s.top, h), ...obstacles.flatMap((r) => [clampY(r.bottom + gap, h), clampY(r.top - gap - h, h)])];
      const tries = [
        ...below.flatMap((top) => lefts.map((left) => ({ left, top }))),
        ...above.flatMap((top) => lefts.map((left) => ({ left, top }))),
        ...sideTops.map((top) => ({ left: s.right + gap, top })),
        ...sideTops.map((top) => ({ left: s.left - gap - w, top })),
      ];
      return tries.find((p) => {
        const card = { left: p.left, top: p.top, right: p.left + w, bottom: p.top + h };
        if (card.left < gap || card.right > W - gap || card.top < gap || card.bottom > H - gap) return false;
        return !overlaps(card, s) && !obstacles.some((r) => overlaps(card, r));
      }) || null;
    }

    const whole = attempt(size.height, [...hard, ...soft]) || attempt(size.height, hard);
    if (whole) return { left: whole.left, top: whole.top, maxHeight: null };
    // Too tall for any free side (a sentence taller than the window, say): the larger gap, the card capped to it
    // (it scrolls), however small; clear of the button where it can be.
    const roomBelow = H - s.bottom - 2 * gap, roomAbove = s.top - 2 * gap;
    const h = Math.min(size.height, Math.max(minHeight, roomBelow, roomAbove));
    const fitted = attempt(h, hard);
    if (fitted) return { left: fitted.left, top: fitted.top, maxHeight: h };
    const top = roomBelow >= roomAbove ? s.bottom + gap : s.top - gap - h;
    return { left: clampX(s.left), top, maxHeight: h };
  }

  const api = { place, union, overlaps };
  root.SC = root.SC || {};
  root.SC.place = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
