// The side panel: backend status, pairing, the library (upload, list with progress, delete), the last check's
// results with its whole-text revision, the recent checks and the settings. An extension page: it calls the
// backend itself (lib/api-client.js, the token from extension storage); only tab work goes through the worker.
(function () {
  "use strict";

  const { browser: B, messages: M, errors: E, settings: S, apiClient: A } = globalThis.SC;
  const { MSG } = M;
  const $ = (id) => document.getElementById(id);
  const LABEL = { contradicted: "contradicted", unsupported: "not supported", supported: "supported", skipped: "skipped", pending: "checking", cancelled: "not checked" };

  let lastStatus = null;
  let docTimer = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  /** The backend as the settings say now; call(fn) runs fn(client), its errors made friendly. */
  async function client() {
    return A.clientFor(await S.load(B.get));
  }

  async function call(fn) {
    try {
      return await fn(await client());
    } catch (err) {
      throw A.toFriendly(err);
    }
  }

  /** Ask the service worker (tab work); a missing answer or {ok:false} becomes a thrown friendly error. */
  async function ask(type, fields) {
    let res;
    try {
      res = await B.send(M.message(type, fields));
    } catch (err) {
      throw E.friendlyError({ code: "request_failed", message: String(err && err.message || err) });
    }
    if (!res) throw E.friendlyError({ code: "request_failed", message: "no answer from the service worker" });
    if (res.ok === false) throw res.error || E.friendlyError({ code: "request_failed" });
    return res;
  }

  // ---------------------------------------------------------------- banner (errors a person understands)

  function showBanner(err) {
    const banner = $("banner");
    if (!err) { banner.hidden = true; banner.dataset.code = ""; return; }
    banner.hidden = false;
    banner.dataset.code = err.code || "";
    $("banner-message").textContent = err.message || "Something went wrong.";
    $("banner-hint").textContent = err.hint || "";
    $("banner-command-row").hidden = !err.command;
    $("banner-command").textContent = err.command || "";
  }

  $("banner-copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("banner-command").textContent); $("banner-copy").textContent = "Copied"; } catch (_) { /* clipboard refused */ }
  });

  // ---------------------------------------------------------------- status and pairing

  async function refreshStatus() {
    const st = await (await client()).status();
    lastStatus = st;
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
        (missing ? " — not installed: run scripts/setup" : m.loaded ? " — loaded" : " — loads on first check");
    } else {
      $("status-model").textContent = "–";
    }
    $("status-library").textContent = st.library ? `${st.library.documents} PDFs, ${st.library.chunks} passages` : "–";
    $("pairing").hidden = !st.reachable || st.paired;
    showBanner(st.error || null);
    if (st.paired) refreshDocuments();
    else clearLibrary(false);  // an unpaired or stopped backend's library is unknown: no stale rows
    return st;
  }

  $("pair-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("pair-code").value.trim();
    $("pair-result").textContent = "Pairing…";
    try {
      const s = await S.load(B.get);
      const res = await call((c) => c.pair(code));  // pairing sends no token
      await B.set(S.paired(s, res.token));
      $("pair-result").textContent = "Paired.";
      $("pair-code").value = "";
    } catch (err) {
      $("pair-result").textContent = err.message + " " + (err.hint || "");
    }
    refreshStatus();
  });

  // ---------------------------------------------------------------- documents

  function docRow(d) {
    const li = el("li", "doc");
    li.dataset.id = d.id;
    li.dataset.status = d.status;
    const line = el("div", "line");
    const info = el("div", "grow");
    info.append(el("div", "name", d.title || d.filename));
    const busy = d.status !== "ready" && d.status !== "failed";
    const bits = [d.title && d.title !== d.filename ? d.filename : null, d.year, d.pages ? d.pages + " pages" : null,
      d.status === "ready" ? (d.chunks || 0) + " passages" : busy ? `${d.status}… ${Math.round((d.progress || 0) * 100)}%` : d.status];
    const meta = el("div", "hint" + (d.status === "failed" ? " status-failed" : ""), bits.filter(Boolean).join(" · "));
    info.append(meta);
    if (d.status === "failed" && d.error) info.append(el("div", "hint status-failed", typeof d.error === "string" ? d.error : d.error.message));
    const failed = d.status === "failed";
    const del = el("button", "small delete", failed ? "Dismiss" : "Delete");
    del.type = "button";
    del.title = failed ? "Remove this failed PDF from the list" : "Remove this PDF from the library";
    del.addEventListener("click", async () => {
      del.disabled = true;
      try { await call((c) => c.deleteDocument(d.id)); } catch (err) { showBanner(err); }
      refreshDocuments();
    });
    line.append(info, del);
    li.append(line);
    if (busy) {
      const p = el("progress");
      p.max = 1;
      p.value = d.progress || 0;
      li.append(p);
    }
    return li;
  }

  let docGeneration = 0;  // a list answered after a backend switch (or a newer refresh) is not shown

  async function refreshDocuments() {
    clearTimeout(docTimer);
    const generation = ++docGeneration;
    let docs;
    try {
      docs = (await call((c) => c.documents())).documents || [];
    } catch (err) {
      if (generation === docGeneration) showBanner(err);
      return;
    }
    if (generation !== docGeneration) return;
    const list = $("documents");
    list.replaceChildren(...docs.map(docRow));
    $("documents-empty").hidden = docs.length > 0 || $("uploads").children.length > 0;
    const busy = docs.some((d) => d.status !== "ready" && d.status !== "failed");
    if (busy) docTimer = setTimeout(refreshDocuments, 1000);
  }

  /** Empty the library's rows: on a backend switch (uploads too), or while its library cannot be read. */
  function clearLibrary(uploads) {
    clearTimeout(docTimer);
    docGeneration += 1;
    $("documents").replaceChildren();
    $("documents-empty").hidden = true;
    if (uploads) $("uploads").replaceChildren();
  }

  // ---------------------------------------------------------------- uploads

  function uploadRow(name) {
    const li = el("li", "upload");
    li.dataset.name = name;
    li.dataset.status = "uploading";
    li.append(el("div", "name", name));
    const p = el("progress");  // no value: the bytes go to 127.0.0.1 at once; the document's row shows the rest
    const text = el("div", "hint", "uploading…");
    const dismiss = el("button", "small dismiss", "Dismiss");
    dismiss.type = "button";
    dismiss.hidden = true;
    dismiss.addEventListener("click", () => li.remove());
    li.append(p, text, dismiss);
    $("uploads").prepend(li);
    $("documents-empty").hidden = true;
    return {
      li,
      set(status, message) {
        li.dataset.status = status;
        text.textContent = message || status;
        text.className = "hint" + (status === "failed" ? " status-failed" : "");
        p.hidden = status === "failed";
        dismiss.hidden = status !== "failed";
      },
    };
  }

  async function uploadFiles(files) {
    for (const file of files) {
      const row = uploadRow(file.name);
      const isPdf = file.type === "application/pdf" || /\.pdf$/i.test(file.name);
      if (!isPdf) { row.set("failed", "not a PDF: only PDF files can be added"); continue; }
      try {
        const docs = (await call((c) => c.upload([{ name: file.name, blob: file }]))).documents || [];
        if (!docs[0]) { row.set("failed", "the backend did not accept the file"); continue; }
        row.li.remove();  // the document's row in the list shows the rest (parsing, embedding, ready)
        await refreshDocuments();
        refreshStatus();
      } catch (err) {
        row.set("failed", (err.message || "upload failed") + (err.hint ? " " + err.hint : ""));
        if (err.code === "backend_unreachable" || err.code === "not_paired") showBanner(err);
      }
    }
  }

  const zone = $("drop-zone");
  // A file dropped anywhere else in the panel must not navigate it away.
  window.addEventListener("dragover", (e) => e.preventDefault());
  window.addEventListener("drop", (e) => e.preventDefault());
  zone.addEventListener("dragenter", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragover", (e) => { e.preventDefault(); e.dataTransfer.dropEffect = "copy"; zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    uploadFiles([...e.dataTransfer.files]);
  });
  zone.addEventListener("click", (e) => { if (e.target === zone || e.target.parentElement === zone) $("file-input").click(); });
  zone.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("file-input").click(); } });
  $("file-input").addEventListener("change", (e) => {
    const files = [...e.target.files];
    e.target.value = "";
    uploadFiles(files);
  });

  // ---------------------------------------------------------------- last check

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
      li.append(el("span", "chip " + s.label, LABEL[s.label] || s.label));
      li.append(el("span", "text", s.text + (s.missing ? " (no longer on the page)" : "")));
      li.addEventListener("click", async () => {
        try { await ask(MSG.SCROLL_TO, { tabId: lc.tabId, key: s.key }); } catch (err) { showBanner(err); }
      });
      return li;
    }));
  }

  // ---------------------------------------------------------------- recent checks and their reports

  const when = (ms) => new Date(ms).toLocaleString();

  /** Download one kept check as a Markdown file. */
  function exportCheck(h) {
    const md = globalThis.SC.report.markdown(h.result, { title: h.title, url: h.url, checkedAt: when(h.at) });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([md], { type: "text/markdown" }));
    a.download = `sourcecheck-${new Date(h.at).toISOString().slice(0, 16).replace(/[T:]/g, "-")}.md`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  function renderHistory(history) {
    const items = Array.isArray(history) ? history : [];
    $("history-empty").hidden = items.length > 0;
    $("history-list").replaceChildren(...items.map((h) => {
      const li = el("li", "history");
      li.dataset.checkId = h.checkId;
      const c = h.counts || {};
      const info = el("div", "grow");
      info.append(el("div", "name", h.title || h.url || "a page"));
      info.append(el("div", "hint", [when(h.at), h.status === "cancelled" ? "cancelled" : null,
        `${c.contradicted || 0} contradicted, ${c.unsupported || 0} not supported, ${c.supported || 0} supported`]
        .filter(Boolean).join(" · ")));
      const exp = el("button", "small export", "Export");
      exp.type = "button";
      exp.title = "Save this check as a Markdown report";
      exp.addEventListener("click", () => exportCheck(h));
      const line = el("div", "line");
      line.append(info, exp);
      li.append(line);
      return li;
    }));
  }

  B.get("history").then((r) => renderHistory(r && r.history)).catch(() => {});
  let revisedFor = null;  // the check whose revision is shown

  $("revise-all").addEventListener("click", async () => {
    const { lastCheck: lc } = await B.sessionGet("lastCheck");
    if (!lc || !lc.text) return;
    $("revise-all").disabled = true;
    $("revise-msg").textContent = "Rewriting the text from the critiques…";
    try {
      const { sensitivity } = await S.load(B.get);
      let revised = lc.text, failed = null;
      // The check again with revise: true (its verdicts and critiques come from the backend's cache).
      await call((c) => c.check(lc.text, {
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

  B.sessionGet("lastCheck").then((r) => renderLastCheck(r && r.lastCheck)).catch(() => {});
  B.onStorageChanged((changes, area) => {
    if (changes.lastCheck) renderLastCheck(changes.lastCheck.newValue);
    if (area === "local" && changes.history) renderHistory(changes.history.newValue);
    if (area === "local" && (changes.token || changes.backendUrl)) refreshStatus();
  });

  // ---------------------------------------------------------------- settings

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
      $("settings-msg").textContent = err.message;
      return;
    }
    const before = await S.load(B.get);
    const items = { backendUrl: url, showSupported: $("show-supported").checked, sensitivity: $("sensitivity").value };
    if (url !== before.backendUrl) {
      // A token belongs to one backend: switching back to one paired before needs no new pairing.
      Object.assign(items, S.switchBackend(before, url));
      clearLibrary(true);
    }
    await B.set(items);
    $("backend-url").value = url;
    $("settings-msg").textContent = "Saved.";
    refreshStatus();
  });
  $("backend-url").addEventListener("input", () => { $("settings-msg").textContent = ""; });
  $("show-supported").addEventListener("change", () => B.set({ showSupported: $("show-supported").checked }));
  // Takes effect with the next check; the card keeps showing each sentence's probability.
  $("sensitivity").addEventListener("change", () => B.set({ sensitivity: $("sensitivity").value }));

  refreshStatus();
  setInterval(() => { if (!document.hidden) refreshStatus(); }, 5000);
})();
