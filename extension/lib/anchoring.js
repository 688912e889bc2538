// Anchoring checked sentences to the page, after the design of Hypothesis' anchoring/:
// each sentence is described by a text-position selector (offsets into the page's text) and a
// text-quote selector (exact text + 32 characters of context each side). Positions are fast and
// exact while the page is unchanged; quotes survive a re-render that rebuilds the nodes.
//
// The "page text" is a text index: the data of every visible text node in document order, with a
// virtual "\n" (backed by no node) where a block element starts or ends, so sentences in separate
// list items or paragraphs do not run together. All offsets here are UTF-16 (DOM) offsets.
// The text sent for a check (extract) keeps those breaks: a blank line at a block's edge, a newline at a
// <br> or in <pre>; the backend splits sentences at them, so a list item is never read as part of the next.
(function (root) {
  "use strict";

  const CONTEXT = 32;
  // Characters that render as nothing; dropped when comparing text (not the zero-width joiner,
  // which is part of emoji sequences).
  const INVISIBLE = /[\u200b\u00ad\ufeff]/;
  const SPACE = /[\s\u00a0]/;
  const LOOSE = { "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-" };

  /**
   * Collapse whitespace runs to one space and drop invisible characters.
   * Returns {norm, map}: map[i] is the index in text of norm[i]; map[norm.length] = text.length.
   */
  function normalizeWithMap(text) {
    let norm = "";
    const map = [];
    let inSpace = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (INVISIBLE.test(ch)) continue;
      if (SPACE.test(ch)) {
        if (inSpace) continue;
        inSpace = true;
        norm += " ";
        map.push(i);
        continue;
      }
      inSpace = false;
      norm += ch;
      map.push(i);
    }
    map.push(text.length);
    return { norm, map };
  }

  /** Whitespace-collapsed, trimmed text (for comparing two pieces of text). */
  function collapse(text) {
    return normalizeWithMap(text).norm.trim();
  }

  /** Case- and typography-insensitive form of a normalized string, of the same length. */
  function loosen(norm) {
    let out = "";
    for (const unit of norm.split("")) {
      const l = LOOSE[unit] || unit.toLowerCase();
      out += l.length === 1 ? l : unit;
    }
    return out;
  }

  /** Prepare a text for repeated anchoring (normalize once per pass, not once per sentence). */
  function prepare(text) {
    const { norm, map } = normalizeWithMap(text);
    return { text, norm, map, loose: null };
  }

  function safeStart(text, i) {
    // Do not start a slice on the low half of a surrogate pair.
    const c = text.charCodeAt(i);
    return i > 0 && c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
  }

  /** The selectors that describe text[start:end]: {position, quote}. */
  function describe(text, start, end) {
    const before = normalizeWithMap(text.slice(safeStart(text, Math.max(0, start - CONTEXT * 4)), start)).norm;
    const after = normalizeWithMap(text.slice(end, safeStart(text, Math.min(text.length, end + CONTEXT * 4)))).norm;
    const exact = text.slice(start, end);
    return {
      position: { start, end },
      quote: {
        exact,
        prefix: before.slice(safeStart(before, Math.max(0, before.length - CONTEXT))),
        suffix: after.slice(0, safeStart(after, Math.min(after.length, CONTEXT))),
      },
    };
  }

  function commonSuffix(a, b) {
    let n = 0;
    while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
    return n;
  }

  function commonPrefix(a, b) {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  }

  function occurrences(hay, needle) {
    const out = [];
    if (!needle) return out;
    let from = 0;
    for (;;) {
      const i = hay.indexOf(needle, from);
      if (i < 0) return out;
      out.push(i);
      from = i + 1;
    }
  }

  /**
   * Find quote {exact, prefix, suffix} in a prepared text. Among several occurrences the one whose
   * context matches best wins; hint (an old start offset) breaks ties by closeness.
   * Returns {start, end} in prepared.text, or null.
   */
  function findQuote(prepared, quote, hint) {
    const exact = collapse(quote.exact || "");
    if (!exact) return null;
    let hay = prepared.norm;
    let needle = exact;
    let prefix = collapse(quote.prefix || "");
    let suffix = collapse(quote.suffix || "");
    let hits = occurrences(hay, needle);
    if (!hits.length) {
      // Retry ignoring case and curly quotes/dashes (a re-render may "smarten" punctuation).
      if (prepared.loose === null) prepared.loose = loosen(prepared.norm);
      hay = prepared.loose;
      needle = loosen(exact);
      prefix = loosen(prefix);
      suffix = loosen(suffix);
      hits = occurrences(hay, needle);
      if (!hits.length) return null;
    }
    let best = null;
    for (const i of hits) {
      const before = hay.slice(Math.max(0, i - prefix.length - 1), i).trimEnd();
      const after = hay.slice(i + needle.length, i + needle.length + suffix.length + 1).trimStart();
      const start = prepared.map[i];
      const end = prepared.map[i + needle.length - 1] + 1;
      let score = commonSuffix(before, prefix.trimEnd()) + commonPrefix(after, suffix.trimStart());
      if (typeof hint === "number") score -= Math.min(Math.abs(start - hint) / 1e6, 0.5);
      if (!best || score > best.score) best = { start, end, score };
    }
    return { start: best.start, end: best.end };
  }

  /**
   * Anchor selectors {position, quote} in a prepared text: the position if the text there still
   * reads as the quote, else a quote search. Returns {start, end, method} or null (orphan).
   */
  function anchor(prepared, selectors) {
    const pos = selectors.position;
    const exact = collapse(selectors.quote.exact);
    if (pos && pos.end <= prepared.text.length && pos.start < pos.end) {
      if (collapse(prepared.text.slice(pos.start, pos.end)) === exact) {
        return { start: pos.start, end: pos.end, method: "position" };
      }
    }
    const found = findQuote(prepared, selectors.quote, pos ? pos.start : undefined);
    return found ? { start: found.start, end: found.end, method: "quote" } : null;
  }

  // ---------------------------------------------------------------- DOM: the text index

  const BLOCK = new Set(("ADDRESS ARTICLE ASIDE BLOCKQUOTE BR CAPTION DD DETAILS DIALOG DIV DL DT FIELDSET " +
    "FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER HR LI MAIN NAV OL P PRE SECTION SUMMARY " +
    "TABLE TBODY TD TFOOT TH THEAD TR UL").split(" "));
  const SKIP = new Set("SCRIPT STYLE NOSCRIPT TEMPLATE TEXTAREA INPUT SELECT OPTION IFRAME OBJECT CANVAS VIDEO AUDIO svg".split(" "));
  // Math renderers draw a formula twice: the visible copy, and a MathML one clipped to nothing for screen readers
  // (with the TeX source in an <annotation>). Only the visible copy is text: the other would read "E=mc2E = mc^2E=mc2".
  const HIDDEN_COPY = ".katex-mathml, mjx-assistive-mml, annotation, annotation-xml";
  const HEADING = /^H[1-6]$/;
  const PARAGRAPH = 2; // line breaks sent at a block's edge (a blank line: the backend never joins across it)
  const LINE = 1;      // ... at a <br> or a newline in <pre>

  /**
   * Build the text index of root: {text, segments: [{node, start, end}], byNode: Map, breaks: Map}.
   * breaks maps the offset of a "\n" to the line breaks it stands for (PARAGRAPH or LINE); other whitespace is a space.
   * skip(element) returning true leaves an element (and its subtree) out, e.g. our own UI.
   */
  function buildTextIndex(root, skip) {
    const parts = [];
    const segments = [];
    const byNode = new Map();
    const breaks = new Map();
    const headings = new Set();  // offsets where a heading's text begins: extract() marks them for the backend
    const opened = [];  // [offset, shown] of the headings the walk is in
    let shown = 0;  // characters other than whitespace so far
    let length = 0;
    let pre = 0;      // how many <pre> the walk is in: their newlines are line breaks
    let last = "\n"; // last character so far; starting as a break avoids a leading virtual "\n"
    function brk(lines) {
      if (!length) return;
      // After a text node's own "\n" no virtual one is added: that "\n" stands for the break.
      if (last !== "\n") { parts.push("\n"); length += 1; last = "\n"; }
      breaks.set(length - 1, Math.max(lines, breaks.get(length - 1) || 0));
    }
    const TEXT = 3;
    const ELEMENT = 1;
    // Iterative walk: [node, leaving?] pairs, so deep trees cannot overflow the stack.
    const stack = [[root, false]];
    while (stack.length) {
      const [node, leaving] = stack.pop();
      if (leaving) {
        if (node.tagName === "PRE") pre -= 1;
        if (HEADING.test(node.tagName)) {  // an empty heading (an icon, a skipped element) marks no next block
          const [at, before] = opened.pop();
          if (shown > before) headings.add(at);
        }
        brk(node.tagName === "BR" ? LINE : PARAGRAPH);
        continue;
      }
      if (node.nodeType === TEXT) {
        const data = node.data;
        if (!data) continue;
        const seg = { node, start: length, end: length + data.length };
        segments.push(seg);
        byNode.set(node, seg);
        parts.push(data);
        shown += data.replace(/\s+/g, "").length;
        if (pre) for (let i = data.indexOf("\n"); i >= 0; i = data.indexOf("\n", i + 1)) breaks.set(length + i, LINE);
        length += data.length;
        last = data[data.length - 1];
        continue;
      }
      if (node.nodeType !== ELEMENT && node.nodeType !== 9 && node.nodeType !== 11) continue;
      if (node.nodeType === ELEMENT) {
        if (SKIP.has(node.tagName) || SKIP.has(node.localName) || node.matches(HIDDEN_COPY) || (skip && skip(node))) continue;
      }
      // KaTeX's display formula is a <span> laid out as a block.
      const block = node.nodeType === ELEMENT && (BLOCK.has(node.tagName) || (!!node.classList && node.classList.contains("katex-display")));
      if (block) {
        brk(node.tagName === "BR" ? LINE : PARAGRAPH);
        if (node.tagName === "PRE") pre += 1;
        if (HEADING.test(node.tagName)) opened.push([length, shown]);  // kept when the heading turns out to hold text
        stack.push([node, true]);
      }
      const kids = node.childNodes;
      for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], false]);
    }
    return { text: parts.join(""), segments, byNode, breaks, headings };
  }

  function firstSegmentEndingAfter(segments, pos) {
    let lo = 0;
    let hi = segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (segments[mid].end > pos) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  /** DOM Range for index offsets [start, end), skipping virtual characters; null if none. */
  function rangeFor(index, start, end) {
    const segs = index.segments;
    if (!segs.length || end <= start) return null;
    const i = firstSegmentEndingAfter(segs, start);
    if (i >= segs.length) return null;
    const s = segs[i];
    // Last segment that starts before end.
    let j = firstSegmentEndingAfter(segs, end - 1);
    if (j >= segs.length) j = segs.length - 1;
    if (segs[j].start >= end) j -= 1;
    if (j < i) return null;
    const e = segs[j];
    const range = s.node.ownerDocument.createRange();
    range.setStart(s.node, Math.max(0, start - s.start));
    range.setEnd(e.node, Math.min(end, e.end) - e.start);
    return range;
  }

  /** Index offset of a DOM boundary point (node, offset). */
  function positionOf(index, node, offset) {
    const seg = index.byNode.get(node);
    if (seg) return seg.start + Math.min(offset, seg.end - seg.start);
    // An element boundary (or a node outside the index): the start of the first indexed text
    // node at or after that point.
    const doc = node.ownerDocument || node;
    const here = doc.createRange();
    here.setStart(node, offset);
    const segs = index.segments;
    let lo = 0;
    let hi = segs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      // comparePoint: -1 before the (collapsed) range, 0 at it, 1 after it.
      if (here.comparePoint(segs[mid].node, 0) >= 0 || here.comparePoint(segs[mid].node, segs[mid].end - segs[mid].start) > 0) hi = mid;
      else lo = mid + 1;
    }
    if (lo >= segs.length) return index.text.length;
    // The point may sit inside this segment's node only if it is a text node not in the map.
    return segs[lo].start;
  }

  /** A Range's text as the index reads it, without the hidden copies of formulas: what its quote is compared with. */
  function textOf(range) {
    const top = range.commonAncestorContainer;
    if (top.nodeType === 3) return range.toString();
    const walker = top.ownerDocument.createTreeWalker(top, 4 /* NodeFilter.SHOW_TEXT */);
    let out = "";
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!range.intersectsNode(n) || (n.parentElement && n.parentElement.closest(HIDDEN_COPY))) continue;
      out += n.data.slice(n === range.startContainer ? range.startOffset : 0, n === range.endContainer ? range.endOffset : n.data.length);
    }
    return out;
  }

  /** Index offsets {start, end} of a DOM Range. */
  function positionsOfRange(index, range) {
    return {
      start: positionOf(index, range.startContainer, range.startOffset),
      end: positionOf(index, range.endContainer, range.endOffset),
    };
  }

  /**
   * The text to send for index offsets [start, end): each run of whitespace one space, or the line breaks the
   * index records in it (a blank line between blocks), trimmed; invisible characters dropped; a heading's text
   * opened with "### " (Markdown's heading, which the backend splits off and does not check). With
   * startAt(u) / endAt(u) mapping a UTF-16 offset in that text back to an index offset.
   */
  function extract(index, start, end) {
    const src = index.text;
    const breaks = index.breaks || new Map();
    const out = [];
    const map = []; // map[k]: the index offset of out's k-th character
    let run = -1;   // start of the whitespace run being read, -1 outside one
    let lines = 0;  // the line breaks in that run
    let heading = false;  // a heading began: its first character gets the marker
    const headings = index.headings || new Set();
    for (let i = start; i < end; i++) {
      const ch = src[i];
      if (headings.has(i)) heading = true;
      if (INVISIBLE.test(ch)) continue;
      if (SPACE.test(ch)) {
        if (run < 0) { run = i; lines = 0; }
        lines = Math.max(lines, breaks.get(i) || 0);
        continue;
      }
      if (run >= 0 && out.length) {  // whitespace before the first character is trimmed
        const gap = lines ? "\n".repeat(lines) : " ";
        for (const c of gap) { out.push(c); map.push(run); }
      }
      run = -1;
      if (heading) {
        heading = false;
        if (!out.length || out[out.length - 1] === "\n") for (const c of "### ") { out.push(c); map.push(i); }
      }
      out.push(ch);
      map.push(i);
    }
    map.push(end);
    return {
      text: out.join(""),
      /** Index offset of a start position u (UTF-16) in text. */
      startAt(u) { return map[Math.max(0, Math.min(u, map.length - 1))]; },
      /** Index offset just after the character ending at u (exclusive end) in text. */
      endAt(u) { return u <= 0 ? start : map[Math.min(u, map.length - 1) - 1] + 1; },
    };
  }

  const api = {
    CONTEXT, normalizeWithMap, collapse, prepare, describe, findQuote, anchor,
    buildTextIndex, rangeFor, positionOf, positionsOfRange, extract, textOf,
  };
  root.SC = root.SC || {};
  root.SC.anchoring = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
