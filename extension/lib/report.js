// A check as a Markdown report, for the side panel's Export. backend/sourcecheck/report.py writes the same
// report from the same result; tests/unit/test_report.py holds the two equal.
(function (root) {
  "use strict";

  const L = (root.SC && root.SC.labels) || require("./labels.js");
  const ERROR_TYPES = L.ERROR_TYPES;  // backend/sourcecheck/report.py words them the same (tests/unit/test_report.py)

  const percent = (p) => (p > 0 && p < 0.01 ? "<1%" : p > 0.99 && p < 1 ? ">99%" : Math.round(p * 100) + "%");
  const oneLine = (t) => String(t).split(/\s+/).filter(Boolean).join(" ");
  // A quote that is itself in quotation marks is not quoted twice (backend/sourcecheck/judging/cards.py quoted()).
  const QUOTES = "\"'“”‘’«»„";
  const unquote = (t) => (t.length > 1 && QUOTES.includes(t[0]) && QUOTES.includes(t[t.length - 1]) ? t.slice(1, -1).trim() : t);

  /** result: {sentences, verdicts, summary} as POST /check answers it; meta: {title, url, checkedAt}. */
  function markdown(result, meta = {}) {
    const verdicts = new Map((result.verdicts || []).map((v) => [v.index, v]));
    const labels = result.sentences.map((s) => (verdicts.has(s.index) ? verdicts.get(s.index).label
      : s.checkable === false ? "skipped" : "cancelled"));  // a sentence the stopped check never reached
    const lines = ["# sourcecheck report", ""];
    if (meta.title || meta.url) lines.push(meta.url ? `- Page: [${meta.title || meta.url}](${meta.url})` : `- Page: ${meta.title}`);
    if (meta.checkedAt) lines.push(`- Checked: ${meta.checkedAt}`);
    const counts = {};
    for (const l of labels) counts[l] = (counts[l] || 0) + 1;
    // The grades counted; never P(all supported), which reads as the opposite of the marks (ten at 0.6: 0.6 %).
    lines.push(`- Result: ${L.countsText(counts, "")}`);
    if ((result.summary || {}).calibrated === false) {
      lines.push("- Judge: not calibrated; its grades use the default model's scale (`sourcecheck calibrate`)");
    }
    lines.push("");
    result.sentences.forEach((s, i) => {
      const v = verdicts.get(s.index) || {};
      let head = `## ${i + 1}. ${L.LABEL_TEXT[labels[i]] || labels[i]}`;
      // the number only where it agrees with the label, as on the card
      if (L.showsP(labels[i], v.p_supported)) {
        head += ` · P(supported) ${percent(v.p_supported)}`;
      }
      lines.push(head, "", "> " + oneLine(s.text), "");
      if (v.error_type) lines.push(`- Error type: ${ERROR_TYPES[v.error_type] || v.error_type}`);
      if (v.critique) lines.push(`- Critique: ${oneLine(v.critique)}`);
      for (const note of L.citedNotes(v.cited)) lines.push(`- ${note}`);
      if (v.revised && v.revised !== s.text) lines.push(`- Suggested revision: ${oneLine(v.revised)}`);
      for (const e of v.evidence || []) {
        const where = [e.filename || e.document_id, e.page ? `p. ${e.page}` : ""].filter(Boolean).join(", ");
        const stance = e.stance && e.stance !== "related" ? ` (${e.stance})` : "";
        lines.push(`- Evidence, ${where}${stance}: “${unquote(oneLine(e.quote || ""))}”`);
      }
      if (lines[lines.length - 1]) lines.push("");
    });
    const revised = (result.summary || {}).revised_text;
    if (revised) lines.push("## Revised text", "", revised.trim(), "");
    return lines.join("\n");
  }

  const api = { markdown };
  root.SC = root.SC || {};
  root.SC.report = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
