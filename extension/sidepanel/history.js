// The side panel's recent checks (the last 20, kept across restarts), each with Export to a Markdown report.
(function () {
  "use strict";

  const L = globalThis.SC.labels;
  const P = globalThis.SC.panel;
  const { $, el } = P;

  const when = (ms) => new Date(ms).toLocaleString();

  /** Download one kept check as a Markdown file. */
  function exportCheck(h) {
    const md = globalThis.SC.report.markdown(h.result, { title: h.title, url: h.url, checkedAt: when(h.at) });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([md], { type: "text/markdown" }));
    a.download = `sourcecheck-${new Date(h.at).toISOString().slice(0, 16).replace(/[T:]/g, "-")}.md`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  function renderHistory(history) {
    const items = Array.isArray(history) ? history : [];
    $("history-empty").hidden = items.length > 0;
    $("history-list").replaceChildren(...items.map((h) => {
      const li = el("li", "history");
      li.dataset.checkId = h.checkId;
      const c = h.counts || {};
      const info = el("div", "grow");
      info.append(el("div", "name", h.title || h.url || "a page"));
      info.append(el("div", "hint", [when(h.at), h.status === "cancelled" ? "cancelled" : null, L.countsText(c)]
        .filter(Boolean).join(" · ")));
      const exp = el("button", "small export", "Export");
      exp.type = "button";
      exp.title = "Save this check as a Markdown report";
      exp.addEventListener("click", () => exportCheck(h));
      const line = el("div", "line");
      line.append(info, exp);
      li.append(line);
      return li;
    }));
  }

  Object.assign(globalThis.SC.panel, { renderHistory });
})();
