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
