// Applying a revision in place, where the page's text is editable (a contenteditable draft or editor): exactly the
// sentence's range is replaced, through the editing command a person's typing goes through, so the editor's undo and
// its input events see it (a framework's editor keeps its model in step). Text in <textarea> and <input> is never
// marked (the Highlight API cannot reach inside a form field), so there is nothing to apply there.
(function (root) {
  "use strict";

  /** The outermost editable element holding the whole range, or null where the text cannot be edited. */
  function editableHost(range) {
    if (!range) return null;
    const node = range.commonAncestorContainer;
    let el = node.nodeType === 1 ? node : node.parentElement;
    if (!el || !el.isContentEditable) return null;
    while (el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
    return el;
  }

  /** Replace the text of range with text; true when done. The focus and the caret end just after the new text. */
  function replaceRange(doc, range, text) {
    const host = editableHost(range);
    if (!host) return false;
    host.focus({ preventScroll: true });
    const sel = doc.getSelection();
    sel.removeAllRanges();
    sel.addRange(range.cloneRange());
    // execCommand is deprecated but is still the one way to edit as the user would (undo stack, beforeinput/input).
    if (doc.execCommand("insertText", false, text)) return true;
    // Refused (a browser without it): edit the nodes, and tell the page as an input would.
    range.deleteContents();
    const node = doc.createTextNode(text);
    range.insertNode(node);
    sel.removeAllRanges();
    sel.collapse(node, text.length);
    host.dispatchEvent(new root.InputEvent("input", { bubbles: true, inputType: "insertText", data: text }));
    return true;
  }

  const api = { editableHost, replaceRange };
  root.SC = root.SC || {};
  root.SC.edit = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
