// The side panel's shared helpers: the element lookup, the backend (an extension page calls it itself, through
// lib/api-client.js, with the token from extension storage), the service worker (tab work) and the error banner.
(function () {
  "use strict";

  const { browser: B, messages: M, errors: E, settings: S, apiClient: A, dom: D } = globalThis.SC;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => D.el(document, tag, cls, text);

  /** The backend as the settings say now; call(fn) runs fn(client), its errors made friendly. */
  async function client() {
    return A.clientFor(await S.load(B.get));
  }

  async function call(fn) {
    try {
      return await fn(await client());
    } catch (err) {
      throw A.toFriendly(err);
    }
  }

  /** Ask the service worker (tab work); a missing answer or {ok:false} becomes a thrown friendly error. */
  async function ask(type, fields) {
    let res;
    try {
      res = await B.send(M.message(type, fields));
    } catch (err) {
      throw E.friendlyError({ code: "request_failed", message: String(err && err.message || err) });
    }
    if (!res) throw E.friendlyError({ code: "request_failed", message: "no answer from the service worker" });
    if (res.ok === false) throw res.error || E.friendlyError({ code: "request_failed" });
    return res;
  }

  // ---------------------------------------------------------------- banner (errors a person understands)

  const FIRST_RUN = ["backend_unreachable", "not_paired"];
  // lib/errors.js words its hints for a page, which sends people to the side panel; here they are in it.
  const HERE = {
    not_paired: "Below, enter the pairing code the server printed when it started " +
      "(or run sourcecheck pair in a terminal for a fresh one).",
    empty_library: "Drop PDFs on the Library area below, or choose files there.",
    forbidden: "Check the Backend URL under Settings below (use 127.0.0.1 or localhost).",
  };

  function showBanner(err) {
    const banner = $("banner");
    if (!err) { banner.hidden = true; banner.dataset.code = ""; return; }
    banner.hidden = false;
    banner.dataset.code = err.code || "";
    $("banner-message").textContent = err.message || "Something went wrong.";
    $("banner-hint").textContent = HERE[err.code] || err.hint || "";
    $("banner-command-row").hidden = !err.command;
    $("banner-command").textContent = err.command || "";
    // On a first run the backend may simply be at another address than the default one.
    $("banner-url").hidden = !FIRST_RUN.includes(err.code);
  }

  $("banner-copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("banner-command").textContent); $("banner-copy").textContent = "Copied"; } catch (_) { /* clipboard refused */ }
  });

  $("banner-url-go").addEventListener("click", () => {
    $("backend-url").scrollIntoView({ block: "center" });
    $("backend-url").focus();
  });

  globalThis.SC.panel = { $, el, client, call, ask, showBanner };
})();
