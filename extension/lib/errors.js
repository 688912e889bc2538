// Errors a person understands. Everything that can go wrong between the page and the backend is
// turned into {code, message, hint, command} here, once, for the side panel and the page card.
(function (root) {
  "use strict";

  const SERVE = "scripts/serve";
  const SETUP = "scripts/setup";

  const HINTS = {
    backend_unreachable: {
      message: (e) => `The sourcecheck backend is not running at ${e.backendUrl || "its address"}.`,
      hint: "Start it in a terminal, in the sourcecheck folder:",
      command: SERVE,
    },
    not_paired: {
      message: () => "This browser is not paired with the sourcecheck backend yet.",
      hint: "Open the sourcecheck side panel and enter the pairing code the server printed when it started " +
        "(or run sourcecheck pair in a terminal for a fresh one).",
    },
    pairing_failed: {
      message: (e) => e.message || "That pairing code was not accepted.",
      hint: "Codes are single-use and last 10 minutes: check the code the server printed, or run sourcecheck pair " +
        "in a terminal for a fresh one.",
    },
    empty_library: {
      message: (e) => e.message || "Your library is empty, so there is nothing to check against.",
      hint: "Add PDFs in the side panel: drop them on the Library area or use the file picker.",
    },
    model_missing: {
      message: (e) => e.message || "The model the backend needs is not installed.",
      hint: "Install the default model, then restart the backend:",
      command: SETUP,
    },
    forbidden: {
      message: (e) => e.message || "The backend refused the request.",
      hint: "Check the backend URL in the side panel settings (use 127.0.0.1 or localhost).",
    },
    text_too_long: {
      message: (e) => e.message || "The selection is too long to check at once.",
      hint: "Select a shorter passage (up to 20,000 characters).",
    },
    empty_text: {
      message: (e) => e.message || "There is no text in the selection.",
      hint: "Select the sentences you want to check, then try again.",
    },
    no_selection: {
      message: () => "Select some text on the page first.",
      hint: "Then click the sourcecheck button next to it, use the context menu, or press the shortcut.",
    },
    request_failed: {
      message: (e) => `The request failed${e.message ? ": " + e.message : "."}`,
      hint: "Try again; if it keeps failing, look at the terminal where the backend runs.",
    },
  };

  /** The code for a backend error, folding the many model errors into one. */
  function classify(status, code) {
    if (code === "empty_library" || status === 409) return "empty_library";
    if (code && /model/.test(code)) return "model_missing";
    if (status === 401 || code === "unauthorized" || code === "not_paired" || code === "invalid_token") return "not_paired";
    if (code === "empty_text") return "empty_text";
    if (status === 413 || code === "text_too_long" || code === "payload_too_large") return "text_too_long";
    if (status === 403) return "forbidden";
    return code && HINTS[code] ? code : "request_failed";
  }

  /**
   * A friendly error from what went wrong:
   *  {network: true, backendUrl}                        fetch itself failed (nothing listening)
   *  {status, code, message, backendUrl}                an HTTP error with the API's error body
   *  {code, message}                                    an error event in the stream, or our own
   */
  function friendlyError(e) {
    const input = e || {};
    let code;
    if (input.network) code = "backend_unreachable";
    else if (input.code && HINTS[input.code] && !input.status) code = input.code;
    else code = classify(input.status, input.code);
    const h = HINTS[code];
    const out = { code, message: h.message(input), hint: h.hint };
    if (h.command) out.command = h.command;
    if (input.code && input.code !== code) out.detail = input.code;
    return out;
  }

  const api = { friendlyError, SERVE, SETUP };
  root.SC = root.SC || {};
  root.SC.errors = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
