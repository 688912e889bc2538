// Every label a sentence can have, once: its words (in full, on a chip, in a count), its chip's colours and its place
// in the order every count and list tells them in; and the words for counting things. The card, the toast, the side
// panel, the export, the marks and the checks of what the backend and a page send all read this one table, so none
// names, colours or orders a label differently. (The marks' colours in the page are content/highlights.css's: a
// page's ::highlight() styles cannot be set from here without writing into the page.)
(function (root) {
  "use strict";

  /**
   * The labels, the worst first. text: in full (card, export, notices); short: on a chip and in a count; colour: the
   * chip's [text, background, border] (a label without one keeps its style sheet's grey chip); verdict: the backend
   * gives it (the others are this extension's: a sentence still waiting, or one a stopped check never reached);
   * marked: drawn in the page (supported only when the settings say so: lib/check-state.js isMarked).
   */
  const LABELS = Object.freeze([
    { key: "contradicted", text: "Contradicted by your sources", short: "contradicted",
      colour: ["#a40e26", "#ffebe9", "#ff8182"], verdict: true, marked: true },
    { key: "unsupported", text: "Not supported by your sources", short: "not supported",
      colour: ["#7d4e00", "#fff8c5", "#d4a72c"], verdict: true, marked: true },
    // The judge's P(supported) lies in its band (docs/api.md): quieter than amber; its chip violet (a grey one reads as
    // "skipped"), its mark on the page a thin grey dashed line (highlights.css).
    { key: "uncertain", text: "Not sure: check it yourself", short: "not sure",
      colour: ["#6639ba", "#fbefff", "#c297ff"], verdict: true, marked: true },
    { key: "supported", text: "Supported by your sources", short: "supported",
      colour: ["#116329", "#dafbe1", "#4ac26b"], verdict: true, marked: true },
    { key: "skipped", text: "Not a factual claim", short: "skipped", verdict: true },
    { key: "cancelled", text: "Not checked (the check was stopped first)", short: "not checked" },
    { key: "pending", text: "Checking…", short: "checking" },
  ].map(Object.freeze));

  const BY_KEY = Object.freeze(Object.fromEntries(LABELS.map((l) => [l.key, l])));
  /** The labels a backend verdict carries that this extension knows (lib/messages.js and lib/page-marks.js let
   * through any other plain word too, isLabelWord: a newer backend's label is shown as a neutral mark). */
  const VERDICTS = Object.freeze(LABELS.filter((l) => l.verdict).map((l) => l.key));
  /** The labels drawn in the page, the worst first (content/marks.js paints the worse over the others). */
  const MARKED = Object.freeze(LABELS.filter((l) => l.marked).map((l) => l.key));
  const LABEL_TEXT = Object.freeze(Object.fromEntries(LABELS.map((l) => [l.key, l.text])));
  const LABEL_SHORT = Object.freeze(Object.fromEntries(LABELS.map((l) => [l.key, l.short])));
  /** Not verdicts: what a sentence is before or without one. */
  const NOT_CHECKED = Object.freeze(["skipped", "cancelled", "pending"]);

  /** A label this extension may not know (from a newer backend, or kept by an older version) but can still show:
   * a plain word, never markup. Such a label is drawn as a neutral mark and said as the backend words it. */
  function isLabelWord(label) {
    return typeof label === "string" && /^[a-z][a-z_-]{0,31}$/.test(label);
  }

  /** Is this a label the table knows? */
  const isKnown = (label) => Object.prototype.hasOwnProperty.call(BY_KEY, label);

  /** The card's one line for a judge without its own calibration (the sentences event's judge.calibrated false). */
  const UNCALIBRATED = "This judge is not calibrated yet: its grades use the default model's scale. " +
    "Calibrate it in the side panel's Settings.";

  /** n things in words, the noun plural unless n is 1: "1 PDF", "2 PDFs", "0 passages". plural: for a noun that
   * does not take an s. */
  function count(n, noun, plural) {
    return `${n} ${n === 1 ? noun : plural || noun + "s"}`;
  }

  /**
   * A check's counts in words, the worst first, leaving out the labels no sentence has: "1 contradicted,
   * 7 not supported, 4 supported, 15 skipped". counts: {label: n} (lib/check-state.js counts()). Sentences still
   * being checked are not counted (a running check says "n of m sentences checked"). none: what is said when no
   * sentence is counted.
   */
  function countsText(counts, none = count(0, "sentence")) {
    const parts = LABELS.filter((l) => l.key !== "pending" && counts && counts[l.key] > 0).map((l) => `${counts[l.key]} ${l.short}`);
    // labels the table does not know (a newer backend's) last, in the backend's word
    for (const key of Object.keys(counts || {})) if (!isKnown(key) && counts[key] > 0) parts.push(`${counts[key]} ${key}`);
    return parts.length ? parts.join(", ") : none;
  }

  /** How many sentences of counts have a verdict that is not "skipped" (a running check's "n of m checked"). */
  function checkedCount(counts) {
    return Object.entries(counts || {}).filter(([k]) => !NOT_CHECKED.includes(k)).reduce((n, [, v]) => n + (v || 0), 0);
  }

  /**
   * Sentences most doubtful first: contradicted (a conflict was found, whatever the score), then by P(supported)
   * ascending, then those without a score (skipped, still waiting), each group in the text's order.
   * a, b: {label, p_supported, index}.
   */
  function byDoubt(a, b) {
    const rank = (s) => (s.label === "contradicted" ? 0 : typeof s.p_supported === "number" && !NOT_CHECKED.includes(s.label) ? 1 : 2);
    const p = (s) => (typeof s.p_supported === "number" ? s.p_supported : 0);
    return rank(a) - rank(b) || (rank(a) === 1 ? p(a) - p(b) : 0) || a.index - b.index;
  }

  /** Is P(supported) shown beside this label? Only where it agrees with it (supported at 50 % or more): a red mark
   * found from a conflict, or another sensitivity's threshold, would otherwise read "Contradicted · 79 %". An
   * uncertain sentence's p is what it is unsure about, so it always shows. */
  function showsP(label, p) {
    return typeof p === "number" && (label === "uncertain" || (label === "supported") === (p >= 0.5));
  }

  /** What a card says of P(supported): on every card that has one, so that no card lacks it for no reason a person can
   * see; where it disagrees with the label (showsP false), with what decided the label instead. null: no score. */
  function pText(label, p, conflict, cited) {
    if (typeof p !== "number") return null;
    const shown = "P(supported) " + Math.round(p * 100) + "%";
    if (showsP(label, p)) return shown;
    if (conflict) return shown + ", overruled: the passage states another value";
    if (wronglyCited(cited)) return shown + ", overruled: the cited paper has other authors";
    return shown + ", graded by the sensitivity setting";
  }

  /** Whether a citation of the sentence names a co-author its paper does not have (the backend's not_authors). */
  function wronglyCited(cited) {
    return (Array.isArray(cited) ? cited : []).some((c) => Array.isArray(c.not_authors) && c.not_authors.length);
  }

  /** What FacTool's citation check found, in sentences: cited papers not in the library, and co-authors a cited
   * paper does not have ("Cites Mishra and Kleiber (2024), but that paper is by Abhika Mishra and Akari Asai."). */
  function citedNotes(cited) {
    const all = (Array.isArray(cited) ? cited : []).filter((c) => c && typeof c === "object");
    const notes = [];
    const missing = all.filter((c) => !c.document_id).map((c) => String(c.text || ""));
    if (missing.length) notes.push(`Cites ${missing.join(", ")}, which ${missing.length > 1 ? "are" : "is"} not in your library.`);
    for (const c of all) {
      if (!c.document_id || !Array.isArray(c.not_authors) || !c.not_authors.length) continue;
      const authors = Array.isArray(c.authors) ? c.authors.filter((a) => typeof a === "string") : [];
      const by = authors.length > 1 ? authors.slice(0, -1).join(", ") + " and " + authors[authors.length - 1] : authors.join("");
      const names = c.not_authors.filter((n) => typeof n === "string").join(", ");
      const verb = c.in_prose ? "Credits" : "Cites"; // two names in prose ("by Mishra and Kleiber"), not a marker
      notes.push(`${verb} ${c.text || ""}, but that paper is by ${by || "other authors"}: ${names} is not among them.`);
    }
    return notes;
  }

  /** Give a label's chip its colours from the table (set on the element: content/ui.css and sidepanel/sidepanel.css
   * then need no copy; a style set from a script is not refused by a page's Content-Security-Policy). */
  function colourChip(chip, label) {
    const colour = BY_KEY[label] && BY_KEY[label].colour;
    if (colour) Object.assign(chip.style, { color: colour[0], backgroundColor: colour[1], borderColor: colour[2] });
    return chip;
  }

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

  const api = {
    LABELS, VERDICTS, MARKED, LABEL_TEXT, LABEL_SHORT, ERROR_TYPES, UNCALIBRATED,
    count, countsText, checkedCount, byDoubt, showsP, pText, wronglyCited, citedNotes, isLabelWord, isKnown, colourChip, errorTypeText, errorTypeTitle,
  };
  root.SC = root.SC || {};
  root.SC.labels = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
