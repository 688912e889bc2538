// A check, streamed: the content script sends its text over a port (a page's own fetch to the backend would be
// refused), the backend's events go back over it as they come and into the last check and, when it ends, the
// recent checks. Closing the port cancels the check.
(function (root) {
  "use strict";

  const { browser: B, messages: M, errors: E, settings: S, checkState: CS, apiClient: A } = root.SC;
  const { incognito } = root.SC.bg.sender;
  const LC = root.SC.bg.lastCheck;
  const HISTORY = root.SC.bg.history;

  async function client() {
    return A.clientFor(await S.load(B.get));
  }

  // Chromium stops an idle service worker after 30 s; the first verdict of a real model can take
  // longer than that (model load), so an API call every 20 s keeps the worker alive while checking.
  let running = 0;
  let keepAlive = null;
  function checkStarted() {
    running += 1;
    if (!keepAlive) keepAlive = setInterval(() => B.ext.runtime.getPlatformInfo(), 20000);
  }
  function checkEnded() {
    running = Math.max(0, running - 1);
    if (!running && keepAlive) { clearInterval(keepAlive); keepAlive = null; }
  }

  /** Check port: the content script sends {type:"check", text, checkId}; events stream back. */
  function onCheckPort(port) {
    const abort = new AbortController();
    port.onDisconnect.addListener(() => abort.abort());
    port.onMessage.addListener(async (msg) => {
      if (msg.type !== "check") return;
      const tab = port.sender && port.sender.tab;
      let state = CS.initial(msg.checkId, msg.text);
      LC.begin(msg.checkId, state, tab);
      const emit = (event) => {
        const problem = M.checkEventProblem(event);
        if (problem) event = { type: "error", error: { code: "request_failed", message: "Unexpected answer from the backend (" + problem + ")." } };
        if (event.type === "error") event = { type: "error", error: E.friendlyError(event.error) };
        state = LC.apply(msg.checkId, state, event);
        try { port.postMessage(event); } catch (_) { /* the tab went away */ }
        LC.save(state, tab);
        if (event.type === "summary" && !incognito(tab)) HISTORY.save(state, tab);
      };
      checkStarted();
      try {
        const c = await client();
        if (!c.token) throw new A.BackendError({ code: "not_paired", status: 401 }, c.baseUrl);
        const { sensitivity, collection } = await S.load(B.get);
        await c.check(msg.text, { onEvent: emit, signal: abort.signal, collection, options: { sensitivity } });
        if (state.status === "checking") emit({ type: "summary", counts: CS.counts(state), p_all_supported: null });
      } catch (err) {
        if (err && err.name === "AbortError") {
          // The page closed the port: the check was cancelled (or replaced, or its tab closed).
          if (state.status === "checking") {
            const cancelled = Object.assign({}, state, { status: "cancelled" });
            LC.save(cancelled, tab);
            if (state.sentences.length && !incognito(tab)) HISTORY.save(cancelled, tab);
          }
          return;
        }
        const event = { type: "error", error: A.toFriendly(err) };
        state = CS.apply(state, event);
        try { port.postMessage(event); } catch (_) { /* the tab went away */ }
        LC.save(state, tab);
      } finally {
        checkEnded();
      }
    });
  }

  root.SC.bg.checks = { onCheckPort };
})(globalThis);
