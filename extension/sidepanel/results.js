// The side panel's last check: its sentences, most doubtful first (click one to scroll the page to it). Revise all
// is revise.js's.
(function () {
  "use strict";

  const { messages: M, labels: L } = globalThis.SC;
  const P = globalThis.SC.panel;
  const { $, el } = P;

  function renderLastCheck(lc) {
    const list = $("result-list");
    if (!lc) { list.replaceChildren(); return; }
    const c = lc.counts || {};
    let summary;
    if (lc.status === "error" && lc.error) summary = lc.error.message;
    else if (lc.status === "checking") summary = `Checking… ${L.checkedCount(c)} done`;
    // The grades counted, never P(all supported): ten sentences at 0.6 make 0.6 %, the opposite of their marks.
    else summary = (lc.status === "cancelled" ? "Cancelled · " : "") + L.countsText(c);
    if (lc.judge && lc.judge.calibrated === false) summary += " · this judge is not calibrated yet (see Settings)";
    if (lc.recheckError) summary += ` · the check after this one failed (${lc.recheckError.message}), so these results are kept`;
    const missing = lc.sentences.filter((s) => s.missing).length;
    if (missing) summary += ` · ${missing} no longer on the page`;
    $("results-summary").textContent = summary;
    $("results-summary").dataset.status = lc.status;
    // Revise all (revise.js): for a finished check with something to fix.
    $("revise-all").hidden = !(lc.status === "done" && lc.text && (c.contradicted || c.unsupported));
    P.forgetRevision(lc.checkId);
    list.replaceChildren(...lc.sentences.slice().sort(L.byDoubt).map((s) => {
      const li = el("li", s.missing ? "missing" : "");
      li.dataset.key = s.key;
      li.dataset.label = s.label;
      li.title = s.missing ? "This sentence can no longer be found on the page" : (s.critique || "Show in the page");
      li.append(L.colourChip(el("span", "chip " + s.label, L.LABEL_SHORT[s.label] || s.label), s.label));
      const text = el("span", "text", s.text + (s.missing ? " (no longer on the page)" : ""));
      const type = L.errorTypeText(s.error_type);
      if (type) {
        const etype = el("span", "etype", type);
        etype.title = L.errorTypeTitle(s.error_type);
        text.append(" ", etype);
      }
      const where = el("span", "where");
      li.append(text, where);
      // A click always shows something: the page scrolls to the sentence and flashes it, or the row says why not.
      li.addEventListener("click", async () => {
        where.textContent = "";
        try { await P.ask(M.MSG.SCROLL_TO, { tabId: lc.tabId, key: s.key }); } catch (err) { where.textContent = err.message; }
      });
      return li;
    }));
  }

  Object.assign(globalThis.SC.panel, { renderLastCheck });
})();
