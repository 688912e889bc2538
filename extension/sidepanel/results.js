// The side panel's last check: its sentences (click one to scroll the page to it), and Revise all, the whole text
// rewritten from the critiques and shown as a word diff.
(function () {
  "use strict";

  const { browser: B, messages: M, errors: E, settings: S, labels: L } = globalThis.SC;
  const P = globalThis.SC.panel;
  const { $, el } = P;
  let revisedFor = null;  // the check whose revision is shown

  function percent(p) {
    if (p > 0 && p < 0.01) return "<1%";
    if (p < 1 && p > 0.99) return ">99%";
    return Math.round(p * 100) + "%";
  }

  function renderLastCheck(lc) {
    const list = $("result-list");
    if (!lc) { list.replaceChildren(); return; }
    const c = lc.counts || {};
    let summary;
    if (lc.status === "error" && lc.error) summary = lc.error.message;
    else if (lc.status === "checking") summary = `Checking… ${c.supported + c.contradicted + c.unsupported} done`;
    else summary = (lc.status === "cancelled" ? "Cancelled · " : "") +
      `${c.contradicted || 0} contradicted, ${c.unsupported || 0} not supported, ${c.supported || 0} supported` +
      (lc.summary && typeof lc.summary.p_all_supported === "number" ? ` · P(all supported) ${percent(lc.summary.p_all_supported)}` : "");
    if (lc.recheckError) summary += ` · the check after this one failed (${lc.recheckError.message}), so these results are kept`;
    const missing = lc.sentences.filter((s) => s.missing).length;
    if (missing) summary += ` · ${missing} no longer on the page`;
    $("results-summary").textContent = summary;
    $("results-summary").dataset.status = lc.status;
    // The whole-text revision: for a finished check with something to fix.
    $("revise-all").hidden = !(lc.status === "done" && lc.text && (c.contradicted || c.unsupported));
    if (lc.checkId !== revisedFor) { $("revision").hidden = true; $("revise-msg").textContent = ""; }
    list.replaceChildren(...lc.sentences.map((s) => {
      const li = el("li", s.missing ? "missing" : "");
      li.dataset.key = s.key;
      li.dataset.label = s.label;
      li.title = s.missing ? "This sentence can no longer be found on the page" : (s.critique || "Show in the page");
      li.append(el("span", "chip " + s.label, L.LABEL_SHORT[s.label] || s.label));
      const text = el("span", "text", s.text + (s.missing ? " (no longer on the page)" : ""));
      const type = L.errorTypeText(s.error_type);
      if (type) {
        const etype = el("span", "etype", type);
        etype.title = L.errorTypeTitle(s.error_type);
        text.append(" ", etype);
      }
      li.append(text);
      li.addEventListener("click", async () => {
        try { await P.ask(M.MSG.SCROLL_TO, { tabId: lc.tabId, key: s.key }); } catch (err) { P.showBanner(err); }
      });
      return li;
    }));
  }

  $("revise-all").addEventListener("click", async () => {
    const { lastCheck: lc } = await B.sessionGet("lastCheck");
    if (!lc || !lc.text) return;
    $("revise-all").disabled = true;
    $("revise-msg").textContent = "Rewriting the text from the critiques…";
    try {
      const { sensitivity } = await S.load(B.get);
      let revised = lc.text, failed = null;
      // The check again with revise: true (its verdicts and critiques come from the backend's cache).
      await P.call((c) => c.check(lc.text, {
        options: { revise: true, sensitivity },
        onEvent: (e) => {
          if (e.type === "summary" && e.revised_text) revised = e.revised_text;
          if (e.type === "error") failed = e.error;
        },
      }));
      if (failed) throw E.friendlyError(failed);
      const { lastCheck: now } = await B.sessionGet("lastCheck");
      if (!now || now.checkId !== lc.checkId) { $("revise-msg").textContent = ""; return; }  // a newer check came meanwhile
      revisedFor = lc.checkId;
      const parts = globalThis.SC.diff.wordDiff(lc.text, revised);
      $("revision-diff").replaceChildren(...parts.map((p) => (p.op === "same" ? document.createTextNode(p.text) : el(p.op, null, p.text))));
      $("revision-diff").dataset.revised = revised;
      $("revision").hidden = false;
      const changed = parts.filter((p) => p.op !== "same").length;
      $("revise-msg").textContent = changed ? "" : "The revision changed nothing.";
    } catch (err) {
      $("revise-msg").textContent = err.message + (err.hint ? " " + err.hint : "");
    } finally {
      $("revise-all").disabled = false;
    }
  });

  $("revision-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("revision-diff").dataset.revised || "");
      $("revision-copy").textContent = "Copied";
    } catch (_) {
      $("revision-copy").textContent = "Copy failed";
    }
    setTimeout(() => { $("revision-copy").textContent = "Copy"; }, 1500);
  });

  Object.assign(globalThis.SC.panel, { renderLastCheck });
})();
