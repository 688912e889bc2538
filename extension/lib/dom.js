// Small DOM helpers shared by the page UI (content/) and the side panel, so neither keeps its own copy.
(function (root) {
  "use strict";

  /** A new element of doc with a class and a text (either may be left out). */
  function el(doc, tag, cls, text) {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  /** Copy text; in a page, without losing the page's selection (the fallback must select a textarea). */
  async function copyText(doc, text, parent) {
    try {
      await root.navigator.clipboard.writeText(text);
      return true;
    } catch (_) {
      const sel = doc.getSelection();
      const saved = [];
      for (let i = 0; i < sel.rangeCount; i++) saved.push(sel.getRangeAt(i).cloneRange());
      const ta = el(doc, "textarea");
      ta.value = text;
      ta.style.cssText = "position:fixed;opacity:0;top:0;left:0;";
      parent.appendChild(ta);
      ta.select();
      let ok = false;
      try { ok = doc.execCommand("copy"); } catch (_) { ok = false; }
      ta.remove();
      sel.removeAllRanges();
      for (const r of saved) sel.addRange(r);
      return ok;
    }
  }

  const api = { el, copyText };
  root.SC = root.SC || {};
  root.SC.dom = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
