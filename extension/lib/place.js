// Where a card goes: next to its sentence and never over it, nor over the ✓ Check button, nor (when there is room)
// over the selection or the page's own navigation; and where its pointer at the sentence goes. Pure functions of
// rectangles, so every case is tested without a browser (tests/js/place.test.js).
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
   * avoid: rects never to cover (the ✓ Check button); preferAvoid: rects not to cover when there is room (the selection);
   * navigation: the page's own sidebars and navigation, not covered while the card can go elsewhere, even capped to
   * minCapped pixels or more (it scrolls, its actions stay in view).
   * Returns {left, top, maxHeight}: viewport pixels; maxHeight is null when the card fits whole, else its capped height.
   */
  function place({ sentence, size, viewport, avoid = [], preferAvoid = [], navigation = [], gap = 8, minHeight = 140, minCapped = 240 }) {
    const s = union(sentence);
    const W = viewport.width, H = viewport.height, w = size.width;
    const hard = avoid.map(box), soft = preferAvoid.map(box);
    // A sidebar that holds the sentence is where the person reads, not navigation to keep clear.
    const nav = navigation.map(box).filter((r) => !overlaps(r, s));
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

    const clear = [...hard, ...nav];
    const whole = attempt(size.height, [...clear, ...soft]) || attempt(size.height, clear);
    if (whole) return { left: whole.left, top: whole.top, maxHeight: null };
    const roomBelow = H - s.bottom - 2 * gap, roomAbove = s.top - 2 * gap;
    // Capped to the room above or below, clear of the navigation, rather than whole over it.
    const room = Math.min(size.height, Math.max(roomBelow, roomAbove));
    const capped = nav.length && room >= minCapped ? attempt(room, clear) : null;
    if (capped) return { left: capped.left, top: capped.top, maxHeight: room };
    const over = nav.length ? attempt(size.height, [...hard, ...soft]) || attempt(size.height, hard) : null;
    if (over) return { left: over.left, top: over.top, maxHeight: null };
    // Too tall for any free side (a sentence taller than the window, say): the larger gap, the card capped to it
    // (it scrolls), however small; clear of the button where it can be.
    const h = Math.min(size.height, Math.max(minHeight, roomBelow, roomAbove));
    const fitted = attempt(h, hard);
    if (fitted) return { left: fitted.left, top: fitted.top, maxHeight: h };
    const top = roomBelow >= roomAbove ? s.bottom + gap : s.top - gap - h;
    return { left: clampX(s.left), top, maxHeight: h };
  }

  /**
   * Where the card's pointer goes: on the card's edge that faces its sentence, across from the sentence's nearest line
   * (a card below points at the last line, one beside at a line level with it). card: its {left, top, right, bottom};
   * sentence: its rects. Returns {side: "top" | "bottom" | "left" | "right", x, y}: the point on that edge.
   */
  function pointer(card, sentence, inset = 16) {
    const rects = (Array.isArray(sentence) ? sentence : [sentence]).map(box).filter((r) => r.right > r.left);
    const s = union(rects.length ? rects : [sentence].flat());
    const clamp = (v, lo, hi) => Math.max(lo, Math.min(v, hi));
    const side = card.top >= s.bottom ? "top" : card.bottom <= s.top ? "bottom" : card.left >= s.right ? "left" : card.right <= s.left ? "right" : "top";
    if (side === "top" || side === "bottom") {
      // The line nearest the card: the rects level with the last (or first) one.
      const y = side === "top" ? s.bottom - 1 : s.top + 1;
      const near = rects.filter((r) => r.top <= y && r.bottom >= y);
      const line = union(near.length ? near : [s]);
      const lo = Math.max(line.left, card.left + inset), hi = Math.min(line.right, card.right - inset);
      const x = lo <= hi ? (lo + hi) / 2 : clamp((line.left + line.right) / 2, card.left + inset, card.right - inset);
      return { side, x, y: side === "top" ? card.top : card.bottom };
    }
    const level = rects.filter((r) => r.bottom > card.top + inset && r.top < card.bottom - inset);
    const pool = level.length ? level : rects.length ? rects : [s];
    const line = pool.reduce((a, b) => ((side === "left" ? b.right > a.right : b.left < a.left) ? b : a));
    return { side, x: side === "left" ? card.left : card.right, y: clamp((line.top + line.bottom) / 2, card.top + inset, card.bottom - inset) };
  }

  const api = { place, pointer, union, overlaps };
  root.SC = root.SC || {};
  root.SC.place = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
