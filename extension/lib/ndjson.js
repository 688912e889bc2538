// Newline-delimited JSON, as POST /check streams it: objects arrive in arbitrary chunks.
(function (root) {
  "use strict";

  /**
   * A parser fed with text chunks; onObject(obj) for each complete line, onBadLine(line, err)
   * for a line that is not JSON (default: throw).
   */
  function createParser(onObject, onBadLine) {
    let buffer = "";
    function line(text) {
      const trimmed = text.trim();
      if (!trimmed) return;
      let obj;
      try {
        obj = JSON.parse(trimmed);
      } catch (err) {
        if (onBadLine) { onBadLine(trimmed, err); return; }
        throw err;
      }
      onObject(obj);
    }
    return {
      push(chunk) {
        buffer += chunk;
        let nl;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const text = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          line(text);
        }
      },
      end() {
        const rest = buffer;
        buffer = "";
        line(rest);
      },
    };
  }

  /** Read a fetch Response body as NDJSON, calling onObject per object. Resolves at the end. */
  async function readStream(response, onObject, onBadLine) {
    const parser = createParser(onObject, onBadLine);
    const decoder = new TextDecoder("utf-8");
    const reader = response.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
    parser.end();
  }

  const api = { createParser, readStream };
  root.SC = root.SC || {};
  root.SC.ndjson = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
