// The side panel's settings: the backend's address (each backend keeps its own pairing), the marks' sensitivity,
// and whether supported sentences are marked too.
(function () {
  "use strict";

  const { browser: B, settings: S } = globalThis.SC;
  const P = globalThis.SC.panel;
  const { $ } = P;
  const SAVED_MS = 3000;  // long enough to read, then out of the way
  let savedTimer = null;

  function say(text) {
    clearTimeout(savedTimer);
    $("settings-msg").textContent = text;
  }

  S.load(B.get).then((s) => {
    $("backend-url").value = s.backendUrl;
    $("show-supported").checked = !!s.showSupported;
    $("sensitivity").value = s.sensitivity;
  });

  $("settings-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    let url;
    try {
      url = S.normalizeBackendUrl($("backend-url").value);
    } catch (err) {
      say(err.message);
      return;
    }
    const before = await S.load(B.get);
    const items = { backendUrl: url, showSupported: $("show-supported").checked, sensitivity: $("sensitivity").value };
    if (url !== before.backendUrl) {
      // A token belongs to one backend: switching back to one paired before needs no new pairing.
      Object.assign(items, S.switchBackend(before, url));
      P.clearLibrary(true);
    }
    await B.set(items);
    $("backend-url").value = url;
    say("Saved.");
    savedTimer = setTimeout(() => say(""), SAVED_MS);
    P.refreshStatus();
  });
  $("backend-url").addEventListener("input", () => say(""));
  $("show-supported").addEventListener("change", () => B.set({ showSupported: $("show-supported").checked }));
  // Takes effect with the next check; the card keeps showing each sentence's probability.
  $("sensitivity").addEventListener("change", () => B.set({ sensitivity: $("sensitivity").value }));
})();
