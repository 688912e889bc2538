// The text a check sends (lib/anchoring.js extract): the page's block edges travel as line breaks, so the backend
// splits a list item, a heading or a table cell from its neighbours; and every offset in that text maps back to
// exactly the page's text it came from.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, dom } from "./helpers.js";

const AN = load("lib/anchoring.js");

/** The text extract() sends for the whole body, and a function that finds a piece of it back in the page. */
function sent(html) {
  const win = dom(html);
  const idx = AN.buildTextIndex(win.document.body);
  const ex = AN.extract(idx, 0, idx.text.length);
  /** The page text under the first occurrence of piece in the sent text (whitespace collapsed). */
  const back = (piece) => {
    const u = ex.text.indexOf(piece);
    assert.ok(u >= 0, `${JSON.stringify(piece)} is not in ${JSON.stringify(ex.text)}`);
    const range = AN.rangeFor(idx, ex.startAt(u), ex.endAt(u + piece.length));
    return range.toString().replace(/\s+/g, " ");
  };
  return { text: ex.text, back, ex, idx, doc: win.document };
}

test("headings, paragraphs and list items are separated by a blank line; lower-case items stay apart", () => {
  const { text } = sent(`<div class="markdown"><p>Here is a summary.</p><h3>Training data</h3>
    <p>The authors generated <strong>35,074</strong> instances.</p><ul>
      <li><p>the editor was fine-tuned from Llama2-Chat 13B</p></li>
      <li>errors are grouped into six types<ul><li>entity errors are common</li></ul></li>
      <li>training took three days</li></ul></div>`);
  assert.equal(text, "Here is a summary.\n\n### Training data\n\nThe authors generated 35,074 instances.\n\n" +
    "the editor was fine-tuned from Llama2-Chat 13B\n\nerrors are grouped into six types\n\nentity errors are common\n\n" +
    "training took three days");
});

test("a heading is sent as a Markdown heading, and its words map back to the page's heading", () => {
  const { text, back } = sent("<h3>Forecasting with 76 series</h3><p>Stock and Watson used 76 monthly series.</p>");
  assert.equal(text, "### Forecasting with 76 series\n\nStock and Watson used 76 monthly series.");
  assert.equal(back("Forecasting with 76 series"), "Forecasting with 76 series");
  assert.equal(back("### Forecasting"), "Forecasting");
});

test("an empty heading marks nothing: the paragraph after it is checked", () => {
  const { text } = sent("<h2><svg></svg></h2><p>The bridge opened in 1937.</p><h3> </h3><p>It is red.</p>");
  assert.equal(text, "The bridge opened in 1937.\n\nIt is red.");
});

test("whitespace inside a block is one space, whatever the HTML source's line breaks", () => {
  const { text } = sent("<p>  The model\n     was <b>trained</b>\n on   data.\n</p>\n\n<p>Next one.</p>");
  assert.equal(text, "The model was trained on data.\n\nNext one.");
});

test("a <br> is one line break, a table cell a block, a code block keeps its lines", () => {
  const { text } = sent(`<p>FAVA beats ChatGPT.<br>the gain is largest on entities.</p>
    <table><tr><th>Component</th><th>Size</th></tr><tr><td>Retriever</td><td>110M</td></tr></table>
    <pre><div>python</div><code>from fava import Editor
editor = Editor.load("fava-7b")    # the    released one
</code></pre><p>Done.</p>`);
  assert.equal(text, "FAVA beats ChatGPT.\nthe gain is largest on entities.\n\nComponent\n\nSize\n\nRetriever\n\n110M\n\n" +
    'python\n\nfrom fava import Editor\neditor = Editor.load("fava-7b") # the released one\n\nDone.');
});

test("KaTeX: only the formula drawn is text, not its hidden MathML copy and TeX source; display math is a block", () => {
  const inline = '<span class="katex"><span class="katex-mathml"><math><semantics><mrow><msub><mi>F</mi><mn>1</mn></msub></mrow>' +
    '<annotation encoding="application/x-tex">F_1</annotation></semantics></math></span><span class="katex-html" aria-hidden="true">' +
    '<span class="base"><span class="mord mathnormal">F</span><span class="msupsub"><span class="vlist-s">\u200b</span>' +
    '<span class="mord mtight">1</span></span></span></span></span>';
  const { text, ex, idx } = sent(`<p>It is scored with ${inline} over the spans.</p><span class="katex-display">${inline}</span><p>Then more.</p>`);
  assert.equal(text, "It is scored with F1 over the spans.\n\nF1\n\nThen more.");
  const u = ex.text.indexOf("It is scored");
  const range = AN.rangeFor(idx, ex.startAt(u), ex.endAt(u + "It is scored with F1 over the spans.".length));
  assert.equal(AN.collapse(AN.textOf(range)), "It is scored with F1 over the spans.", "the range's text, the hidden copy left out");
  assert.equal(range.endContainer.data.slice(0, range.endOffset), " over the spans.");
});

test("every sentence of the sent text maps back to exactly its page text", () => {
  const { text, back } = sent(`<h2>Results</h2><ol><li><strong>retrieval</strong>: the top five passages with
    <code>Contriever</code></li><li>the editor marks each span 🙂 and fixes it</li></ol><p>Café prices rose 12%.\n</p>`);
  for (const s of ["Results", "retrieval: the top five passages with Contriever", "the editor marks each span 🙂 and fixes it", "Café prices rose 12%."]) {
    assert.ok(text.includes(s), s);
    assert.equal(back(s), s);
  }
});

test("a selection that starts inside the page maps back from its own offsets", () => {
  const win = dom("<h3>Key points</h3><ul><li>first item here</li><li>second item there</li></ul><p>After.</p>");
  const idx = AN.buildTextIndex(win.document.body);
  const range = win.document.createRange();
  const items = win.document.querySelectorAll("li");
  range.setStart(items[0].firstChild, 6);
  range.setEnd(items[1].firstChild, 11);
  const pos = AN.positionsOfRange(idx, range);
  const ex = AN.extract(idx, pos.start, pos.end);
  assert.equal(ex.text, "item here\n\nsecond item");
  const u = ex.text.indexOf("second");
  assert.equal(AN.rangeFor(idx, ex.startAt(u), ex.endAt(u + 11)).toString(), "second item");
  assert.equal(AN.rangeFor(idx, ex.startAt(0), ex.endAt(9)).toString(), "item here");
});
