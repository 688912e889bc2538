// Issue 28: error types in words a person reads, FAVA's name on hover; one table for the card, the side panel
// and the export.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, dom } from "./helpers.js";

const L = load("lib/labels.js");

test("each FAVA error type has its words", () => {
  assert.deepEqual({ ...L.ERROR_TYPES }, {
    entity: "a wrong number or name",
    relation: "a wrong relation",
    contradictory: "contradicts your PDFs",
    invented: "not in your PDFs",
    subjective: "an opinion",
    unverifiable: "cannot be checked",
  });
  assert.equal(L.errorTypeText("entity"), "a wrong number or name");
  assert.equal(L.errorTypeTitle("entity"), "FAVA error type: entity");
  assert.equal(L.errorTypeText(null), "");
  assert.equal(L.errorTypeText("null"), "");
});

test("the card names the error type in words, FAVA's name on hover", () => {
  const win = dom("<div id=card></div>");
  const { fill } = load("content/card.js");
  const card = win.document.getElementById("card");
  const verdict = { index: 0, label: "contradicted", p_supported: 0.1, error_type: "entity", critique: "No.", evidence: [] };
  fill(card, { text: "It has 13B.", label: "contradicted", verdict }, { onClose() {}, onOpenEvidence() {}, copy: async () => true });
  const etype = card.querySelector(".etype");
  assert.equal(etype.textContent, "a wrong number or name");
  assert.equal(etype.title, "FAVA error type: entity");
  assert.equal(card.querySelectorAll(".etype").length, 1);
  // The × sits outside the part that wraps, so it stays on the first row.
  const head = card.querySelector(".head");
  assert.deepEqual([...head.children].map((c) => c.className), ["head-info", "close"]);
  assert.deepEqual([...head.querySelector(".head-info").children].map((c) => c.className), ["chip contradicted", "prob", "etype"]);
});

// Issue 32: the count words once (lib/labels.js), for the toast, the side panel, the export and the card.
test("a count says its noun in the singular for 1 only", () => {
  assert.equal(L.count(0, "passage"), "0 passages");
  assert.equal(L.count(1, "PDF"), "1 PDF");
  assert.equal(L.count(2, "PDF"), "2 PDFs");
  assert.equal(L.count(1, "sentence"), "1 sentence");
  assert.equal(L.count(8, "sentence"), "8 sentences");
  assert.equal(L.count(1, "related passage"), "1 related passage");
  assert.equal(L.count(3, "child", "children"), "3 children");
  assert.equal(L.count(1, "child", "children"), "1 child");
});

test("a check's counts in words: each label's word, the worst first, labels none has left out", () => {
  const one = { contradicted: 1, unsupported: 1, supported: 1, skipped: 1, cancelled: 1, pending: 1 };
  assert.equal(L.countsText(one), "1 contradicted, 1 not supported, 1 supported, 1 skipped, 1 not checked");
  assert.equal(L.countsText({ supported: 4, skipped: 15, unsupported: 7, contradicted: 1 }),
    "1 contradicted, 7 not supported, 4 supported, 15 skipped");
  for (const [label, word] of [["contradicted", "contradicted"], ["unsupported", "not supported"], ["supported", "supported"],
    ["skipped", "skipped"], ["cancelled", "not checked"]]) {
    assert.equal(L.countsText({ [label]: 2 }), "2 " + word, label);
  }
  // a count is a number, not a noun: "1 supported", "2 supported"
  assert.equal(L.countsText({ contradicted: 0, unsupported: 0, supported: 1 }), "1 supported");
  // sentences still waiting are not counted; none counted: "0 sentences", or what the caller says instead
  assert.equal(L.countsText({ pending: 3 }), "0 sentences");
  assert.equal(L.countsText({ contradicted: 0, unsupported: 0, supported: 0 }), "0 sentences");
  assert.equal(L.countsText({}, ""), "");
  assert.equal(L.countsText(undefined), "0 sentences");
});

test("one table of labels: the verdicts the backend sends, the ones drawn, their words and chip colours", () => {
  assert.deepEqual(L.LABELS.map((l) => l.key), ["contradicted", "unsupported", "uncertain", "supported", "skipped", "cancelled", "pending"]);
  assert.deepEqual([...L.VERDICTS], ["contradicted", "unsupported", "uncertain", "supported", "skipped"]);
  assert.deepEqual([...L.MARKED], ["contradicted", "unsupported", "uncertain", "supported"]);
  assert.equal(L.LABEL_TEXT.unsupported, "Not supported by your sources");
  assert.equal(L.LABEL_SHORT.cancelled, "not checked");
  // the copies that read the table
  assert.equal(load("lib/messages.js").LABELS, L.VERDICTS);
  assert.deepEqual(Object.keys(load("lib/check-state.js").counts({ sentences: [], verdicts: {} })).sort(),
    L.LABELS.map((l) => l.key).sort());
  const win = dom("");
  const chip = (label) => L.colourChip(win.document.createElement("span"), label).style;
  assert.equal(chip("contradicted").color, "rgb(164, 14, 38)");
  assert.equal(chip("supported").borderColor, "rgb(74, 194, 107)");
  assert.equal(chip("skipped").color, "", "a label without colours keeps its style sheet's grey");
});

test("the toast, the side panel and the export say a check's counts the same", () => {
  const CS = load("lib/check-state.js");
  const T = load("content/toast.js");
  const R = load("lib/report.js");
  const sentences = [0, 1, 2, 3].map((i) => ({ index: i, text: "S" + i + ".", start: 0, end: 3, checkable: i !== 3 }));
  const verdicts = [{ index: 0, label: "contradicted" }, { index: 1, label: "supported" }, { index: 2, label: "supported" }];
  let state = CS.apply(CS.initial("c", "text"), { type: "sentences", sentences });
  for (const v of verdicts) state = CS.apply(state, Object.assign({ type: "verdict" }, v));
  state = CS.apply(state, { type: "summary", p_all_supported: null });
  assert.equal(T.summaryText(state), "1 contradicted, 2 supported, 1 skipped");
  assert.equal(L.countsText(CS.counts(state)), T.summaryText(state));
  assert.match(R.markdown({ sentences, verdicts, summary: null }), /^- Result: 1 contradicted, 2 supported, 1 skipped$/m);
  // a check stopped before its last sentence: "not checked" in the toast's words and the report's
  const stopped = Object.assign({}, CS.apply(CS.initial("c", "text"), { type: "sentences", sentences }), { status: "cancelled" });
  assert.equal(L.countsText(CS.counts(CS.apply(stopped, { type: "verdict", index: 0, label: "supported" }))), "1 supported, 1 skipped, 2 not checked");
  assert.match(R.markdown({ sentences, verdicts: verdicts.slice(0, 1) }), /^- Result: 1 contradicted, 1 skipped, 2 not checked$/m);
  // the running check's progress: "of 1 sentence", "of 3 sentences"
  const running = CS.apply(CS.initial("c", "t"), { type: "sentences", sentences: sentences.slice(0, 1) });
  assert.equal(T.progressText(running, 1000, null), "0 of 1 sentence checked · 1 s");
});
