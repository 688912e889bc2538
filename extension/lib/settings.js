// User settings kept in extension storage, with their defaults in one place.
(function (root) {
  "use strict";

  const DEFAULTS = Object.freeze({
    backendUrl: "http://127.0.0.1:8765", // where `scripts/serve` listens by default
    showSupported: false,                // also mark sentences the sources back
    sensitivity: "balanced",             // how readily sentences are marked: relaxed | balanced | strict
    collection: "",                      // check only against this Zotero collection's PDFs ("": the whole library)
    token: "",                           // from POST /pair, for backendUrl
    tokens: {},                          // backend URL -> its token, for switching back without pairing again
  });

  /** A backend URL without trailing slashes (http:// added when no scheme is given), or throws with a sentence for a person. */
  function normalizeBackendUrl(value) {
    let url;
    const text = String(value).trim();
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : "http://" + text);
    } catch (_) {
      throw new Error("The backend URL is not a valid address, e.g. http://127.0.0.1:8765");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new Error("The backend URL must start with http:// or https://");
    }
    return (url.origin + url.pathname).replace(/\/+$/, "");
  }

  /** Settings with defaults filled in, from a storage getter (SC.browser.get). */
  async function load(get) {
    const stored = await get(Object.keys(DEFAULTS));
    return Object.assign({}, DEFAULTS, stored || {});
  }

  /** The storage items for a switch from settings s to backend url: s's token kept for its backend, url's restored. */
  function switchBackend(s, url) {
    const tokens = Object.assign({}, s.tokens || {});
    if (s.token) tokens[s.backendUrl] = s.token;
    return { tokens, token: tokens[url] || "" };
  }

  /** The storage items after pairing with s.backendUrl. */
  function paired(s, token) {
    return { token, tokens: Object.assign({}, s.tokens || {}, { [s.backendUrl]: token }) };
  }

  const api = { DEFAULTS, normalizeBackendUrl, load, switchBackend, paired };
  root.SC = root.SC || {};
  root.SC.settings = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
