// The side panel: backend status, pairing, the library (upload with progress, list, delete),
// the last check's results and the settings. It asks the service worker for everything that
// touches the backend.
(function () {
  "use strict";

  const { browser: B, messages: M, errors: E, settings: S } = globalThis.SC;
  const { MSG, PORT } = M;
  const $ = (id) => document.getElementById(id);
  const CHUNK = 512 * 1024;
  const LABEL = { contradicted: "contradicted", unsupported: "not supported", supported: "supported", skipped: "skipped", pending: "checking" };

  let lastStatus = null;
  let docTimer = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  /** Ask the service worker; a missing answer or {ok:false} becomes a thrown friendly error. */
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
    let st;
    try {
      st = (await ask(MSG.STATUS)).status;
    } catch (err) {
      showBanner(err);
      return null;
    }
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
    return st;
  }

  $("pair-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("pair-code").value.trim();
    $("pair-result").textContent = "Pairing…";
    try {
      await ask(MSG.PAIR, { code });
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
    const bits = [d.title && d.title !== d.filename ? d.filename : null, d.year, d.pages ? d.pages + " pages" : null,
      d.status === "ready" ? (d.chunks || 0) + " passages" : d.status];
    const meta = el("div", "hint" + (d.status === "failed" ? " status-failed" : ""), bits.filter(Boolean).join(" · "));
    info.append(meta);
    if (d.status === "failed" && d.error) info.append(el("div", "hint status-failed", typeof d.error === "string" ? d.error : d.error.message));
    const del = el("button", "small delete", "Delete");
    del.type = "button";
    del.title = "Remove this PDF from the library";
    del.addEventListener("click", async () => {
      del.disabled = true;
      try { await ask(MSG.DELETE_DOCUMENT, { id: d.id }); } catch (err) { showBanner(err); }
      refreshDocuments();
    });
    line.append(info, del);
    li.append(line);
    if (d.status !== "ready" && d.status !== "failed") {
      const p = el("progress");
      p.max = 1;
      p.value = d.progress || 0;
      li.append(p);
    }
    return li;
  }

  async function refreshDocuments() {
    clearTimeout(docTimer);
    let docs;
    try {
      docs = (await ask(MSG.DOCUMENTS)).documents;
    } catch (err) {
      showBanner(err);
      return;
    }
    const list = $("documents");
    list.replaceChildren(...docs.map(docRow));
    $("documents-empty").hidden = docs.length > 0;
    const busy = docs.some((d) => d.status !== "ready" && d.status !== "failed");
    if (busy) docTimer = setTimeout(refreshDocuments, 1000);
  }

  // ---------------------------------------------------------------- uploads

  function uploadRow(name) {
    const li = el("li", "upload");
    li.dataset.name = name;
    li.dataset.status = "uploading";
    li.append(el("div", "name", name));
    const p = el("progress");
    p.max = 1;
    p.value = 0;
    const text = el("div", "hint", "uploading…");
    li.append(p, text);
    $("uploads").prepend(li);
    return {
      li,
      set(status, value, message) {
        li.dataset.status = status;
        if (typeof value === "number") p.value = value;
        text.textContent = message || status;
        text.className = "hint" + (status === "failed" ? " status-failed" : "");
        if (status === "ready" || status === "failed") p.hidden = status === "failed";
      },
    };
  }

  function bytesToBase64(bytes) {
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin);
  }

  /** Send one file to the service worker in chunks; resolves with the API's documents. */
  function sendFile(file, onProgress) {
    return new Promise((resolve, reject) => {
      file.arrayBuffer().then((buf) => {
        const bytes = new Uint8Array(buf);
        const port = B.connect(PORT.UPLOAD);
        let settled = false;
        port.onMessage.addListener((msg) => {
          if (msg.type === "ack") onProgress(Math.min(1, (msg.n * CHUNK) / Math.max(1, bytes.length)));
          if (msg.type === "uploaded") { settled = true; port.disconnect(); resolve(msg.documents); }
          if (msg.type === "error") { settled = true; port.disconnect(); reject(msg.error); }
        });
        port.onDisconnect.addListener(() => {
          if (!settled) reject(E.friendlyError({ code: "request_failed", message: "the upload was interrupted" }));
        });
        port.postMessage({ type: "begin", name: file.name, size: bytes.length });
        for (let i = 0; i < bytes.length; i += CHUNK) port.postMessage({ type: "chunk", data: bytesToBase64(bytes.subarray(i, i + CHUNK)) });
        port.postMessage({ type: "end" });
      }, reject);
    });
  }

  async function followDocument(row, id) {
    for (;;) {
      let d;
      try {
        d = (await ask(MSG.DOCUMENT, { id })).document;
      } catch (err) {
        row.set("failed", 0, err.message);
        return;
      }
      if (d.status === "ready") { row.set("ready", 1, `ready — ${d.pages || "?"} pages, ${d.chunks || 0} passages`); break; }
      if (d.status === "failed") {
        row.set("failed", 0, "failed: " + (d.error && (d.error.message || d.error) || "could not read this PDF"));
        break;
      }
      // Uploading was the first 10%; the backend's progress fills the rest.
      row.set(d.status, 0.1 + 0.9 * (d.progress || 0), `${d.status}… ${Math.round((d.progress || 0) * 100)}%`);
      await new Promise((r) => setTimeout(r, 600));
    }
    refreshDocuments();
    refreshStatus();
  }

  async function uploadFiles(files) {
    for (const file of files) {
      const row = uploadRow(file.name);
      const isPdf = file.type === "application/pdf" || /\.pdf$/i.test(file.name);
      if (!isPdf) { row.set("failed", 0, "not a PDF: only PDF files can be added"); continue; }
      try {
        const docs = await sendFile(file, (f) => row.set("uploading", 0.1 * f, "uploading…"));
        const d = docs[0];
        if (!d) { row.set("failed", 0, "the backend did not accept the file"); continue; }
        row.li.dataset.id = d.id;
        row.set(d.status, 0.1, d.status + "…");
        refreshDocuments();
        followDocument(row, d.id);
      } catch (err) {
        row.set("failed", 0, (err.message || "upload failed") + (err.hint ? " " + err.hint : ""));
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
    else summary = `${c.contradicted || 0} contradicted, ${c.unsupported || 0} not supported, ${c.supported || 0} supported` +
      (lc.summary && typeof lc.summary.p_all_supported === "number" ? ` · P(all supported) ${percent(lc.summary.p_all_supported)}` : "");
    const missing = lc.sentences.filter((s) => s.missing).length;
    if (missing) summary += ` · ${missing} no longer on the page`;
    $("results-summary").textContent = summary;
    $("results-summary").dataset.status = lc.status;
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

  B.sessionGet("lastCheck").then((r) => renderLastCheck(r && r.lastCheck)).catch(() => {});
  B.onStorageChanged((changes, area) => {
    if (changes.lastCheck) renderLastCheck(changes.lastCheck.newValue);
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
    // A token belongs to one backend; a new address needs pairing again.
    if (url !== before.backendUrl) items.token = "";
    await B.set(items);
    $("backend-url").value = url;
    $("settings-msg").textContent = "Saved.";
    refreshStatus();
  });
  $("show-supported").addEventListener("change", () => B.set({ showSupported: $("show-supported").checked }));
  // Takes effect with the next check; the card keeps showing each sentence's probability.
  $("sensitivity").addEventListener("change", () => B.set({ sensitivity: $("sensitivity").value }));

  refreshStatus();
  setInterval(() => { if (!document.hidden) refreshStatus(); }, 5000);
})();
