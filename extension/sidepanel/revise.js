// The side panel's Revise all: the checked text with each flagged sentence replaced by its verified revision (the
// backend's summary.revised_text; docs/api.md). Shown as only what changed: each revised sentence as a word diff,
// each flagged sentence no revision held for with a note; the rest of the text is as written, so it is not shown
// (a person reads the changes, not the whole text again). Copy takes the whole revised text.
(function () {
  "use strict";

  const { browser: B, errors: E, settings: S, diff: D, labels: L } = globalThis.SC;
  const P = globalThis.SC.panel;
  const { $, el } = P;
  const LEFT = "left as written: no revision your PDFs support";
  // An uncertain sentence was checked neither way: nothing says it is wrong, so nothing is offered for it.
  const UNSURE = "left as written: not sure either way, so no revision is offered";
  let shownFor = null;  // the check whose revision is shown

  /** The check again with revise on (the backend answers from its cache): its sentences, verdicts and summary. */
  async function fetchRevision(text) {
    const { sensitivity, collection } = await S.load(B.get);
    const r = { sentences: [], verdicts: {}, summary: null, error: null };
    await P.call((c) => c.check(text, {
      collection,  // against the same PDFs as the check it revises
      options: { revise: true, sensitivity },
      onEvent: (e) => {
        if (e.type === "sentences") r.sentences = e.sentences;
        else if (e.type === "verdict") r.verdicts[e.index] = e;
        else if (e.type === "summary") r.summary = e;
        else if (e.type === "error") r.error = e.error;
      },
    }));
    if (r.error) throw E.friendlyError(r.error);
    if (!r.summary || typeof r.summary.revised_text !== "string") {
      throw E.friendlyError({ code: "request_failed", message: "the backend sent no revised text" });
    }
    return r;
  }

  /** One row per flagged sentence, in text order: {changed: wordDiff} or {left: its text}. */
  function rowsOf(r) {
    const unrevised = new Set(r.summary.unrevised || []);
    const rows = [];
    for (const s of r.sentences) {
      const v = r.verdicts[s.index];
      if (!v || v.label === "supported") continue;
      if (v.label === "uncertain") rows.push({ left: s.text, note: UNSURE });
      else if (unrevised.has(s.index) || !v.revised) rows.push({ left: s.text, note: LEFT });
      else if (v.revised !== s.text) rows.push({ changed: D.wordDiff(s.text, v.revised) });
    }
    return rows;
  }

  function render(rows) {
    $("revision-diff").replaceChildren(...rows.map((row) => {
      if (row.left) {
        const li = el("li", "unrevised");
        li.append(el("span", "text", row.left), el("span", "note", row.note));
        return li;
      }
      const li = el("li", "changed diff");
      li.append(...row.changed.map((p) => (p.op === "same" ? document.createTextNode(p.text) : el(p.op, null, p.text))));
      return li;
    }));
    const changed = rows.filter((row) => row.changed).length;
    const left = rows.length - changed;
    if (!rows.length) return "The revision changed nothing.";
    if (!changed) return "No sentence could be revised from your PDFs; the text stays as you wrote it.";
    return `${L.count(changed, "sentence")} revised` + (left ? `, ${left} left as written` : "") + "; the rest as you wrote it.";
  }

  $("revise-all").addEventListener("click", async () => {
    const { lastCheck: lc } = await B.sessionGet("lastCheck");
    if (!lc || !lc.text) return;
    $("revise-all").disabled = true;
    $("revise-msg").textContent = "Putting the verified revisions in place…";
    try {
      const r = await fetchRevision(lc.text);
      const { lastCheck: now } = await B.sessionGet("lastCheck");
      if (!now || now.checkId !== lc.checkId) { $("revise-msg").textContent = ""; return; }  // a newer check came meanwhile
      shownFor = lc.checkId;
      $("revise-msg").textContent = render(rowsOf(r));
      $("revision-diff").dataset.revised = r.summary.revised_text;
      $("revision").hidden = false;
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

  /** A newer check is shown: its revision is not the one on screen. */
  function forgetRevision(checkId) {
    if (checkId === shownFor) return;
    $("revision").hidden = true;
    $("revise-msg").textContent = "";
  }

  Object.assign(globalThis.SC.panel, { forgetRevision });
})();
