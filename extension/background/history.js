// The recent checks, kept in local storage across restarts for the side panel's list and its Markdown export.
(function (root) {
  "use strict";

  const { browser: B, checkState: CS } = root.SC;

  const HISTORY = 20; // finished checks kept
  const KEPT_EVIDENCE = 3; // passages kept per sentence: 20 checks stay far below storage.local's 10 MB
  let writes = Promise.resolve(); // one write at a time: two checks ending together both stay

  /** Keep a finished (or cancelled) check, newest first. */
  function save(state, tab) {
    const verdicts = Object.values(state.verdicts).map((v) => Object.assign({}, v, {
      evidence: (v.evidence || []).slice(0, KEPT_EVIDENCE).map((e) => ({
        filename: e.filename, document_id: e.document_id, page: e.page, stance: e.stance, quote: e.quote })),
    }));
    const entry = {
      checkId: state.checkId, at: Date.now(), url: tab ? tab.url : "", title: tab ? tab.title : "", status: state.status,
      counts: CS.counts(state), result: { sentences: state.sentences, verdicts, summary: state.summary },
    };
    writes = writes.then(async () => {
      const { history } = await B.get("history");
      const kept = (Array.isArray(history) ? history : []).filter((h) => h.checkId !== state.checkId);
      await B.set({ history: [entry, ...kept].slice(0, HISTORY) });
    }).catch((err) => console.warn("sourcecheck: the check was not kept in history:", err));
    return writes;
  }

  root.SC.bg.history = { save };
})(globalThis);
