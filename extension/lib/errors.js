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
    model_unreachable: {
      message: (e) => e.message || "The model server the backend uses is not answering.",
      hint: "Start it (Ollama, LM Studio, llama.cpp server…) or point SOURCECHECK_BASE_URL at one, then check again.",
    },
    index_unreachable: {
      message: (e) => e.message || "The shared library's Chroma server is not answering.",
      hint: "Start it (chroma run --path FOLDER --port PORT) or check SOURCECHECK_CHROMA_URL where the backend runs.",
    },
    file_elsewhere: {
      message: (e) => e.message || "This PDF is in the shared library but not on this computer.",
      hint: "Its passages are still checked; add the PDF here to open it.",
    },
    model_timeout: {
      message: (e) => e.message || "The model took too long to answer.",
      hint: "Check fewer sentences at once, or again when the computer is less busy.",
    },
    model_failed: {
      message: (e) => e.message || "The model failed while checking.",
      hint: "Look at the terminal where the backend runs; checking again may work.",
    },
    // A file the backend will not take: trying the same file again cannot help, so the hint says what can.
    file_refused: {
      message: (e) => e.message || "This file cannot be added.",
      hint: (e) => FILE_HINTS[e.code] || "This file cannot be added as it is; adding it again will not help.",
    },
    // Reading a Zotero library, or a check limited to one of its collections: the backend's message says what to do.
    zotero: {
      message: (e) => e.message || "The Zotero library could not be read.",
      hint: (e) => e.code === "collection_not_found"
        ? "Choose another collection, or the whole library, in the side panel (Settings → Zotero)."
        : e.code === "zotero_other_library"
          ? "Click Switch library to sync this folder instead, or sync the folder synced before."
          : "Then sync again: side panel, Settings → Zotero → Sync now.",
    },
    // A quick calibration that would replace a finer one: the backend's message says which.
    calibration_coarser: {
      message: (e) => e.message || "This calibration would replace a finer one.",
      hint: "Calibrate from the side panel (it reads the whole set), or run sourcecheck calibrate --replace.",
    },
    rate_limited: {
      message: (e) => e.message || "Too many attempts.",
      hint: "Wait a minute, then try again.",
    },
    request_failed: {
      message: (e) => `The request failed${e.message ? ": " + e.message : "."}`,
      hint: "Try again; if it keeps failing, look at the terminal where the backend runs.",
    },
  };

  const FILE_HINTS = {
    not_a_pdf: "Only PDF files can be added.",
    pdf_encrypted: "Remove its password (for example qpdf --decrypt in.pdf out.pdf) and add the result.",
    pdf_no_text: "Nothing on it could be read. If it is a scan, install Tesseract where the backend runs (it reads scans), " +
      "or run ocrmypdf on it and add the result.",
    pdf_corrupt: "The file is damaged: download or export it again.",
    pdf_empty: "The file has no pages.",
    pdf_too_long: "Split it into parts, or raise SOURCECHECK_MAX_PAGES where the backend runs.",
    too_large: "Split it, or raise SOURCECHECK_MAX_UPLOAD_MB where the backend runs.",
    library_full: "Delete PDFs you no longer need, or raise SOURCECHECK_MAX_LIBRARY_MB where the backend runs.",
    pdf_timeout: "Reading it took too long; raise SOURCECHECK_PARSE_TIMEOUT_S where the backend runs.",
    pdf_too_complex: "Reading it needed too much memory; raise SOURCECHECK_PARSE_MEMORY_MB where the backend runs.",
  };

  // Each backend code to the friendly code it is shown as (docs/api.md lists them). Anything else: request_failed.
  const CODES = {
    unauthorized: "not_paired", not_paired: "not_paired", bad_token: "not_paired", invalid_token: "not_paired",
    bad_pairing_code: "pairing_failed", pairing_failed: "pairing_failed",
    empty_library: "empty_library", empty_text: "empty_text", text_too_long: "text_too_long",
    model_missing: "model_missing", model_corrupt: "model_missing", embeddings_missing: "model_missing",
    model_unreachable: "model_unreachable", model_timeout: "model_timeout",
    index_unreachable: "index_unreachable", document_file_elsewhere: "file_elsewhere",
    model_error: "model_failed", model_bad_response: "model_failed", prompt_too_long: "model_failed",
    host_not_allowed: "forbidden", origin_not_allowed: "forbidden", forbidden: "forbidden",
    rate_limited: "rate_limited", no_selection: "no_selection",
    calibration_coarser: "calibration_coarser",
    ...Object.fromEntries(["zotero_not_found", "zotero_busy", "zotero_schema_newer", "zotero_unreadable",
      "zotero_other_library", "collection_not_found"].map((c) => [c, "zotero"])),
    ...Object.fromEntries(["no_file", "pdf_invalid", "pdf_reader_failed", "ingest_failed", ...Object.keys(FILE_HINTS)]
      .map((c) => [c, "file_refused"])),
  };

  /**
   * A friendly error from what went wrong:
   *  {network: true, backendUrl}                        fetch itself failed (nothing listening)
   *  {status, code, message, backendUrl}                an HTTP error with the API's error body
   *  {code, message}                                    an error event in the stream, or our own
   */
  function friendlyError(e) {
    const input = e || {};
    let code = "request_failed";
    if (input.network) code = "backend_unreachable";
    else if (CODES[input.code]) code = CODES[input.code];
    else if (HINTS[input.code] && !input.status) code = input.code;
    else if (input.status === 401) code = "not_paired";
    const h = HINTS[code];
    const out = { code, message: h.message(input), hint: typeof h.hint === "function" ? h.hint(input) : h.hint };
    if (h.command) out.command = h.command;
    if (input.code && input.code !== code) out.detail = input.code;
    return out;
  }

  const api = { friendlyError, SERVE, SETUP };
  root.SC = root.SC || {};
  root.SC.errors = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
