// The words shown for a verdict's label and a FAVA error type: one table for the card, the side panel and the
// Markdown export, so the three never name the same thing differently.
(function (root) {
  "use strict";

  /** A label in full (card, export, notices). */
  const LABEL_TEXT = Object.freeze({
    contradicted: "Contradicted by your sources",
    unsupported: "Not supported by your sources",
    supported: "Supported by your sources",
    skipped: "Not a factual claim",
    pending: "Checking…",
    unchecked: "Not checked (the check was stopped first)",
  });

  /** A label on a chip in a list (the side panel's results). */
  const LABEL_SHORT = Object.freeze({
    contradicted: "contradicted", unsupported: "not supported", supported: "supported", skipped: "skipped",
    pending: "checking", cancelled: "not checked",
  });

  /** FAVA's error types (the backend's error_type) in words a person reads; FAVA's own name goes on hover. */
  const ERROR_TYPES = Object.freeze({
    entity: "a wrong number or name", relation: "a wrong relation", contradictory: "contradicts your PDFs",
    invented: "not in your PDFs", subjective: "an opinion", unverifiable: "cannot be checked",
  });

  /** The words for an error type, or "" for none (the backend sends null, or "null" from older models). */
  function errorTypeText(type) {
    if (!type || type === "null") return "";
    return ERROR_TYPES[type] || type;
  }

  /** The hover text of an error type: FAVA's name, for those who know the taxonomy. */
  function errorTypeTitle(type) {
    return errorTypeText(type) ? "FAVA error type: " + type : "";
  }

  const api = { LABEL_TEXT, LABEL_SHORT, ERROR_TYPES, errorTypeText, errorTypeTitle };
  root.SC = root.SC || {};
  root.SC.labels = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
