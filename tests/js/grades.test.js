// Issue 33: the graded verdict "uncertain" (quieter than amber), the most doubtful sentences first, summaries that
// count the grades and never show P(all supported), the card of an uncalibrated judge, calibration through the API,
// and a label this version does not know shown as a neutral mark.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, dom } from "./helpers.js";

const L = load("lib/labels.js");
const CS = load("lib/check-state.js");

const CRITIQUE = "sourcecheck is not sure: the closest passage is “we generate 35k training instances” (fava.pdf, page 2).";
const UNCERTAIN = {
  index: 1, label: "uncertain", p_supported: 0.44, error_type: null, critique: CRITIQUE, revised: "Invented.", final: true,
  evidence: [{ document_id: "d1", filename: "fava.pdf", page: 2, quote: "we generate 35k training instances", stance: "related" }],
};
const HANDLERS = { onClose() {}, onOpenEvidence() {}, copy: async () => true, canApply: () => true, onApply() {}, onDismiss() {} };

test("the grades are counted, the worst first, uncertain between not supported and supported", () => {
  assert.equal(L.countsText({ supported: 4, uncertain: 3, unsupported: 2, contradicted: 1, skipped: 0 }),
    "1 contradicted, 2 not supported, 3 not sure, 4 supported");
  assert.equal(L.LABEL_SHORT.uncertain, "not sure");
  assert.equal(L.checkedCount({ supported: 4, uncertain: 3, unsupported: 2, contradicted: 1, skipped: 5, pending: 2, cancelled: 1 }), 10);
  // a label this version does not know is counted, in the backend's word, after the known ones
  assert.equal(L.countsText({ supported: 1, refuted: 2 }), "1 supported, 2 refuted");
  assert.equal(L.checkedCount({ supported: 1, refuted: 2 }), 3);
});

test("the most doubtful sentence first: contradicted, then by P(supported), then those without a score", () => {
  const s = [
    { index: 0, label: "skipped", p_supported: null },
    { index: 1, label: "supported", p_supported: 0.9 },
    { index: 2, label: "uncertain", p_supported: 0.45 },
    { index: 3, label: "contradicted", p_supported: 0.8 },  // a found conflict, whatever its score
    { index: 4, label: "unsupported", p_supported: 0.2 },
    { index: 5, label: "pending", p_supported: null },
    { index: 6, label: "uncertain", p_supported: 0.35 },
  ];
  assert.deepEqual(s.slice().sort(L.byDoubt).map((x) => x.index), [3, 4, 6, 2, 1, 0, 5]);
});

test("P(supported) shows beside an uncertain label always, beside the others only where it agrees", () => {
  assert.equal(L.showsP("uncertain", 0.55), true);
  assert.equal(L.showsP("uncertain", 0.3), true);
  assert.equal(L.showsP("contradicted", 0.79), false);
  assert.equal(L.showsP("supported", 0.9), true);
  assert.equal(L.showsP("uncertain", null), false);
});

test("every card with a score says it, and where the score disagrees with the label, what decided instead", () => {
  assert.equal(L.pText("supported", 0.9, null), "P(supported) 90%");
  assert.equal(L.pText("contradicted", 0.79, { kind: "number" }), "P(supported) 79%, overruled: the passage states another value");
  assert.equal(L.pText("unsupported", 0.62, null), "P(supported) 62%, graded by the sensitivity setting");
  assert.equal(L.pText("supported", 0.41, null), "P(supported) 41%, graded by the sensitivity setting");
  assert.equal(L.pText("skipped", null, null), null);
  const wrong = [{ text: "Mishra and Kleiber (2024)", document_id: "d_1", authors: ["Abhika Mishra", "Akari Asai"], not_authors: ["Kleiber"] }];
  assert.equal(L.pText("unsupported", 0.8, null, wrong), "P(supported) 80%, overruled: the cited paper has other authors");
  const win = dom("<div id=card></div>");
  const { fill } = load("content/card.js");
  const card = win.document.getElementById("card");
  fill(card, { text: "FAVA was trained on 53k instances.", label: "contradicted",
    verdict: { label: "contradicted", p_supported: 0.79, conflict: { kind: "number" }, evidence: [] } }, HANDLERS);
  assert.match(card.querySelector(".prob").textContent, /79%, overruled/);
});

test("an uncertain card shows its critique as given, the closest passage, its page, and no revision or Apply", () => {
  const win = dom("<div id=card></div>");
  const { fill } = load("content/card.js");
  const card = win.document.getElementById("card");
  fill(card, { text: "FAVA was trained on 35k instances.", label: "uncertain", verdict: UNCERTAIN }, HANDLERS);
  assert.equal(card.querySelector(".chip").textContent, "Not sure: check it yourself");
  assert.equal(card.querySelector(".prob").textContent, "P(supported) 44%");
  assert.equal(card.querySelector(".critique").textContent, CRITIQUE);
  assert.match(card.querySelector(".evidence .meta").textContent, /fava\.pdf · p\. 2/);
  assert.equal(card.querySelector(".revised"), null);
  assert.equal(card.querySelector(".apply"), null);
  assert.equal(card.querySelector(".copy"), null);
  assert.equal(card.querySelector(".uncalibrated"), null, "a calibrated (or unnamed) judge says nothing of it");
});

test("every card of an uncalibrated judge says so in one line", () => {
  const win = dom("<div id=card></div>");
  const { fill } = load("content/card.js");
  const card = win.document.getElementById("card");
  const judge = { name: "smollm2", calibrated: false };
  for (const [label, verdict] of [["uncertain", UNCERTAIN], ["supported", { index: 0, label: "supported", p_supported: 0.9, evidence: [] }]]) {
    fill(card, { text: "A claim.", label, verdict, judge }, HANDLERS);
    assert.equal(card.querySelectorAll(".uncalibrated").length, 1, label);
    assert.equal(card.querySelector(".uncalibrated").textContent, L.UNCALIBRATED);
  }
  fill(card, { text: "A claim.", label: "supported", verdict: { index: 0, label: "supported" }, judge: { calibrated: true } }, HANDLERS);
  assert.equal(card.querySelector(".uncalibrated"), null);
});

test("a label this version does not know: accepted, counted, its card says the word, marked neutral", () => {
  const M = load("lib/messages.js");
  assert.equal(M.checkEventProblem({ type: "verdict", index: 0, label: "refuted" }), null);
  let s = CS.apply(CS.initial("c", "A. B."), { type: "sentences", sentences: [{ index: 0, start: 0, end: 2 }, { index: 1, start: 3, end: 5 }] });
  s = CS.apply(s, { type: "verdict", index: 0, label: "refuted" });
  s = CS.apply(s, { type: "verdict", index: 1, label: "uncertain" });
  assert.equal(CS.counts(s).refuted, 1);
  assert.equal(L.countsText(CS.counts(s)), "1 not sure, 1 refuted");
  assert.equal(CS.isMarked("refuted", false), true);
  assert.equal(CS.isMarked("uncertain", false), true);
  assert.equal(CS.isMarked("supported", false), false);
  assert.equal(CS.isMarked("skipped", true), false);
  const win = dom("<div id=card></div>");
  const card = win.document.getElementById("card");
  load("content/card.js").fill(card, { text: "A.", label: "refuted", verdict: { index: 0, label: "refuted" } }, HANDLERS);
  assert.equal(card.querySelector(".chip").textContent, "refuted");
  assert.equal(card.querySelector(".chip").style.color, "", "a grey chip");
});

test("the page draws uncertain apart from amber and red, and an unknown label in a neutral highlight", () => {
  const win = dom(`<main><div class="msg"><p>One is red. Two is amber. Three is unsure. Four is unsure too. Five is new.</p></div></main>`);
  globalThis.MutationObserver = win.MutationObserver;
  globalThis.Highlight = class Highlight { constructor(...ranges) { this.ranges = ranges; } };
  globalThis.CSS = { highlights: new Map() };
  const { Marks } = load("content/marks.js");
  const marks = new Marks(win.document, {});
  const range = win.document.createRange();
  range.selectNodeContents(win.document.querySelector(".msg"));
  const begun = marks.begin(range);
  const parts = ["One is red.", "Two is amber.", "Three is unsure.", "Four is unsure too.", "Five is new."];
  const sentences = parts.map((p, index) => ({ index, start: begun.text.indexOf(p), end: begun.text.indexOf(p) + p.length, text: p }));
  marks.addSentences("c1", begun.text, begun.extract, sentences, { name: "fake", calibrated: false });
  ["contradicted", "unsupported", "uncertain", "uncertain", "refuted"].forEach((label, index) => marks.setVerdict("c1", { index, label }));
  const hl = globalThis.CSS.highlights;
  const drawn = (name) => (hl.get(name) || { ranges: [] }).ranges.map(String);
  assert.deepEqual(drawn("sourcecheck-uncertain"), ["Three is unsure.", "Four is unsure too."]);
  assert.deepEqual(drawn("sourcecheck-uncertain-alt"), ["Four is unsure too."]);
  assert.deepEqual(drawn("sourcecheck-other"), ["Five is new."]);
  const p = (name) => hl.get(name).priority;
  assert.ok(p("sourcecheck-contradicted") > p("sourcecheck-unsupported") && p("sourcecheck-unsupported") > p("sourcecheck-uncertain"));
  assert.ok(p("sourcecheck-uncertain") > p("sourcecheck-other"));
  marks.setActive(marks.entries.get("c1:0"));
  assert.ok(p("sourcecheck-active") > p("sourcecheck-uncertain-alt"));
  assert.equal(marks.entries.get("c1:2").judge.calibrated, false, "each entry knows its check's judge");
  // the page keeps it across a reload (lib/page-marks.js)
  const record = load("lib/page-marks.js").toRecord(marks.entries.values(), [], 1);
  assert.deepEqual(record.entries[2].judge, { name: "fake", calibrated: false });
  assert.equal(load("lib/page-marks.js").problem(record), null);
});

test("the summaries count the grades and never show P(all supported)", () => {
  const T = load("content/toast.js");
  const R = load("lib/report.js");
  const sentences = [0, 1, 2, 3].map((i) => ({ index: i, text: `S${i}.`, start: 0, end: 3, checkable: true }));
  const verdicts = [0, 1, 2, 3].map((i) => ({ index: i, label: i ? "uncertain" : "supported", p_supported: i ? 0.4 : 0.9 }));
  let state = CS.apply(CS.initial("c", "t"), { type: "sentences", sentences, judge: { name: "x", calibrated: true } });
  for (const v of verdicts) state = CS.apply(state, Object.assign({ type: "verdict" }, v));
  state = CS.apply(state, { type: "summary", p_all_supported: 0.0576, counts: { supported: 1, uncertain: 3 } });
  assert.deepEqual(state.judge, { name: "x", calibrated: true });
  const done = T.doneText(state);
  assert.equal(done.title, "sourcecheck is not sure of 3 sentences");
  assert.equal(done.body, "3 not sure, 1 supported. Hover or click a mark for details.");
  assert.equal(T.progressText(state, 2000, null), "4 of 4 sentences checked · 2 s");
  const md = R.markdown({ sentences, verdicts, summary: state.summary });
  assert.match(md, /^- Result: 3 not sure, 1 supported$/m);
  assert.match(md, /^## 2\. Not sure: check it yourself · P\(supported\) 40%$/m);
  assert.doesNotMatch(md, /P\(all|Judge:/);
  const uncalibrated = R.markdown({ sentences, verdicts, summary: Object.assign({}, state.summary, { calibrated: false }) });
  assert.match(uncalibrated, /^- Result: 3 not sure, 1 supported\n- Judge: not calibrated; its grades use the default model's scale \(`sourcecheck calibrate`\)\n\n/m);
  assert.equal(T.doneText(CS.apply(state, { type: "verdict", index: 1, label: "unsupported" })).title, "1 sentence not backed by your PDFs");
});

test("calibration goes through the API: start, progress, cancel", async () => {
  const { BackendClient } = load("lib/api-client.js");
  const calls = [];
  const status = { state: "running", done: 12, total: 240, eta_s: 310, calibrated: false, error: null };
  const fetchImpl = async (url, init) => {
    calls.push([init.method, new URL(url).pathname, init.headers.Authorization]);
    return new Response(JSON.stringify({ ok: true, calibration: status }), { status: init.method === "POST" ? 202 : 200 });
  };
  const c = new BackendClient({ baseUrl: "http://127.0.0.1:9", token: "tok", fetchImpl });
  assert.deepEqual((await c.calibrate()).calibration, status);
  await c.calibration();
  await c.cancelCalibration();
  assert.deepEqual(calls, [["POST", "/api/v1/calibrate", "Bearer tok"], ["GET", "/api/v1/calibrate", "Bearer tok"],
    ["DELETE", "/api/v1/calibrate", "Bearer tok"]]);
});

test("the citation check says which cited papers are missing and which have other authors than the sentence names", () => {
  assert.deepEqual(L.citedNotes([{ text: "Nobody (1999)", document_id: null }, { text: "Mishra (2024)", document_id: "d_1" }]),
    ["Cites Nobody (1999), which is not in your library."]);
  assert.deepEqual(L.citedNotes([
    { text: "Mishra and Kleiber (2024)", document_id: "d_1", authors: ["Abhika Mishra", "Akari Asai", "Yizhong Wang"], not_authors: ["Kleiber"] },
  ]), ["Cites Mishra and Kleiber (2024), but that paper is by Abhika Mishra, Akari Asai and Yizhong Wang: Kleiber is not among them."]);
  assert.deepEqual(L.citedNotes([
    { text: "Mishra and Kleiber", document_id: "d_1", authors: ["Abhika Mishra", "Akari Asai"], not_authors: ["Kleiber"], in_prose: true },
  ]), ["Credits Mishra and Kleiber, but that paper is by Abhika Mishra and Akari Asai: Kleiber is not among them."]);
  assert.deepEqual(L.citedNotes(undefined), []);
  assert.equal(L.wronglyCited([{ text: "A (1)", document_id: "d", not_authors: [] }]), false);
});
