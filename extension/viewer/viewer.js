// The PDF viewer page: opens a library document at a page with the evidence quote highlighted.
// URL: viewer/index.html?doc=<id>&page=<n>&q=<quote>&name=<filename>. The bytes come from GET /documents/{id}/file
// (with the token from extension storage); pdf.js renders them; find.js finds the quote in the page's text layer.
import * as pdfjs from "../vendor/pdfjs/pdf.min.mjs";

const { browser: B, errors: E, settings: S, apiClient: A, find: F } = globalThis.SC;
const params = new URLSearchParams(location.search);
const docId = params.get("doc");
const quote = params.get("q") || "";
const $ = (id) => document.getElementById(id);

pdfjs.GlobalWorkerOptions.workerSrc = B.url("vendor/pdfjs/pdf.worker.min.mjs");

let pdf = null;
let pageNo = Math.max(1, parseInt(params.get("page") || "1", 10) || 1);
let renderTask = null;

function showError(err) {
  const box = $("error");
  box.hidden = false;
  box.textContent = (err.message || String(err)) + (err.hint ? " " + err.hint : "") + (err.command ? " Command: " + err.command : "");
  $("status").textContent = "Could not open the PDF.";
}

/** The PDF's bytes from the backend. */
async function fetchBytes(id) {
  const s = await S.load(B.get);
  try {
    return new Uint8Array(await A.clientFor(s).file(id));
  } catch (err) {
    throw A.toFriendly(err);
  }
}

/** Text of a rendered text layer with a map from offsets to (div, offset in its text node). */
function layerText(textLayer) {
  const pieces = [];
  let text = "";
  textLayer.textDivs.forEach((div, i) => {
    const str = textLayer.textContentItemsStr[i] || "";
    if (!str) return;
    pieces.push({ div, start: text.length, end: text.length + str.length });
    text += str + " ";
  });
  return { text, pieces };
}

function pointAt(pieces, pos, isEnd) {
  for (const p of pieces) {
    if (isEnd ? pos <= p.end : pos < p.end) {
      const node = p.div.firstChild;
      const off = Math.max(0, Math.min(pos - p.start, node ? node.length : 0));
      return { node: node || p.div, offset: off, piece: p };
    }
  }
  return null;
}

function highlight(textLayer) {
  if (!quote) return false;
  const { text, pieces } = layerText(textLayer);
  const hit = F.locate(text, quote);
  if (!hit) return false;
  const a = pointAt(pieces, hit.start, false);
  const b = pointAt(pieces, hit.end, true);
  if (!a || !b) return false;
  const range = document.createRange();
  range.setStart(a.node, a.offset);
  range.setEnd(b.node, b.offset);
  if (globalThis.CSS && CSS.highlights && globalThis.Highlight) {
    CSS.highlights.set("sourcecheck-quote", new Highlight(range));
  } else {
    for (const p of pieces) if (p.end > hit.start && p.start < hit.end) p.div.classList.add("quote-hit");
  }
  a.piece.div.scrollIntoView({ block: "center" });
  return true;
}

async function render(n) {
  if (renderTask) { try { renderTask.cancel(); } catch (_) { /* finished */ } }
  const page = await pdf.getPage(n);
  const base = page.getViewport({ scale: 1 });
  const scale = Math.min(2, Math.max(0.5, (Math.min(window.innerWidth, 1100) - 48) / base.width));
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  const canvas = $("canvas");
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = Math.floor(viewport.width) + "px";
  canvas.style.height = Math.floor(viewport.height) + "px";
  const pageBox = $("page");
  pageBox.style.setProperty("--scale-factor", String(scale));
  pageBox.style.width = Math.floor(viewport.width) + "px";
  pageBox.style.height = Math.floor(viewport.height) + "px";
  renderTask = page.render({ canvas, canvasContext: canvas.getContext("2d"), viewport, transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : null });
  const layerBox = $("text-layer");
  layerBox.replaceChildren();
  if (globalThis.CSS && CSS.highlights) CSS.highlights.delete("sourcecheck-quote");
  const textLayer = new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: layerBox, viewport });
  await Promise.all([renderTask.promise.catch(() => {}), textLayer.render()]);
  pageNo = n;
  $("page-input").value = String(n);
  return textLayer;
}

async function openAt(n) {
  const status = $("status");
  let layer = await render(n);
  let found = highlight(layer);
  if (!found && quote) {
    // The quote may sit on a neighbouring page (a passage that crosses a page break).
    for (const m of [n + 1, n - 1]) {
      if (m < 1 || m > pdf.numPages) continue;
      layer = await render(m);
      if (highlight(layer)) { found = true; break; }
    }
    if (!found) layer = await render(n);
  }
  status.dataset.found = String(found);
  status.dataset.page = String(pageNo);
  // A scanned page has pictures, no text layer: its text was read by OCR in the backend, so nothing to highlight.
  const scanned = !found && layer && layer.textDivs && layer.textDivs.length === 0;
  status.dataset.scanned = String(!!scanned);
  status.textContent = !quote ? `Page ${pageNo}.`
    : found ? `Page ${pageNo}: the highlighted passage is the evidence.`
      : scanned ? `Page ${n} is a scan (its text was read by OCR), so the passage cannot be highlighted on it; it is quoted here: “${quote}”`
        : `Page ${n}: the exact passage could not be located on this page; it is quoted here: “${quote}”`;
}

/** The page and the quote, without the PDF: message says why it cannot be shown. */
function showQuoteOnly(message) {
  $("status").textContent = quote ? `Page ${pageNo}: “${quote}”` : `Page ${pageNo}.`;
  const box = $("error");
  box.hidden = false;
  box.textContent = message;
  $("viewport").style.display = "none";  // (its stylesheet display rule would beat the hidden attribute)
}

async function main() {
  $("title").textContent = params.get("name") || "PDF";
  document.title = (params.get("name") || "PDF") + " — sourcecheck";
  if (!docId) { showError({ message: "No document was given." }); return; }
  try {
    const bytes = await fetchBytes(docId);
    pdf = await pdfjs.getDocument({ data: bytes, useWasm: false, useSystemFonts: true }).promise;
  } catch (err) {
    // A shared library's document whose PDF is on another computer: the backend's message says whose and what to do
    // (the hint would repeat it).
    if (err.code === "file_elsewhere") { showQuoteOnly(err.message); return; }
    // Deleted since the check: the backend knows no such id, which is no reason to "try again".
    if (err.detail === "document_not_found") {
      showQuoteOnly("This PDF was removed from your library, so it cannot be shown. Add it again to see the passage in it.");
      return;
    }
    showError(err.code ? err : E.friendlyError({ code: "request_failed", message: String(err && err.message || err) }));
    return;
  }
  $("page-count").textContent = String(pdf.numPages);
  $("page-input").max = String(pdf.numPages);
  await openAt(Math.min(pageNo, pdf.numPages));
}

$("prev").addEventListener("click", () => { if (pdf && pageNo > 1) openAt(pageNo - 1); });
$("next").addEventListener("click", () => { if (pdf && pageNo < pdf.numPages) openAt(pageNo + 1); });
$("page-input").addEventListener("change", () => {
  const n = parseInt($("page-input").value, 10);
  if (pdf && n >= 1 && n <= pdf.numPages) openAt(n);
});

main();
