// The viewer's quote finder (viewer/find.js): a quote as the backend read it, in a text layer as pdf.js gives it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const F = load("viewer/find.js");
const found = (text, quote) => { const r = F.locate(text, quote); return r && text.slice(r.start, r.end); };

test("the whole quote, to its last letter, where pdf.js splits a word or leaves a hyphen at a line's end", () => {
  const layer = "We improve results by fitting model s to the annotated data and by predic- tion of the edits. Next line";
  assert.equal(found(layer, "We improve results by fitting models to the annotated data and by prediction of the edits."),
    "We improve results by fitting model s to the annotated data and by predic- tion of the edits.");
});

test("TeX residue on either side is not a difference", () => {
  const layer = "The editor M edit corrects errors. The editor \\mathcal{M}_{edit} editsubscript then rewrites each passage it flags.";
  assert.equal(found(layer, "The editor editsubscript \\mathcal{M}_{edit} then rewrites each passage it flags."),
    "The editor \\mathcal{M}_{edit} editsubscript then rewrites each passage it flags.");
  assert.equal(found(layer, "The editor then rewrites each passage it flags."),
    "The editor \\mathcal{M}_{edit} editsubscript then rewrites each passage it flags.");
});

test("a few letters apart still match; another passage does not", () => {
  const layer = "Errors are grouped into six types, from entity errors to unverifiable statements.";
  assert.equal(found(layer, "Errors are grouped in six types: from entity errors to unverifiable statements."), layer);
  assert.equal(found(layer, "The retrieval component uses Contriever to find relevant passages."), null);
});

test("a quote over a page break: the part on this page", () => {
  const layer = "Some text before it. The retrieval component uses Contriever to find relevant passages for each";
  assert.equal(found(layer, "The retrieval component uses Contriever to find relevant passages for each claim of the answer."),
    "The retrieval component uses Contriever to find relevant passages for each");
});
