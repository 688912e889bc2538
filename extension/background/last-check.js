// The last check, kept in session storage for the side panel's results list: updated as its events stream in and
// as the page reports sentences it can no longer find; the check follows its tab when the browser swaps the tab.
(function (root) {
  "use strict";

  const { browser: B, checkState: CS } = root.SC;
  const { fromPage, refused } = root.SC.bg.sender;

  let latestCheckId = null; // a replaced check's late events must not overwrite the newer one's results
  const states = new Map(); // checkId -> state, to merge re-anchoring reports
  const tabs = new Map(); // checkId -> the tab it ran in: only that tab reports its missing marks

  /** A check starts: it is the latest one; what was kept of the ones before it in this worker goes. */
  function begin(checkId, state, tab) {
    latestCheckId = checkId;
    states.clear();
    states.set(checkId, state);
    tabs.clear();
    if (tab) tabs.set(checkId, tab);
  }

  /** One event of a check onto its state, taken from the kept state: it holds the missing marks the page reported
   * meanwhile (marksStatus). */
  function apply(checkId, state, event) {
    const next = CS.apply(states.get(checkId) || state, event);
    if (states.has(checkId)) states.set(checkId, next);
    return next;
  }

  /** Keep a check as the last one. A check that failed or was cancelled before it found its sentences keeps the
   * results of the one before it (as the page keeps its marks), a failure noted. */
  async function save(state, tab) {
    if (state.checkId !== latestCheckId) return;
    if ((state.status === "error" || state.status === "cancelled") && !state.sentences.length) {
      const { lastCheck: before } = await B.sessionGet("lastCheck");
      if (before && before.sentences && before.sentences.length) {
        if (state.status === "error") await B.sessionSet({ lastCheck: Object.assign({}, before, { recheckError: state.error }) });
        return;
      }
    }
    const sentences = state.sentences.map((s) => {
      const v = state.verdicts[s.index] || null;
      return {
        index: s.index, key: state.checkId + ":" + s.index, text: s.text, label: CS.labelOf(state, s.index),
        p_supported: v ? v.p_supported : null, critique: v ? v.critique : null, error_type: v ? v.error_type : null,
        missing: state.missing.includes(state.checkId + ":" + s.index),
      };
    });
    const lastCheck = {
      checkId: state.checkId, tabId: tab ? tab.id : null, url: tab ? tab.url : null, status: state.status, text: state.text,
      sentences, summary: state.summary, error: state.error, counts: CS.counts(state), judge: state.judge || null, at: Date.now(),
    };
    await B.sessionSet({ lastCheck });
  }

  /** Which sentences of a check the page can no longer find (re-anchoring). A check of an earlier life of this worker
   * (a reloaded page restoring its marks) is found in the kept last check. Only the tab the check ran in reports for
   * it: the same page open in another tab (its marks restored from memory) must not move the panel's last check to
   * that tab nor set its "not on this page" flags. */
  async function marksStatus(msg, sender) {
    if (!fromPage(sender)) return refused("which marks are missing is reported by the page");
    const state = states.get(msg.checkId);
    const ran = tabs.get(msg.checkId);  // unknown (a check started without a tab): the reporting tab stands in
    if (state) {
      if (ran && ran.id !== sender.tab.id) return { ok: true, kept: false };
      const next = Object.assign({}, state, { missing: msg.missing || [] });
      states.set(msg.checkId, next);
      await save(next, ran || sender.tab);
      return { ok: true };
    }
    const { lastCheck } = await B.sessionGet("lastCheck");
    if (!lastCheck || lastCheck.checkId !== msg.checkId) return { ok: true, kept: false };
    if (lastCheck.tabId !== null && lastCheck.tabId !== undefined && lastCheck.tabId !== sender.tab.id) return { ok: true, kept: false };
    const missing = new Set(msg.missing || []);
    const sentences = lastCheck.sentences.map((s) => Object.assign({}, s, { missing: missing.has(s.key) }));
    await B.sessionSet({ lastCheck: Object.assign({}, lastCheck, { sentences }) });
    return { ok: true };
  }

  /** A tab the browser swaps for another (a prerendered page, a restored tab) takes a new id: its check follows it,
   * so the page's missing-mark reports are still its own (marksStatus). */
  async function tabReplaced(added, removed) {
    for (const [checkId, tab] of tabs) if (tab.id === removed) tabs.set(checkId, Object.assign({}, tab, { id: added }));
    const { lastCheck } = await B.sessionGet("lastCheck");
    if (lastCheck && lastCheck.tabId === removed) await B.sessionSet({ lastCheck: Object.assign({}, lastCheck, { tabId: added }) });
  }

  root.SC.bg.lastCheck = { begin, apply, save, marksStatus, tabReplaced };
})(globalThis);
