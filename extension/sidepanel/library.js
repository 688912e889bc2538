// The side panel's library: one row per PDF (its progress while it is read, Delete with Undo, or Dismiss), and adding
// PDFs by the file picker or by a drop.
(function () {
  "use strict";

  const P = globalThis.SC.panel;
  const { $, el } = P;
  const { toFriendly } = globalThis.SC.apiClient;
  const L = globalThis.SC.labels;
  let docTimer = null;
  const UNDO_MS = 6000;
  // Deletes not sent yet, id -> {timer, client}: the DELETE goes when the Undo window ends, or at once when the panel
  // closes. Until then Undo costs nothing (the PDF, its passages and the cards' links to it are untouched); a DELETE
  // sent at once could only be undone by uploading the PDF again and reading it anew, under another id.
  const pending = new Map();

  async function sendDelete(id, keepalive) {
    const p = pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    pending.delete(id);
    try { await p.client.deleteDocument(id, { keepalive }); } catch (err) { if (!keepalive) P.showBanner(toFriendly(err)); }
    if (!keepalive) refreshDocuments();
  }

  async function deleteLater(id) {
    const client = await P.client();  // this backend's, even if the settings switch to another meanwhile
    pending.set(id, { client, timer: setTimeout(() => sendDelete(id, false), UNDO_MS) });
    refreshDocuments();
  }

  function undo(id) {
    const p = pending.get(id);
    if (p) clearTimeout(p.timer);
    pending.delete(id);
    refreshDocuments();
  }

  // A closing panel sends what it was holding back; keepalive lets the request outlive the page.
  window.addEventListener("pagehide", () => { for (const id of [...pending.keys()]) sendDelete(id, true); });

  /** A deleted PDF's row for the Undo window: its name and "Deleted · Undo". */
  function deletedRow(d) {
    const li = el("li", "doc deleted");
    li.dataset.id = d.id;
    li.dataset.status = "deleted";
    const b = el("button", "link undo", "Undo");
    b.type = "button";
    b.title = "Keep this PDF in the library";
    b.addEventListener("click", () => undo(d.id));
    const meta = el("div", "hint", "Deleted · ");
    meta.append(b);
    li.append(el("div", "name", d.title || d.filename), meta);
    return li;
  }

  function docRow(d) {
    if (pending.has(d.id)) return deletedRow(d);
    const li = el("li", "doc");
    li.dataset.id = d.id;
    li.dataset.status = d.status;
    const line = el("div", "line");
    const info = el("div", "grow");
    info.append(el("div", "name", d.title || d.filename));
    const busy = d.status !== "ready" && d.status !== "failed";
    const bits = [d.title && d.title !== d.filename ? d.filename : null, d.year, d.pages ? L.count(d.pages, "page") : null,
      d.status === "ready" ? `ready · ${L.count(d.chunks || 0, "passage")}` : busy ? `${d.status}… ${Math.round((d.progress || 0) * 100)}%` : d.status];
    const meta = el("div", "hint" + (d.status === "failed" ? " status-failed" : ""), bits.filter(Boolean).join(" · "));
    info.append(meta);
    if (d.status === "failed" && d.error) info.append(el("div", "hint status-failed", typeof d.error === "string" ? d.error : d.error.message));
    const failed = d.status === "failed";
    const del = el("button", "small delete", failed ? "Dismiss" : "Delete");
    del.type = "button";
    del.title = failed ? "Remove this failed PDF from the list" : "Remove this PDF from the library";
    del.addEventListener("click", async () => {
      del.disabled = true;
      if (!failed) { deleteLater(d.id).catch((err) => P.showBanner(toFriendly(err))); return; }
      // A failed PDF has nothing to keep: dismissed at once.
      try { await P.call((c) => c.deleteDocument(d.id)); } catch (err) { P.showBanner(err); }
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
      docs = (await P.call((c) => c.documents())).documents || [];
    } catch (err) {
      if (generation === docGeneration) P.showBanner(err);
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
        const docs = (await P.call((c) => c.upload([{ name: file.name, blob: file }]))).documents || [];
        if (!docs[0]) { row.set("failed", "the backend did not accept the file"); continue; }
        for (const d of docs) if (pending.has(d.id)) undo(d.id);  // added again while its delete waited: kept
        row.li.remove();  // the document's row in the list shows the rest (parsing, embedding, ready)
        await refreshDocuments();
        P.refreshStatus();
      } catch (err) {
        row.set("failed", (err.message || "upload failed") + (err.hint ? " " + err.hint : ""));
        if (err.code === "backend_unreachable" || err.code === "not_paired") P.showBanner(err);
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

  Object.assign(globalThis.SC.panel, { refreshDocuments, clearLibrary });
})();
