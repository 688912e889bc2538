import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const { BackendClient, BackendError } = load("lib/api-client.js");

function fakeFetch(routes, calls) {
  return async (url, init) => {
    calls.push({ url, init });
    const path = new URL(url).pathname;
    const key = (init.method || "GET") + " " + path;
    const r = routes[key];
    if (!r) return new Response(JSON.stringify({ ok: false, error: { code: "not_found", message: "nope" }, status: 404 }), { status: 404 });
    return typeof r === "function" ? r(init) : r.clone();
  };
}

test("requests go under /api/v1 with the bearer token", async () => {
  const calls = [];
  const c = new BackendClient({ baseUrl: "http://127.0.0.1:9/", token: "tok", fetchImpl: fakeFetch({
    "GET /api/v1/documents": new Response(JSON.stringify({ ok: true, documents: [] })),
    "GET /api/v1/health": new Response(JSON.stringify({ ok: true })),
  }, calls) });
  await c.documents();
  await c.health();
  assert.equal(calls[0].url, "http://127.0.0.1:9/api/v1/documents");
  assert.equal(calls[0].init.headers.Authorization, "Bearer tok");
  assert.equal(calls[1].init.headers.Authorization, undefined, "health needs no token");
});

test("a refused connection becomes backend_unreachable with the command", async () => {
  const c = new BackendClient({ baseUrl: "http://127.0.0.1:9", token: "t", fetchImpl: async () => { throw new TypeError("Failed to fetch"); } });
  await assert.rejects(c.health(), (err) => {
    assert.ok(err instanceof BackendError);
    assert.equal(err.friendly.code, "backend_unreachable");
    assert.equal(err.friendly.command, "scripts/serve");
    return true;
  });
});

test("API error bodies become friendly errors", async () => {
  const c = new BackendClient({ baseUrl: "http://x", token: "t", fetchImpl: fakeFetch({
    "POST /api/v1/check": new Response(JSON.stringify({ ok: false, error: { code: "empty_library", message: "Your library is empty." }, status: 409 }), { status: 409 }),
    "POST /api/v1/pair": new Response(JSON.stringify({ ok: false, error: { code: "bad_code", message: "Wrong code." }, status: 403 }), { status: 403 }),
  }, []) });
  await assert.rejects(c.check("A claim.", { onEvent() {} }), (err) => err.friendly.code === "empty_library" && err.friendly.message === "Your library is empty.");
  await assert.rejects(c.pair("000-000"), (err) => err.friendly.code === "pairing_failed");
});

test("check streams NDJSON events as they arrive", async () => {
  const lines = [
    { type: "sentences", sentences: [{ index: 0, start: 0, end: 8, text: "A claim.", checkable: true }] },
    { type: "verdict", index: 0, label: "unsupported", p_supported: 0.2, evidence: [] },
    { type: "summary", counts: { unsupported: 1 } },
  ];
  const enc = new TextEncoder();
  const body = new ReadableStream({
    start(ctrl) {
      const text = lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
      // split inside a multi-byte character on purpose
      const bytes = enc.encode(text + "");
      for (let i = 0; i < bytes.length; i += 5) ctrl.enqueue(bytes.slice(i, i + 5));
      ctrl.close();
    },
  });
  let sent;
  const c = new BackendClient({ baseUrl: "http://x", token: "t", fetchImpl: fakeFetch({
    "POST /api/v1/check": (init) => { sent = init; return new Response(body, { headers: { "Content-Type": "application/x-ndjson" } }); },
  }, []) });
  const got = [];
  await c.check("A claim.", { onEvent: (e) => got.push(e) });
  assert.deepEqual(got, lines);
  assert.equal(JSON.parse(sent.body).text, "A claim.");
  assert.equal(sent.headers.Accept, "application/x-ndjson");
});

test("a one-object JSON answer is replayed as events", async () => {
  const c = new BackendClient({ baseUrl: "http://x", token: "t", fetchImpl: fakeFetch({
    "POST /api/v1/check": new Response(JSON.stringify({ ok: true, sentences: [], verdicts: [{ index: 0, label: "supported" }], summary: { counts: {} } }),
      { headers: { "Content-Type": "application/json" } }),
  }, []) });
  const got = [];
  await c.check("x", { onEvent: (e) => got.push(e.type) });
  assert.deepEqual(got, ["sentences", "verdict", "summary"]);
});

test("upload sends multipart file fields", async () => {
  let form;
  const c = new BackendClient({ baseUrl: "http://x", token: "t", fetchImpl: fakeFetch({
    "POST /api/v1/documents": (init) => { form = init.body; return new Response(JSON.stringify({ ok: true, documents: [{ id: "d_1" }] }), { status: 202 }); },
  }, []) });
  const res = await c.upload([{ name: "a.pdf", blob: new Blob(["%PDF-1.4"], { type: "application/pdf" }) }]);
  assert.equal(res.documents[0].id, "d_1");
  assert.equal(form.getAll("file").length, 1);
  assert.equal(form.get("file").name, "a.pdf");
});

test("status() says reachable, paired and why not, without throwing", async () => {
  const health = () => new Response(JSON.stringify({ ok: true, model: { name: "m" }, library: { documents: 2, chunks: 9 } }));
  const down = new BackendClient({ baseUrl: "http://127.0.0.1:9", token: "t", fetchImpl: async () => { throw new TypeError("Failed to fetch"); } });
  const st = await down.status();
  assert.equal(st.reachable, false);
  assert.equal(st.error.code, "backend_unreachable");
  const unpaired = await new BackendClient({ baseUrl: "http://127.0.0.1:9", fetchImpl: fakeFetch({ "GET /api/v1/health": health }, []) }).status();
  assert.deepEqual([unpaired.reachable, unpaired.paired, unpaired.error.code], [true, false, "not_paired"]);
  const badToken = await new BackendClient({ baseUrl: "http://127.0.0.1:9", token: "old", fetchImpl: fakeFetch({
    "GET /api/v1/health": health,
    "GET /api/v1/documents": () => new Response(JSON.stringify({ ok: false, error: { code: "bad_token", message: "Unknown token." } }), { status: 401 }),
  }, []) }).status();
  assert.deepEqual([badToken.paired, badToken.error.code], [false, "not_paired"]);
  const ok = await new BackendClient({ baseUrl: "http://127.0.0.1:9", token: "t", fetchImpl: fakeFetch({
    "GET /api/v1/health": health, "GET /api/v1/documents": () => new Response(JSON.stringify({ ok: true, documents: [] })),
  }, []) }).status();
  assert.deepEqual([ok.reachable, ok.paired, ok.error, ok.library.documents], [true, true, null, 2]);
});

test("the backend's Markdown code marks do not reach a person: no raw backticks in a message", async () => {
  const msg = "The library has no ready documents to check against; add PDFs first (drop them on the side panel, or run `sourcecheck ingest FILE.pdf`).";
  const c = new BackendClient({ baseUrl: "http://x", token: "t", fetchImpl: fakeFetch({
    "POST /api/v1/check": new Response(JSON.stringify({ ok: false, error: { code: "empty_library", message: msg }, status: 409 }), { status: 409 }),
  }, []) });
  await assert.rejects(c.check("A claim.", { onEvent() {} }), (err) => {
    assert.equal(err.friendly.message, msg.replace("`sourcecheck ingest FILE.pdf`", "sourcecheck ingest FILE.pdf"));
    return true;
  });
  // The same in an error event of the stream.
  const events = [];
  const streamed = new BackendClient({ baseUrl: "http://x", token: "t", fetchImpl: fakeFetch({
    "POST /api/v1/check": new Response(JSON.stringify({ type: "error", error: { code: "model_failed", message: "Run `scripts/setup`." } }) + "\n",
      { headers: { "Content-Type": "application/x-ndjson" } }),
  }, []) });
  await streamed.check("A claim.", { onEvent: (e) => events.push(e) });
  assert.equal(events[0].error.message, "Run scripts/setup.");
});
