// The side panel's Zotero source (Settings → Zotero): where the library is, how many of its PDFs are in this library,
// what the last sync left out and why, Sync now, and the collection checks are limited to (the `collection` setting,
// sent with each check by background/checks.js).
(function () {
  "use strict";

  const { browser: B, settings: S, labels: L } = globalThis.SC;
  const P = globalThis.SC.panel;
  const { $, el } = P;
  let timer = null;
  const RETRY_MS = 5000;  // after a failed status read
  let generation = 0;  // an answer from before a backend switch (or a newer refresh) is not shown

  function stateText(z) {
    if (!z.synced_at) {
      return z.data_dir ? `Zotero found at ${z.data_dir}. Sync now adds its PDFs, with their authors, years and collections.`
        : "No Zotero library found on this computer: give its data folder below (Zotero shows it under Settings → Advanced → Files and Folders).";
    }
    const reading = z.documents - z.ready;
    const last = z.sync.last;
    return [
      `${z.data_dir}: ${L.count(z.documents, "PDF")} in the library` + (reading ? ` (${reading} being read)` : ""),
      skippedCount(z) ? `${skippedCount(z)} not read` : null,
      last ? `last sync: ${last.added} added, ${last.changed} changed, ${last.removed} removed` : null,
      `at ${new Date(z.synced_at).toLocaleString()}`,
    ].filter(Boolean).join(" · ");
  }

  /** How many attachments the last sync did not read (the status lists the first 200 of them). */
  function skippedCount(z) {
    return z.skipped_count ?? z.skipped.length;
  }

  async function collections(z) {
    const { collection } = await S.load(B.get);
    const select = $("zotero-collection");
    const options = z.collections.map((c) => new Option(`${c.path} (${L.count(c.documents, "PDF")})`, c.path));
    if (collection && !z.collections.some((c) => c.path === collection)) options.push(new Option(`${collection} (not in Zotero now)`, collection));
    select.replaceChildren(new Option("The whole library", ""), ...options);
    select.value = collection || "";
  }

  async function refresh() {
    clearTimeout(timer);
    const mine = ++generation;
    let z;
    try {
      z = (await P.call((c) => c.zotero())).zotero;
    } catch (err) {
      if (mine !== generation) return;
      $("zotero-state").textContent = err.message;  // the status line and banner say more
      timer = setTimeout(refresh, RETRY_MS);  // one failed poll (a busy or restarting backend) must not freeze it
      return;
    }
    if (mine !== generation) return;
    $("zotero-state").textContent = stateText(z);
    if (z.data_dir) $("zotero-dir").placeholder = z.data_dir;
    await collections(z);
    $("zotero-skipped-box").hidden = !skippedCount(z);
    const more = skippedCount(z) - z.skipped.length;
    $("zotero-skipped-summary").textContent = `${L.count(skippedCount(z), "attachment")} not read, and why` +
      (more > 0 ? ` (the first ${z.skipped.length} listed)` : "");
    $("zotero-skipped").replaceChildren(...z.skipped.map((s) => el("li", null, `${s.title || s.file}: ${s.error.message}`)));
    if (z.sync.error) $("zotero-msg").textContent = z.sync.error.message;
    else if (!z.sync.running && $("zotero-msg").dataset.syncing) {
      $("zotero-msg").textContent = "Synced.";
      delete $("zotero-msg").dataset.syncing;
      P.refreshDocuments();
    }
    if (z.sync.running || z.ready < z.documents) timer = setTimeout(refresh, 1000);
  }

  async function sync(replace) {
    const button = $("zotero-sync");
    const msg = $("zotero-msg");
    button.disabled = true;
    $("zotero-replace").hidden = true;
    msg.textContent = "Reading Zotero…";
    try {
      await P.call((c) => c.zoteroSync($("zotero-dir").value.trim(), replace));
      msg.textContent = "Syncing…";
      msg.dataset.syncing = "1";
    } catch (err) {
      msg.textContent = err.message + (err.hint ? " " + err.hint : "");
      // another library than the last one: its PDFs would go, so only a second, deliberate click switches
      $("zotero-replace").hidden = (err.detail || err.code) !== "zotero_other_library";
    }
    button.disabled = false;
    refresh();
    P.refreshDocuments();
  }

  $("zotero-sync").addEventListener("click", () => sync(false));
  $("zotero-replace").addEventListener("click", () => sync(true));
  // Takes effect with the next check.
  $("zotero-collection").addEventListener("change", () => B.set({ collection: $("zotero-collection").value }));
  B.onStorageChanged((changes, area) => {
    if (area === "local" && (changes.token || changes.backendUrl)) refresh();
  });
  refresh();
})();
