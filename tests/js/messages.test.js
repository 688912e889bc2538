import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const M = load("lib/messages.js");
const ND = load("lib/ndjson.js");
const CS = load("lib/check-state.js");
const E = load("lib/errors.js");

test("message() refuses unknown types", () => {
  assert.deepEqual(M.message(M.MSG.SCROLL_TO, { key: "c1:2" }), { type: "scroll-to", key: "c1:2" });
  assert.throws(() => M.message("nope"));
});

function call(listener, msg) {
  return new Promise((resolve) => {
    const kept = listener(msg, { tab: { id: 7 } }, resolve);
    if (kept === false) resolve("not handled");
  });
}

test("the router answers from a table, async or not, and turns throws into errors", async () => {
  const router = M.createRouter({
    [M.MSG.PING]: () => ({ ok: true, pong: 1 }),
    [M.MSG.SCROLL_TO]: async (msg, sender) => ({ ok: true, tab: sender.tab.id }),
    [M.MSG.CHECK_TAB]: () => { throw new Error("boom"); },
    [M.MSG.MARKS_STATUS]: () => undefined,
  });
  assert.deepEqual(await call(router, { type: "ping" }), { ok: true, pong: 1 });
  assert.deepEqual(await call(router, { type: "scroll-to" }), { ok: true, tab: 7 });
  const err = await call(router, { type: "check-tab" });
  assert.equal(err.ok, false);
  assert.equal(err.error.message, "boom");
  assert.deepEqual(await call(router, { type: "marks-status" }), { ok: true });
  assert.equal(await call(router, { type: "unknown" }), "not handled");
  assert.equal(await call(router, "junk"), "not handled");
});

test("the router's error mapper makes friendly errors", async () => {
  const router = M.createRouter({ [M.MSG.PING]: () => { throw { friendly: { code: "x" } }; } }, (e) => e.friendly);
  assert.deepEqual(await call(router, { type: "ping" }), { ok: false, error: { code: "x" } });
});

test("check events are validated", () => {
  assert.equal(M.checkEventProblem({ type: "sentences", sentences: [{ index: 0, start: 0, end: 3, text: "Hi." }] }), null);
  assert.match(M.checkEventProblem({ type: "sentences", sentences: [{ index: 0, start: 5, end: 3 }] }), /bad sentence/);
  assert.equal(M.checkEventProblem({ type: "verdict", index: 1, label: "unsupported", evidence: [] }), null);
  // a label this version does not know is let through (shown neutral); only a non-word is refused
  assert.equal(M.checkEventProblem({ type: "verdict", index: 1, label: "maybe" }), null);
  assert.equal(M.checkEventProblem({ type: "verdict", index: 1, label: "uncertain" }), null);
  assert.match(M.checkEventProblem({ type: "verdict", index: 1, label: "<img onerror=x>" }), /bad label/);
  assert.match(M.checkEventProblem({ type: "verdict", index: 1 }), /bad label/);
  assert.equal(M.checkEventProblem({ type: "summary", counts: {} }), null);
  assert.match(M.checkEventProblem({ type: "error" }), /without error/);
  assert.match(M.checkEventProblem({ type: "other" }), /unknown event/);
});

test("NDJSON lines are parsed across arbitrary chunk boundaries", () => {
  const out = [];
  const p = ND.createParser((o) => out.push(o));
  const text = '{"type":"sentences","sentences":[]}\n{"type":"verdict","index":0,"label":"supported","critique":"caf\u00e9 \u2713"}\n\n{"type":"summary"}';
  for (let i = 0; i < text.length; i += 7) p.push(text.slice(i, i + 7));
  p.end();
  assert.deepEqual(out.map((o) => o.type), ["sentences", "verdict", "summary"]);
  assert.equal(out[1].critique, "café ✓");
});

test("a bad NDJSON line is reported, not thrown, when asked", () => {
  const bad = [];
  const p = ND.createParser(() => {}, (line) => bad.push(line));
  p.push("nope\n{}\n");
  assert.deepEqual(bad, ["nope"]);
});

test("check state follows the stream", () => {
  let s = CS.initial("c1", "Hi. A claim. Another.");
  s = CS.apply(s, { type: "sentences", sentences: [
    { index: 0, start: 0, end: 3, text: "Hi.", checkable: false },
    { index: 1, start: 4, end: 12, text: "A claim.", checkable: true },
    { index: 2, start: 13, end: 21, text: "Another.", checkable: true }] });
  assert.equal(CS.labelOf(s, 0), "skipped");
  assert.equal(CS.labelOf(s, 1), "pending");
  const before = s;
  s = CS.apply(s, { type: "verdict", index: 2, label: "contradicted", p_supported: 0.1 });
  assert.equal(before.verdicts[2], undefined, "the old state is not modified");
  assert.equal(s.verdicts[2].type, undefined);
  assert.deepEqual(CS.counts(s), { supported: 0, contradicted: 1, unsupported: 0, uncertain: 0, skipped: 1, pending: 1, cancelled: 0 });
  // The same sentence again with its critique (final): it replaces the scored verdict, counted once.
  s = CS.apply(s, { type: "verdict", index: 2, label: "contradicted", p_supported: 0.1, final: true, critique: "No." });
  assert.equal(s.verdicts[2].critique, "No.");
  assert.deepEqual(CS.counts(s), { supported: 0, contradicted: 1, unsupported: 0, uncertain: 0, skipped: 1, pending: 1, cancelled: 0 });
  const cancelled = Object.assign({}, s, { status: "cancelled" });
  assert.equal(CS.labelOf(cancelled, 1), "cancelled", "a cancelled check's unchecked sentence says so");
  assert.equal(CS.counts(cancelled).cancelled, 1);
  s = CS.apply(s, { type: "summary", counts: {} });
  assert.equal(s.status, "done");
  assert.equal(CS.labelOf(s, 1), "skipped", "a sentence without a verdict after the summary is not pending");
  s = CS.apply(s, { type: "error", error: { code: "x", message: "y" } });
  assert.equal(s.status, "error");
});

test("which labels are marked", () => {
  assert.ok(CS.isMarked("contradicted", false));
  assert.ok(CS.isMarked("unsupported", false));
  assert.ok(!CS.isMarked("supported", false));
  assert.ok(CS.isMarked("supported", true));
  assert.ok(!CS.isMarked("skipped", true));
  assert.ok(!CS.isMarked("pending", true));
});

test("errors a person understands", () => {
  const down = E.friendlyError({ network: true, backendUrl: "http://127.0.0.1:8765" });
  assert.equal(down.code, "backend_unreachable");
  assert.match(down.message, /not running at http:\/\/127\.0\.0\.1:8765/);
  assert.equal(down.command, "scripts/serve");
  assert.equal(E.friendlyError({ status: 401, code: "unauthorized" }).code, "not_paired");
  const empty = E.friendlyError({ status: 409, code: "empty_library", message: "Add PDFs first." });
  assert.equal(empty.code, "empty_library");
  assert.equal(empty.message, "Add PDFs first.");
  assert.match(empty.hint, /side panel/);
  const model = E.friendlyError({ status: 503, code: "model_missing", message: "No GGUF." });
  assert.equal(model.code, "model_missing");
  assert.equal(model.command, "scripts/setup");
  assert.equal(E.friendlyError({ status: 500, code: "internal", message: "kaput" }).code, "request_failed");
  assert.match(E.friendlyError({ status: 500, code: "internal", message: "kaput" }).message, /kaput/);
  assert.equal(E.friendlyError({ code: "no_selection" }).code, "no_selection");
});

test("each backend code maps to its own hint: a refused file is not a long selection, a slow model not a missing one", () => {
  assert.equal(E.friendlyError({ status: 413, code: "text_too_long", message: "Too long." }).code, "text_too_long");
  const full = E.friendlyError({ status: 413, code: "library_full", message: "The library is full." });
  assert.equal(full.code, "file_refused");
  assert.match(full.hint, /SOURCECHECK_MAX_LIBRARY_MB/);
  assert.doesNotMatch(full.hint, /shorter passage/);
  const damaged = E.friendlyError({ status: 422, code: "pdf_corrupt", message: "The PDF is damaged." });
  assert.equal(damaged.message, "The PDF is damaged.");
  assert.doesNotMatch(damaged.hint, /Try again/);
  assert.match(E.friendlyError({ status: 422, code: "pdf_no_text" }).hint, /ocrmypdf/);
  const slow = E.friendlyError({ status: 504, code: "model_timeout", message: "No answer in 120 s." });
  assert.equal(slow.code, "model_timeout");
  assert.equal(slow.command, undefined);
  assert.equal(E.friendlyError({ status: 503, code: "model_unreachable" }).code, "model_unreachable");
  assert.equal(E.friendlyError({ status: 502, code: "model_bad_response" }).code, "model_failed");
  assert.equal(E.friendlyError({ status: 403, code: "bad_pairing_code", message: "Wrong code." }).code, "pairing_failed");
  assert.equal(E.friendlyError({ status: 401, code: "whatever" }).code, "not_paired");
  assert.equal(E.friendlyError({ status: 413 }).code, "request_failed");
  const down = E.friendlyError({ status: 503, code: "index_unreachable", message: "The Chroma server does not answer." });
  assert.equal(down.code, "index_unreachable");
  assert.match(down.hint, /chroma run/);
  assert.doesNotMatch(down.hint, /scripts\/setup/);
  const elsewhere = E.friendlyError({ status: 404, code: "document_file_elsewhere", message: "Not on this computer." });
  assert.equal(elsewhere.code, "file_elsewhere");
  assert.equal(elsewhere.message, "Not on this computer.");
});

const S = load("lib/settings.js");

test("a backend address without http:// is taken as http; other schemes and garbage are refused", () => {
  assert.equal(S.normalizeBackendUrl("127.0.0.1:8765"), "http://127.0.0.1:8765");
  assert.equal(S.normalizeBackendUrl(" http://localhost:9000/ "), "http://localhost:9000");
  assert.equal(S.normalizeBackendUrl("https://box.lan/sourcecheck/"), "https://box.lan/sourcecheck");
  assert.throws(() => S.normalizeBackendUrl("ftp://127.0.0.1"), /http:\/\/ or https:\/\//);
  assert.throws(() => S.normalizeBackendUrl("http://exa mple"), /not a valid address/);
});

test("each backend keeps its own token: switching away and back needs no new pairing", () => {
  const A = "http://127.0.0.1:8765", B = "http://127.0.0.1:9000";
  let s = Object.assign({}, S.DEFAULTS, { backendUrl: A });
  s = Object.assign(s, S.paired(s, "token-a"));
  assert.deepEqual(s.tokens, { [A]: "token-a" });
  s = Object.assign(s, S.switchBackend(s, B), { backendUrl: B });
  assert.equal(s.token, "", "a backend never paired has no token");
  s = Object.assign(s, S.paired(s, "token-b"));
  s = Object.assign(s, S.switchBackend(s, A), { backendUrl: A });
  assert.equal(s.token, "token-a");
  assert.deepEqual(s.tokens, { [A]: "token-a", [B]: "token-b" });
});

const D = load("lib/diff.js");

test("the word diff marks what the revision changed and rebuilds both texts", () => {
  const a = "FAVA was trained on 350k instances. It detects six error types.";
  const b = "FAVA was trained on 35k instances. It detects six error types.";
  const d = D.wordDiff(a, b);
  assert.deepEqual(d.filter((p) => p.op !== "same"), [{ op: "del", text: "350k" }, { op: "ins", text: "35k" }]);
  assert.equal(d.filter((p) => p.op !== "ins").map((p) => p.text).join(""), a);
  assert.equal(d.filter((p) => p.op !== "del").map((p) => p.text).join(""), b);
  assert.deepEqual(D.wordDiff("same text", "same text"), [{ op: "same", text: "same text" }]);
  assert.deepEqual(D.wordDiff("", "new"), [{ op: "ins", text: "new" }]);
});

test("a sync of another Zotero library and a coarser calibration say what to do, not try again", () => {
  const other = E.friendlyError({ status: 409, code: "zotero_other_library", message: "The library holds 3 PDFs…" });
  assert.equal(other.detail, "zotero_other_library");
  assert.match(other.hint, /Switch library/);
  const coarse = E.friendlyError({ status: 409, code: "calibration_coarser", message: "This judge has…" });
  assert.equal(coarse.code, "calibration_coarser");
  assert.match(coarse.hint, /--replace/);
});
