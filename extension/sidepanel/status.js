// The side panel's status (backend, pairing, model, library) and the pairing form.
(function () {
  "use strict";

  const { browser: B, settings: S, labels: L } = globalThis.SC;
  const P = globalThis.SC.panel;
  const { $ } = P;

  async function refreshStatus() {
    const st = await (await P.client()).status();
    const dot = $("status-dot");
    dot.className = "dot " + (st.reachable && st.paired ? "ok" : st.reachable ? "warn" : "bad");
    $("status-backend").textContent = (st.reachable ? "running at " : "not reachable at ") + st.backendUrl;
    $("status-backend").dataset.reachable = String(st.reachable);
    // A backend that is down cannot say whether this browser is paired: "no" would send people to pair again.
    $("status-paired").textContent = !st.reachable ? "unknown (backend not running)" : st.paired ? "yes" : "no";
    $("status-paired").dataset.paired = String(st.paired);
    const m = st.model;
    if (m) {
      const missing = m.available === false || m.installed === false || m.error;
      $("status-model").textContent = `${m.name || "?"} (${m.backend || "?"})` +
        (missing ? " — not installed: run scripts/setup" : m.loaded ? " — loaded" : " — loads on first check") +
        (m.calibrated === false ? " · not calibrated (see Settings)" : "");
    } else {
      $("status-model").textContent = "–";
    }
    $("status-library").textContent = st.library ? `${L.count(st.library.documents, "PDF")}, ${L.count(st.library.chunks, "passage")}` : "–";
    P.renderCalibration(st);  // calibrate.js
    $("pairing").hidden = !st.reachable || st.paired;
    P.showBanner(st.error || null);
    if (st.paired) P.refreshDocuments();
    else P.clearLibrary(false);  // an unpaired or stopped backend's library is unknown: no stale rows
    return st;
  }

  $("pair-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("pair-code").value.trim();
    $("pair-result").textContent = "Pairing…";
    try {
      const s = await S.load(B.get);
      const res = await P.call((c) => c.pair(code));  // pairing sends no token
      await B.set(S.paired(s, res.token));
      $("pair-result").textContent = "Paired.";
      $("pair-code").value = "";
    } catch (err) {
      $("pair-result").textContent = err.message + " " + (err.hint || "");
    }
    refreshStatus();
  });

  Object.assign(globalThis.SC.panel, { refreshStatus });
})();
