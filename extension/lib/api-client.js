// The backend's HTTP API (docs/api.md, v1) as functions, for the service worker and the extension's own pages
// (side panel, viewer). Content scripts go through the service worker: their fetch carries the page's origin.
(function (root) {
  "use strict";

  const ndjson = root.SC && root.SC.ndjson ? root.SC.ndjson : require("./ndjson.js");
  const errors = root.SC && root.SC.errors ? root.SC.errors : require("./errors.js");

  /** The API's messages are also read in a terminal and in docs, with `commands` in Markdown code marks; in the
   * extension they are plain text, where the marks would show as raw backticks. */
  const plain = (message) => (typeof message === "string" ? message.replace(/`([^`\n]*)`/g, "$1") : message);

  /** An error from the backend or from reaching it; .friendly is what a person reads. */
  class BackendError extends Error {
    constructor(info, backendUrl) {
      super(info.message || info.code || (info.network ? "backend unreachable" : "request failed"));
      this.name = "BackendError";
      this.info = info;
      this.friendly = errors.friendlyError(Object.assign({ backendUrl }, info));
    }
  }

  /** What a person reads for any error: a BackendError's friendly form, else a request failure. */
  function toFriendly(err) {
    if (err && err.friendly) return err.friendly;
    if (err && err.code && err.hint !== undefined) return err;  // already friendly
    return errors.friendlyError({ code: "request_failed", message: String(err && err.message || err) });
  }

  class BackendClient {
    /** baseUrl like http://127.0.0.1:8765; token from pairing; fetchImpl for tests. */
    constructor({ baseUrl, token, fetchImpl }) {
      this.baseUrl = String(baseUrl).replace(/\/+$/, "");
      this.token = token || "";
      this.fetch = fetchImpl || root.fetch.bind(root);
    }

    url(path) {
      return this.baseUrl + "/api/v1" + path;
    }

    /** fetch with the token; throws BackendError for network failures and non-2xx answers. */
    /** keepalive: the request outlives the page that sent it (a side panel being closed). */
    async request(path, { method = "GET", body, headers = {}, auth = true, signal, raw = false, keepalive = false } = {}) {
      const h = Object.assign({}, headers);
      if (auth && this.token) h.Authorization = "Bearer " + this.token;
      let response;
      try {
        const init = { method, body, headers: h, signal, credentials: "omit" };
        if (keepalive) init.keepalive = true;
        response = await this.fetch(this.url(path), init);
      } catch (err) {
        if (err && err.name === "AbortError") throw err;
        // fetch rejects with a TypeError when nothing listens at the address.
        throw new BackendError({ network: true, message: String(err && err.message || err) }, this.baseUrl);
      }
      if (!response.ok) {
        let body = null;
        try { body = await response.json(); } catch (_) { /* not the API's JSON error shape */ }
        const e = body && body.error ? body.error : {};
        throw new BackendError({ status: response.status, code: e.code, message: plain(e.message) }, this.baseUrl);
      }
      return raw ? response : response.json();
    }

    health() { return this.request("/health", { auth: false }); }

    /** Reachable? paired? which model? One answer for the side panel's status line; never throws. */
    async status() {
      const out = { backendUrl: this.baseUrl, reachable: false, paired: false, hasToken: !!this.token, model: null, library: null, error: null };
      try {
        const h = await this.health();
        Object.assign(out, { reachable: true, model: h.model || null, library: h.library || null, version: h.version || null });
      } catch (err) {
        out.error = toFriendly(err);
        return out;
      }
      if (!this.token) {
        out.error = errors.friendlyError({ code: "not_paired" });
        return out;
      }
      try {
        await this.documents();  // the token is only proven by an authenticated call
        out.paired = true;
      } catch (err) {
        out.error = toFriendly(err);
      }
      return out;
    }

    async pair(code) {
      try {
        return await this.request("/pair", {
          method: "POST", auth: false, body: JSON.stringify({ code: String(code).trim() }),
          headers: { "Content-Type": "application/json" },
        });
      } catch (err) {
        if (err instanceof BackendError && (err.info.status === 403 || err.info.status === 400)) {
          throw new BackendError(Object.assign({}, err.info, { status: undefined, code: "pairing_failed" }), this.baseUrl);
        }
        throw err;
      }
    }

    documents() { return this.request("/documents"); }
    document(id) { return this.request("/documents/" + encodeURIComponent(id)); }
    deleteDocument(id, { keepalive = false } = {}) {
      return this.request("/documents/" + encodeURIComponent(id), { method: "DELETE", keepalive });
    }

    /** Upload PDFs: files is [{name, blob}]. Resolves with the API's {ok, documents}. */
    upload(files) {
      const form = new FormData();
      for (const f of files) form.append("file", f.blob, f.name);
      return this.request("/documents", { method: "POST", body: form });
    }

    /** Calibrating the configured judge (docs/api.md): start it (or get the running one's status), its status,
     * cancel it. Each resolves with {ok, calibration: {state, done, total, eta_s, calibrated, error}}. */
    calibrate() { return this.request("/calibrate", { method: "POST" }); }
    calibration() { return this.request("/calibrate"); }
    cancelCalibration() { return this.request("/calibrate", { method: "DELETE" }); }

    /** The Zotero source (docs/api.md): its state, and a sync now (dataDir: Zotero's data directory, or none for the
     * last one synced or the one found). Each resolves with {ok, zotero: {data_dir, documents, ready, collections, …}}. */
    zotero() { return this.request("/zotero"); }
    zoteroSync(dataDir, replace = false) {
      const body = { ...(dataDir ? { data_dir: dataDir } : {}), ...(replace ? { replace: true } : {}) };
      return this.request("/zotero/sync", {
        method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" },
      });
    }

    /** The PDF bytes of a document, as an ArrayBuffer. */
    async file(id) {
      const response = await this.request("/documents/" + encodeURIComponent(id) + "/file", { raw: true });
      return response.arrayBuffer();
    }

    /**
     * POST /check, streaming: onEvent(event) per NDJSON object as it arrives. Resolves when the
     * stream ends. A server that answers with one JSON object is replayed as events.
     */
    async check(text, { onEvent, signal, documents, collection, options } = {}) {
      const payload = { text };
      if (documents && documents.length) payload.documents = documents;
      if (collection) payload.collection = collection;  // only the PDFs of this Zotero collection
      // Each critique brings its sentence's revision; "revise" also puts them all in the text (Revise all asks for it).
      payload.options = Object.assign({ revise: false, decompose: false }, options || {});
      const response = await this.request("/check", {
        method: "POST", raw: true, signal, body: JSON.stringify(payload),
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
      });
      const type = response.headers.get("Content-Type") || "";
      // An error event's message is read by a person too.
      const deliver = (e) => onEvent(e && e.type === "error" && e.error ? Object.assign({}, e, { error: Object.assign({}, e.error, { message: plain(e.error.message) }) }) : e);
      if (type.includes("application/json")) {
        const whole = await response.json();
        deliver({ type: "sentences", sentences: whole.sentences || [] });
        for (const v of whole.verdicts || []) deliver(Object.assign({ type: "verdict" }, v));
        deliver(Object.assign({ type: "summary" }, whole.summary || {}));
        return;
      }
      await ndjson.readStream(response, deliver, (line) => {
        deliver({ type: "error", error: { code: "request_failed", message: "The backend sent a line that is not JSON: " + line.slice(0, 80) } });
      });
    }
  }

  /** The client for the backend the settings (lib/settings.js load()) name, with its token. */
  const clientFor = (settings) => new BackendClient({ baseUrl: settings.backendUrl, token: settings.token });

  const api = { BackendClient, BackendError, toFriendly, clientFor };
  root.SC = root.SC || {};
  root.SC.apiClient = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
