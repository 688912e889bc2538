"""Issue 36, item 1: answers shaped like ChatGPT's, Claude's and Gemini's (headings, nested and lower-case lists, items
without final punctuation, tables, inline code, code blocks, KaTeX, a <br>) are checked sentence by sentence.

The reference is the answer's text with its breaks kept, built here from the page by the rule the extension must
follow (a blank line at the edge of a heading, paragraph, list item, table cell, code block or pre; "### " before a
heading's text; a newline at a <br> and in <pre>; other whitespace one space; a formula once, as drawn), and split by
the backend's own splitter. The extension must send sentences for exactly that split, and draw one mark per checked
sentence, none across a block."""

import re

import pytest
from browser_helpers import wait_until
from sourcecheck.text.sentences import split_sentences

pytestmark = pytest.mark.browser

# Each saved answer and the element that holds it, as the apps mark it up.
FIXTURES = {
    "chatgpt": "[data-message-author-role=assistant] .markdown",
    "claude": ".font-claude-response .standard-markdown",
    "gemini": "message-content .markdown",
}

# Sentences each answer must have on their own (the merges issue 36 saw).
ON_THEIR_OWN = {
    "chatgpt": [
        "Training data",
        "the editor learns to mark each error span and suggest a fix",
        "errors are grouped into six types",
        "entity errors are the most common type",
        "unverifiable statements are flagged rather than edited",
        "training took about three days on eight GPUs",
    ],
    "claude": [
        "retrieval: the retriever finds the top five passages with Contriever",
        "entity errors get a replacement",
        "unverifiable sentences are deleted",
        "replaces the wrong name or number",
    ],
    "gemini": [
        "six error types, from entity errors to unverifiable statements",
        "entity, relation and contradictory errors can be edited",
        "invented, subjective and unverifiable ones are removed",
        "FAVA improves fine-grained detection over ChatGPT on the annotated benchmark.",
        "the gain is largest on entity errors.",
    ],
}

BLOCKS = "P H1 H2 H3 H4 H5 H6 LI UL OL TABLE TR TD TH PRE DIV BLOCKQUOTE"

# The answer's text with its breaks kept, by the rule above (written apart from lib/anchoring.js on purpose).
REFERENCE_JS = """([selector, blocks]) => {
  const BLOCK = new Set(blocks.split(' '));
  const PARAGRAPH = '\\u0001', LINE = '\\u0002';
  let out = '';
  const walk = (node, pre) => {
    if (node.nodeType === 3) {
      const t = node.data.replace(/[\\u200b\\u00ad\\ufeff]/g, '');
      out += pre ? t.replace(/\\n/g, LINE) : t;
    }
    if (node.nodeType !== 1 || ['SCRIPT', 'STYLE', 'svg'].includes(node.tagName)) return;
    if (node.classList.contains('katex-mathml')) return;  // the screen readers' copy, clipped to nothing
    if (node.tagName === 'BR') { out += LINE; return; }
    const block = BLOCK.has(node.tagName) || node.classList.contains('katex-display');
    if (block) out += PARAGRAPH;
    if (/^H[1-6]$/.test(node.tagName)) out += '### ';  // a heading travels as Markdown's, which is not checked
    for (const kid of node.childNodes) walk(kid, pre || node.tagName === 'PRE');
    if (block) out += PARAGRAPH;
  };
  walk(document.querySelector(selector), false);
  const gap = (run) => run.includes(PARAGRAPH) ? '\\n\\n' : run.includes(LINE) ? '\\n' : ' ';
  return out.replace(/[\\s\\u0001\\u0002]+/g, gap).trim();
}"""

# The marked ranges of each label, their text read as drawn (a formula once: not its hidden MathML copy).
MARKS_JS = """() => {
  const out = {};
  for (const label of ['contradicted', 'unsupported', 'supported']) {
    out[label] = [...(CSS.highlights.get('sourcecheck-' + label) || [])].map((r) => {
      const copy = r.cloneContents();
      copy.querySelectorAll('.katex-mathml').forEach((n) => n.remove());
      return copy.textContent.replace(/[\\u200b]/g, '').replace(/\\s+/g, ' ').trim();
    });
  }
  return out;
}"""

# Does any marked range start in one block and end in another?
ACROSS_JS = """(blocks) => {
  const BLOCK = new Set(blocks.split(' '));
  const blockOf = (n) => {
    let e = n.nodeType === 1 ? n : n.parentElement;
    while (e && !BLOCK.has(e.tagName)) e = e.parentElement;
    return e;
  };
  const out = [];
  for (const name of ['sourcecheck-contradicted', 'sourcecheck-unsupported', 'sourcecheck-supported']) {
    for (const r of CSS.highlights.get(name) || []) {
      if (blockOf(r.startContainer) !== blockOf(r.endContainer)) out.push(r.toString());
    }
  }
  return out;
}"""


def collapse(text):
    return re.sub(r"\s+", " ", text).strip()


def open_fixture(ext, site, name):
    page = ext.ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site}/{name}.html")
    ready = lambda: ext.sw.evaluate(  # noqa: E731
        "(url) => chrome.tabs.query({}).then(ts => ts.find(t => t.url === url))"
        ".then(t => t && chrome.tabs.sendMessage(t.id, {type: 'ping'})).then(r => !!(r && r.ok)).catch(() => false)",
        page.url,
    )
    wait_until(ready, what="the content script")
    return page, errors


def check_answer(ext, page, selector):
    page.evaluate("(s) => getSelection().selectAllChildren(document.querySelector(s))", selector)
    ext.check_tab(page)
    lc = wait_until(lambda: (lc := ext.last_check()) and lc["status"] in ("done", "error") and lc, what="the check")
    assert lc["status"] == "done", lc
    return lc


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_sentence_of_a_chat_answer_is_sent_and_marked_on_its_own(ext, site, fava_doc, artifacts, name):
    ext.storage({**ext.stored(), "showSupported": True})  # every checked sentence is marked, whatever its label
    page, errors = open_fixture(ext, site, name)
    reference = page.evaluate(REFERENCE_JS, [FIXTURES[name], BLOCKS])
    expected = [s.text for s in split_sentences(reference)]
    lc = check_answer(ext, page, FIXTURES[name])
    sent = [s["text"] for s in lc["sentences"]]
    assert sent == expected, f"sent {len(sent)} sentences; the text with its breaks splits into {len(expected)}"
    assert lc["text"] == reference
    for s in ON_THEIR_OWN[name]:
        assert s in sent, f"{s!r} is not a sentence of its own"

    headings = page.evaluate(
        "(s) => [...document.querySelector(s).querySelectorAll('h1,h2,h3,h4,h5,h6')].map(h => h.textContent.trim())",
        FIXTURES[name],
    )
    labels = {s["text"]: s["label"] for s in lc["sentences"]}
    assert [labels.get(h) for h in headings] == ["skipped"] * len(headings), "a heading was checked"
    checked = [s["text"] for s in lc["sentences"] if s["label"] != "skipped"]
    drawn = [t for texts in page.evaluate(MARKS_JS).values() for t in texts]
    assert sorted(drawn) == sorted(collapse(t) for t in checked), "one mark per checked sentence, each its own"
    assert page.evaluate(ACROSS_JS, BLOCKS) == [], "a mark runs across a block's edge"
    counts = f"{name}: sent {len(sent)}, backend split {len(expected)}, checked {len(checked)}, marks {len(drawn)}"
    print(counts)
    (artifacts / f"counts-{name}.txt").write_text(counts + "\n")
    # The whole answer in one window (a full-page shot would paint the fixed composer over it).
    page.set_viewport_size({"width": 1100, "height": page.evaluate("document.documentElement.scrollHeight") - 120})
    page.wait_for_timeout(200)
    page.screenshot(path=str(artifacts / f"fixtures-{name}.png"))
    assert errors == [], f"the page threw: {errors}"
