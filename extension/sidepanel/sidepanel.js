// The side panel: backend status, pairing, the library, the last check, the recent checks and the settings, each in
// its own file (shared.js first); this one fills them in and keeps them current.
(function () {
  "use strict";

  const { browser: B } = globalThis.SC;
  const P = globalThis.SC.panel;

  B.get("history").then((r) => P.renderHistory(r && r.history)).catch(() => {});
  B.sessionGet("lastCheck").then((r) => P.renderLastCheck(r && r.lastCheck)).catch(() => {});
  B.onStorageChanged((changes, area) => {
    if (changes.lastCheck) P.renderLastCheck(changes.lastCheck.newValue);
    if (area === "local" && changes.history) P.renderHistory(changes.history.newValue);
    if (area === "local" && (changes.token || changes.backendUrl)) P.refreshStatus();
  });

  P.refreshStatus();
  setInterval(() => { if (!document.hidden) P.refreshStatus(); }, 5000);
})();
