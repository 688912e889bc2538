// User settings kept in extension storage, with their defaults in one place.
(function (root) {
  "use strict";

  const DEFAULTS = Object.freeze({
    backendUrl: "http://127.0.0.1:8765", // where `scripts/serve` listens by default
    showSupported: false,                // also mark sentences the sources back
    sensitivity: "balanced",             // how readily sentences are marked: relaxed | balanced | strict
    token: "",                           // from POST /pair
  });

  /** A backend URL without trailing slashes, or throws with a sentence for a person. */
  function normalizeBackendUrl(value) {
    let url;
    try {
      url = new URL(String(value).trim());
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

  const api = { DEFAULTS, normalizeBackendUrl, load };
  root.SC = root.SC || {};
  root.SC.settings = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
